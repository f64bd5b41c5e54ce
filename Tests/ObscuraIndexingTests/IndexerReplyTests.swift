import Foundation
import Testing
@testable import ObscuraIndexing

/// docs/SEARCH.md §S3.4.3: the parent trusts nothing a worker sends. The test speaks as a
/// compromised worker on the other end of the socket pair, through the parent's real
/// reading and checking code.
@Suite struct IndexerReplyTests {
    /// A parent over one end of a socket pair, and the worker's end.
    struct Pair {
        let parent: IndexerProcess
        let worker: FrameChannel

        init() {
            var pair: [Int32] = [0, 0]
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair)
            parent = IndexerProcess(socket: pair[0], pid: nil)
            worker = FrameChannel(descriptor: pair[1], isParent: false)
        }

        /// Sends raw bytes as the worker.
        func raw(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { write(worker.descriptor, $0.baseAddress, $0.count) }
        }

        /// The result the parent makes of `result` sent back for item 1.
        func read(_ result: ItemResult, wanted: Wanted = .text) throws -> CheckedResult {
            raw(FrameHeader.encode(.result, payloadLength: result.encoded().count) + result.encoded())
            return try [UInt8]("picture".utf8).withUnsafeBytes {
                try parent.read($0, mime: "image/png", wanted: wanted, timeout: .seconds(5))
            }
        }
    }

    static let vector = (0..<512).map { Float($0 % 7) - 3 }

    /// Whether `body` fails with a violation, and soon: a missing check would also end in
    /// an error, the deadline's (review I-R17).
    static func violates(_ body: () throws -> Void) -> Bool {
        let started = ContinuousClock.now
        do {
            try body()
            return false
        } catch IndexerError.violation {
            return ContinuousClock.now - started < .seconds(1)
        } catch {
            return false
        }
    }

    @Test func aGoodResultIsCleanedAndNormalised() throws {
        let pair = Pair()
        // "é" decomposed with a control between letter and accent, a bell, an escape, an
        // 8-bit CSI, DEL and a right-to-left override: controls go first, then NFC.
        let text = Array("Cafe\u{1}\u{301} \u{7}menu\u{1B}[31m\u{9B}2J\u{7F}\nli\u{202E}ne".utf8)
        let checked = try pair.read(ItemResult(id: 1, status: 0, confidence: 87.5, text: text, vector: Self.vector),
                                    wanted: [.text, .vector])
        #expect(checked.status == .done)
        #expect(checked.text == "Café menu[31m2J\nline")
        #expect(checked.confidence == 87.5)
        let vector = try #require(checked.vector)
        #expect(abs(vector.reduce(0) { $0 + $1 * $1 } - 1) < 1e-5)
        #expect(!checked.vectorFailed)
        #expect(!pair.parent.stopped)
    }

    @Test(arguments: [
        ("NaN", (0..<512).map { $0 == 9 ? Float.nan : 1 }),
        ("zero", [Float](repeating: 0, count: 512)),
        ("infinite", (0..<512).map { $0 == 0 ? Float.infinity : 1 }),
        ("huge", [Float](repeating: 1e30, count: 512)),
    ])
    func aBrokenVectorFailsTheVectorNotTheWorker(name: String, vector: [Float]) throws {
        let pair = Pair()
        let checked = try pair.read(ItemResult(id: 1, status: 0, confidence: 50, text: Array("ok".utf8), vector: vector),
                                    wanted: [.text, .vector])
        #expect(checked.vectorFailed, "\(name)")
        #expect(checked.vector == nil)
        #expect(checked.text == "ok")
        #expect(!pair.parent.stopped)
    }

    @Test(arguments: [
        ("infinite confidence", ItemResult(id: 1, status: 0, confidence: .infinity, text: [])),
        ("NaN confidence", ItemResult(id: 1, status: 0, confidence: .nan, text: [])),
        ("confidence over 100", ItemResult(id: 1, status: 0, confidence: 100.5, text: [])),
        ("invalid UTF-8", ItemResult(id: 1, status: 0, confidence: 50, text: [0x41, 0xC3, 0x28])),
        ("4,000 bytes of text", ItemResult(id: 1, status: 0, confidence: 50, text: [UInt8](repeating: 0x61, count: 4000))),
        ("another request's id", ItemResult(id: 2, status: 0, confidence: 50, text: [])),
        ("an unknown status", ItemResult(id: 1, status: 9, confidence: 50, text: [])),
        ("text with a failed read", ItemResult(id: 1, status: 2, confidence: 0, text: Array("words".utf8))),
        ("a vector nobody asked for", ItemResult(id: 1, status: 0, confidence: 50, text: [], vector: Self.vector)),
        // U+0958 is excluded from composition: NFC writes it as two scalars, 6 bytes for 3.
        ("text that NFC grows past the cap",
         ItemResult(id: 1, status: 0, confidence: 50, text: Array(String(repeating: "\u{958}", count: 1280).utf8))),
    ])
    func aResultBreakingTheRulesStopsTheWorker(name: String, result: ItemResult) throws {
        let pair = Pair()
        #expect(Self.violates { _ = try pair.read(result) }, "\(name)")
        #expect(pair.parent.stopped, "\(name)")
    }

    @Test(arguments: [
        ("a 4 GiB length", [0xFF, 0xFF, 0xFF, 0xFF, FrameType.result.rawValue]),
        ("an unknown type", [0, 0, 0, 1, 0x42]),
        ("a frame for the worker", [0, 0, 0, 1, FrameType.item.rawValue]),
        ("a zero length", [0, 0, 0, 0, FrameType.result.rawValue]),
        ("a result over its maximum", [0, 0, 0x20, 0x01, FrameType.result.rawValue]),
        ("a vector flag of 2", FrameHeader.encode(.result, payloadLength: 12) + [0, 0, 0, 1, 0, 0x42, 0, 0, 0, 0, 0, 2]),
    ] as [(String, [UInt8])])
    func aBadFrameStopsTheWorker(name: String, bytes: [UInt8]) throws {
        let pair = Pair()
        pair.raw(bytes)
        #expect(Self.violates {
            _ = try [UInt8]("x".utf8).withUnsafeBytes { try pair.parent.read($0, mime: "image/png", timeout: .seconds(5)) }
        }, "\(name)")
        #expect(pair.parent.stopped, "\(name)")
    }

    @Test func aHelloFromAnotherBuildIsRefused() throws {
        let pair = Pair()
        let hello = Hello(version: IndexerProtocol.version, release: "obscura 1999.1").encoded()
        pair.raw(FrameHeader.encode(.hello, payloadLength: hello.count) + hello)
        #expect(Self.violates { try pair.parent.expectHello() })
        #expect(pair.parent.stopped)
    }

    @Test func theHeaderIsCheckedBeforeAnythingIsAllocated() throws {
        #expect(throws: IndexerError.self) { _ = try FrameHeader.parse([0x10, 0, 0x02, 0, FrameType.item.rawValue], toParent: false) }
        let item = try FrameHeader.parse([0x10, 0, 0, 0, FrameType.item.rawValue], toParent: false)
        #expect(item.payloadLength == IndexerProtocol.itemBytesLimit - 1)
        #expect(try FrameHeader.parse([0, 0, 0, 1, FrameType.diag.rawValue], toParent: false).payloadLength == 0)
        #expect(throws: IndexerError.self) { _ = try FrameHeader.parse([0, 0, 0, 2, FrameType.diag.rawValue], toParent: false) }
    }
}
