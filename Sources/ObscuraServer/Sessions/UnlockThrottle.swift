import Foundation

/// The progressive delay on failed unlocks (docs/SECURITY.md, session lifecycle), shared by
/// the whole server so that dropping the cookie does not reset it: no delay for the
/// first ``freeFailures`` failures, then 2, 4, 8, ... seconds, at most ``maximumDelay``.
/// A success resets it. It lives in memory: a restart forgets it, and a restart costs
/// the attacker the time a person would notice.
final class UnlockThrottle: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    static let freeFailures = 3
    static let maximumDelay: Double = 300

    private let lock = NSLock()
    private var failures = 0
    private var notBefore: Double = 0
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.now = now
    }

    /// Seconds to wait before the next attempt may run; 0 when it may run now.
    func wait() -> Double {
        lock.withLock { max(0, notBefore - now()) }
    }

    /// Records the outcome of an attempt.
    func record(success: Bool) {
        lock.withLock {
            if success {
                failures = 0
                notBefore = 0
                return
            }
            failures += 1
            notBefore = now() + Self.delay(afterFailures: failures)
        }
    }

    /// The delay after `failures` consecutive failures.
    static func delay(afterFailures failures: Int) -> Double {
        guard failures > freeFailures else { return 0 }
        return min(maximumDelay, pow(2, Double(min(failures - freeFailures, 20))))
    }
}
