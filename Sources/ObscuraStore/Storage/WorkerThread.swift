import Foundation

/// A thread that runs one body, and that its owner can wait for: a pipeline's owner
/// must know its thread has left before it closes the descriptor or frees the buffers
/// that thread uses (``BackgroundWriter``, the chunked writer's read-ahead).
///
/// Waits on a condition variable, for the reason ``BoundedHandoff`` gives.
package final class WorkerThread: @unchecked Sendable {
    // @unchecked: `running` is guarded by `condition`.
    private let condition = NSCondition()
    private var running = false

    /// A worker that has not started; ``join()`` returns at once until ``start(_:)``.
    package init() {}

    /// Runs `body` on a new thread. Call once.
    package func start(_ body: @escaping @Sendable () -> Void) {
        condition.withLock { running = true }
        Thread { [self] in
            body()
            condition.withLock {
                running = false
                condition.broadcast()
            }
        }.start()
    }

    /// Waits until the body has returned; at once if it already has. Safe to call more
    /// than once, and from more than one thread.
    package func join() {
        condition.lock()
        defer { condition.unlock() }
        while running { condition.wait() }
    }
}
