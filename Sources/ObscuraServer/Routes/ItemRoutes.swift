import Foundation
import Hummingbird
import ObscuraCatalog
import ObscuraKit

/// `/api/items...` and `/api/trash/...`: listing and search, one item, delete (to the
/// trash), restore, delete for good, move, favourite (docs/API.md, "Items", "Trash").
/// The media behind an item is served by ``MediaRoutes``.
struct ItemRoutes {
    /// Items per page when the client does not say, and the most it may ask for.
    static let defaultPageSize = 200
    static let maximumPageSize = 500

    struct Page: Encodable {
        var items: [ItemJSON]
        var nextCursor: String?
        var total: Int

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(items, forKey: .items)
            try c.encodeOrNull(nextCursor, forKey: .nextCursor)
            try c.encode(total, forKey: .total)
        }
        private enum CodingKeys: String, CodingKey { case items, nextCursor, total }
    }

    struct Months: Encodable {
        struct Month: Encodable { var month: String; var count: Int }
        var months: [Month]
    }
    struct IDs: Decodable { var ids: [String] }
    struct Move: Decodable { var ids: [String]; var folder: String? }
    struct Favorite: Decodable { var favorite: Bool }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/items") { request, context -> Response in
            let vault = try context.vault()
            let query = FormQuery(request.uri.query)
            let limit = min(max(Int(query["limit"] ?? "") ?? Self.defaultPageSize, 1), Self.maximumPageSize)
            let cursor = query["cursor"]
            let folder = query["folder"]
            let trash = query["trash"] == "1"
            let filter = try Self.filter(query)
            let page = try await Blocking.run { () -> Page in
                let scope: ItemScope
                switch folder {
                case _ where trash: scope = .trash
                case nil, "": scope = .library
                case "root": scope = .topLevel
                case let id?: scope = .folder(try Self.folder(id, in: vault))
                }
                let page = try vault.itemListing(scope: scope, filter: filter, after: cursor, limit: limit)
                return Page(items: page.items.map { ItemJSON($0.record) }, nextCursor: page.nextCursor, total: page.total)
            }
            return try JSON.response(page)
        }
        router.get("/api/items/months") { request, context -> Response in
            let vault = try context.vault()
            let query = FormQuery(request.uri.query)
            let months = try await Blocking.run { () -> Months in
                let scope: ItemScope
                switch query["folder"] {
                case _ where query["trash"] == "1": scope = .trash
                case nil, "": scope = .library
                case "root": scope = .topLevel
                case let id?: scope = .folder(try Self.folder(id, in: vault))
                }
                let months = try vault.months(scope: scope, favoritesOnly: query["favorites"] == "1")
                return Months(months: months.map { .init(month: $0.month, count: $0.count) })
            }
            return try JSON.response(months)
        }
        router.get("/api/items/:id") { _, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let now = context.now
            return try JSON.response(ItemJSON(try await Blocking.run {
                let item = try vault.item(id)
                // An ended item shows nothing, its name and place included, even before
                // the sweep deletes it.
                if item.hasEnded(at: now) { throw VaultError.ended(item.id) }
                return item
            }))
        }
        router.post("/api/items/delete") { request, context -> Response in
            let vault = try context.vault()
            let body = try await JSON.decode(IDs.self, from: request)
            try await Blocking.run { try vault.trashItems(body.ids) }
            return JSON.noContent()
        }
        router.post("/api/trash/restore") { request, context -> Response in
            let vault = try context.vault()
            let body = try await JSON.decode(IDs.self, from: request)
            try await Blocking.run { try vault.restoreItems(body.ids) }
            return JSON.noContent()
        }
        router.post("/api/trash/delete") { request, context -> Response in
            let vault = try context.vault()
            let body = try await JSON.decode(IDs.self, from: request)
            try await Blocking.run {
                // Only what is in the trash: a delete for good is never one step.
                if let live = try body.ids.map(vault.item).first(where: { !$0.isTrashed }) { throw VaultError.notInTrash(live.id) }
                try vault.deleteItems(body.ids)
            }
            return JSON.noContent()
        }
        router.post("/api/trash/empty") { _, context -> Response in
            let vault = try context.vault()
            let deleted = try await Blocking.run { try vault.emptyTrash() }
            return try JSON.response(["deleted": deleted])
        }
        router.post("/api/items/move") { request, context -> Response in
            let vault = try context.vault()
            let body = try await JSON.decode(Move.self, from: request)
            try await Blocking.run {
                let target = try body.folder.map { try Self.folder($0, in: vault) }
                try vault.moveItems(body.ids, to: target)
            }
            // A video moved across a protection boundary gets its rendition made again.
            try context.renditions().start()
            return JSON.noContent()
        }
        router.post("/api/items/:id/favorite") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let body = try await JSON.decode(Favorite.self, from: request)
            return try JSON.response(ItemJSON(try await Blocking.run { try vault.setFavorite(id, body.favorite) }))
        }
    }

    /// The search and filters of a listing (docs/API.md, "Items"): `q`, `place`, `kind`,
    /// `from` and `to` (days, months or years, inclusive), `favorites`.
    static func filter(_ query: FormQuery) throws -> ItemFilter {
        func period(_ key: String) throws -> (start: Double, end: Double)? {
            guard let text = query[key], !text.isEmpty else { return nil }
            guard let period = ItemFilter.period(text) else {
                throw APIError(.badRequest, "\(key) takes a date as YYYY, YYYY-MM or YYYY-MM-DD")
            }
            return period
        }
        var kind: ItemKind?
        if let text = query["kind"], !text.isEmpty {
            guard let value = ItemKind(rawValue: text) else { throw APIError(.badRequest, "kind is photo, video, file or note") }
            kind = value
        }
        let filter = ItemFilter(favoritesOnly: query["favorites"] == "1", kind: kind, from: try period("from")?.start,
                                before: try period("to")?.end, text: query["q"], place: query["place"])
        if let start = filter.from, let end = filter.before, start >= end { throw APIError(.badRequest, "from is after to") }
        return filter
    }

    /// The folder whose id is `id`.
    static func folder(_ id: String, in vault: Vault) throws -> FolderRecord {
        guard let folder = try vault.folders().first(where: { $0.id == id }) else { throw VaultError.noSuchFolder(id) }
        return folder
    }
}
