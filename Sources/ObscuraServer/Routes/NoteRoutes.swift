import Foundation
import Hummingbird
import ObscuraKit

/// Notes (issue 19; docs/API.md, "Notes"): writing, reading and editing a note, and the
/// photos attached to it. The journal lists notes through `GET /api/items?kind=note`.
struct NoteRoutes {
    /// `POST /api/notes`: a new note, in `folder` (an id) or at the top level.
    struct NewNote: Decodable {
        var title: String?
        var body: String
        var folder: String?
    }
    /// `POST /api/notes/:id`: a new body, and a new title when given.
    struct Edit: Decodable {
        var title: String?
        var body: String
    }
    /// A note as the page reads it: the item, its Markdown body and its attachments.
    struct NoteJSON: Encodable {
        var item: ItemJSON
        var body: String
        var attachments: [ItemJSON]
    }
    struct IDs: Decodable { var ids: [String] }

    /// The largest JSON body of a note request: the largest body, every byte escaped as
    /// `\u00XX`, and room for the rest.
    static let maximumRequestSize = 6 * NoteFormat.maximumBodySize + (64 << 10)

    func register(on router: Router<GalleryContext>) {
        router.post("/api/notes") { request, context -> Response in
            let vault = try context.vault()
            let new = try await Self.decode(NewNote.self, from: request)
            let now = context.now
            let note = try await Blocking.run { () -> NoteJSON in
                let folder = try new.folder.flatMap { $0.isEmpty ? nil : try ItemRoutes.folder($0, in: vault) }
                let row = try vault.addNote(title: new.title, body: new.body, into: folder, now: now)
                return NoteJSON(item: ItemJSON(row), body: new.body, attachments: [])
            }
            return try JSON.response(note, status: .created)
        }
        router.get("/api/notes/:id") { _, context -> Response in
            let vault = try context.vault()
            let session = try context.requireSession()
            let id = try context.parameters.require("id")
            let now = context.now
            let note = try await Blocking.run { () -> NoteJSON in
                // A view-limited note is read only inside a counted view, as any content.
                let row = try EndRoutes.shown(id, .content, in: vault, session: session, now: now)
                let attachments = try vault.attachments(of: row.id).filter { !$0.hasEnded(at: now) }
                return NoteJSON(item: ItemJSON(row), body: try vault.noteBody(row.id), attachments: attachments.map(ItemJSON.init))
            }
            return try JSON.response(note)
        }
        router.post("/api/notes/:id") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let edit = try await Self.decode(Edit.self, from: request)
            let now = context.now
            let note = try await Blocking.run { () -> NoteJSON in
                let row = try vault.editNote(id, title: edit.title, body: edit.body, now: now)
                return NoteJSON(item: ItemJSON(row), body: edit.body, attachments: try vault.attachments(of: row.id).map(ItemJSON.init))
            }
            return try JSON.response(note)
        }
        router.post("/api/notes/:id/attach") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let body = try await JSON.decode(IDs.self, from: request)
            guard !body.ids.isEmpty else { throw APIError.badRequest("ids is empty") }
            let attachments = try await Blocking.run { () -> [ItemJSON] in
                try vault.attach(body.ids, to: id)
                return try vault.attachments(of: id).map(ItemJSON.init)
            }
            return try JSON.response(["attachments": attachments])
        }
        router.post("/api/notes/:id/detach") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let body = try await JSON.decode(IDs.self, from: request)
            let attachments = try await Blocking.run { () -> [ItemJSON] in
                try vault.detach(body.ids, from: id)
                return try vault.attachments(of: id).map(ItemJSON.init)
            }
            return try JSON.response(["attachments": attachments])
        }
    }

    /// Decodes a note request of at most ``maximumRequestSize`` bytes: a note's body is
    /// larger than other requests may be.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer = try await RequestBody.collect(request, upTo: maximumRequestSize)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError.badRequest("malformed JSON body")
        }
    }
}
