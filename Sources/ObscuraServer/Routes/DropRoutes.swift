import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
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
    /// A blob is held in memory while it is checked and written, and the page holds it
    /// whole too, so the bound is well under the format's 4 GiB (§10.5).
    static let defaultContentLimit: Int64 = 1 << 30
    /// Drops taken in at once; more wait for none and are refused with 429, so that a
    /// flood of posts cannot hold more than this many bodies in memory.
    static let maximumConcurrent = 2

    /// The largest blob accepted, in bytes.
    let limit: Int64
    /// Drops being received now.
    private let inFlight = NIOLockedValueBox(0)

    /// A route that takes drops of up to `contentLimit` content bytes.
    init(contentLimit: Int64 = Self.defaultContentLimit) {
        limit = Self.blobSize(contentSize: contentLimit)
    }

    /// §10.3: the size of the blob of a drop of `contentSize` bytes with the longest name
    /// (§10.4): 52 + P + 16·max(1, ⌈P / 262144⌉).
    static func blobSize(contentSize: Int64) -> Int64 {
        let plain = contentSize + 4 + Int64(DropFormat.maximumNameBytes)
        let chunk: Int64 = 262_144
        return 52 + plain + 16 * max(1, (plain + chunk - 1) / chunk)
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
            let body = try await RequestBody.collect(request, upTo: Int(limit))
            guard let store = context.store else { throw APIError(.internalServerError, "no vault directory") }
            let inbox = DropInbox(vaultPath: store.directory.path)
            do {
                // Written from the body's own buffer: a blob of up to 1 GiB is held once.
                _ = try await Blocking.run { try body.withUnsafeReadableBytes { try inbox.add(blob: $0) } }
            } catch DropError.inboxFull {
                throw APIError(.init(code: 507, reasonPhrase: "Insufficient Storage"), DropError.inboxFull.description)
            } catch let error as DropError {
                throw APIError(.badRequest, error.description)
            }
            // The blob's name would say nothing useful, and the page needs nothing back.
            return Response(status: .created)
        }
    }
}
