import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import ObscuraServer
import ObscuraTestSupport

/// HTTP Range on originals (RFC 9110 §14): the unit that reads the header, and the route.
@Suite struct RangeTests {
    @Test(arguments: [
        (nil, ByteRange.whole),
        ("bytes=0-0", .partial(0..<1)),
        ("bytes=0-99", .partial(0..<100)),
        ("bytes=10-", .partial(10..<100)),
        ("bytes=-1", .partial(99..<100)),
        ("bytes=-500", .partial(0..<100)),
        ("bytes=50-1000", .partial(50..<100)),
        ("bytes=99-99", .partial(99..<100)),
        ("bytes=100-", .unsatisfiable),
        ("bytes=100-200", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=5-4", .whole),
        ("bytes=0-1,5-6", .whole),
        ("items=0-1", .whole),
        ("bytes=a-b", .whole),
        ("bytes=-", .whole),
        ("bytes=1-18446744073709551615", .partial(1..<100)),
        ("bytes=99999999999999999999-", .whole),
    ] as [(String?, ByteRange)])
    func resolvesHeaders(header: String?, expected: ByteRange) {
        #expect(ByteRange.resolve(header, size: 100) == expected)
    }

    @Test func anEmptyRepresentationHasNoRange() {
        #expect(ByteRange.resolve("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=-5", size: 0) == .unsatisfiable)
    }

    /// A file of `size` bytes whose every byte depends on its offset.
    static func pattern(_ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8 &+ $0 >> 16) }
    }

    @Test func theRouteServesRangesWholeAnd416() async throws {
        let harness = try ServerHarness()
        let original = Self.pattern(700_000)  // three 256 KiB chunks
        try await harness.test { browser in
            try await browser.createVault()
            let item = try await browser.upload(original, name: "data.bin").json()["item"] as? [String: Any]
            let id = try #require(item?["id"] as? String)
            let uri = "/api/items/\(id)/original"

            let whole = try await browser.send(.get, uri)
            #expect(whole.status == .ok)
            #expect(whole.bytes == original)
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.contentLength] == "700000")
            let etag = try #require(whole.headers[.eTag])

            for (header, range) in [("bytes=0-0", 0..<1), ("bytes=262143-262144", 262143..<262145),
                                    ("bytes=-10", 699_990..<700_000), ("bytes=600000-", 600_000..<700_000)] {
                let part = try await browser.send(.get, uri, headers: [.range: header])
                #expect(part.status == .partialContent, "\(header)")
                #expect(part.bytes == Array(original[range]), "\(header)")
                #expect(part.headers[.contentRange] == "bytes \(range.lowerBound)-\(range.upperBound - 1)/700000")
            }
            let beyond = try await browser.send(.get, uri, headers: [.range: "bytes=700000-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */700000")

            let matching = try await browser.send(.get, uri, headers: [.range: "bytes=5-9", .ifRange: etag])
            #expect(matching.status == .partialContent)
            #expect(matching.bytes == Array(original[5..<10]))
            let stale = try await browser.send(.get, uri, headers: [.range: "bytes=5-9", .ifRange: "\"other\""])
            #expect(stale.status == .ok)
            #expect(stale.bytes == original)

            let download = try await browser.send(.get, uri + "?download=1")
            #expect(download.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"data.bin\"") == true)
        }
    }

    @Test func aHundredConcurrentRangeRequestsOverAVideo() async throws {
        let harness = try ServerHarness()
        let scratch = harness.root + "/src"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let path = try TestImages.video(in: scratch, seconds: 4)
        let video = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try await harness.test { browser in
            try await browser.createVault()
            let item = try await browser.upload(video, name: "clip.mp4").json()["item"] as? [String: Any]
            #expect(item?["kind"] as? String == "video")
            let id = try #require(item?["id"] as? String)
            var generator = SystemRandomNumberGenerator()
            let ranges = (0..<100).map { _ -> Range<Int> in
                let start = Int.random(in: 0..<video.count, using: &generator)
                return start..<min(video.count, start + Int.random(in: 1...600_000, using: &generator))
            }
            let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for (n, range) in ranges.enumerated() {
                    group.addTask {
                        let response = try await browser.send(
                            .get, "/api/items/\(id)/original", headers: [.range: "bytes=\(range.lowerBound)-\(range.upperBound - 1)"])
                        return (n, response.status == .partialContent && response.bytes == Array(video[range]))
                    }
                }
                return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results.count == 100)
            #expect(results.values.allSatisfy { $0 })
        }
    }
}
