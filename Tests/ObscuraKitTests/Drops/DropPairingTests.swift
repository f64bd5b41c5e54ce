import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Issue 40 point 1: a drop only adds items (docs/FORMAT.md §10.6). A code holder who
/// knows an item's name stem and capture second, or a Live Photo's content identifier,
/// must not attach a file to the owner's item, nor make it disappear into a new one.
@Suite struct DropPairingTests {
    static let date = "2022:03:04 05:06:07"
    let raws = RawPairTests()
    let lives = LivePhotoTests()

    /// A vault with the owner's `files` imported, locked again, and its drop code.
    func owner(_ root: TestRoot, files: [String]) throws -> (VaultDirectory, [ItemRecord], DropCode) {
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("owner"), iterations: testIterations)
        let report = try vault.importFiles(files)
        #expect(report.imported.count == files.count && report.failures.isEmpty)
        let code = try vault.dropCode()
        vault.lock()
        return (directory, report.imported, code)
    }

    /// Unlocks the owner's vault, taking in the drops, and checks that each of `kept` is
    /// there unchanged and the one dropped file is a new item of its own.
    func expectOnlyAdded(_ directory: VaultDirectory, kept: [ItemRecord], dropped name: String) throws -> Vault {
        let vault = try directory.unlock(password: pw("owner"))
        #expect(vault.dropIntake.taken == 1 && vault.dropIntake.failed.isEmpty)
        let rows = try vault.items().map(\.record)
        #expect(rows.count == kept.count + 1, "the drop is an item of its own")
        for item in kept {
            let now = try vault.item(item.id)
            #expect(now.name == item.name && now.mediaId == item.mediaId && now.thumbId == item.thumbId)
            #expect(now.companionId == item.companionId && now.companionName == item.companionName,
                    "the owner's item took nothing in")
        }
        let new = try #require(rows.first { $0.name == name })
        #expect(new.companionId == nil && new.pairKey == nil, "a dropped item pairs with nothing, now or later")
        return vault
    }

    @Test func aDroppedJpegDoesNotTakeOverTheOwnersRaw() throws {
        let root = try TestRoot()
        let (directory, kept, code) = try owner(root, files: [try raws.dng(root, "IMG_0042.DNG", date: Self.date)])
        let still = try raws.jpeg(root, "IMG_0042.JPG", date: Self.date)
        try DropInbox(vaultPath: root.vaultPath).drop(file: still, to: code)
        let vault = try expectOnlyAdded(directory, kept: kept, dropped: "IMG_0042.JPG")
        #expect(try vault.item(kept[0].id).kind == .photo)
        vault.lock()
    }

    @Test func aDroppedRawDoesNotJoinTheOwnersJpeg() throws {
        let root = try TestRoot()
        let (directory, kept, code) = try owner(root, files: [try raws.jpeg(root, "DSC_0001.JPG", date: Self.date)])
        try DropInbox(vaultPath: root.vaultPath).drop(file: try raws.dng(root, "DSC_0001.DNG", date: Self.date), to: code)
        let vault = try expectOnlyAdded(directory, kept: kept, dropped: "DSC_0001.DNG")
        #expect(throws: (any Error).self) { try vault.openCompanion(try vault.item(kept[0].id)) }
        vault.lock()
    }

    @Test func aDroppedMovieDoesNotJoinTheOwnersLiveStill() throws {
        let root = try TestRoot()
        let (still, movie) = try lives.pair(in: root)
        let (directory, kept, code) = try owner(root, files: [still])
        try DropInbox(vaultPath: root.vaultPath).drop(file: movie, to: code)
        try expectOnlyAdded(directory, kept: kept, dropped: "IMG_0001.MOV").lock()
    }

    @Test func aDroppedStillDoesNotTakeTheOwnersLiveMovie() throws {
        let root = try TestRoot()
        let (still, movie) = try lives.pair(in: root)
        let (directory, kept, code) = try owner(root, files: [movie])
        try DropInbox(vaultPath: root.vaultPath).drop(file: still, to: code)
        try expectOnlyAdded(directory, kept: kept, dropped: "IMG_0001.JPG").lock()
    }

    /// The other way round: the owner's own import later must not join the dropped file
    /// either, or a drop waiting for its half would take the owner's RAW in.
    @Test func theOwnersLaterRawDoesNotJoinADroppedJpeg() throws {
        let root = try TestRoot()
        let (directory, _, code) = try owner(root, files: [])
        try DropInbox(vaultPath: root.vaultPath).drop(file: try raws.jpeg(root, "IMG_7.JPG", date: Self.date), to: code)
        let vault = try expectOnlyAdded(directory, kept: [], dropped: "IMG_7.JPG")
        let report = try vault.importFiles([try raws.dng(root, "IMG_7.DNG", date: Self.date)])
        #expect(report.imported.count == 1 && report.joined.isEmpty)
        #expect(try vault.items().count == 2)
        vault.lock()
    }
}
