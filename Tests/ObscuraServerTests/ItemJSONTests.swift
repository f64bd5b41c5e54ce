import Foundation
@testable import ObscuraKit
import Testing
@testable import ObscuraServer

/// An item's JSON (docs/API.md, "Items"): every key present, null where a value is
/// missing, and the optionals written through `encodeOrNull` byte for byte as the
/// generic path wrote them.
@Suite struct ItemJSONTests {
    static let keys: Set<String> = [
        "id", "kind", "name", "mimeType", "size", "width", "height", "orientation", "duration", "takenAt", "importedAt",
        "favorite", "folderId", "hasThumbnail", "place", "latitude", "longitude", "deletedAt", "rendition", "companion",
    ]

    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    @Test func anItemWithNothingOptionalHasEveryKeyWithNull() throws {
        let row = ItemRecord(id: "0000", kind: .file, mediaId: "m", name: "notes.txt", mimeType: "text/plain", size: 3,
                             importedAt: 1, folderId: nil, favorite: false, contentHash: Data([1]))
        let object = try #require(try JSONSerialization.jsonObject(with: Self.encoded(ItemJSON(row))) as? [String: Any])
        #expect(Set(object.keys) == Self.keys)
        for key in ["width", "height", "orientation", "duration", "takenAt", "folderId", "place", "latitude", "longitude",
                    "deletedAt", "rendition", "companion"] {
            #expect(object[key] is NSNull, "\(key)")
        }
    }

    /// One optional of each type, encoded both ways.
    struct Both: Encodable {
        var text: String?
        var number: Int?
        var real: Double?
        var nested: [String: Int]?
        var concrete: Bool

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            if concrete {
                try c.encodeOrNull(text, forKey: .text)
                try c.encodeOrNull(number, forKey: .number)
                try c.encodeOrNull(real, forKey: .real)
                try c.encodeOrNull(nested, forKey: .nested)
            } else {
                try c.encode(text, forKey: .text)
                try c.encode(number, forKey: .number)
                try c.encode(real, forKey: .real)
                try c.encode(nested, forKey: .nested)
            }
        }
        private enum CodingKeys: String, CodingKey { case text, number, real, nested }
    }

    @Test func encodeOrNullWritesWhatTheGenericPathWrote() throws {
        let texts: [String?] = [nil, "", "a\"b\\c/d", "tab\there\nline\u{0}\u{1F}", "café 🎉 \u{2028}", "IMG_0001.HEIC"]
        let numbers: [Int?] = [nil, 0, -1, Int.max, Int.min]
        let reals: [Double?] = [nil, 0, -0.0, 1_700_000_000, 1_600_000_000.123, 48.856_6, -2.352_2, 1e-7, 1e300, 0.1 + 0.2]
        for k in 0..<max(texts.count, numbers.count, reals.count) {
            let text = texts[k % texts.count], number = numbers[k % numbers.count], real = reals[k % reals.count]
            let nested: [String: Int]? = k % 2 == 0 ? nil : ["b": k, "a": -k]
            let generic = try Self.encoded(Both(text: text, number: number, real: real, nested: nested, concrete: false))
            let concrete = try Self.encoded(Both(text: text, number: number, real: real, nested: nested, concrete: true))
            #expect(generic == concrete, "\(String(decoding: generic, as: UTF8.self)) against \(String(decoding: concrete, as: UTF8.self))")
        }
        // A value JSON cannot hold is refused either way, never written.
        #expect(throws: EncodingError.self) { try Self.encoded(Both(real: .nan, concrete: true)) }
        #expect(throws: EncodingError.self) { try Self.encoded(Both(real: .infinity, concrete: true)) }
    }
}
