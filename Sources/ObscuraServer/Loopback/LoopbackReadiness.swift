import NIOConcurrencyHelpers

/// Counts the listening sockets of a loopback gallery, so that its link is printed once,
/// after the last of them listens (docs/API.md, "Loopback").
final class LoopbackReadiness: Sendable {
    private let remaining: NIOLockedValueBox<Int>

    /// Waits for `expected` sockets.
    init(expected: Int) { remaining = NIOLockedValueBox(expected) }

    /// Records one socket listening; true exactly once, for the last.
    func arrived() -> Bool {
        remaining.withLockedValue { count in
            count -= 1
            return count == 0
        }
    }
}
