import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

@Suite struct PayloadSourceTests {
    /// Bytes and files of odd sizes, one file larger than the mapping window, so that
    /// chunks straddle segments, window moves and file ends.
    func layout(_ root: TestRoot) throws -> ([PayloadSource.Segment], [UInt8]) {
        let random = SeededRandom(seed: "payload")
        var segments: [PayloadSource.Segment] = []
        var expected: [UInt8] = []
        for (index, size) in [0, 5, PayloadSource.window + 4097, 1, 70_001].enumerated() {
            let head = random.bytes(index + 3)
            let body = random.bytes(size)
            let path = root.path + "/segment-\(index)"
            try Data(body).write(to: URL(fileURLWithPath: path))
            segments += [.bytes(head), .file(path: path, size: Int64(size))]
            expected += head + body
        }
        return (segments, expected)
    }

    @Test(arguments: [4096, 1 << 20, 1_000_003])
    func nextYieldsThePayloadInOrder(chunk: Int) throws {
        let root = try TestRoot()
        let (segments, expected) = try layout(root)
        let source = PayloadSource(segments)
        #expect(source.totalSize == UInt64(expected.count))
        var got = [UInt8]()
        got.reserveCapacity(expected.count)
        while got.count < expected.count {
            got += try source.next(min(chunk, expected.count - got.count))
        }
        #expect(got == expected)
        #expect(try source.next(0).count == 0)
    }

    @Test func aSourceThatEndsEarlyIsAnError() throws {
        let root = try TestRoot()
        let (segments, expected) = try layout(root)
        let source = PayloadSource(segments)
        _ = try source.next(expected.count - 10)
        #expect(throws: StreamError.self) { try source.next(11) }
    }

    @Test func aFileThatChangedSizeIsRefused() throws {
        let root = try TestRoot()
        let path = root.path + "/file"
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: path))
        let source = PayloadSource([.file(path: path, size: 101)])
        #expect(throws: VaultError.sourceChanged) { try source.next(101) }
    }
}
