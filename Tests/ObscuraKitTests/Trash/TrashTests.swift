import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// The trash (issue 17): a delete that can be undone for 30 days, in every folder.
@Suite struct TrashTests {
    @Test func aTrashedItemLeavesTheViewsKeepsItsFilesAndComesBack() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let items = try (0..<3).map { try vault.addRaw(Array("item \($0)".utf8), name: "n\($0).bin") }
        let start = Date(timeIntervalSince1970: 1_000_000)
        try vault.trashItems([items[0].id], now: start)
        try vault.trashItems([items[1].id], now: start.addingTimeInterval(60))

        #expect(try vault.itemListing(scope: .visible, limit: 10).items.map(\.record.id) == [items[2].id])
        #expect(try vault.items().map(\.record.id) == [items[2].id])
        let trash = try vault.itemListing(scope: .trash, limit: 10)
        #expect(trash.items.map(\.record.id) == [items[1].id, items[0].id], "the latest delete first")
        #expect(trash.total == 2)
        let paged = try vault.itemListing(scope: .trash, limit: 1)
        #expect(try vault.itemListing(scope: .trash, after: paged.nextCursor, limit: 1).items.map(\.record.id) == [items[0].id])
        for item in items { #expect(FileManager.default.fileExists(atPath: try vault.directory.pool.dataPath(item.mediaId))) }

        try vault.restoreItems([items[0].id])
        #expect(Set(try vault.items().map(\.record.id)) == [items[0].id, items[2].id])
        #expect(throws: VaultError.notInTrash(items[2].id)) { try vault.restoreItems([items[2].id]) }
        #expect(try vault.consistencyProblems().isEmpty)
        #expect(try vault.trashCount() == 1)
    }

    @Test func expiryAndEmptyingDeleteForGood() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let items = try (0..<3).map { try vault.addRaw(Array("item \($0)".utf8), name: "n\($0).bin") }
        let start = Date(timeIntervalSince1970: 1_000_000)
        try vault.trashItems([items[0].id], now: start)
        try vault.trashItems([items[1].id], now: start.addingTimeInterval(86_400))
        // A second delete keeps the first time, so expiry counts from the first.
        try vault.trashItems([items[0].id], now: start.addingTimeInterval(20 * 86_400))

        #expect(try vault.purgeExpiredTrash(now: start.addingTimeInterval(Vault.trashRetention - 1)) == 0)
        #expect(try vault.purgeExpiredTrash(now: start.addingTimeInterval(Vault.trashRetention + 1)) == 1)
        #expect(!FileManager.default.fileExists(atPath: try vault.directory.pool.dataPath(items[0].mediaId)))
        #expect(throws: VaultError.self) { try vault.item(items[0].id) }
        #expect(try vault.trashCount() == 1)

        #expect(try vault.emptyTrash() == 1)
        #expect(!FileManager.default.fileExists(atPath: try vault.directory.pool.dataPath(items[1].mediaId)))
        #expect(try vault.items().map(\.record.id) == [items[2].id])
        #expect(try vault.consistencyProblems().isEmpty)
    }

    /// A protected folder's items go to the trash still sealed under its key: hidden while
    /// it is locked, untouched by emptying then, shown and restored once it is open, and
    /// removed when they expire whether it is open or not.
    @Test func aProtectedFoldersItemsStaySealedInTheTrash() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let folder = try vault.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        let kept = try vault.addRaw(Array("secret one".utf8), name: "one.bin", folder: folder)
        let expiring = try vault.addRaw(Array("secret two".utf8), name: "two.bin", folder: folder)
        let start = Date(timeIntervalSince1970: 2_000_000)
        try vault.trashItems([kept.id], now: start.addingTimeInterval(10 * 86_400))
        try vault.trashItems([expiring.id], now: start)
        let row = try #require(try vault.catalog.allItems().first { $0.id == kept.id })
        #expect(row.name.isEmpty && row.protectedMeta != nil && row.isTrashed)

        vault.lockFolders()
        #expect(try vault.itemListing(scope: .trash, limit: 10).total == 0)
        #expect(try vault.emptyTrash() == 0)
        #expect(try vault.catalog.trashedItems().count == 2)
        #expect(try vault.purgeExpiredTrash(now: start.addingTimeInterval(Vault.trashRetention + 1)) == 1)
        #expect(!FileManager.default.fileExists(atPath: try vault.directory.pool.dataPath(expiring.mediaId)))

        try vault.unlockFolder(folder, password: pw("fpw"))
        let trash = try vault.itemListing(scope: .trash, limit: 10)
        #expect(trash.items.map(\.record.name) == ["one.bin"])
        #expect(try vault.itemCount(in: folder) == 0)
        #expect(throws: VaultError.folderNotEmpty("Private")) { try vault.removeFolder("Private") }
        try vault.restoreItems([kept.id])
        #expect(try vault.items(in: folder).map(\.record.name) == ["one.bin"])
        #expect(try vault.catalog.allItems().first { $0.id == kept.id }?.name.isEmpty == true)
        #expect(try vault.consistencyProblems().isEmpty)
    }

    /// Issue 17's review: a search of the trash finds an open protected folder's items by
    /// their sealed names (M2); a trashed item cannot be moved (L6); two empties at once
    /// both succeed (L7).
    @Test func theTrashIsSearchedOpenedAndEmptiedOnce() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let folder = try vault.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        let sealed = try vault.addRaw(Array("a".utf8), name: "secret-berlin.jpg", folder: folder)
        let open = try vault.addRaw(Array("b".utf8), name: "open-berlin.jpg")
        try vault.trashItems([sealed.id, open.id])
        let found = try vault.itemListing(scope: .trash, filter: ItemFilter(text: "BERLIN"), limit: 1)
        #expect(found.total == 2 && found.items.count == 1)
        let rest = try vault.itemListing(scope: .trash, filter: ItemFilter(text: "BERLIN"), after: found.nextCursor, limit: 1)
        #expect(Set((found.items + rest.items).map(\.record.name)) == ["secret-berlin.jpg", "open-berlin.jpg"])
        #expect(try vault.itemListing(scope: .trash, filter: ItemFilter(text: "secret"), limit: 5).items.map(\.record.name) == ["secret-berlin.jpg"])
        #expect(throws: VaultError.inTrash(open.id)) { try vault.moveItems([open.id], to: folder) }

        let results = FolderTests.Results()
        DispatchQueue.concurrentPerform(iterations: 2) { i in results.set(i, (try? vault.emptyTrash()) != nil) }
        #expect(results.get(0) && results.get(1), "both empties succeed")
        #expect(try vault.catalog.trashedItems().isEmpty)
        #expect(try vault.consistencyProblems().isEmpty)
    }

    /// A file imported again after its item went to the trash is added, not reported as a
    /// duplicate of an item the person deleted.
    @Test func aTrashedItemIsNoDuplicate() throws {
        let root = try TestRoot()
        let (vault, item, source) = try root.vaultWithPhoto(width: 64, height: 48)
        #expect(try vault.importFiles([source]).duplicates == [source])
        try vault.trashItems([item.id])
        let again = try vault.importFiles([source])
        #expect(again.imported.count == 1 && again.duplicates.isEmpty)
        #expect(try vault.consistencyProblems().isEmpty)
    }
}
