import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// Ends (issue 19; docs/FORMAT.md §3.3, "Ends"): items deleted for good at a time or after
/// so many views, without the trash, whatever their folder, and kept by exports.
@Suite struct EndsTests {
    let start = Date(timeIntervalSince1970: 2_000_000_000)

    @Test func anItemEndsAtItsTimeAndNotBefore() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let items = try (0..<2).map { try vault.addRaw(Array("item \($0)".utf8), name: "n\($0).bin") }
        try vault.setEnd([items[0].id], ItemEnd(at: start.addingTimeInterval(3600)), now: start)
        #expect(try vault.item(items[0].id).endsAt == start.timeIntervalSince1970 + 3600)
        #expect(try vault.earliestEnd() == start.addingTimeInterval(3600))

        #expect(try vault.enforceEnds(now: start.addingTimeInterval(3599)) == 0)
        #expect(try vault.items().count == 2)
        #expect(try vault.enforceEnds(now: start.addingTimeInterval(3600)) == 1)
        #expect(throws: VaultError.noSuchItem(items[0].id)) { try vault.item(items[0].id) }
        #expect(!FileManager.default.fileExists(atPath: try vault.directory.pool.dataPath(items[0].mediaId)))
        #expect(try vault.trashCount() == 0, "an end is for good, not the trash")
        #expect(try vault.items().map(\.record.id) == [items[1].id])
        #expect(try vault.earliestEnd() == nil)
        #expect(try vault.consistencyProblems().isEmpty)
    }

    @Test func theLastViewEndsTheItemWhenItCloses() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let item = try vault.addRaw(Array("seen twice".utf8), name: "twice.bin")
        try vault.setEnd([item.id], ItemEnd(views: 2), now: start)

        let first = try vault.openView(item.id, now: start)
        #expect(first.viewsLeft == 1 && first.endsAt == nil)
        #expect(try vault.closeView(item.id) == false)
        let last = try vault.openView(item.id, now: start.addingTimeInterval(10))
        #expect(last.viewsLeft == 0)
        #expect(last.endsAt == start.timeIntervalSince1970 + 10 + ItemEnd.lastViewLimit, "the last view is bounded in time")
        #expect(throws: VaultError.ended(item.id)) { try vault.openView(item.id, now: start.addingTimeInterval(11)) }
        #expect(throws: VaultError.ended(item.id)) { try vault.setEnd([item.id], nil, now: start.addingTimeInterval(11)) }
        #expect(try vault.closeView(item.id) == true)
        #expect(throws: VaultError.noSuchItem(item.id)) { try vault.item(item.id) }
        #expect(!FileManager.default.fileExists(atPath: try vault.directory.pool.dataPath(item.mediaId)))
        #expect(try vault.consistencyProblems().isEmpty)
    }

    /// A last view nobody closes (a lost tab) ends at its bound; an earlier end in time
    /// stays the end.
    @Test func anAbandonedLastViewEndsAtItsBound() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let a = try vault.addRaw(Array("a".utf8), name: "a.bin")
        let b = try vault.addRaw(Array("b".utf8), name: "b.bin")
        try vault.setEnd([a.id], ItemEnd(views: 1), now: start)
        try vault.setEnd([b.id], ItemEnd(at: start.addingTimeInterval(60), views: 1), now: start)
        _ = try vault.openView(a.id, now: start)
        #expect(try vault.openView(b.id, now: start).endsAt == start.timeIntervalSince1970 + 60)
        #expect(try vault.enforceEnds(now: start.addingTimeInterval(60)) == 1)
        #expect(try vault.enforceEnds(now: start.addingTimeInterval(ItemEnd.lastViewLimit - 1)) == 0)
        #expect(try vault.enforceEnds(now: start.addingTimeInterval(ItemEnd.lastViewLimit)) == 1)
        #expect(try vault.items().isEmpty)
    }

    /// A crafted catalog's negative count (an import) reads as the last view taken.
    @Test func aNegativeCountIsTheLastViewTaken() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let item = try vault.addRaw(Array("x".utf8), name: "x.bin")
        try vault.catalog.setEnd([item.id], endsAt: nil, viewsLeft: -1)
        #expect(throws: VaultError.ended(item.id)) { try vault.openView(item.id, now: start) }
        #expect(try vault.closeView(item.id) == true)
    }

    @Test func anItemWithoutViewsIsNotCounted() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let item = try vault.addRaw(Array("plain".utf8), name: "plain.bin")
        let viewed = try vault.openView(item.id, now: start)
        #expect(viewed == (try vault.item(item.id)))
        #expect(try vault.closeView(item.id) == false)
        #expect(try vault.item(item.id).viewsLeft == nil)
    }

    @Test func badEndsAreRefusedAndChangeNothing() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let item = try vault.addRaw(Array("x".utf8), name: "x.bin")
        #expect(throws: VaultError.self) { try vault.setEnd([item.id], ItemEnd(), now: start) }
        #expect(throws: VaultError.self) { try vault.setEnd([item.id], ItemEnd(at: start), now: start) }
        #expect(throws: VaultError.self) { try vault.setEnd([item.id], ItemEnd(views: 0), now: start) }
        #expect(throws: VaultError.self) { try vault.setEnd([item.id], ItemEnd(views: ItemEnd.maximumViews + 1), now: start) }
        #expect(throws: VaultError.noSuchItem("ffffffff")) { try vault.setEnd([item.id, "ffffffff"], ItemEnd(views: 1), now: start) }
        let row = try vault.item(item.id)
        #expect(row.endsAt == nil && row.viewsLeft == nil)
        try vault.setEnd([item.id], ItemEnd(views: 3), now: start)
        try vault.setEnd([item.id], nil, now: start)
        #expect(try vault.item(item.id).viewsLeft == nil)
    }

    /// Ends reach items of locked folders and of the trash, survive a lock and unlock,
    /// and pass at the next unlock when they came while the vault was locked.
    @Test func endsReachEveryItemAndOutliveTheSession() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        var vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        let folder = try vault.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        let hidden = try vault.addRaw(Array("hidden".utf8), name: "h.bin", folder: folder)
        let trashed = try vault.addRaw(Array("trashed".utf8), name: "t.bin")
        let kept = try vault.addRaw(Array("kept".utf8), name: "k.bin")
        try vault.setEnd([hidden.id, trashed.id], ItemEnd(at: start.addingTimeInterval(60)), now: start)
        try vault.trashItems([trashed.id], now: start)
        vault.lock()

        vault = try directory.unlock(password: pw("pw"))
        #expect(try vault.earliestEnd() == start.addingTimeInterval(60), "the end was persisted")
        #expect(try vault.enforceEnds(now: start.addingTimeInterval(61)) == 2)
        try vault.unlockFolder(try vault.folder(at: "Private"), password: pw("fpw"))
        #expect(try vault.items(trash: true).map(\.record.id) == [kept.id])
        #expect(try vault.consistencyProblems().isEmpty)
    }

    @Test func anExportKeepsTheEnds() throws {
        let a = try TestRoot(), b = try TestRoot()
        let source = try a.initialized().createVault(password: pw("vault pw"), iterations: testIterations)
        let timed = try source.addRaw(Array("timed".utf8), name: "timed.bin")
        let viewed = try source.addRaw(Array("viewed".utf8), name: "viewed.bin")
        let later = Date().addingTimeInterval(86_400)
        try source.setEnd([timed.id], ItemEnd(at: later))
        try source.setEnd([viewed.id], ItemEnd(views: 5))
        _ = try source.openView(viewed.id)
        let file = a.path + "/vault.obscura"
        try source.exportVault(to: file, password: pw("export pw"), iterations: testIterations)

        let target = try b.initialized()
        #expect(try target.importVault(from: file, password: pw("export pw")) == 2)
        let imported = try target.unlock(password: pw("vault pw"))
        #expect(try imported.item(timed.id).endsAt == later.timeIntervalSince1970)
        #expect(try imported.item(viewed.id).viewsLeft == 4)
    }
}
