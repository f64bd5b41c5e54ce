import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import ObscuraCrypto
import ObscuraKit

/// `POST /api/drops`: one drop blob sealed by the drop page (docs/FORMAT.md §10.3), its
/// raw bytes as the body, put in the directory's shared inbox (§10.5) for the vault it is
/// addressed to to take in at its next unlock (docs/API.md, "Drops").
///
/// It needs no session, since the vault is locked when it is used; what it can be made to
/// do is bounded instead: the body's size, how many drops are taken at once, and where a
/// post may come from. The server cannot open a blob, so it checks only its header and
/// length (§10.5); whoever holds no code can add nothing that a vault takes in.
struct DropRoutes {
    /// The route's path; ``SessionMiddleware`` lets it through without a session or CSRF token.
    static let path = "/api/drops"
    /// A post must carry this header with the value `1`. A page of another origin cannot
    /// send it without a CORS preflight, which this server never grants, and a form cannot
    /// send it at all: the cross-site defence of a route that has no session to hold a
    /// CSRF token. (A post that names its origin must also name this one: OriginMiddleware.)
    static let markerHeader = HTTPField.Name("X-Obscura-Drop")!
    /// The largest drop content the page seals and this route takes by default: 1 GiB.
    /// The route streams a blob to the inbox as it arrives; the page holds it whole, so
    /// the bound is well under the format's 4 GiB (§10.5).
    static let defaultContentLimit: Int64 = 1 << 30
    /// Drops received at once; more are refused with 429. Each holds a piece of its body
    /// in memory, not the body, and a slot is freed by a sender that stalls (``BodyPace``).
    static let maximumConcurrent = 8

    /// The largest blob accepted, in bytes.
    let limit: Int64
    /// How slowly a body may come.
    let pace: BodyPace
    /// Drops being received now.
    private let inFlight = NIOLockedValueBox(0)

    /// A route that takes drops of up to `contentLimit` content bytes, arriving at `pace`.
    init(contentLimit: Int64 = Self.defaultContentLimit, pace: BodyPace = .standard) {
        limit = DropFormat.blobSize(contentSize: contentLimit)
        self.pace = pace
    }

    func register(on router: Router<GalleryContext>) {
        router.post(RouterPath(stringLiteral: Self.path)) { request, context -> Response in
            guard request.headers[Self.markerHeader] == "1" else {
                throw APIError(.forbidden, "a drop must come from the drop page")
            }
            if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > limit {
                throw APIError(.contentTooLarge, "drop too large (limit \(limit) bytes)")
            }
            guard inFlight.withLockedValue({ count -> Bool in
                guard count < Self.maximumConcurrent else { return false }
                count += 1
                return true
            }) else {
                var busy = APIError(.tooManyRequests, "other drops are being received; try again shortly",
                                    headers: [.retryAfter: "2"])
                busy.retryAfter = 2
                throw busy
            }
            defer { inFlight.withLockedValue { $0 -= 1 } }
            guard let store = context.store else { throw APIError(.internalServerError, "no vault directory") }
            let length = request.headers[.contentLength].flatMap { UInt64($0) }
            let reception = Reception(inbox: DropInbox(vaultPath: store.directory.path), length: length, limit: limit)
            do {
                try await pace.read(request.body) { piece in try reception.take(piece) }
                let receiver = try reception.receiver()
                // The fsync of up to 1 GiB, off the server's threads.
                _ = try await Blocking.run { try receiver.finish() }
            } catch DropError.inboxFull {
                throw APIError(.init(code: 507, reasonPhrase: "Insufficient Storage"), DropError.inboxFull.description)
            } catch DropError.tooLarge {
                throw APIError(.contentTooLarge, "drop too large (limit \(limit) bytes)")
            } catch let error as DropError {
                throw APIError(.badRequest, error.description)
            }
            // The blob's name would say nothing useful, and the page needs nothing back.
            return Response(status: .created)
        }
    }
}

/// One post's blob as it arrives: the header gathered and checked before a byte is
/// written, then every piece written through to the inbox (``DropReceiver``), so that a
/// post holds one piece in memory whatever its size, and a post that is no drop blob is
/// refused at its 52nd byte.
private final class Reception: @unchecked Sendable {
    private let inbox: DropInbox
    private let length: UInt64?
    private let limit: Int64
    private var header: [UInt8] = []
    private var receiving: DropReceiver?

    init(inbox: DropInbox, length: UInt64?, limit: Int64) {
        self.inbox = inbox
        self.length = length
        self.limit = limit
    }

    /// Takes the next piece of the body (pieces come one at a time, in order).
    func take(_ piece: ByteBuffer) throws {
        try piece.withUnsafeReadableBytes { bytes in
            var rest = bytes
            if receiving == nil {
                let wanted = min(ChunkedFormatV2.headerSize - header.count, rest.count)
                header += rest.prefix(wanted)
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(wanted))
                guard header.count == ChunkedFormatV2.headerSize else { return }
                let receiver = try inbox.receive(header: header, length: length)
                guard receiver.expectedSize <= UInt64(limit) else {
                    receiver.abandon()
                    throw DropError.tooLarge
                }
                try header.withUnsafeBytes { try receiver.append($0) }
                receiving = receiver
            }
            try receiving!.append(rest)
        }
    }

    /// The receiver once the body is read; a body shorter than a header is no blob.
    func receiver() throws -> DropReceiver {
        guard let receiving else { throw DropError.malformedBlob("shorter than a header") }
        return receiving
    }
}
