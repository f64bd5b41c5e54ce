import Foundation
import Hummingbird
import ObscuraCatalog
import ObscuraKit

/// An item's thumbnail, preview and original (docs/API.md, "Items"). Originals are
/// served with HTTP Range (RFC 9110 §14): a request decrypts only the chunks its range
/// touches, so a video can start and seek anywhere.
struct MediaRoutes {
    /// Plaintext bytes read (and decrypted) per step of a streamed response: four
    /// 256 KiB chunks, few enough to keep memory flat, enough to keep the socket busy.
    static let streamPiece: UInt64 = 1 << 20

    func register(on router: Router<GalleryContext>) {
        router.get("/api/items/:id/thumbnail") { _, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            guard let jpeg = try await Blocking.run({ try vault.thumbnail(try EndRoutes.shown(id, .picture, in: vault, session: session, now: now)) }) else {
                throw APIError.notFound("this item has no thumbnail")
            }
            return Self.jpeg(jpeg)
        }
        router.get("/api/items/:id/preview") { _, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            guard let jpeg = try await Blocking.run({ try vault.preview(try EndRoutes.shown(id, .content, in: vault, session: session, now: now)) }) else {
                throw APIError.notFound("this item has no preview")
            }
            return Self.jpeg(jpeg)
        }
        router.get("/api/items/:id/full") { _, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            guard let jpeg = try await Blocking.run({ try vault.fullImage(try EndRoutes.shown(id, .content, in: vault, session: session, now: now)) }) else {
                throw APIError.notFound("this item has no full-size image")
            }
            return Self.jpeg(jpeg)
        }
        router.get("/api/items/:id/original") { request, context -> Response in
            let vault = try context.vault()
            let download = request.uri.queryParameters["download"] == "1"
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            let (item, reader) = try await Blocking.run { () -> (ItemRecord, OriginalReader) in
                let item = try EndRoutes.shown(id, .content, in: vault, session: session, now: now)
                if item.isViewLimited && download { throw EndRoutes.notDownloadable }
                return (item, try vault.openOriginal(item))
            }
            return Self.original(item, reader: reader, request: request)
        }
        router.get("/api/items/:id/rendition") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            let (item, reader) = try await Blocking.run { () -> (ItemRecord, OriginalReader) in
                let item = try EndRoutes.shown(id, .content, in: vault, session: session, now: now)
                guard item.renditionState == .ready else { throw APIError.notFound("this item has no rendition") }
                return (item, try vault.openRendition(item))
            }
            // Served as an original is, ranges and all, as the MP4 it is; a download of
            // the item takes the original (`/original?download=1`).
            var shown = item
            shown.mimeType = Vault.renditionMimeType
            shown.mediaId = item.renditionId ?? item.mediaId
            return Self.original(shown, reader: reader, request: request, downloadable: false)
        }
        router.get("/api/items/:id/companion") { request, context -> Response in
            let vault = try context.vault()
            let download = request.uri.queryParameters["download"] == "1"
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            let (item, reader) = try await Blocking.run { () -> (ItemRecord, OriginalReader) in
                let item = try EndRoutes.shown(id, .content, in: vault, session: session, now: now)
                if item.isViewLimited && download { throw EndRoutes.notDownloadable }
                guard let companion = item.companion else { throw APIError.notFound("this item has no second file") }
                return (companion, try vault.openCompanion(item))
            }
            return Self.original(item, reader: reader, request: request)
        }
        router.get("/api/items/:id/motion") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let session = context.session, now = context.now
            let (item, reader) = try await Blocking.run { () -> (ItemRecord, OriginalReader) in
                let item = try EndRoutes.shown(id, .content, in: vault, session: session, now: now)
                guard var shown = item.motion else { throw APIError.notFound("this item has no motion") }
                // What a browser plays; the movie as imported is /companion.
                switch item.renditionState {
                case .pending: throw APIError.notFound("the motion is still being converted")
                case .failed: throw APIError.notFound("the motion could not be converted for the browser")
                case .ready:
                    shown.mimeType = Vault.renditionMimeType
                    shown.mediaId = item.renditionId ?? shown.mediaId
                case nil: break
                }
                return (shown, try vault.openMotion(item))
            }
            return Self.original(item, reader: reader, request: request, downloadable: false)
        }
        router.get("/api/renditions") { request, context -> Response in
            let status = try context.renditions().status
            // The state of one item, for the viewer waiting on it; read without counting
            // as activity, like the status itself.
            var state: String? = nil
            if let id = request.uri.queryParameters["id"].map(String.init) {
                let vault = try context.vaultWithoutActivity()
                state = try await Blocking.run { try vault.item(id).renditionState?.rawValue }
            }
            return try JSON.response(RenditionStatusJSON(
                pending: status.pending, current: status.current, progress: status.progress, state: state))
        }
    }

    /// What the background conversion is doing (docs/API.md, "Items").
    struct RenditionStatusJSON: Encodable {
        var pending: Int
        var current: String?
        var progress: Double
        var state: String?

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(pending, forKey: .pending)
            try c.encode(current, forKey: .current)
            try c.encode(progress, forKey: .progress)
            try c.encodeIfPresent(state, forKey: .state)
        }

        private enum CodingKeys: String, CodingKey { case pending, current, progress, state }
    }

    static func jpeg(_ bytes: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: "image/jpeg"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The original, whole or one range of it, streamed.
    static func original(_ item: ItemRecord, reader: OriginalReader, request: Request, downloadable: Bool = true) -> Response {
        let size = reader.size
        // Strong validator: the pool file is replaced (new media id) whenever the bytes
        // could change, and an item's bytes never change in place.
        let etag = "\"\(item.id.prefix(8))-\(item.mediaId.prefix(8))-\(size)\""
        var headers: HTTPFields = [
            .contentType: item.mimeType.isEmpty ? "application/octet-stream" : item.mimeType,
            .acceptRanges: "bytes",
            .eTag: etag,
        ]
        if downloadable && request.uri.queryParameters["download"] == "1" {
            headers[.contentDisposition] = contentDisposition(filename: item.fileName)
        }
        var range = ByteRange.resolve(request.headers[.range], size: size)
        // If-Range: a range of a representation the client no longer holds is useless;
        // send the whole one (RFC 9110 §13.1.5). Only our strong ETag can match.
        if let ifRange = request.headers[.ifRange], ifRange != etag { range = .whole }
        let span: Range<UInt64>
        let status: HTTPResponse.Status
        switch range {
        case .whole:
            span = 0..<size
            status = .ok
        case let .partial(r):
            span = r
            status = .partialContent
            headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound - 1)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let body = ResponseBody(contentLength: Int(span.count)) { writer in
            try await stream(reader, span) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Reads bytes `span` of an original, ``streamPiece`` at a time, each decrypted off the
    /// cooperative pool and handed to `send` before the next is read: how the gallery
    /// streams originals, one at a time here and many in one archive in ``ZipRoutes``.
    static func stream(_ reader: OriginalReader, _ span: Range<UInt64>, to send: (ByteBuffer) async throws -> Void) async throws {
        var offset = span.lowerBound
        while offset < span.upperBound {
            let end = min(offset + streamPiece, span.upperBound)
            let from = offset
            let bytes = try await Blocking.run { try reader.read(from..<end) }
            try await send(ByteBuffer(bytes: bytes))
            offset = end
        }
    }

    /// `attachment` with the name as RFC 6266 / RFC 8187 wants it: an ASCII fallback and
    /// the UTF-8 name percent-encoded.
    private static let attrChar = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func contentDisposition(filename: String) -> String {
        let ascii = String(filename.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        let encoded = filename.addingPercentEncoding(withAllowedCharacters: Self.attrChar) ?? ascii
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
