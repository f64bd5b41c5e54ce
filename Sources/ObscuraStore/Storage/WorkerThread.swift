import Foundation

/// A thread that runs one body, and that its owner can wait for: a pipeline's owner
/// must know its thread has left before it closes the descriptor or frees the buffers
/// that thread uses (``BackgroundWriter``, the chunked writer's read-ahead).
///
/// The one way the product starts a thread of its own (issue 35): work that blocks for
/// long (a backup, a video conversion, an export's sealing loop, a restore's progress
/// walk) runs here rather than on the concurrency pool, whose few threads it would hold.
/// ObscuraImaging, beside this module (neither sees the other), keeps two raw threads that feed and drain a
/// tool's pipes.
///
/// Waits on a condition variable, for the reason ``BoundedHandoff`` gives.
package final class WorkerThread: @unchecked Sendable {
    // @unchecked: `running` is guarded by `condition`.
    private let condition = NSCondition()
    private var running = false

    /// A worker that has not started; ``join()`` returns at once until ``start(_:)``.
    package init() {}

    /// Runs `body` on a new thread, named `name` where one is given (what a debugger and
    /// `top -H` show). Call once.
    package func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        condition.withLock { running = true }
        let thread = Thread { [self] in
            body()
            condition.withLock {
                running = false
                condition.broadcast()
            }
        }
        if let name { thread.name = name }
        thread.start()
    }

    /// Waits until the body has returned; at once if it already has. Safe to call more
    /// than once, and from more than one thread.
    package func join() {
        condition.lock()
        defer { condition.unlock() }
        while running { condition.wait() }
    }
}
