import Foundation
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraStore

/// The one bounded hand-off every producer/consumer pipeline uses: how each side's end
/// reaches the other.
@Suite struct BoundedHandoffTests {
    struct Stop: Error, Equatable {}

    @Test func theConsumerTakesWhatIsQueuedThenTheProducersError() throws {
        let handoff = BoundedHandoff<Int>(capacity: 2)
        try handoff.put(1)
        try handoff.put(2)
        handoff.finish(throwing: Stop())
        #expect(try handoff.take() == 1)
        #expect(try handoff.take() == 2)
        #expect(throws: Stop.self) { try handoff.take() }
    }

    @Test func aCancelWakesAWaitingProducerWithTheConsumersError() throws {
        let handoff = BoundedHandoff<Int>(capacity: 1)
        let outcome = Outcome()
        let producer = WorkerThread()
        producer.start {
            // The second put waits for room that only the cancel ends.
            outcome.set(Result { try handoff.put(1); try handoff.put(2) })
        }
        Thread.sleep(forTimeInterval: 0.05)
        handoff.cancel(throwing: Stop())
        producer.join()
        #expect(throws: Stop.self) { try outcome.get() }
        #expect(try handoff.take() == nil, "a cancel drops what was queued")
    }

    @Test func aPlainCancelIsACancellationError() {
        let handoff = BoundedHandoff<Int>(capacity: 1)
        handoff.cancel()
        handoff.cancel(throwing: Stop())
        #expect(throws: CancellationError.self, "only the first cancel's error counts") { try handoff.put(1) }
    }

    /// The producer thread's result, read after it has left.
    final class Outcome: @unchecked Sendable {
        // @unchecked: written by the producer before it leaves, read after join().
        private var result: Result<Void, Error>?
        func set(_ result: Result<Void, Error>) { self.result = result }
        func get() throws { try result!.get() }
    }
}
