import Foundation
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraServer

/// An item's JSON (docs/API.md, "Items"): every key present, null where a value is
/// missing, and the optionals written through `encodeOrNull` byte for byte as the
/// generic path wrote them.
@Suite struct ItemJSONTests {
    static let keys: Set<String> = [
        "id", "kind", "name", "mimeType", "size", "width", "height", "orientation", "duration", "takenAt", "importedAt",
        "favorite", "folderId", "hasThumbnail", "place", "latitude", "longitude", "deletedAt", "rendition", "companion",
        "endsAt", "viewsLeft", "excerpt",
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
                    "deletedAt", "rendition", "companion", "endsAt", "viewsLeft"] {
            #expect(object[key] is NSNull, "\(key)")
        }
    }

    /// Every field filled, each with a value of its own, so that two fields swapped or
    /// one written under another's key shows.
    @Test func anItemWithEveryFieldIsWrittenExactly() throws {
        var row = ItemRecord(id: "0a", kind: .photo, mediaId: "m", thumbId: "t", name: "IMG_0001.HEIC", mimeType: "image/heic",
                             size: 2_048, width: 4_032, height: 3_024, orientation: 6, duration: 2.5, takenAt: 1_600_000_000.25,
                             importedAt: 1_700_000_000.5, folderId: "f1", favorite: true, contentHash: Data([1]))
        row.deletedAt = 1_700_000_100
        row.latitude = 48.8566
        row.longitude = -2.3522
        row.place = "Paris, Île-de-France, France"
        row.renditionState = .ready
        row.companionId = "c"
        row.companionRole = .motion
        row.companionName = "IMG_0001.MOV"
        row.companionMimeType = "video/quicktime"
        row.companionSize = 4_096
        row.endsAt = 1_700_000_200
        row.viewsLeft = 3
        let json = String(decoding: try Self.encoded(ItemJSON(row)), as: UTF8.self)
        #expect(json == #"{"companion":{"mimeType":"video/quicktime","name":"IMG_0001.MOV","role":"motion","size":4096},"#
            + #""deletedAt":1700000100,"duration":2.5,"endsAt":1700000200,"excerpt":null,"favorite":true,"folderId":"f1","#
            // A view-limited item shows no thumbnail, though it has one.
            + #""hasThumbnail":false,"height":3024,"#
            + #""id":"0a","importedAt":1700000000.5,"kind":"photo","latitude":48.8566,"longitude":-2.3522,"#
            + #""mimeType":"image/heic","name":"IMG_0001.HEIC","orientation":6,"place":"Paris, Île-de-France, France","#
            + #""rendition":"ready","size":2048,"takenAt":1600000000.25,"viewsLeft":3,"width":4032}"#)
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
