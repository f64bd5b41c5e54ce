import Foundation
import ObscuraCrypto
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraStore

@Suite struct BackgroundWriterTests {
    @Test func writesEveryPieceInOrder() throws {
        let root = try ScratchFolder()
        let path = root.path + "/out"
        let random = SeededRandom(seed: "pieces")
        let pieces = (0..<50).map { _ in random.bytes(Int(random.uniform(in: 0..<300_000))) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        let writer = BackgroundWriter(fd: fd, path: path)
        for piece in pieces { try writer.write(SealedBytes(piece)) }
        try writer.finish()
        try writer.finish()
        close(fd)
        #expect(try FileIO.read(path) == pieces.flatMap { $0 })
    }

    @Test func aWriteErrorReachesTheProducerAndFinish() throws {
        let root = try ScratchFolder()
        let path = root.path + "/in"
        try Data([1]).write(to: URL(fileURLWithPath: path))
        // Read-only: every write(2) fails with EBADF.
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let writer = BackgroundWriter(fd: fd, path: path)
        // The first failure lands on the writer thread; some later write must report it.
        #expect(throws: StorageError.self) {
            for _ in 0..<(BackgroundWriter.depth + 10) { try writer.write(SealedBytes([1, 2, 3])) }
        }
        #expect(throws: StorageError.self) { try writer.finish() }
    }
}
