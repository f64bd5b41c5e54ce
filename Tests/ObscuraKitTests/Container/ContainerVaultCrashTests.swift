import Foundation
import ObscuraCrypto
import Testing
import ObscuraStoreTestSupport
import ObscuraTestSupport
@testable import ObscuraKit

/// The crash harness of issue 14 at the level of vaults: each vault operation runs on a
/// version 4 directory whose slot files are the write recorder, and a sample of the
/// crash images taken at every sync point (``ContainerCrashTests/crashImages(_:random:)``)
/// is written back to disk and opened as a user would, recovery first. Each must hold
/// the directory's old or new contents as a whole: the written vault old or new, every
/// other vault (the locked one included) byte for byte inside, the decoy sweep finding
/// every decoy, every real vault opening with its password, and one slot size.
@Suite struct ContainerVaultCrashTests {
    typealias F = ContainerFixtures
    /// Stream contents per slot name: a whole directory state as vaults see it.
    typealias State = [String: [UInt8]]

    /// A V4 directory with two real vaults ("a", written by the operations; "b", locked
    /// throughout) and eight decoys, on disk.
    final class Fixture {
        let root: TestRoot
        /// The data/ files before the operation.
        let start: [String: [UInt8]]

        /// With `version3`, the vaults are made in version 3 slot files, which are then
        /// migrated into the container: their catalogs are version 3 until unlocked (§9.7).
        init(version3: Bool = false) throws {
            root = try TestRoot(parent: CrashFixture.base)
            let fill = { (n: Int, vault: Vault) in
                if n == 0 {
                    try vault.addRaw(Array(repeating: 7, count: 5000), name: "one.bin", thumbnail: [1, 2])
                    try vault.write("note", "before")
                } else {
                    try vault.addRaw(Array("b".utf8), name: "b.txt")
                }
            }
            let passwords = [pw("a pw"), pw("b pw")]
            if version3 {
                try Version3Fixture.make(
                    path: root.vaultPath, secrets: root.secrets, iterations: crashIterations, passwords: passwords, fill: fill)
                try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets).migrateToContainer(outerKey: F.outerKey)
            } else {
                let directory = try VaultDirectory(
                    path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey, create: true)
                try directory.initialize(iterations: crashIterations)
                for (n, password) in passwords.enumerated() {
                    let vault = try directory.createVault(password: password, iterations: crashIterations)
                    defer { vault.lock() }
                    try fill(n, vault)
                }
            }
            start = try root.snapshot()
        }

        /// The directory opened over a recorder that starts from ``start``: its writes
        /// go to the recorder, the files on disk stay as they were.
        func openRecorded(_ recorder: RecordingSlotFiles) throws -> VaultDirectory {
            try VaultDirectory(
                path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey, create: false,
                random: SystemRandom(), slotFiles: { _ in recorder })
        }

        /// Writes `image` as data/ and opens the directory as a user would (recovery
        /// runs), for the length of `body`.
        func withImage<T>(_ image: [String: [UInt8]], _ body: (VaultDirectory) throws -> T) throws -> T {
            for name in try FileManager.default.contentsOfDirectory(atPath: root.dataPath) {
                try FileManager.default.removeItem(atPath: root.dataPath + "/" + name)
            }
            for (name, bytes) in image {
                try Data(bytes).write(to: URL(fileURLWithPath: root.dataPath + "/" + name))
            }
            let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: F.outerKey)
            return try withExtendedLifetime(directory) { try body(directory) }
        }
    }

    /// A destroy whose container commit fails (its first sync) leaves the slot the
    /// vault's: the sessions it drained take operations again, and nothing is lost.
    @Test func aDestroyWhoseCommitFailsLetsTheSessionsGoOn() throws {
        let fixture = try Fixture()
        let recorder = RecordingSlotFiles(fixture.start)
        let directory = try fixture.openRecorded(recorder)
        let a = try directory.unlock(password: pw("a pw"))
        let other = try directory.unlock(password: pw("a pw"))
        recorder.failSync = (0, EIO)
        #expect(throws: (any Error).self) { try directory.destroy(a) }
        #expect(!a.isLocked && !other.isLocked)
        try other.write("note", "after")
        #expect(try a.items().count == other.items().count)
        a.lock()
        other.lock()
        #expect(try directory.decoyNames().count == 8)
        let reopened = try directory.unlock(password: pw("a pw"))
        #expect(try reopened.items().contains { $0.record.name == "one.bin" })
    }

    /// Every slot's stream in `directory`.
    static func state(_ directory: VaultDirectory) throws -> State {
        var out = State()
        for name in try directory.slotNames() { out[name] = try directory.slotContents(name) }
        return out
    }

    /// Runs `operation` over the recorder and checks up to `sample` of its crash images
    /// (the first and last always among them). `passwords` are a's before and after.
    func crashEverywhere(
        seed: String, sample: Int = 30, passwords: (old: String?, new: String?) = ("a pw", "a pw"), version3: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation, _ operation: (VaultDirectory) throws -> Void
    ) throws {
        let fixture = try Fixture(version3: version3)
        let random = SeededRandom(seed: seed)
        let recorder = RecordingSlotFiles(fixture.start)
        var images = [[String: [UInt8]]]()
        recorder.beforeSync = { images += CrashImages.crashImages($0, random: random) }
        do {
            let directory = try fixture.openRecorded(recorder)
            try operation(directory)
        }
        recorder.beforeSync = nil
        images += CrashImages.crashImages(recorder, random: random)
        let new = recorder.snapshot
        #expect(images.count > 20, sourceLocation: sourceLocation)
        let chosen = [images.first!, images.last!] + random.shuffled(Array(images.dropFirst().dropLast())).prefix(sample - 2)

        let (oldState, oldDecoys) = try fixture.withImage(fixture.start) { (try Self.state($0), try $0.decoyNames().count) }
        let (newState, newDecoys) = try fixture.withImage(new) { (try Self.state($0), try $0.decoyNames().count) }
        #expect(oldState != newState, "the operation changed no slot", sourceLocation: sourceLocation)
        var sawOld = 0, sawNew = 0
        for image in chosen { try fixture.withImage(image) { directory in
            let state = try Self.state(directory)
            let isOld = state == oldState, isNew = state == newState
            #expect(isOld || isNew, "a crash image opened to neither state", sourceLocation: sourceLocation)
            if isOld { sawOld += 1 }
            if isNew { sawNew += 1 }
            // As a user meets it: both real vaults open, the decoy sweep finds every decoy.
            #expect(try directory.decoyNames().count == (isNew ? newDecoys : oldDecoys), sourceLocation: sourceLocation)
            let b = try directory.unlock(password: pw("b pw"))
            #expect(try withExtendedLifetime(b) { try b.catalog.allItems().count } == 1, sourceLocation: sourceLocation)
            if let password = isNew ? passwords.new : passwords.old {
                #expect((try? directory.unlock(password: pw(password))) != nil, sourceLocation: sourceLocation)
            }
            let sizes = Set(try fixture.root.slotNames().map { Int(fixture.root.fileStat($0).st_size) })
            #expect(sizes.count == 1, sourceLocation: sourceLocation)
        }
            // Recovery left nothing to do for the next open.
            let settled = try fixture.root.snapshot()
            try fixture.withImage(settled) { _ in }
            #expect(try fixture.root.snapshot() == settled, sourceLocation: sourceLocation)
        }
        #expect(sawOld > 0 && sawNew > 0, "old \(sawOld), new \(sawNew)", sourceLocation: sourceLocation)
    }

    static func a(_ directory: VaultDirectory, _ password: String = "a pw") throws -> Vault {
        try directory.unlock(password: pw(password))
    }

    @Test func aFavourite() throws {
        try crashEverywhere(seed: "favourite") { directory in
            let vault = try Self.a(directory)
            try withExtendedLifetime(vault) { _ = try vault.setFavorite(try vault.catalog.allItems()[0].id, true) }
        }
    }

    @Test func anImport() throws {
        try crashEverywhere(seed: "import") { try Self.a($0).addRaw(Array(repeating: 9, count: 70_000), name: "two.bin", thumbnail: [3]) }
    }

    @Test func aPasswordChange() throws {
        try crashEverywhere(seed: "password", passwords: ("a pw", "a new pw")) {
            try Self.a($0).changePassword(to: pw("a new pw"), kdf: .pbkdf2(iterations: crashIterations))
        }
    }

    @Test func aCreation() throws {
        try crashEverywhere(seed: "create") { _ = try $0.createVault(password: pw("c pw"), iterations: crashIterations) }
    }

    @Test func aDestruction() throws {
        try crashEverywhere(seed: "destroy", passwords: ("a pw", nil)) { try $0.destroy(try Self.a($0)) }
    }

    /// Security review L11: a version 3 catalog's conversion at its vault's first unlock
    /// (§9.7), one whole commit that also replaces every version 3 decoy.
    @Test func aConversion() throws {
        try crashEverywhere(seed: "conversion", version3: true) { directory in
            let vault = try Self.a(directory)
            #expect(vault.catalog.isPaged)
        }
    }

    @Test func aGrowth() throws {
        try crashEverywhere(seed: "growth") { directory in
            // Past the slots' size: the commit grows every slot first (§8.7).
            let size = try Int(FileManager.default.attributesOfItem(
                atPath: directory.path + "/data/" + directory.slotNames()[0])[.size] as! UInt64)
            try Self.a(directory).write("blob", String(repeating: "g", count: size))
        }
    }
}
