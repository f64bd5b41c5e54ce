import Testing
@testable import ObscuraServer

/// zlib's CRC-32 through ``CRC32``, against the definition.
@Suite struct CRC32Tests {
    @Test func theCheckValue() {
        // The catalogued check value of CRC-32 (ISO-HDLC): the nine digits "123456789".
        var crc = CRC32()
        Array("123456789".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xCBF4_3926)
        #expect(CRC32().value == 0)
    }

    @Test func piecesGiveTheSameChecksumAsTheWhole() {
        let bytes = ZipStreamTests.bytes(100_003, seed: 7)
        var crc = CRC32()
        var start = 0
        for size in [0, 1, 7, 4096, 65_536] + [Int](repeating: 10_000, count: 4) {
            let end = min(start + size, bytes.count)
            bytes[start..<end].withUnsafeBytes { crc.update($0) }
            start = end
        }
        bytes[start...].withUnsafeBytes { crc.update($0) }
        #expect(crc.value == referenceCRC32(bytes))
    }
}
