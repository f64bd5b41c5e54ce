import Foundation
import Hummingbird
import Logging
import ObscuraCatalog
import ObscuraKit

/// `POST /api/items/zip` (docs/API.md, "Items"): a selection as one ZIP, streamed as it is
/// made. Files are stored, not compressed (photos and videos are compressed already), each
/// original decrypted as its bytes go out, through the same reads as
/// `/api/items/{id}/original`; nothing is written on the server.
struct ZipRoutes {
    /// The most items one archive may hold.
    static let maximumItems = 10_000
    /// The largest form body: ``maximumItems`` ids of 36 characters as `id=...&` (40 bytes
    /// each) and the CSRF field, with room to spare.
    static let maximumBodySize = 1 << 20

    /// The form's fields: `csrf` once, `id` once per item.
    struct Form: Equatable {
        var csrf: String?
        var ids: [String] = []
    }

    func register(on router: Router<GalleryContext>) {
        router.post("/api/items/zip") { request, context -> Response in
            let form = try await Self.form(from: request)
            // A form post (a download the browser saves itself): the CSRF token is a
            // field, not a header, checked as for /api/export.
            guard let session = context.session, session.checkCSRF(form.csrf) else { throw APIError.csrf }
            let vault = try context.vault()
            guard !form.ids.isEmpty else { throw APIError.badRequest("no items selected") }
            guard form.ids.count <= Self.maximumItems else {
                throw APIError.badRequest("a ZIP holds at most \(Self.maximumItems) items")
            }
            // Every item is found before the answer starts: an unknown one, or one of a
            // locked folder, is the 404 of /original, not a broken download.
            let items = try await Blocking.run { try Self.items(form.ids, in: vault) }
            var names = ZipEntryNames()
            let entries = items.map { item in
                ZipEntry(name: names.unique(item.fileName), size: UInt64(clamping: item.size),
                         modified: Date(timeIntervalSince1970: item.takenAt ?? item.importedAt))
            }
            let timeZone = TimeZone.current
            let length = try ZipStream.archiveSize(of: entries, timeZone: timeZone)
            let headers: HTTPFields = [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"Obscura-\(items.count)-\(items.count == 1 ? "item" : "items").zip\"",
            ]
            let logger = context.logger
            // The length is known in advance, so the browser shows progress, and a
            // download broken off is one it knows to be incomplete.
            let body = ResponseBody(contentLength: Int(length)) { writer in
                var archive = ZipStream(timeZone: timeZone)
                for (item, entry) in zip(items, entries) {
                    try await Self.send(item, as: entry, from: vault, through: &archive, to: &writer, logger: logger)
                }
                try await writer.write(ByteBuffer(bytes: try archive.finish()))
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    /// Reads the form body (`application/x-www-form-urlencoded`).
    static func form(from request: Request) async throws -> Form {
        parse(String(buffer: try await RequestBody.collect(request, upTo: maximumBodySize)))
    }

    /// The fields of a form body; the first `csrf` counts, every `id` in order.
    static func parse(_ body: String) -> Form {
        var form = Form()
        // FormQuery keeps one value a key and `id` repeats: each pair goes through it alone.
        for pair in body.split(separator: "&") {
            let field = FormQuery(String(pair))
            if let id = field["id"] {
                form.ids.append(id)
            } else if form.csrf == nil, let token = field["csrf"] {
                form.csrf = token
            }
        }
        return form
    }

    /// The originals of the items `ids` name, in order, each once: a pair's still and
    /// then its second original (a motion, a RAW), as two entries.
    static func items(_ ids: [String], in vault: Vault) throws -> [ItemRecord] {
        var seen = Set<String>()
        return try ids.flatMap { id -> [ItemRecord] in
            // A view-limited item goes nowhere but the viewer; an ended one nowhere.
            let item = try EndRoutes.shown(id, .content, in: vault, session: nil, now: Date())
            guard seen.insert(item.id).inserted else { return [] }
            return [item] + (item.companion.map { [$0] } ?? [])
        }
    }

    /// A write to the client failed: it went away, and there is nothing to report.
    private struct ClientGone: Error {}

    /// Ends a download abruptly: thrown from the body writer, it makes the server close
    /// the connection short of its `Content-Length` and with no central directory, so the
    /// client holds a broken download, never a ZIP that looks whole with wrong bytes in it.
    struct Aborted: Error {}

    /// Writes one entry: its local header, its original decrypted piece by piece, its data
    /// descriptor. An original that cannot be opened or read whole (a chunk that fails
    /// its tag, a folder locked meanwhile, a size that changed) aborts the archive.
    private static func send(
        _ item: ItemRecord, as entry: ZipEntry, from vault: Vault, through zip: inout ZipStream,
        to writer: inout any ResponseBodyWriter, logger: Logger
    ) async throws {
        do {
            let reader = try await Blocking.run { try vault.openOriginal(item) }
            try await write(zip.begin(entry), to: &writer)
            try await MediaRoutes.stream(reader, 0..<reader.size) { piece in
                try piece.withUnsafeReadableBytes { try zip.update($0) }
                try await write(piece, to: &writer)
            }
            try await write(zip.end(), to: &writer)
        } catch is ClientGone {
            throw Aborted()
        } catch {
            // The id only: the error could name a pool file, and the item's name is private.
            logger.error("ZIP download broken off: an original could not be read", metadata: ["item": "\(item.id)"])
            throw Aborted()
        }
    }

    private static func write(_ bytes: [UInt8], to writer: inout any ResponseBodyWriter) async throws {
        try await write(ByteBuffer(bytes: bytes), to: &writer)
    }

    private static func write(_ buffer: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        do {
            try await writer.write(buffer)
        } catch {
            throw ClientGone()
        }
    }
}
