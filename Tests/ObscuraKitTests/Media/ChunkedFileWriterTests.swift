import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// The chunked writer's read-ahead thread: its errors reach the sealing loop, and a
/// failure on the writing side stops it.
@Suite struct ChunkedFileWriterTests {
    static let chunkSize = 4096

    func cipher(totalSize: Int) throws -> ChunkCipher {
        let header = ChunkedHeader(flags: 0, noncePrefix: [1, 2, 3, 4], chunkSize: Self.chunkSize, totalSize: UInt64(totalSize))
        return try ChunkCipher(header: header, key: SecureBytes(copying: [UInt8](repeating: 0x42, count: 32)),
                               folderKey: nil, context: [])
    }

    /// Seals `bytes` under a header declaring `declared` bytes, into nothing.
    func seal(_ bytes: [UInt8], declared: Int) throws {
        let cipher = try cipher(totalSize: declared)
        _ = try bytes.withUnsafeBytes { raw in
            try ChunkedFileWriter.write(cipher: cipher, source: ChunkedFileWriter.source(bytes: raw)) { _ in }
        }
    }

    @Test func aSourceThatEndsEarlyIsAnError() throws {
        let declared = 3 * Self.chunkSize
        #expect(throws: StreamError.sizeMismatch(expected: UInt64(declared), actual: UInt64(declared - 100))) {
            try seal([UInt8](repeating: 7, count: declared - 100), declared: declared)
        }
    }

    @Test func aSourceThatRunsLongIsAnError() throws {
        let declared = 3 * Self.chunkSize
        #expect(throws: StreamError.sizeMismatch(expected: UInt64(declared), actual: UInt64(declared + 1))) {
            try seal([UInt8](repeating: 7, count: declared + 1), declared: declared)
        }
        try seal([UInt8](repeating: 7, count: declared), declared: declared)
    }

    @Test func aSinkErrorStopsTheReader() throws {
        struct DiskFull: Error {}
        let cipher = try cipher(totalSize: 64 * Self.chunkSize)
        var reads = 0
        var pieces = 0
        #expect(throws: DiskFull.self) {
            try ChunkedFileWriter.write(cipher: cipher, source: { buffer in
                reads += 1
                buffer.initializeMemory(as: UInt8.self, repeating: 7)
                return buffer.count
            }) { _ in
                pieces += 1
                // The header, one chunk, then the disk is full.
                if pieces == 3 { throw DiskFull() }
            }
        }
        // The reader has left by the time write returns: no read comes after.
        let after = reads
        Thread.sleep(forTimeInterval: 0.05)
        #expect(reads == after)
        #expect(after <= 4, "the reader runs at most two chunks ahead")
    }
}
