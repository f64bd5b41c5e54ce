import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// `--remove-after` (docs/PHONE.md §W2.7): a source is removed only after its vault took
/// its blob in, unchanged, with no other name, never where deletions travel back; a
/// removal stopped at any step (as a kill would stop it) leaves the file or an item of
/// its exact content, and the next start finishes or undoes it.
@Suite struct WatchRemovalTests {
    typealias Setup = WatcherTests.Setup

    static func removing(_ setup: Setup) -> Watcher.Options {
        var options = setup.options(existing: true)
        options.removeAfter = true
        return options
    }

    /// Seals `name` with a removing watcher and returns the watcher.
    static func sealed(_ setup: Setup, _ name: String, seed: Int) throws -> Watcher {
        try setup.write(name, try WatcherTests.photo(seed))
        let watcher = try setup.watcher(removing(setup))
        try watcher.pass(now: 0)
        try watcher.pass(now: 10)
        #expect(setup.inbox.blobNames().count == 1)
        return watcher
    }

    @Test func aSourceIsRemovedOnlyOnceItsVaultTookItIn() throws {
        let setup = try Setup()
        let watcher = try Self.sealed(setup, "IMG_1.jpg", seed: 50)
        let path = setup.source + "/IMG_1.jpg"
        let bytes = try FileIO.read(path)
        for now in stride(from: 20.0, through: 60, by: 10) { try watcher.pass(now: now) }
        #expect(FileManager.default.fileExists(atPath: path), "durable in the inbox is not taken in")
        _ = try setup.vault.takeDrops()
        try watcher.pass(now: 70)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(watcher.tally.removed == 1)
        let item = try #require(try setup.vault.items().first?.record)
        #expect(try setup.vault.read(item, range: 0..<UInt64(bytes.count)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.source).isEmpty, "no file set aside is left")
    }

    /// A blob no vault takes (a code of a destroyed vault, a mistyped one) never leaves
    /// the inbox, so its source stays for good, restarts included.
    @Test func aDropNoVaultTakesNeverRemovesItsSource() throws {
        let setup = try Setup()
        let other = try setup.vault.directory.createVault(password: pw("other vault"), iterations: testIterations)
        defer { other.lock() }
        var watcher: Watcher? = try Self.sealed(setup, "IMG_2.jpg", seed: 51)
        _ = try other.takeDrops()
        try watcher!.pass(now: 20)
        watcher = nil
        watcher = try setup.watcher(Self.removing(setup))
        try watcher!.pass(now: 30)
        #expect(FileManager.default.fileExists(atPath: setup.source + "/IMG_2.jpg"))
        #expect(setup.inbox.blobNames().count == 1)
    }

    /// A file rewritten in place after it was sealed, its size and times put back, is not
    /// the file the vault took: it stays (rule 2). A file with another name stays (rule 4).
    @Test func aChangedFileAndALinkedFileStay() throws {
        let setup = try Setup()
        try setup.write("changed.jpg", try WatcherTests.photo(52))
        try setup.write("linked.jpg", try WatcherTests.photo(53))
        let watcher = try setup.watcher(Self.removing(setup))
        try watcher.pass(now: 0)
        try watcher.pass(now: 10)
        #expect(setup.inbox.blobNames().count == 2)
        #expect(link(setup.source + "/linked.jpg", setup.root.path + "/elsewhere.jpg") == 0)
        let path = setup.source + "/changed.jpg"
        var before = stat()
        #expect(stat(path, &before) == 0)
        var bytes = try FileIO.read(path)
        bytes[bytes.count / 2] ^= 0xFF
        try FileIO.overwriteInPlace(path, with: bytes)
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        _ = try setup.vault.takeDrops()
        try watcher.pass(now: 20)
        #expect(FileManager.default.fileExists(atPath: path), "its bytes are not the bytes sealed")
        #expect(FileManager.default.fileExists(atPath: setup.source + "/linked.jpg"))
        #expect(setup.lines.contains("linked.jpg: kept: it has other names"), "\(setup.lines)")
    }

    /// A removal stopped at each of its steps, as a kill would stop it, then a new start:
    /// at no moment is the file gone without an item of its exact content, and in the end
    /// it is removed once, with nothing set aside left behind.
    @Test(arguments: [Watcher.RemovalStep.leased, .hashed, .setAside, .synced, .unlinked])
    func aRemovalStoppedAtAnyStepLosesNothing(step: Watcher.RemovalStep) throws {
        struct Killed: Error {}
        let setup = try Setup()
        var watcher: Watcher? = try Self.sealed(setup, "IMG_3.jpg", seed: 54)
        let path = setup.source + "/IMG_3.jpg"
        let bytes = try FileIO.read(path)
        _ = try setup.vault.takeDrops()
        let item = try #require(try setup.vault.items().first?.record)
        watcher!.removalProbe = { if $0 == step { throw Killed() } }
        #expect(throws: Killed.self) { try watcher!.pass(now: 20) }
        watcher = nil
        // The vault holds the file's exact content, whatever the folder shows now.
        #expect(try setup.vault.read(item, range: 0..<UInt64(bytes.count)) == bytes)
        let restarted = try setup.watcher(Self.removing(setup))
        try restarted.pass(now: 100)
        try restarted.pass(now: 110)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.source).isEmpty, "nothing set aside is left")
        #expect(setup.inbox.blobNames().isEmpty, "nothing was sealed again")
    }

    /// A Syncthing folder that is not Receive Only, or whose type cannot be read, and a
    /// Nextcloud client folder refuse `--remove-after` at start (rule 6); Receive Only and
    /// the explicit override start.
    @Test func foldersThatSyncDeletionsBackAreRefused() throws {
        let setup = try Setup()
        let home = setup.root.path + "/home"
        let configuration = home + "/.config/syncthing"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: setup.source + "/.stfolder"))
        let environment = ["HOME": home]
        func config(_ type: String) throws {
            let xml = """
                <configuration version="37">
                    <folder id="abcd-1234" label="Camera" path="\(setup.source)" type="\(type)" rescanIntervalS="3600">
                    </folder>
                </configuration>
                """
            try Data(xml.utf8).write(to: URL(fileURLWithPath: configuration + "/config.xml"))
        }
        #expect(Watcher.syncedFolderRefusal(setup.source, environment: environment)?.contains("not Receive Only") == true)
        try config("sendreceive")
        #expect(Watcher.syncedFolderRefusal(setup.source, environment: environment)?.contains("Syncthing") == true)
        try config("receiveonly")
        #expect(Watcher.syncedFolderRefusal(setup.source, environment: environment) == nil)
        try FileManager.default.createDirectory(atPath: setup.source + "/Sub", withIntermediateDirectories: true)
        #expect(Watcher.syncedFolderRefusal(setup.source + "/Sub", environment: environment) == nil, "a folder inside it")
        try FileManager.default.removeItem(atPath: setup.source + "/.stfolder")
        try Data().write(to: URL(fileURLWithPath: setup.source + "/.sync_3f2a6c.db"))
        #expect(Watcher.syncedFolderRefusal(setup.source, environment: environment)?.contains("Nextcloud") == true)
        #expect(throws: WatchError.self) { _ = try setup.watcher(Self.removing(setup)) }
        var override = Self.removing(setup)
        override.removeInSyncedFolder = true
        _ = try setup.watcher(override)
    }

    /// With removal records pending, the state directory still holds no blob name in the
    /// clear.
    @Test func aRemovalRecordHoldsNoBlobNameInTheClear() throws {
        let setup = try Setup()
        _ = try Self.sealed(setup, "IMG_4.jpg", seed: 55)
        let blob = try #require(setup.inbox.blobNames().first)
        let uuid = try #require(UUID(uuidString: String(blob.prefix(36))))
        let raw = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        var state: [UInt8] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: setup.state) {
            state += try FileIO.read(setup.state + "/" + name)
        }
        #expect(!WatchJournalTests.contains(state, raw))
        #expect(!WatchJournalTests.contains(state, Array(blob.prefix(36).utf8)))
        #expect(state.count > 124, "the record is there")
    }

    /// A blob that leaves the inbox without an intake's receipt (deleted by hand, with the
    /// vault directory) removes nothing; a vault directory moved away and replaced while
    /// the watcher runs gets new blobs that removal never counts on (review W-R1, W-R2).
    @Test func onlyAnIntakesReceiptRemovesASource() throws {
        let setup = try Setup()
        let watcher = try Self.sealed(setup, "IMG_5.jpg", seed: 56)
        let blob = try #require(setup.inbox.blobNames().first)
        #expect(unlink(setup.inbox.path + "/" + blob) == 0)
        try watcher.pass(now: 20)
        #expect(FileManager.default.fileExists(atPath: setup.source + "/IMG_5.jpg"), "no receipt, no removal")

        let moved = setup.root.path + "/vault.old"
        #expect(rename(setup.root.vaultPath, moved) == 0)
        try FileManager.default.createDirectory(atPath: setup.root.dataPath, withIntermediateDirectories: true)
        try setup.write("IMG_6.jpg", try WatcherTests.photo(57))
        try watcher.pass(now: 30)
        try watcher.pass(now: 40)
        #expect(setup.inbox.blobNames().count == 1, "sealed into the new directory's inbox")
        #expect(setup.lines.contains { $0.contains("not the one this watcher started with") }, "\(setup.lines)")
        // Even an intake's receipt there does not reach the inbox the watcher checks.
        let newBlob = try #require(setup.inbox.blobNames().first)
        try Data().write(to: URL(fileURLWithPath: setup.inbox.path + "/" + DropInbox.receiptName(for: newBlob)))
        #expect(unlink(setup.inbox.path + "/" + newBlob) == 0)
        try watcher.pass(now: 50)
        #expect(FileManager.default.fileExists(atPath: setup.source + "/IMG_6.jpg"))
        #expect(rename(setup.root.vaultPath, setup.root.path + "/vault.new") == 0 && rename(moved, setup.root.vaultPath) == 0)
    }

    /// A Syncthing folder that is not Receive Only inside the watched one refuses removal
    /// at start, and one that appears while the watcher runs stops it (review W-R3).
    @Test func aSyncedFolderBelowTheWatchedOneStopsRemoval() throws {
        let setup = try Setup()
        let phone = setup.source + "/Phone"
        try FileManager.default.createDirectory(atPath: phone, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: phone + "/.stfolder"))
        #expect(throws: WatchError.self) { _ = try setup.watcher(Self.removing(setup)) }
        try FileManager.default.removeItem(atPath: phone + "/.stfolder")
        let watcher = try Self.sealed(setup, "Phone/IMG_8.jpg", seed: 58)
        try Data().write(to: URL(fileURLWithPath: phone + "/.stfolder"))
        _ = try setup.vault.takeDrops()
        try watcher.pass(now: 20)
        try watcher.pass(now: 30)
        #expect(FileManager.default.fileExists(atPath: phone + "/IMG_8.jpg"))
        #expect(setup.lines.contains { $0.contains("Syncthing") && $0.contains("kept from now on") }, "\(setup.lines)")
    }
}
