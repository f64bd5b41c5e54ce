/// Results written by concurrent workers, one index each.
final class ConcurrentResults<T>: @unchecked Sendable {
    // @unchecked: each index is written by exactly one worker and read after all finish.
    private var storage: [Result<T, Error>?]
    init(count: Int) { storage = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<T, Error>) { storage.withUnsafeMutableBufferPointer { $0[i] = value } }
    func values() throws -> [T] { try storage.map { try $0!.get() } }
}
