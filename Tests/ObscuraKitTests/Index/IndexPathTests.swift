import Foundation
import GRDB
import ObscuraCatalog
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// The picture index through every path that changes an item (docs/FORMAT.md §3.3, "The
/// picture index"; docs/SEARCH.md §S9 step 1): invariants I1–I6 hold after each, and an
/// item's text and vector leave the catalog's image with the change that makes them
/// stale (the residue test of §S8 row 1), while an untouched item's stay.
@Suite struct IndexPathTests {
    let start = Date(timeIntervalSince1970: 2_000_000_000)

    static func word(_ path: String) -> String { "zebracake\(path)" }
    static func text(_ path: String) -> String { "receipt \(word(path)) total 12.50" }

    /// What a path leaves of the item's index row.
    enum Outcome { case kept, placeholder, gone }

    @Test func everyPathKeepsTheInvariantsAndRemovesWhatItMakesStale() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let locked = try vault.createFolder("Locked", password: pw("fp"), iterations: testIterations)
        let other = try vault.createFolder("Other", password: pw("fp2"), iterations: testIterations)
        let plain = try vault.createFolder("Plain")
        try vault.unlockFolder(locked, password: pw("fp"))
        try vault.unlockFolder(other, password: pw("fp2"))

        let paths: [(String, FolderRecord?, Outcome, (String) throws -> Void)] = [
            ("trash", nil, .kept, { try vault.trashItems([$0], now: start) }),
            ("restore", nil, .kept, { try vault.trashItems([$0], now: start); try vault.restoreItems([$0]) }),
            ("favourite", nil, .kept, { _ = try vault.setFavorite($0, true) }),
            ("plainmove", nil, .kept, { try vault.moveItems([$0], to: plain) }),
            ("endtimeset", nil, .kept, { try vault.setEnd([$0], ItemEnd(at: start.addingTimeInterval(3600)), now: start) }),
            ("views", nil, .placeholder, { try vault.setEnd([$0], ItemEnd(views: 3), now: start) }),
            ("cleared", nil, .gone, { try vault.setEnd([$0], ItemEnd(views: 3), now: start); try vault.setEnd([$0], nil, now: start) }),
            ("into", nil, .gone, { try vault.moveItems([$0], to: locked) }),
            ("out", locked, .gone, { try vault.moveItems([$0], to: nil) }),
            ("between", locked, .gone, { try vault.moveItems([$0], to: other) }),
            ("protectedviews", locked, .placeholder, { try vault.setEnd([$0], ItemEnd(views: 2), now: start) }),
            ("delete", nil, .gone, { try vault.deleteItems([$0]) }),
            ("emptied", nil, .gone, { try vault.trashItems([$0], now: start); _ = try vault.emptyTrash() }),
            ("expired", locked, .gone, {
                try vault.trashItems([$0], now: start)
                _ = try vault.purgeExpiredTrash(now: start.addingTimeInterval(Vault.trashRetention + 1))
            }),
            ("ended", nil, .gone, {
                try vault.setEnd([$0], ItemEnd(at: start.addingTimeInterval(60)), now: start)
                _ = try vault.enforceEnds(now: start.addingTimeInterval(61))
            }),
        ]
        var ids = [String: String]()
        for (name, folder, _, _) in paths + [("untouched", nil, .kept, { _ in })] {
            let item = try vault.addRaw(Array("bytes of \(name)".utf8), name: "\(name).bin", folder: folder)
            ids[name] = item.id
            #expect(try vault.indexForTest(item.id, text: Self.text(name)))
        }
        #expect(try vault.catalog.indexInvariantViolations() == [])
        try vault.catalog.fillWordIndex()
        #expect(try vault.catalog.wordIndexMismatches() == [])
        let before = try vault.catalog.image()
        for (name, folder, _, _) in paths where folder == nil {
            #expect(before.containsBytes(Array(Self.word(name).utf8)), "control: \(name)'s word is in the image while indexed")
            #expect(before.containsBytes(Self.storedVector(name)), "control: \(name)'s vector is in the image while indexed")
        }

        for (name, folder, outcome, change) in paths {
            let id = ids[name]!
            try change(id)
            #expect(try vault.catalog.indexInvariantViolations() == [], "after \(name)")
            // The word index follows every path, as one rebuilt from the rows would be.
            #expect(try vault.catalog.wordIndexMismatches() == [], "after \(name)")
            let found = try vault.itemListing(scope: .visible, filter: ItemFilter(text: Self.word(name)), limit: 10)
            #expect(found.items.map(\.record.id) == (outcome == .kept && folder == nil && name != "trash" ? [id] : []),
                    "searching \(name)'s word")
            let image = try vault.catalog.image()
            let row = try vault.catalog.indexRow(ofItem: id)
            switch outcome {
            case .kept:
                #expect(row?.ocrText == Self.text(name), "\(name) keeps its row")
                #expect(image.containsBytes(Array(Self.word(name).utf8)), "\(name) keeps its word")
            case .placeholder:
                #expect(row?.state == .viewLimited && row?.ocrText == nil && row?.sealed == nil, "\(name) leaves the placeholder")
            case .gone:
                #expect(row == nil, "\(name) leaves no row")
            }
            if outcome != .kept && folder == nil {
                #expect(!image.containsBytes(Array(Self.word(name).utf8)), "\(name)'s word left in the catalog image")
                #expect(!image.containsBytes(Self.storedVector(name)), "\(name)'s vector left in the catalog image")
            }
        }
        let last = try vault.catalog.image()
        #expect(last.containsBytes(Array(Self.word("untouched").utf8)))
        #expect(try vault.consistencyProblems() == [])
    }

    static func storedVector(_ path: String) -> [UInt8] {
        IndexVector(quantising: Vault.testVector(text(path))).stored
    }

    /// A protected item's row shows only that it is indexed: state 128 and a box of the one
    /// size, whatever it holds, and the box opens only under its folder key for its item.
    @Test func aProtectedItemsRowIsOneSizedBoxWhateverItHolds() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let locked = try vault.createFolder("Locked", password: pw("fp"), iterations: testIterations)
        try vault.unlockFolder(locked, password: pw("fp"))
        let texts = ["", "short", String(repeating: "word ", count: 768)]
        var rows = [(ItemRecord, IndexRow)]()
        for (n, text) in texts.enumerated() {
            let item = try vault.addRaw(Array("p\(n)".utf8), name: "p\(n).bin", folder: locked)
            #expect(try vault.indexForTest(item.id, text: text, vector: n != 0))
            rows.append((item, try #require(try vault.catalog.indexRow(ofItem: item.id))))
        }
        for (n, (item, row)) in rows.enumerated() {
            #expect(row.state == .protected && row.ocrText == nil && row.textProfile == nil && row.vectorProfile == nil)
            #expect(row.sealed?.count == IndexBox.sealedSize)
            let key = try #require(try vault.folderKey(forFolder: locked.id))
            let box = try IndexBox.open(try #require(row.sealed), folderKey: key, itemId: item.id)
            #expect(box.text == texts[n] && box.state.contains(.vectorMade) == (n != 0))
            // Another item's id, or the MEK, does not open it.
            #expect(throws: VaultError.self) { try IndexBox.open(row.sealed!, folderKey: key, itemId: rows[(n + 1) % 3].0.id) }
        }
        #expect(try vault.catalog.indexInvariantViolations() == [])
    }
}
