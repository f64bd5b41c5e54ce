import Foundation
import Testing
@testable import ObscuraImaging

/// Bytes handed to a tool's standard input through a socket: all of them in order, a
/// tool that stops reading early does not kill the process, a failing feed is reported.
@Suite struct ExternalToolFeedTests {
    @Test func aToolThatStopsReadingEndsTheFeedQuietly() throws {
        // head reads 10 bytes of 8 MiB and exits: the feed stops on EPIPE, no SIGPIPE.
        let big = [UInt8](repeating: 0x41, count: 8 << 20)
        let out = try ExternalTool.run("head", ["-c", "10"], feeding: { write in try big.withUnsafeBytes(write) })
        #expect(out == [UInt8](repeating: 0x41, count: 10))
        // Everything arrives, in order, when the tool reads it all.
        let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let back = try ExternalTool.run("cat", [], feeding: { write in
            for start in stride(from: 0, to: bytes.count, by: 100_000) {
                try bytes[start..<min(bytes.count, start + 100_000)].withUnsafeBytes(write)
            }
        })
        let same = back == bytes
        #expect(same, "\(back.count) bytes came back of \(bytes.count)")
    }

    struct FeedFailed: Error, Equatable {}

    @Test func aFailingFeedOutranksTheToolsAnswer() throws {
        #expect(throws: FeedFailed()) {
            try ExternalTool.run("cat", [], feeding: { write in
                try [1, 2, 3].withUnsafeBytes(write)
                throw FeedFailed()
            })
        }
        #expect(throws: ImagingError.toolMissing("obscura-no-such-tool")) {
            try ExternalTool.run("obscura-no-such-tool", [], feeding: { _ in })
        }
    }
}
