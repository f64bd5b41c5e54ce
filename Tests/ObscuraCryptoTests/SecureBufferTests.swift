import ObscuraCrypto
import Testing

/// Issue #13 item 11: a growing secret buffer zeroes the storage it leaves behind.
@Suite struct SecureBufferTests {
    @Test func growthZeroesTheOutgrownStorage() {
        let buffer = SecureBuffer(capacity: 4)
        for byte in Array("abcd".utf8) { buffer.append(byte) }
        let outgrown = buffer.currentStorage
        #expect(!outgrown.isZeroed)
        buffer.append(UInt8(ascii: "e"))
        #expect(outgrown.isZeroed, "the old storage is zeroed as soon as the bytes move")
        #expect(buffer.currentStorage !== outgrown && buffer.count == 5)
        #expect(buffer.last == UInt8(ascii: "e"))
        buffer.removeLast()
        let current = buffer.currentStorage
        let taken = buffer.take()
        #expect(taken == SecureBytes(copying: Array("abcd".utf8)))
        #expect(current.isZeroed && buffer.count == 0, "taking the bytes empties and zeroes the buffer")
    }
}
