import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraStore

/// Vaults whose catalogs are paged (docs/FORMAT.md §9): every vault of a new container
/// is, a version 3 catalog in a container becomes one the first time its password is
/// given, and each catalog change is one block commit.
@Suite struct PagedVaultTests {
    typealias F = ContainerFixtures

    func open(_ root: TestRoot, key: SecureBytes? = F.outerKey) throws -> VaultDirectory {
        try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: key, create: true)
    }

    /// The header version of every slot, by name.
    func versions(_ directory: VaultDirectory) throws -> [String: UInt16] {
        let (names, headers) = try directory.readHeaders()
        return Dictionary(uniqueKeysWithValues: zip(names, headers.map { $0?.version ?? 0 }))
    }

    @Test func aNewContainersVaultsAndDecoysArePagedAndAChangeIsOneBucket() throws {
        let root = try TestRoot()
        do {
            let directory = try open(root)
            try directory.initialize(iterations: testIterations)
            #expect(try versions(directory).values.allSatisfy { $0 == SlotFormat.pagedVersion })
            #expect(directory.store.holdsBlocks)
            let vault = try directory.createVault(password: pw("alpha"), iterations: testIterations)
            #expect(vault.catalog.isPaged)
            let item = try vault.addRaw(Array(repeating: 1, count: 3000), name: "one.bin")

            // A favourite: one commit of one bucket in every slot, plus the superblocks.
            let before = try root.snapshot()
            _ = try vault.setFavorite(item.id, true)
            let after = try root.snapshot()
            for name in after.keys {
                let changed = F.changedBlocks(before[name]!, after[name]!)
                #expect(changed.count <= ContainerFormat.bucket + 2, "slot \(name) changed \(changed.count) blocks")
            }
            vault.lock()
        }
        let directory = try open(root)
        let again = try directory.unlock(password: pw("alpha"))
        #expect(try again.catalog.allItems().map(\.favorite) == [true])
        #expect(try again.catalog.allItems().map(\.name) == ["one.bin"])
    }

    /// Creating a vault in a paged container writes what any change of as many blocks
    /// writes: one bucket in every slot (a block commit), not every slot whole. An empty
    /// catalog is more than one small bucket (33 blocks at migration v9, docs/FORMAT.md
    /// §9.7), so the bucket is the next size, the same in every slot.
    @Test func aVaultIsCreatedInOneBlockCommit() throws {
        let root = try TestRoot()
        do {
            let directory = try open(root)
            try directory.initialize(iterations: testIterations)
            let blocks = try PagedSlot.build(
                password: pw("x"), kdf: .pbkdf2(iterations: 1), key: SecureBytes(randomCount: 32), using: SystemRandom()).logicalCount
            var bucket = ContainerFormat.bucket
            while bucket < blocks + 2 { bucket *= ContainerFormat.bucketGrowth }
            let before = try root.snapshot()
            let vault = try directory.createVault(password: pw("new"), iterations: testIterations)
            let after = try root.snapshot()
            for name in after.keys {
                let changed = F.changedBlocks(before[name]!, after[name]!)
                #expect(changed.count <= bucket + 2, "slot \(name) changed \(changed.count) blocks, bucket \(bucket)")
                // A whole rewrite changes every block of the slot.
                #expect(changed.count < before[name]!.count / ContainerFormat.blockSize, "slot \(name) rewritten whole")
            }
            try vault.write("note", "made")
            vault.lock()
            #expect(try directory.decoyNames().count == 9)
        }
        let again = try open(root)
        #expect(try again.unlock(password: pw("new")).setting("note") == "made")
    }

    /// Security review L4: a vault created in a container whose decoys are still version
    /// 3 converts them in the same commit, so no version 3 slot is left to date it.
    @Test func aVaultCreatedAmongVersion3DecoysConvertsThem() throws {
        let root = try TestRoot(version3: true)
        try root.makeVersion3([])
        try root.open().migrateToContainer(outerKey: F.outerKey)
        do {
            let directory = try open(root)
            #expect(try versions(directory).values.allSatisfy { $0 == SlotFormat.version })
            let vault = try directory.createVault(password: pw("new"), iterations: testIterations)
            #expect(vault.catalog.isPaged)
            #expect(try versions(directory).values.allSatisfy { $0 == SlotFormat.pagedVersion })
            #expect(try directory.decoyNames().count == 9)
            vault.lock()
        }
        #expect(try open(root).unlock(password: pw("new")).catalog.isPaged)
    }

    /// Security review M1: a vault's creation and a password change each sweep for the new
    /// password before committing it. Each holds the directory's credential lock from its
    /// sweep to its commit, so two of them cannot both find one password unused.
    @Test func creationsAndPasswordChangesWaitForTheCredentialLock() throws {
        let root = try TestRoot()
        let directory = try open(root)
        try directory.initialize(iterations: testIterations)
        let vault = try directory.createVault(password: pw("a"), iterations: testIterations)
        let operations: [(String, () throws -> Void)] = [
            ("create", { _ = try directory.createVault(password: pw("b"), iterations: testIterations) }),
            ("change", { try vault.changePassword(to: pw("c"), kdf: .pbkdf2(iterations: testIterations)) }),
        ]
        for (name, operation) in operations {
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) let work = operation
            directory.credentialLock.withLock {
                Thread {
                    try? work()
                    done.signal()
                }.start()
                #expect(done.wait(timeout: .now() + 0.5) == .timedOut, "\(name) ran while another change held the lock")
            }
            #expect(done.wait(timeout: .now() + 30) == .success, "\(name)")
        }
        #expect(try vault.checkPassword(pw("c")))
        vault.lock()
        #expect(try directory.unlock(password: pw("b")).catalog.isPaged)
    }

    /// Security review L3: a destroy waits for the vault's operations in progress, in
    /// every session of its slot (the gallery opens one per unlock), and refuses new ones,
    /// so no catalog commit lands in the slot after it became a decoy.
    @Test func aDestroyWaitsForTheVaultsOperationsAndRefusesNewOnes() throws {
        let root = try TestRoot()
        let directory = try open(root)
        try directory.initialize(iterations: testIterations)
        let vault = try directory.createVault(password: pw("gone"), iterations: testIterations)
        let other = try directory.unlock(password: pw("gone"))
        // An operation in progress, in the other session, until `release`.
        let (entered, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        nonisolated(unsafe) let holder = other
        Thread {
            try? holder.operation {
                entered.signal()
                release.wait()
            }
        }.start()
        entered.wait()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let (target, victim) = (directory, vault)
        Thread {
            try? target.destroy(victim)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
        #expect(throws: VaultError.locked) { try vault.setAutoLockMinutes(Vault.autoLockChoices[0]) }
        #expect(throws: VaultError.locked) { _ = try other.setFavorite("none", true) }
        #expect(try directory.decoyNames().count == 9)
        release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(vault.isLocked && other.isLocked)
        #expect(try directory.decoyNames().count == 10)
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("gone")) }
    }

    /// A holder of the outer key can commit any payload into a slot's logical blocks
    /// (docs/SECURITY.md): a page of the vault's catalog flipped, put back to its older
    /// version, or the root rolled back under newer pages is an error when the vault is
    /// opened and read, never other rows. Put back as they were, the blocks read again.
    @Test func aPageOrRootChangedThroughTheContainerIsAnErrorNeverOtherRows() throws {
        let root = try TestRoot()
        let directory = try open(root)
        try directory.initialize(iterations: testIterations)
        let vault = try directory.createVault(password: pw("v"), iterations: testIterations)
        try vault.catalog.database.write { db in
            for n in 0..<400 {
                try db.execute(sql: "INSERT INTO setting(key, value) VALUES (?, ?)", arguments: ["k\(n)", String(repeating: "v", count: 40)])
            }
        }
        let name = vault.slotName
        let pageCount = try vault.catalog.database.read { try Int.fetchOne($0, sql: "PRAGMA page_count") }!
        let ids = Array(0..<PageLayout.logicalCount(pages: pageCount))
        func blocks() throws -> [Int: [UInt8]] {
            Dictionary(uniqueKeysWithValues: try ids.map { ($0, try directory.store.readBlock(name, $0)) })
        }
        let older = try blocks()
        try vault.setAutoLockMinutes(1)
        let newer = try blocks()
        vault.lock()
        let pageIDs = Set((1...pageCount).map(PageLayout.page))
        let changedPage = try #require(ids.first { pageIDs.contains($0) && older[$0] != newer[$0] })

        /// Opens the vault and reads every setting: the value of `autoLockMinutes`, or nil
        /// when opening or reading fails.
        func read() -> String?? {
            do {
                let opened = try directory.unlock(password: pw("v"))
                defer { opened.lock() }
                let all = try opened.catalog.database.read { try Row.fetchAll($0, sql: "SELECT * FROM setting") }
                #expect(all.count >= 400)
                return .some(try opened.setting("autoLockMinutes"))
            } catch {
                return nil
            }
        }
        #expect(read() == .some("1"))
        var flipped = newer[changedPage]!
        flipped[100] ^= 1
        let cases: [(String, [Int: [UInt8]])] = [
            ("a flipped byte in a page", [changedPage: flipped]),
            ("a page put back to its older version", [changedPage: older[changedPage]!]),
            ("the root rolled back under newer pages", [PageLayout.header: older[PageLayout.header]!]),
        ]
        for (what, change) in cases {
            try directory.store.commitBlocks(name, change, logicalCount: ids.count)
            #expect(read() == nil, "\(what) was not detected")
            try directory.store.commitBlocks(name, newer.filter { change[$0.key] != nil }, logicalCount: ids.count)
            #expect(read() == .some("1"), "after \(what), put back")
        }
    }

    @Test func aVersion3CatalogInAContainerIsConvertedAtItsFirstUnlockWithTheDecoys() throws {
        let root = try TestRoot(version3: true)
        var items: [String] = []
        try root.makeVersion3([pw("a pw"), pw("b pw")]) { n, vault in
            guard n == 0 else { return try vault.write("note", "b's") }
            let a = vault
            let folder = try a.createFolder("trip")
            items = [try a.addRaw(Array(repeating: 3, count: 9000), name: "x.bin", folder: folder).id,
                     try a.addLegacyRaw(Array(repeating: 4, count: 100), name: "y.bin").id]
            _ = try a.setFavorite(items[1], true)
            try a.write("note", "kept")
            // A catalog written before migration v3 (security review H1): its conversion
            // must bring it to the current schema, not fail its check.
            try a.catalog.database.write { db in
                try db.execute(sql: """
                    DROP TRIGGER item_tally_insert; DROP TRIGGER item_tally_delete; DROP TRIGGER item_tally_update;
                    DROP TABLE item_tally; DELETE FROM grdb_migrations WHERE identifier = 'v3'
                    """)
            }
        }
        try root.open().migrateToContainer(outerKey: F.outerKey)
        do {
            let directory = try open(root)
            #expect(try versions(directory).values.allSatisfy { $0 == SlotFormat.version })
            let a = try directory.unlock(password: pw("a pw"))
            #expect(a.catalog.isPaged)
            #expect(try Set(a.catalog.allItems().map(\.id)) == Set(items))
            #expect(try a.catalog.allItems().filter(\.favorite).map(\.id) == [items[1]])
            #expect(try a.catalog.folders().map(\.name) == ["trip"])
            #expect(try a.setting("note") == "kept")
            #expect(try a.itemListing(scope: .visible, limit: 10).total == 2)
            #expect(try a.itemListing(scope: .visible, favoritesOnly: true, limit: 10).total == 1)
            // Its plain content hash was keyed in the conversion's commit (§6.7, §9.7).
            #expect(try a.storedContentHash(items[1]).count == ContentHash.keyedSize)
            #expect(try a.convertContentHashes() == 0)
            #expect(try a.openOriginal(a.item(items[0])).read(0..<9000) == Array(repeating: 3, count: 9000))
            // The decoys went with it; b, still locked, keeps its version 3 catalog.
            let found = try versions(directory)
            #expect(found.values.filter { $0 == SlotFormat.version }.count == 1)
            #expect(try directory.decoyNames().count == 8)
            a.lock()

            // b converts at its own first unlock; both open again with their passwords.
            let b = try directory.unlock(password: pw("b pw"))
            #expect(try b.setting("note") == "b's")
            #expect(try versions(directory).values.allSatisfy { $0 == SlotFormat.pagedVersion })
            b.lock()
        }
        let reopened = try open(root)
        #expect(try reopened.unlock(password: pw("a pw")).setting("note") == "kept")
        #expect(try reopened.unlock(password: pw("b pw")).setting("note") == "b's")
        #expect(throws: VaultError.wrongPassword) { try reopened.unlock(password: pw("c pw")) }
    }

    @Test func migrateWithSeveralPasswordsConvertsThemInOneCommit() throws {
        let root = try TestRoot(version3: true)
        try root.makeVersion3(["a", "b", "c"].map(pw)) { n, vault in try vault.write("who", ["a", "b", "c"][n]) }
        try root.open().migrateToContainer(outerKey: F.outerKey)
        let directory = try open(root)
        #expect(try directory.convertVaults(passwords: [pw("a"), pw("c")]) == 2)
        let found = try versions(directory)
        #expect(found.values.filter { $0 == SlotFormat.version }.count == 1)
        #expect(try directory.convertVaults(passwords: [pw("a")]) == 0)
        #expect(throws: VaultError.wrongPassword) { try directory.convertVaults(passwords: [pw("nobody")]) }
        for name in ["a", "b", "c"] { #expect(try directory.unlock(password: pw(name)).setting("who") == name) }
    }

    @Test func aPasswordChangeIsOneCommitAndExportsFollowIt() throws {
        let root = try TestRoot()
        let directory = try open(root)
        try directory.initialize(iterations: testIterations)
        let vault = try directory.createVault(password: pw("old"), iterations: testIterations)
        try vault.addRaw(Array(repeating: 5, count: 2000), name: "kept.bin")
        let before = try root.snapshot()
        try vault.changePassword(to: pw("new"), kdf: .pbkdf2(iterations: testIterations))
        // The old header (the MEK under the old password) must not wait in the free half
        // for a commit to draw its position: the change ends with a whole cover commit.
        let after = try root.snapshot()
        for name in after.keys {
            let blocks = after[name]!.count / ContainerFormat.blockSize
            #expect(F.changedBlocks(before[name]!, after[name]!).count >= blocks / 2, "slot \(name)")
        }
        #expect(try vault.checkPassword(pw("new")))
        #expect(throws: VaultError.passwordInUse) {
            _ = try directory.createVault(password: pw("new"), iterations: testIterations)
        }
        let export = root.path + "/v.obscura"
        try vault.exportVault(to: export, password: pw("export pw"), iterations: testIterations)
        vault.lock()
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("old")) }
        let unlocked = try directory.unlock(password: pw("new"))
        #expect(try unlocked.catalog.allItems().count == 1)
        unlocked.lock()
        // Refused here: the vault is already in this directory.
        #expect(throws: ExportError.alreadyPresent) { try directory.importVault(from: export, password: pw("export pw")) }

        // Imported elsewhere, the vault opens with its new password, converted at unlock.
        let other = try TestRoot()
        let elsewhere = try open(other)
        try elsewhere.initialize(iterations: testIterations)
        #expect(try elsewhere.importVault(from: export, password: pw("export pw")) == 1)
        let imported = try elsewhere.unlock(password: pw("new"))
        #expect(imported.catalog.isPaged)
        let item = try #require(try imported.catalog.allItems().first)
        #expect(try imported.openOriginal(item).read(0..<2000) == Array(repeating: 5, count: 2000))
    }

    @Test func aFailedCommitLeavesNoStaleSessionAndTheDiskOldOrNew() throws {
        let fixture = try ContainerVaultCrashTests.Fixture()
        let recorder = RecordingSlotFiles(fixture.start)
        do {
            let directory = try fixture.openRecorded(recorder)
            let a = try directory.unlock(password: pw("a pw"))
            #expect(a.catalog.isPaged)
            recorder.failSync = (0, EIO)
            #expect(throws: (any Error).self) { try a.write("note", "after") }
            // The container needs recovery now: the session must not go on as if it matched.
            #expect(throws: (any Error).self) { try a.write("note", "later") }
            a.lock()
        }
        let reopened = try fixture.openRecorded(RecordingSlotFiles(recorder.durable))
        let note = try reopened.unlock(password: pw("a pw")).setting("note")
        #expect(note == "before" || note == "after")
    }
}
