import Hummingbird
import NIOConcurrencyHelpers

/// How slowly a request body may arrive before the route gives up on it: a route that
/// needs no session (`POST /api/drops`) holds one of a few slots while it reads, and a
/// sender that stalls, or trickles a few bytes now and then, must not hold one for long.
struct BodyPace: Sendable {
    /// The longest wait for the next bytes.
    var idle: Duration
    /// After `grace`, the body must have come at `minimumRate` bytes a second on average.
    var grace: Duration
    var minimumRate: Int64

    /// 15 seconds without a byte; after 30 seconds, 16 KiB a second on average (a 1 GiB
    /// drop may take up to 18 hours, a stalled one holds its slot for 15 seconds).
    static let standard = BodyPace(idle: .seconds(15), grace: .seconds(30), minimumRate: 16 << 10)

    /// Hands each piece of `body` to `handle`, in order.
    ///
    /// - Throws: an ``APIError`` 408 when the body stalls or falls behind this pace; then
    ///   the read is cancelled, and nothing more is handed on.
    func read(_ body: Hummingbird.RequestBody, _ handle: @escaping @Sendable (ByteBuffer) throws -> Void) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        // The last time bytes came, and how many have.
        let progress = NIOLockedValueBox((at: start, bytes: Int64(0)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await piece in body {
                    try handle(piece)
                    progress.withLockedValue { $0 = (clock.now, $0.bytes + Int64(piece.readableBytes)) }
                }
            }
            group.addTask {
                // The watchdog: it ends only when cancelled, once the body is read.
                while true {
                    try await Task.sleep(for: idle / 4)
                    let (last, bytes) = progress.withLockedValue { $0 }
                    let now = clock.now
                    if now - last > idle {
                        throw APIError(.requestTimeout, "the drop stalled; send it again")
                    }
                    let late = now - start - grace
                    if late > .zero, Double(bytes) < Double(minimumRate) * late.seconds {
                        throw APIError(.requestTimeout, "the drop came too slowly; send it again")
                    }
                }
            }
            // The first to finish decides: the body read whole, or the watchdog's error
            // (which cancels the read: the body's sequence ends on cancellation).
            try await group.next()
            group.cancelAll()
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
