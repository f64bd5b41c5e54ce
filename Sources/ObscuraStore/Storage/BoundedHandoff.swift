import Foundation

/// A queue between one producer thread and one consumer that holds at most `capacity`
/// elements, so memory stays bounded however slow either side is.
///
/// Either side can end it: the producer with ``finish(throwing:)`` (the consumer takes
/// what is queued, then nil or the error), the consumer with ``cancel(throwing:)`` (the
/// producer's next ``put(_:)`` throws the consumer's error, or `CancellationError`, at
/// once, even while it waits for room). ExportPipe (ObscuraServer), ``BackgroundWriter``
/// and the chunked writer's read-ahead all hand off through it.
///
/// Built on a condition variable rather than dispatch semaphores: libdispatch traps when
/// a semaphore is released while its value is below the one it was made with, which an
/// early cancel does.
public final class BoundedHandoff<Element>: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private let capacity: Int
    private var queue: [Element] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    private var cancellation: Error?

    /// An empty hand-off holding at most `capacity` (at least 1) elements.
    public init(capacity: Int) {
        precondition(capacity > 0, "BoundedHandoff: capacity must be positive")
        self.capacity = capacity
    }

    /// Queues `element`, waiting while the queue is full.
    ///
    /// - Throws: once the consumer has cancelled, the error it gave, or `CancellationError`.
    public func put(_ element: Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw cancellation ?? CancellationError() }
        queue.append(element)
        condition.broadcast()
    }

    /// The producer is done: after what is queued the consumer gets `error`, or nil.
    public func finish(throwing error: Error? = nil) {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        failure = error
        condition.broadcast()
    }

    /// The next element, waiting while none is queued; nil once the producer finished
    /// and everything was taken, or once the hand-off was cancelled.
    ///
    /// - Throws: the producer's error, after the elements queued before it.
    public func take() throws -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished && !cancelled { condition.wait() }
        if !queue.isEmpty {
            condition.broadcast()
            return queue.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// The consumer is gone: drops what is queued and wakes the producer, whose next
    /// ``put(_:)`` throws `error` (a failed write the producer must hear of), or
    /// `CancellationError` when it is nil. Only the first cancel's error counts.
    public func cancel(throwing error: Error? = nil) {
        condition.lock()
        defer { condition.unlock() }
        if !cancelled { cancellation = error }
        cancelled = true
        queue.removeAll()
        condition.broadcast()
    }
}
