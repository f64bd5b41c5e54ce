import ArgumentParser
import Foundation
import ObscuraCatalog
import ObscuraKit

/// `obscura ls`: lists items, newest capture first.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List items, newest first.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Option(help: ArgumentHelp("Only this folder's items (its password is asked if protected).", valueName: "name"))
    var folder: String?

    @OptionGroup var search: SearchOptions

    @Flag(help: "Print one JSON array.")
    var json = false

    /// One item in `ls --json`.
    struct Entry: Encodable {
        var id: String
        var name: String
        var kind: String
        var mimeType: String
        var size: Int64
        var takenAt: String?
        var importedAt: String?
        var folder: String?
        var width: Int?
        var height: Int?
        var duration: Double?
        var favorite: Bool
        var place: String?
        var deletedAt: String?
        var rendition: String?
        /// A pair's second original: a Live Photo's motion or a RAW; nil for other items.
        var companion: Companion?
        /// When the item ends, and the views left before it does (`obscura end`).
        var endsAt: String?
        var viewsLeft: Int?

        /// A pair's second original: its role (`motion`, `raw`), file name, type and size.
        struct Companion: Encodable {
            var role: String
            var name: String
            var mimeType: String
            var size: Int64
            enum CodingKeys: String, CodingKey { case role, name, mimeType = "mime_type", size }
        }

        /// Encodes every key, nulls included.
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id); try c.encode(name, forKey: .name); try c.encode(kind, forKey: .kind)
            try c.encode(mimeType, forKey: .mimeType); try c.encode(size, forKey: .size)
            try c.encode(takenAt, forKey: .takenAt); try c.encode(importedAt, forKey: .importedAt)
            try c.encode(folder, forKey: .folder); try c.encode(width, forKey: .width); try c.encode(height, forKey: .height)
            try c.encode(duration, forKey: .duration); try c.encode(favorite, forKey: .favorite)
            try c.encode(place, forKey: .place); try c.encode(deletedAt, forKey: .deletedAt)
            try c.encode(rendition, forKey: .rendition); try c.encode(companion, forKey: .companion)
            try c.encode(endsAt, forKey: .endsAt); try c.encode(viewsLeft, forKey: .viewsLeft)
        }
        enum CodingKeys: String, CodingKey {
            case id, name, kind, mimeType = "mime_type", size, takenAt = "taken_at", importedAt = "imported_at"
            case folder, width, height, duration, favorite, place, deletedAt = "deleted_at", rendition, companion
            case endsAt = "ends_at", viewsLeft = "views_left"
        }

        init(_ v: ItemView) {
            id = v.record.id; name = v.record.name; kind = v.record.kind.rawValue; mimeType = v.record.mimeType
            size = v.record.size; takenAt = Format.date(v.record.takenAt); importedAt = Format.date(v.record.importedAt)
            folder = v.folderPath; width = v.record.width; height = v.record.height; duration = v.record.duration
            favorite = v.record.favorite; place = v.record.place; deletedAt = Format.date(v.record.deletedAt)
            rendition = v.record.renditionState?.rawValue
            companion = v.record.companion.map { Companion(role: v.record.companionRole?.rawValue ?? "", name: $0.name, mimeType: $0.mimeType, size: $0.size) }
            endsAt = Format.date(v.record.endsAt); viewsLeft = v.record.viewsLeft
        }
    }

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        let scope: ItemScope = try session.folder(folder).map { .folder($0) } ?? .visible
        try Self.print(try Self.all(scope, filter: try search.filter(), in: session.vault), json: json)
    }

    /// Every item of `scope` kept by `filter`, page by page, in the gallery's order.
    static func all(_ scope: ItemScope, filter: ItemFilter, in vault: Vault) throws -> [ItemView] {
        var views = [ItemView]()
        var cursor: String?
        repeat {
            let page = try vault.itemListing(scope: scope, filter: filter, after: cursor, limit: 500)
            views += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return views
    }

    /// Prints items as a table or, with `json`, one JSON array.
    static func print(_ views: [ItemView], json: Bool) throws {
        let entries = views.map(Entry.init)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            Terminal.output(String(decoding: try encoder.encode(entries), as: UTF8.self))
            return
        }
        for e in entries {
            let date = e.takenAt.map { String($0.prefix(10)) } ?? "-"
            let kind = e.companion.map { $0.role == "motion" ? "live" : "raw+" } ?? e.kind
            var ends: [String] = []
            if let at = e.endsAt { ends.append("ends \(at)") }
            if let views = e.viewsLeft { ends.append("\(views) view\(views == 1 ? "" : "s") left") }
            let end = ends.isEmpty ? "" : "  (" + ends.joined(separator: ", ") + ")"
            Terminal.output("\(e.id.prefix(8))  \(kind.padding(toLength: 5, withPad: " ", startingAt: 0))  \(Format.bytes(e.size).padding(toLength: 9, withPad: " ", startingAt: 0))  \(date.padding(toLength: 10, withPad: " ", startingAt: 0))  \(TerminalText.escaped((e.folder.map { $0 + "/" } ?? "") + e.name))\(end)")
        }
        if entries.isEmpty { Terminal.note("No items.") }
    }
}
