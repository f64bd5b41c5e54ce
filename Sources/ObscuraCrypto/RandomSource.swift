import Crypto
import Foundation

/// A source of random bytes. Production code uses ``SystemRandom``; test-vector
/// generators pass a ``SeededRandom`` so that their output is reproducible.
public protocol RandomSource: Sendable {
    /// Fills `buffer` with random bytes.
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

extension RandomSource {
    /// Returns `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { fill($0) }
        return out
    }

    /// Returns an integer drawn uniformly from `range`, without modulo bias.
    public func uniform(in range: Range<Int>) -> Int {
        precondition(!range.isEmpty, "uniform(in:) needs a non-empty range")
        let span = UInt64(range.upperBound - range.lowerBound)
        // Reject draws from the incomplete top interval so every value is equally likely.
        let limit = UInt64.max - (UInt64.max % span)
        while true {
            var draw: UInt64 = 0
            withUnsafeMutableBytes(of: &draw) { fill($0) }
            if draw < limit { return range.lowerBound + Int(draw % span) }
        }
    }

    /// Returns the elements of `array` in a uniformly random order (Fisher-Yates).
    public func shuffled<T>(_ array: [T]) -> [T] {
        var result = array
        guard result.count > 1 else { return result }
        for i in stride(from: result.count - 1, to: 0, by: -1) {
            result.swapAt(i, uniform(in: 0..<(i + 1)))
        }
        return result
    }
}

/// The operating system's CSPRNG (getrandom(2) on Linux, arc4random_buf on Apple
/// systems, through the standard library), stretched for bulk requests.
///
/// Requests above ``bulkThreshold`` bytes (slot padding) are filled with an AES-256
/// keystream under a fresh key and nonce drawn from the system generator: output is as
/// indistinguishable from random as the ciphertext beside it, at memory speed rather than
/// one system call per eight bytes.
public struct SystemRandom: RandomSource {
    /// Requests up to this size come straight from the system generator.
    public static let bulkThreshold = 4096
    private static let bulkPiece = 1 << 20

    /// Creates the system source.
    public init() {}

    /// Fills `buffer` with random bytes.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        if buffer.count <= Self.bulkThreshold {
            Self.fillFromSystem(buffer)
            return
        }
        let key = SecureBytes(count: AESGCM.keySize)
        key.withUnsafeMutableBytes { Self.fillFromSystem($0) }
        var offset = 0
        while offset < buffer.count {
            let n = min(Self.bulkPiece, buffer.count - offset)
            var nonce = [UInt8](repeating: 0, count: AESGCM.nonceSize)
            nonce.withUnsafeMutableBytes { Self.fillFromSystem($0) }
            // GCM's ciphertext of zeros is the CTR keystream; the tag is discarded.
            let sealed = try! AESGCM.seal(
                [UInt8](repeating: 0, count: n), key: key, nonce: nonce, authenticating: [UInt8]())
            sealed.withUnsafeBytes { src in
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + n)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: src[AESGCM.nonceSize..<(AESGCM.nonceSize + n)]))
            }
            offset += n
        }
    }

    private static func fillFromSystem(_ buffer: UnsafeMutableRawBufferPointer) {
        var rng = SystemRandomNumberGenerator()
        var offset = 0
        while offset < buffer.count {
            let word = rng.next()
            withUnsafeBytes(of: word) { w in
                let n = min(8, buffer.count - offset)
                for i in 0..<n { buffer[offset + i] = w[i] }
                offset += n
            }
        }
    }
}

/// A deterministic byte stream, SHA-256(seed ‖ UInt64BE(block)), for reproducible test
/// vectors. Never used for keys outside tests and vector generation.
public final class SeededRandom: RandomSource, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let seed: [UInt8]
    private var block: UInt64 = 0
    private var pending: [UInt8] = []
    private let lock = NSLock()

    /// Creates a stream from `seed`.
    public init(seed: String) {
        self.seed = Array(seed.utf8)
    }

    /// Fills `buffer` with the next bytes of the stream.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        lock.withLock {
            var offset = 0
            while offset < buffer.count {
                if pending.isEmpty {
                    var input = seed
                    withUnsafeBytes(of: block.bigEndian) { input.append(contentsOf: $0) }
                    pending = Array(SHA256.hash(data: input))
                    block += 1
                }
                let n = min(pending.count, buffer.count - offset)
                for i in 0..<n { buffer[offset + i] = pending[i] }
                pending.removeFirst(n)
                offset += n
            }
        }
    }
}
