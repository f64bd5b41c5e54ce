/// Results written by concurrent workers, one index each.
package final class ConcurrentResults<T>: @unchecked Sendable {
    // @unchecked: each slot is written by exactly one worker and read after all finish.
    // The slots live in a buffer allocated once: writing through an array property from
    // several threads is a concurrent mutating access to the array (scripts/tsan caught it).
    private let storage: UnsafeMutableBufferPointer<Result<T, Error>?>
    package init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }
    deinit {
        _ = storage.deinitialize()
        storage.deallocate()
    }
    package func set(_ i: Int, _ value: Result<T, Error>) { storage[i] = value }
    package func values() throws -> [T] { try storage.map { try $0!.get() } }
}
