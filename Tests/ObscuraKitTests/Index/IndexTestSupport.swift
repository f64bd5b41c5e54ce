import Foundation
import ObscuraCatalog
import ObscuraCrypto
@testable import ObscuraKit

extension Vault {
    /// Appends an index row for item `id` as the indexing job's settle would
    /// (docs/SEARCH.md §S7.1), holding `text` and a vector made from it: a box under its
    /// folder key when the item is protected, the placeholder when it has an end in views.
    @discardableResult
    func indexForTest(_ id: String, text: String, vector: Bool = true) throws -> Bool {
        let row = try item(id)
        guard let rowid = try catalog.itemRowid(of: id) else { return false }
        let made = vector ? IndexVector(quantising: Self.testVector(text)) : nil
        var state: IndexState = .textRead
        if vector { state.insert(.vectorMade) }
        let entry: Catalog.IndexEntry
        if row.viewsLeft != nil {
            entry = .init(itemRowid: rowid, mediaId: row.mediaId, folderId: row.folderId, readable: false, state: .viewLimited)
        } else if let key = try folderKey(forFolder: row.folderId) {
            let box = IndexBox(state: state, text: text, textProfile: 1, vectorProfile: vector ? 2 : 0, vector: made)
            entry = .init(itemRowid: rowid, mediaId: row.mediaId, folderId: row.folderId, readable: true, state: .protected,
                          sealed: try box.sealed(folderKey: key, itemId: id, using: SystemRandom()))
        } else {
            let text1 = try catalog.indexProfile(kind: "text", name: "test text")
            let vector2 = try catalog.indexProfile(kind: "vector", name: "test vector")
            entry = .init(itemRowid: rowid, mediaId: row.mediaId, folderId: row.folderId, readable: true, state: state,
                          textProfile: text1, vectorProfile: vector ? vector2 : nil, text: text, vector: made)
        }
        return try catalog.settle([entry])[0]
    }

    /// A vector of 512 components drawn from `text`'s SHA-256, so that each text has its
    /// own stored bytes to look for.
    static func testVector(_ text: String) -> [Float] {
        var seed = SHA256Digest.hash(Array(text.utf8))
        var values = [Float]()
        while values.count < IndexLimits.dimension {
            values += seed.map { Float(Int($0) - 128) / 128 + 0.001 }
            seed = SHA256Digest.hash(seed)
        }
        return Array(values.prefix(IndexLimits.dimension))
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var i = 0
        while i <= count - needle.count {
            if self[i] == first && self[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
