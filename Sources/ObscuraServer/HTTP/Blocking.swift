import Dispatch

/// Runs vault work (key derivation, file I/O, decryption) on a dispatch queue, off
/// Swift's cooperative thread pool: on a 2-core machine that pool has two threads, and
/// one 0.5 s unlock sweep on it would stall every other request.
enum Blocking {
    private static let queue = DispatchQueue(label: "obscura.server.blocking", qos: .userInitiated, attributes: .concurrent)

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
