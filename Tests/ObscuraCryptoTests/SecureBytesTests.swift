import Testing
@testable import ObscuraCrypto

@Suite struct SecureBytesTests {
    @Test func zeroizeClearsTheStorage() {
        let secret = SecureBytes(copying: [1, 2, 3, 4])
        #expect(!secret.isZeroed)
        secret.zeroize()
        #expect(secret.isZeroed)
        #expect(secret.count == 4)
    }

    @Test func anEmptySecretHasNoBytes() {
        // The storage keeps one byte so its address is never nil; the count must not
        // show it, or an empty password would pass for a one-byte one.
        #expect(SecureBytes(count: 0).count == 0)
        #expect(SecureBytes(copying: [UInt8]()).count == 0)
        #expect(SecureBytes(copying: [UInt8]()).withUnsafeBytes { $0.count } == 0)
    }

    @Test func copyIsIndependent() {
        let secret = SecureBytes(copying: [5, 6])
        let copy = secret.copy()
        secret.zeroize()
        #expect(copy.withUnsafeBytes { Array($0) } == [5, 6])
    }

    @Test func randomSecretsDiffer() {
        #expect(SecureBytes(randomCount: 32) != SecureBytes(randomCount: 32))
    }

    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }
}

@Suite struct RandomSourceTests {
    @Test func seededStreamIsReproducible() {
        #expect(SeededRandom(seed: "a").bytes(100) == SeededRandom(seed: "a").bytes(100))
        #expect(SeededRandom(seed: "a").bytes(100) != SeededRandom(seed: "b").bytes(100))
        // Reading in pieces gives the same stream as reading at once.
        let pieces = SeededRandom(seed: "a")
        #expect(pieces.bytes(33) + pieces.bytes(67) == SeededRandom(seed: "a").bytes(100))
    }

    @Test func uniformStaysInRangeAndCoversIt() {
        let random = SystemRandom()
        var seen = Set<Int>()
        for _ in 0..<2000 {
            let v = random.uniform(in: 10..<20)
            #expect((10..<20).contains(v))
            seen.insert(v)
        }
        #expect(seen.count == 10)
    }

    /// Bulk requests use the keystream path: output must still look uniform.
    @Test func bulkBytesLookUniform() {
        let bytes = SystemRandom().bytes(1 << 20)
        var counts = [Int](repeating: 0, count: 256)
        for b in bytes { counts[Int(b)] += 1 }
        let expected = Double(bytes.count) / 256
        let chiSquare = counts.reduce(0.0) { $0 + pow2(Double($1) - expected) / expected }
        // 255 degrees of freedom: the 99.99th percentile is about 347.
        #expect(chiSquare < 347)
        #expect(SystemRandom().bytes(1 << 20) != bytes)
    }

    /// Hex in zeroing memory (the drop key in the catalog, the launch token): written and
    /// read back; upper-case, an odd count and other characters are refused.
    @Test func lowercaseHexRoundTripsAndRefusesAnythingElse() {
        let secret = SecureBytes(copying: [0x00, 0x7f, 0xa5, 0xff])
        let hex = secret.lowercaseHex()
        #expect(hex.withUnsafeBytes { Array($0) } == Array("007fa5ff".utf8))
        let back = hex.withUnsafeBytes { SecureBytes(lowercaseHex: $0) }
        #expect(back?.withUnsafeBytes { Array($0) } == [0x00, 0x7f, 0xa5, 0xff])
        for bad in ["007FA5FF", "007fa5f", "007fa5fg", "00 7fa5f"] {
            #expect(Array(bad.utf8).withUnsafeBytes { SecureBytes(lowercaseHex: $0) } == nil, "\(bad)")
        }
    }

    @Test func shuffleIsAPermutation() {
        let shuffled = SystemRandom().shuffled(Array(0..<50))
        #expect(shuffled.sorted() == Array(0..<50))
    }
}

private func pow2(_ x: Double) -> Double { x * x }
