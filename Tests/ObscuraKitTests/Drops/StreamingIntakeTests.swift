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
/// `StreamingIntakeCLITests`', in a mount namespace with a small /dev/shm.
@Suite struct StreamingIntakeTests {
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
        #expect(try vault.takeDrops() == DropIntake(duplicates: 1))
        #expect(try Self.poolFiles(vault) == pool)
        #expect(try vault.items().count == 1)
    }

    /// `lock()` during a large file's intake returns within a chunk's time, the partial
    /// pool file goes, and the drop stays in the inbox, taken in whole at the next unlock.
    @Test func aLockStopsAnIntakeWithinAChunkAndTheDropStays() throws {
        let root = try TestRoot()
        let path = root.path + "/large.bin"
        let size = 64 << 20
        try Data(SystemRandom().bytes(size)).write(to: URL(fileURLWithPath: path))
        let (directory, vault, inbox) = try Self.vaultWithDrops(root, [path])
        let blobs = inbox.blobNames()
        let before = try Self.poolFiles(vault)
        let poolPath = vault.directory.pool.path

        final class Outcome: @unchecked Sendable {
            // @unchecked: written by the intake's thread before `done` is signalled.
            var error: Error?
            let done = DispatchSemaphore(value: 0)
        }
        let outcome = Outcome()
        Thread.detachNewThread {
            do { _ = try vault.takeDrops() } catch { outcome.error = error }
            outcome.done.signal()
        }
        // The seal pass has begun once a temporary of a few MiB is in the pool.
        let deadline = Date().addingTimeInterval(120)
        func sealing() -> Bool {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: poolPath)) ?? []
            return names.contains { $0.hasPrefix(".pending-") && ((try? FileIO.size(poolPath + "/" + $0)) ?? 0) > 4 << 20 }
        }
        while !sealing(), Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
        #expect(sealing(), "the intake reached its seal pass")
        let started = Date()
        vault.lock()
        let took = Date().timeIntervalSince(started)
        #expect(took < 1, "lock() waited \(took) s")
        #expect(outcome.done.wait(timeout: .now() + 60) == .success)
        #expect(outcome.error as? VaultError == .locked, "\(String(describing: outcome.error))")
        #expect(try Self.poolFiles(vault) == before, "nothing the catalog does not name is left")
        #expect(inbox.blobNames() == blobs)

        let again = try directory.unlock(password: pw("drops vault"))
        defer { again.lock() }
        #expect(again.dropIntake == DropIntake(taken: 1))
        let item = try #require(try again.items().first?.record)
        #expect(item.size == Int64(size))
        let source = try FileIO.read(path)
        #expect(try again.read(item, range: UInt64(size - 4096)..<UInt64(size)) == Array(source.suffix(4096)))
        #expect(inbox.blobNames().isEmpty)
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
