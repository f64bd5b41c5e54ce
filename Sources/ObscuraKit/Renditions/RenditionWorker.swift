import Foundation
import ObscuraStore

/// Makes a vault's pending renditions on a thread of its own, one at a time, while the
/// vault is open (the web gallery: after an upload, at unlock, when a folder is opened),
/// and tells how far it is.
public final class RenditionWorker: @unchecked Sendable {
    // @unchecked: every field but `vault` is guarded by `lock`; the vault is thread-safe.
    /// What the worker is doing.
    public struct Status: Sendable, Equatable {
        /// Renditions left to make, the current one included.
        public var pending: Int
        /// The item whose rendition is being made.
        public var current: String?
        /// The share of it done, 0...1.
        public var progress: Double
    }

    private weak var vault: Vault?
    private let lock = NSLock()
    private var running = false
    private var again = false
    private var state = Status(pending: 0, current: nil, progress: 0)

    /// A worker for `vault`, idle until ``start()``.
    public init(vault: Vault) { self.vault = vault }

    /// What the worker is doing now.
    public var status: Status { lock.withLock { state } }

    /// Makes the pending renditions, unless it is at it already (then it looks again for
    /// new ones once done). Ends when none is left, or the vault is locked.
    public func start() {
        let begin = lock.withLock { () -> Bool in
            if running { again = true; return false }
            running = true
            return true
        }
        guard begin else { return }
        WorkerThread().start(name: "obscura.renditions") { [self] in
            while true {
                do {
                    try vault?.makeRenditions { id, index, count, done in
                        self.lock.withLock { self.state = Status(pending: count - index, current: id, progress: done) }
                    }
                } catch {
                    // Locked, or ffmpeg missing: the items stay pending for the next start.
                    // No description: it could name a folder (SECURITY.md, the log).
                    vault?.directory.logger.debug("renditions stopped")
                }
                // Decided under the lock that start() takes: a start after this sees the
                // worker stopped and starts it again.
                let more = lock.withLock { () -> Bool in
                    if again, vault?.isLocked == false {
                        again = false
                        return true
                    }
                    running = false
                    again = false
                    state = Status(pending: 0, current: nil, progress: 0)
                    return false
                }
                if !more { break }
            }
        }
    }
}
