import Foundation
import Hummingbird
import ObscuraCatalog
import ObscuraKit

/// Ends (issue 19; docs/API.md, "Ends"): giving items an end in time or in views, and the
/// viewer's counted views. A view-limited item is shown only inside a view the viewer
/// opened (`POST /api/items/:id/view`): no thumbnail, no preview, no download, no ZIP;
/// its last view deletes it for good when the viewer closes it.
struct EndRoutes {
    /// `POST /api/items/end`: `in` (seconds from now) and `views`; both null clears.
    struct SetEnd: Decodable {
        var ids: [String]
        var `in`: Double?
        var views: Int?
    }

    func register(on router: Router<GalleryContext>) {
        router.post("/api/items/end") { request, context -> Response in
            let vault = try context.vault()
            let body = try await JSON.decode(SetEnd.self, from: request)
            guard !body.ids.isEmpty else { throw APIError.badRequest("ids is empty") }
            if let seconds = body.in, !(seconds.isFinite && seconds > 0) { throw APIError.badRequest("in must be a number of seconds above 0") }
            let now = context.now
            let end = body.in == nil && body.views == nil
                ? nil : ItemEnd(at: body.in.map { now.addingTimeInterval($0) }, views: body.views)
            let rows = try await Blocking.run { () -> [ItemRecord] in
                try vault.setEnd(body.ids, end, now: now)
                return try body.ids.map(vault.item)
            }
            return try JSON.response(["items": rows.map(ItemJSON.init)])
        }
        router.post("/api/items/:id/view") { _, context -> Response in
            let vault = try context.vault()
            let session = try context.requireSession()
            let id = try context.parameters.require("id")
            let now = context.now
            let row = try await Blocking.run { try vault.openView(id, now: now) }
            if row.isViewLimited { session.setView(of: row.id, openedAt: now) }
            return try JSON.response(ItemJSON(row))
        }
        router.post("/api/items/:id/view/close") { _, context -> Response in
            let vault = try context.vault()
            let session = try context.requireSession()
            let id = try context.parameters.require("id")
            let ended = try await Blocking.run { () -> Bool in
                let row = try vault.item(id)
                // Only the session that opened the view closes it (and ends the item).
                guard session.viewOpened(row.id) != nil else { return false }
                session.setView(of: row.id, openedAt: nil)
                return try vault.closeView(row.id)
            }
            return try JSON.response(["ended": ended])
        }
    }

    /// A download of a view-limited item: refused even inside a counted view.
    static let notDownloadable = APIError(.forbidden, "this item is shown only in the viewer and cannot be downloaded")

    /// What a media route may show of an item: its content (original, preview, rendition,
    /// second file), or its thumbnail (the grid's).
    enum Part { case content, picture }

    /// The item `id`, when `session` may be shown `part` of it: 410 once it has ended;
    /// for a view-limited item, 404 for its thumbnail (the grid shows none) and 403 for
    /// content outside a counted view of this session's viewer, or more than
    /// ``ItemEnd/lastViewLimit`` after it opened.
    static func shown(_ id: String, _ part: Part, in vault: Vault, session: Session?, now: Date) throws -> ItemRecord {
        let item = try vault.item(id)
        if item.hasEnded(at: now) { throw VaultError.ended(item.id) }
        guard item.isViewLimited else { return item }
        switch part {
        case .picture: throw APIError.notFound("this item is shown only in the viewer, one counted view at a time")
        case .content:
            // Every view, not only the last, lasts at most as long as a last view may.
            guard let opened = session?.viewOpened(item.id), now.timeIntervalSince(opened) <= ItemEnd.lastViewLimit else {
                throw APIError(.forbidden, "this item is shown only in the viewer, one counted view at a time")
            }
            return item
        }
    }
}
