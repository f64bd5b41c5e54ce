import Foundation
import GRDB
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

@Suite struct RenditionTests {
    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The rendition's whole plaintext.
    func rendition(_ vault: Vault, _ item: ItemRecord) throws -> [UInt8] {
        let reader = try vault.openRendition(item)
        return try reader.read(0..<reader.size)
    }

    @Test func anHEVCVideoGetsAPlayableRenditionSealedInThePoolAndTheOriginalStays() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let source = try TestImages.hevcVideo(in: root.path)
        let imported = try #require(try v.importFiles([source]).imported.first)
        #expect(imported.renditionState == .pending && imported.renditionId == nil)
        #expect(try v.pendingRenditions() == [imported.id])
        #expect(try root.poolFiles().count == 2)

        let seen = Counter()
        let outcome = try v.makeRenditions { _, _, _, _ in seen.add() }
        #expect(outcome.made == 1 && outcome.failed == 0 && seen.value > 1)
        let item = try v.item(imported.id)
        #expect(item.renditionState == .ready)
        let renditionId = try #require(item.renditionId)
        #expect(try root.poolFiles().count == 3 && root.poolFiles().contains(renditionId + ".data.enc"))
        #expect(try v.pendingRenditions().isEmpty)

        let mp4 = try rendition(v, item)
        let info = try Video.probe(feeding: { write in try mp4.withUnsafeBytes(write) })
        #expect(info.videoCodec == "h264" && info.audioCodec == "aac" && info.width == 640 && info.height == 360)
        var original = [UInt8]()
        try v.export(item) { original += $0 }
        #expect(original == (try bytes(source)), "the original is kept as it was")
        #expect(try v.verify().problems.isEmpty)

        // No byte of the rendition's plaintext is on disk: its MP4 header, or any run of it.
        let needles = [Array(mp4.prefix(32)), Array(mp4[mp4.count / 2..<mp4.count / 2 + 32])]
        let enumerator = FileManager.default.enumerator(atPath: root.vaultPath)!
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root.vaultPath + "/" + relative, isDirectory: &isDirectory)
            if isDirectory.boolValue { continue }
            let file = try bytes(root.vaultPath + "/" + relative)
            for needle in needles { #expect(!file.contains(subsequence: needle), "rendition plaintext in \(relative)") }
            #expect(!relative.hasPrefix("media/."), "a temporary was left: \(relative)")
        }

        // Unlocked again, it is still there; making it again does nothing.
        v.lock()
        let again = try v.directory.unlock(password: pw("pw"))
        #expect(try rendition(again, again.item(item.id)) == mp4)
        #expect(try again.makeRendition(item.id) == nil)
    }

    @Test func aVideoBrowsersPlayNeedsNoRendition() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let item = try #require(try v.importFiles([try TestImages.video(in: root.path)]).imported.first)
        #expect(item.renditionState == nil)
        #expect(try v.pendingRenditions().isEmpty)
        #expect(throws: VaultError.self) { try v.openRendition(item) }
    }

    @Test func deletingAnItemRemovesItsRenditionAndAMoveAcrossProtectionMakesItAgain() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let first = try #require(try v.importFiles([try TestImages.hevcVideo(in: root.path)]).imported.first)
        try v.makeRenditions()
        let before = try rendition(v, v.item(first.id))

        let secret = try v.createFolder("Secret", password: pw("folder"), iterations: testIterations)
        try v.moveItems([first.id], to: secret)
        var moved = try v.item(first.id)
        #expect(moved.renditionState == .pending && moved.renditionId == nil)
        #expect(try root.poolFiles().count == 2, "the old rendition went with the old original")
        try v.makeRenditions()
        moved = try v.item(first.id)
        #expect(moved.renditionState == .ready)
        #expect(try rendition(v, moved).count > 0)
        #expect(try v.verify().problems.isEmpty)
        // Locked, the folder's rendition is out of reach like its original.
        v.lockFolders()
        #expect(throws: (any Error).self) { try v.openRendition(moved) }
        _ = before

        try v.unlockFolder(secret, password: pw("folder"))
        try v.deleteItems([first.id])
        #expect(try root.poolFiles().isEmpty)
    }

    @Test func aVideoFfmpegCannotConvertIsMarkedFailedAndKept() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let item = try v.addRaw(Array(repeating: 0x42, count: 100_000), name: "broken.mov")
        try v.catalog.database.write { db in
            try db.execute(sql: "UPDATE item SET kind = 'video', renditionState = 'pending' WHERE id = ?", arguments: [item.id])
        }
        #expect(try v.makeRenditions() == (made: 0, failed: 1, skipped: 0))
        #expect(try v.item(item.id).renditionState == .failed)
        #expect(try root.poolFiles().count == 1)
        #expect(try v.retryFailedRenditions() == 1)
        #expect(try v.item(item.id).renditionState == .pending)
    }

    @Test func aDamagedOriginalFailsAloneAndTheOthersAreMade() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let report = try v.importFiles([
            try TestImages.hevcVideo(in: root.path, name: "a.mov", seconds: 1),
            try TestImages.hevcVideo(in: root.path, name: "b.mov", seconds: 2),
        ])
        #expect(report.imported.count == 2)
        // The one the queue takes first (by id), its first chunk flipped on disk.
        let first = try #require(report.imported.map(\.id).sorted().first)
        let path = root.vaultPath + "/media/" + (try v.item(first).mediaId) + ".data.enc"
        var sealed = try bytes(path)
        sealed[200] ^= 1
        try Data(sealed).write(to: URL(fileURLWithPath: path))
        let outcome = try v.makeRenditions()
        #expect(outcome == (made: 1, failed: 1, skipped: 0), "\(outcome)")
        #expect(try v.item(first).renditionState == .failed)
    }

    @Test func aMovieWhoseSamplesFfmpegCannotReachFromAPipeFailsRatherThanPlayNothing() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        // A box of unprintable type after ftyp: ffprobe, reading the file, skips it; the
        // layout cannot be read, so the file is fed as it is, its index after its data.
        var clip = try bytes(try TestImages.hevcVideo(in: root.path))
        let ftypSize = Int(clip[3])
        clip.insert(contentsOf: [0, 0, 0, 16, 1, 2, 3, 4] + [UInt8](repeating: 0, count: 8), at: ftypSize)
        try Data(clip).write(to: URL(fileURLWithPath: root.path + "/odd.mov"))
        let item = try #require(try v.importFiles([root.path + "/odd.mov"]).imported.first)
        #expect(item.renditionState == .pending)
        #expect(try v.makeRenditions() == (made: 0, failed: 1, skipped: 0))
        let stored = try v.item(item.id)
        #expect(stored.renditionState == .failed && stored.renditionId == nil)
        #expect(try Set(root.poolFiles()) == Set(v.directory.pool.files(of: stored).map { ($0 as NSString).lastPathComponent }),
                "no rendition was kept")
    }

    @Test func lockingTheItemsFolderStopsItsRendition() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let secret = try v.createFolder("Secret", password: pw("folder"), iterations: testIterations)
        let item = try #require(try v.importFiles([try TestImages.hevcVideo(in: root.path, seconds: 4)], into: secret).imported.first)
        let locked = Counter()
        let outcome = try v.makeRenditions { _, _, _, done in
            if done > 0 && locked.value == 0 {
                locked.add()
                v.lockFolder(secret)
            }
        }
        #expect(locked.value == 1)
        #expect(outcome == (made: 0, failed: 0, skipped: 1))
        try v.unlockFolder(secret, password: pw("folder"))
        #expect(try v.item(item.id).renditionState == .pending)
        #expect(try root.poolFiles().count == 2)
    }

    @Test func anItemDeletedWhileItsRenditionIsMadeLeavesNothingBehind() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let item = try #require(try v.importFiles([try TestImages.hevcVideo(in: root.path)]).imported.first)
        let deleted = Counter()
        #expect(try v.makeRendition(item.id, progress: { _ in
            // Once, from ffmpeg's progress: the item goes while ffmpeg still works on it.
            if deleted.value == 0 {
                deleted.add()
                try? v.deleteItems([item.id])
            }
        }) == nil)
        #expect(deleted.value == 1)
        #expect(try root.poolFiles().isEmpty)
        #expect(try v.consistencyProblems().isEmpty)
    }

    @Test func lockingTheVaultStopsTheWorkAndLeavesItPending() throws {
        let root = try TestRoot()
        let v = try root.newVault()
        let item = try #require(try v.importFiles([try TestImages.hevcVideo(in: root.path, seconds: 4)]).imported.first)
        let worker = RenditionWorker(vault: v)
        worker.start()
        // Locks as soon as the worker is at it.
        let deadline = Date().addingTimeInterval(30)
        while worker.status.current == nil && Date() < deadline { usleep(10_000) }
        #expect(worker.status.current == item.id)
        v.lock()
        while worker.status.current != nil && Date() < deadline { usleep(10_000) }
        #expect(worker.status == .init(pending: 0, current: nil, progress: 0))
        let reopened = try v.directory.unlock(password: pw("pw"))
        #expect(try reopened.item(item.id).renditionState == .pending)
        #expect(try root.poolFiles().count == 2)
        #expect(try reopened.consistencyProblems().isEmpty)
    }

    @Test func anExportCarriesTheRenditionAndTheImportedVaultPlaysIt() throws {
        let a = try TestRoot(), b = try TestRoot()
        let v = try a.newVault()
        let item = try #require(try v.importFiles([try TestImages.hevcVideo(in: a.path)]).imported.first)
        try v.makeRenditions()
        let mp4 = try rendition(v, v.item(item.id))
        let file = a.path + "/vault.obscura"
        try v.exportVault(to: file, password: pw("e"), iterations: testIterations)
        let target = try b.initialized()
        #expect(try target.importVault(from: file, password: pw("e")) == 1)
        let imported = try target.unlock(password: pw("pw"))
        #expect(try rendition(imported, imported.item(item.id)) == mp4)
        #expect(try imported.verify().problems.isEmpty)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
