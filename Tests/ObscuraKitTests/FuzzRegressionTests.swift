import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// Inputs scripts/fuzz found crashing a parser, kept in fuzz/regressions/TARGET/ (and
/// replayed there by every fuzz run), checked here by `swift test` through the same
/// entry points: each must be refused with an error, never trap.
@Suite struct FuzzRegressionTests {
    static let regressions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz/regressions").path

    static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let folder = regressions + "/" + target
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
            ($0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0))))
        }
    }

    /// A chunked header whose total size made the file size overflow: `fileSize` trapped
    /// in every reader (media, thumbnails' dispatch, export payloads).
    @Test func chunkedHeadersWithHugeTotalsAreRefused() throws {
        let found = try Self.inputs("chunked")
        #expect(!found.isEmpty)
        for (name, bytes) in found {
            #expect(throws: StreamError.unsupported("total size out of range"), "\(name)") { try ChunkedHeader.decode(bytes) }
            let path = NSTemporaryDirectory() + "obscura-fuzz-regression-\(UUID().uuidString)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { unlink(path) }
            #expect(throws: StreamError.self, "\(name)") {
                try ChunkedFileReader(path: path) { try ChunkCipher(header: $0, key: SecureBytes(count: 32), folderKey: nil, context: []) }
            }
        }
        // The largest totals for the smallest chunks, the case the fuzzer reached.
        for total in [UInt64.max, UInt64(Int64.max), UInt64(Int64.max) - 100] {
            let header = ChunkedHeader(flags: 0, noncePrefix: [1, 2, 3, 4], chunkSize: 4096, totalSize: total)
            #expect(throws: StreamError.unsupported("total size out of range")) { try ChunkedHeader.decode(header.encoded()) }
        }
        // The largest file that still fits an off_t is accepted.
        let chunks = UInt64(Int64.max - 24) / (4096 + 16)
        let fits = ChunkedHeader(flags: 0, noncePrefix: [1, 2, 3, 4], chunkSize: 4096, totalSize: chunks * 4096)
        #expect(try ChunkedHeader.decode(fits.encoded()).fileSize <= UInt64(Int64.max))
    }

    /// Export payloads (the plaintext the export password protects, written by whoever
    /// made the export) whose file record claimed a length past the payload's end: the
    /// reader narrowed it to Int and trapped. Each is sealed as a real export and imported.
    @Test func payloadsWithOverlongRecordsAreRefused() throws {
        let found = try Self.inputs("manifest")
        #expect(!found.isEmpty)
        let root = try TestRoot()
        let directory = try root.initialized()
        let password = pw("fuzz")
        for (name, bytes) in found {
            let path = root.path + "/\(name).obscura"
            try bytes.withUnsafeBytes { raw in
                try ExportFormat.write(
                    to: path, password: password, kdf: .pbkdf2(iterations: 1), totalSize: UInt64(bytes.count),
                    source: ChunkedFileWriter.source(bytes: raw), using: SystemRandom())
            }
            #expect(throws: ExportError.self, "\(name)") { try directory.importVault(from: path, password: password) }
        }
        #expect(try directory.decoyNames().count == 10, "nothing was imported")
    }
}
