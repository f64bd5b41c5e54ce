import Foundation
import ObscuraCrypto

/// Writes owned pieces to a file descriptor on its own thread, in order, at most
/// ``depth`` pieces behind the producer, so that sealing overlaps the kernel's copy into
/// the page cache: on the machines measured that copy costs more than the sealing
/// (docs/BENCHMARKS.md, "Export and import"). The first write error stops the writing and
/// is thrown by the producer's next ``write(_:)`` and by ``finish()``.
package final class BackgroundWriter: @unchecked Sendable {
    // @unchecked: the pieces pass through `pieces`; `failure` is written by the thread
    // before it leaves and read only after `thread.join()`.
    /// Pieces queued and not yet written, at most.
    static let depth = 3

    private let fd: Int32
    private let path: String
    private let pieces = BoundedHandoff<SealedBytes>(capacity: depth)
    private let thread = WorkerThread()
    private var failure: Error?

    /// Starts the writing thread for `fd`; `path` names the file in errors. Call
    /// ``finish()`` before closing `fd`, on every path.
    package init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        thread.start { [self] in run() }
    }

    /// Queues `piece`, waiting while ``depth`` pieces are queued.
    ///
    /// - Throws: the write error, once the thread has stopped on one.
    package func write(_ piece: SealedBytes) throws {
        try pieces.put(piece)
    }

    /// Waits until every queued piece is written and the thread has left; throws the
    /// first write error. Safe to call more than once.
    package func finish() throws {
        pieces.finish()
        thread.join()
        if let failure { throw failure }
    }

    private func run() {
        // The disk starts on what is written while later pieces are sealed, instead of
        // all of it at the caller's final fsync.
        var writeback = Writeback(fd: fd)
        do {
            while let piece = try pieces.take() {
                try piece.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
                writeback.wrote(piece.count)
            }
        } catch {
            failure = error
            // Drops what is queued, so that the producer never waits for room that would
            // not come, and hands it the error.
            pieces.cancel(throwing: error)
        }
    }
}
