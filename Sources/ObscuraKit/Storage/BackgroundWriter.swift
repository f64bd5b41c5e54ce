import Foundation
import ObscuraCrypto

/// Writes owned pieces to a file descriptor on its own thread, in order, at most
/// ``depth`` pieces behind the producer, so that sealing overlaps the kernel's copy into
/// the page cache: on the machines measured that copy costs more than the sealing
/// (docs/BENCHMARKS.md, "Export and import"). The first write error stops the writing and
/// is thrown by the producer's next ``write(_:)`` and by ``finish()``.
final class BackgroundWriter: @unchecked Sendable {
    // @unchecked: `queue` and `failure` are guarded by `lock`; the semaphores hand off.
    /// Pieces queued and not yet written, at most.
    static let depth = 3

    private let fd: Int32
    private let path: String
    private let lock = NSLock()
    /// Made at 0 and signalled in `init`, not made at ``depth``: libdispatch traps when a
    /// semaphore is released below the value it was made with.
    private let space = DispatchSemaphore(value: 0)
    private let ready = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    /// nil marks the end.
    private var queue: [SealedBytes?] = []
    private var failure: Error?
    private var finished = false

    /// Starts the writing thread for `fd`; `path` names the file in errors. Call
    /// ``finish()`` before closing `fd`, on every path.
    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        for _ in 0..<Self.depth { space.signal() }
        Thread { [self] in run() }.start()
    }

    /// Queues `piece`, waiting while ``depth`` pieces are queued.
    func write(_ piece: SealedBytes) throws {
        space.wait()
        try lock.withLock {
            if let failure { throw failure }
            queue.append(piece)
        }
        ready.signal()
    }

    /// Waits until every queued piece is written and the thread has left; throws the
    /// first write error. Safe to call more than once.
    func finish() throws {
        let first = lock.withLock { () -> Bool in
            defer { finished = true }
            if !finished { queue.append(nil) }
            return !finished
        }
        if first {
            ready.signal()
            exited.wait()
        }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    private func run() {
        defer { exited.signal() }
        // The disk starts on what is written while later pieces are sealed, instead of
        // all of it at the caller's final fsync.
        var writeback = Writeback(fd: fd)
        while true {
            ready.wait()
            guard let piece = lock.withLock({ queue.removeFirst() }) else { return }
            // After a failure the queue is drained without writing, so that the producer
            // never waits for space that would not come.
            if lock.withLock({ failure == nil }) {
                do {
                    try piece.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
                    writeback.wrote(piece.count)
                } catch {
                    lock.withLock { failure = error }
                }
            }
            space.signal()
        }
    }
}
