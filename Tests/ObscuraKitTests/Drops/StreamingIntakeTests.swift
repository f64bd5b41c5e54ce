import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore

/// The streaming intake (issue 39 step S1; docs/PHONE.md §W3.2, FORMAT.md §10.6 step 4): a
/// dropped video or file goes from its blob into the pool a chunk at a time, a file the
/// vault holds is never written, and a lock stops an intake within a chunk, leaving the
/// drop for the next. The memory side (no shared memory at all) is
/// `DropCLITests.aLargeVideoDropIsTakenInWithoutSharedMemory`, in a mount namespace with
/// a small /dev/shm.
@Suite struct StreamingIntakeTests {
    /// What a probe saw; written by the intake's threads one at a time, read after.
    final class Reached: @unchecked Sendable {
        var seconds: TimeInterval?
        var partial: Int?
        var intake: DropIntake?
        var points = [DropIntakePoint]()
    }

    /// A vault with the files `paths` dropped to it.
    static func vaultWithDrops(_ root: TestRoot, _ paths: [String]) throws -> (VaultDirectory, Vault, DropInbox) {
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("drops vault"), iterations: testIterations)
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let code = try vault.dropCode()
        for path in paths { try inbox.drop(file: path, to: code) }
        return (directory, vault, inbox)
    }

    /// The pool's files, temporaries included.
    static func poolFiles(_ vault: Vault) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: vault.directory.pool.path))
    }

    @Test func aDroppedVideoIsStreamedInWithItsFactsAndPoster() throws {
        let root = try TestRoot()
        // HEVC in a QuickTime file, its index last: fed to the tools rearranged.
        let path = try TestImages.hevcVideo(in: root.path, name: "phone.mov")
        let (_, vault, inbox) = try Self.vaultWithDrops(root, [path])
        defer { vault.lock() }
        let intake = try vault.takeDrops()
        #expect(intake == DropIntake(taken: 1), "\(intake)")
        #expect(inbox.blobNames().isEmpty)
        let item = try #require(try vault.items().first?.record)
        #expect(item.kind == .video && item.name == "phone.mov" && item.width == 640 && item.height == 360)
        #expect(abs((item.duration ?? 0) - 2) < 0.2, "\(String(describing: item.duration))")
        #expect(item.thumbId != nil, "a poster made by ffmpeg reading the blob")
        #expect(item.renditionState == .pending, "HEVC needs a rendition")
        #expect(item.pairKey == nil)
        let source = try FileIO.read(path)
        #expect(try vault.read(item, range: 0..<UInt64(source.count)) == source)
        #expect(try Self.poolFiles(vault).allSatisfy { !$0.hasPrefix(".pending-") })
    }

    /// A file the vault holds already is found by the hash pass, before anything is
    /// written to the pool: a second drop of the same content leaves the pool as it was.
    @Test func aDuplicateIsNeverWrittenToThePool() throws {
        let root = try TestRoot()
        let path = root.path + "/archive.bin"
        try Data(SeededRandom(seed: "archive").bytes(3 << 20)).write(to: URL(fileURLWithPath: path))
        let (_, vault, inbox) = try Self.vaultWithDrops(root, [path])
        defer { vault.lock() }
        #expect(try vault.takeDrops() == DropIntake(taken: 1))
        let item = try #require(try vault.items().first?.record)
        #expect(item.kind == .file && item.size == 3 << 20)
        let pool = try Self.poolFiles(vault)
        try inbox.drop(file: path, name: "again.bin", to: try vault.dropCode())
        let reached = Reached()
        vault.stateLock.withLock { vault.intakeProbe = { reached.points.append($0) } }
        #expect(try vault.takeDrops() == DropIntake(duplicates: 1))
        #expect(reached.points.contains(.hashing(0)) && !reached.points.contains(.sealing(0)), "\(reached.points)")
        #expect(try Self.poolFiles(vault) == pool)
        #expect(try vault.items().count == 1)
    }

    /// A lock at each point where an intake checks the vault (review S1-R1, S1-R10): at
    /// the hash pass, the seal pass, the feed to the tools and just before the commit.
    /// `lock()` returns at once, since no operation is held there; the intake stops, the
    /// pool is as it was (no temporary, no unnamed original), the drop stays in the inbox
    /// and is taken in whole at the next unlock.
    @Test(arguments: [DropIntakePoint.hashing(0), .sealing(0), .feeding, .committing])
    func aLockAtEachPointOfAnIntakeLeavesTheDropAndNothingElse(point: DropIntakePoint) throws {
        let root = try TestRoot()
        let path = try TestImages.hevcVideo(in: root.path, name: "phone.mov")
        let (directory, vault, inbox) = try Self.vaultWithDrops(root, [path])
        let blobs = inbox.blobNames()
        let before = try Self.poolFiles(vault)
        let took = Reached()
        vault.stateLock.withLock {
            vault.intakeProbe = { [unowned vault] reached in
                guard reached == point, took.seconds == nil else { return }
                let start = Date()
                vault.lock()
                took.seconds = Date().timeIntervalSince(start)
            }
        }
        #expect(try vault.takeDrops() == DropIntake(waiting: 1))
        #expect(try #require(took.seconds) < 1)
        #expect(try Self.poolFiles(vault) == before, "nothing the catalog does not name is left")
        #expect(inbox.blobNames() == blobs)

        let again = try directory.unlock(password: pw("drops vault"))
        defer { again.lock() }
        #expect(again.dropIntake == DropIntake(taken: 1))
        #expect(try again.items().first?.record.thumbId != nil)
        #expect(inbox.blobNames().isEmpty)
    }

    /// The same in the middle of a larger file's seal pass: `lock()` waits for no more
    /// than the chunk in hand, and the partial pool file goes.
    @Test func aLockDuringALargeSealStopsItWithinAChunk() throws {
        let root = try TestRoot()
        let path = root.path + "/large.bin"
        let size = 16 << 20
        try Data(SystemRandom().bytes(size)).write(to: URL(fileURLWithPath: path))
        let (directory, vault, inbox) = try Self.vaultWithDrops(root, [path])
        let before = try Self.poolFiles(vault)
        let poolPath = vault.directory.pool.path
        let took = Reached()
        vault.stateLock.withLock {
            vault.intakeProbe = { [unowned vault] reached in
                guard reached == .sealing(32), took.seconds == nil else { return }
                let partial = (try? FileManager.default.contentsOfDirectory(atPath: poolPath))?.filter { $0.hasPrefix(".pending-") }
                took.partial = partial?.count ?? 0
                let start = Date()
                vault.lock()
                took.seconds = Date().timeIntervalSince(start)
            }
        }
        #expect(try vault.takeDrops() == DropIntake(waiting: 1))
        #expect(took.partial == 1, "the seal had begun")
        #expect(try #require(took.seconds) < 1)
        #expect(try Self.poolFiles(vault) == before)
        let again = try directory.unlock(password: pw("drops vault"))
        defer { again.lock() }
        #expect(again.dropIntake == DropIntake(taken: 1))
        let item = try #require(try again.items().first?.record)
        let source = try FileIO.read(path)
        #expect(try again.read(item, range: UInt64(size - 4096)..<UInt64(size)) == Array(source.suffix(4096)))
        #expect(inbox.blobNames().isEmpty)
    }

    /// One intake of a vault at a time (review S1-R2): a second, started while the first
    /// is under way (the gallery's sweep beside an unlock), returns at once with nothing,
    /// and the drop becomes one item.
    @Test func aSecondIntakeOfTheSameVaultFindsNothingToDo() throws {
        let root = try TestRoot()
        let path = root.path + "/file.bin"
        try Data(SystemRandom().bytes(1 << 20)).write(to: URL(fileURLWithPath: path))
        let (_, vault, _) = try Self.vaultWithDrops(root, [path])
        defer { vault.lock() }
        let second = Reached()
        vault.stateLock.withLock {
            vault.intakeProbe = { [unowned vault] reached in
                guard reached == .sealing(0), second.intake == nil else { return }
                second.intake = try? vault.takeDrops()
            }
        }
        #expect(try vault.takeDrops() == DropIntake(taken: 1))
        #expect(second.intake == DropIntake())
        #expect(try vault.items().count == 1)
    }

    /// A photo goes through memory as an upload does: probed, thumbnailed, never paired.
    @Test func aDroppedPhotoIsImportedAsAnUpload() throws {
        let root = try TestRoot()
        let path = root.path + "/photo.jpg"
        try Data(try TestImages.image("jpeg", width: 64, height: 48)).write(to: URL(fileURLWithPath: path))
        let (_, vault, _) = try Self.vaultWithDrops(root, [path])
        defer { vault.lock() }
        #expect(try vault.takeDrops() == DropIntake(taken: 1))
        let item = try #require(try vault.items().first?.record)
        #expect(item.kind == .photo && item.width == 64 && item.thumbId != nil && item.pairKey == nil)
    }
}
