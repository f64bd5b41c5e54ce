import Foundation

/// The progressive delay on password guesses (docs/SECURITY.md, "Web gallery"), shared
/// by the whole server so that dropping the cookie does not reset it.
///
/// Every check of a password goes through it: unlock, create, the current and the new
/// password of a change, and folder unlocks. A check that did not prove its password
/// right records a failure: a wrong password, and also every answer to "does this
/// password open a vault?" (create, and the new password of a change), since that is
/// what a failed unlock tells too. No delay for the first ``freeFailures`` failures
/// within ``window``, then 2, 4, 8, ... seconds after the latest one, at most
/// ``maximumDelay``.
///
/// A success erases nothing: failures age out of the window instead. Were a success to
/// reset the count, anyone who knows one password (their own vault's) could interleave
/// it with guesses and never slow down. The throttle lives in memory: a restart forgets
/// it, and a restart costs the attacker the time a person would notice.
final class UnlockThrottle: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    static let freeFailures = 3
    static let maximumDelay: Double = 300
    /// How long a failure counts. At the steady state an attacker is held to about one
    /// guess per ``maximumDelay``: 12 an hour.
    static let window: Double = 3600
    /// Failures remembered at most; past ``maximumDelay`` more would change nothing.
    static let remembered = 64

    private let lock = NSLock()
    /// Times of the failures within ``window``, oldest first.
    private var failures: [Double] = []
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.now = now
    }

    /// Seconds to wait before the next check may run; 0 when it may run now.
    func wait() -> Double {
        lock.withLock {
            let time = now()
            forgetOld(at: time)
            guard let last = failures.last else { return 0 }
            return max(0, last + Self.delay(afterFailures: failures.count) - time)
        }
    }

    /// Records a check that did not prove its password right.
    func recordFailure() {
        lock.withLock {
            let time = now()
            forgetOld(at: time)
            failures.append(time)
            if failures.count > Self.remembered { failures.removeFirst(failures.count - Self.remembered) }
        }
    }

    /// Failures counted now (tests).
    var count: Int {
        lock.withLock {
            forgetOld(at: now())
            return failures.count
        }
    }

    private func forgetOld(at time: Double) {
        if let keep = failures.firstIndex(where: { time - $0 < Self.window }) {
            failures.removeFirst(keep)
        } else {
            failures.removeAll()
        }
    }

    /// The delay after `failures` failures within the window.
    static func delay(afterFailures failures: Int) -> Double {
        guard failures > freeFailures else { return 0 }
        return min(maximumDelay, pow(2, Double(min(failures - freeFailures, 20))))
    }
}
