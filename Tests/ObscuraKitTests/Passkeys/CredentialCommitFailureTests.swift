import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore

/// What a credential commit leaves when part of it fails, or when the catalog is read
/// again after it (docs/FORMAT.md §9.7; reviews PR6, PR8, PR9, S1): a failed cover is made
/// again after an in-place recovery, or the change is reported with the cover it owes, a reloaded catalog seals the fields its own rows ask
/// for, and an unlock by passkey that is refused changes nothing, a pending chore
/// included.
@Suite struct CredentialCommitFailureTests {
    /// The steps of `fixture`'s writes, counted, and a refusal at the steps `refused` picks.
    final class Steps: @unchecked Sendable {
        // @unchecked: written by the test's thread and read by the step hook it calls.
        var count = 0
        var refused: (Int) -> Bool = { _ in false }
        struct Refused: Error {}

        init(_ fixture: CrashFixture) {
            fixture.onStep { [unowned self] in
                count += 1
                if refused(count) { throw Refused() }
            }
        }
    }

    /// Counts, in `fixture`, the steps of an enrolment (which ends with a cover commit)
    /// and of a bare whole commit; returns the counter, reset, and the number of the
    /// enrolment's last step before its cover commit.
    static func countedEnrolment(_ fixture: CrashFixture) throws -> (steps: Steps, beforeCover: Int) {
        let steps = Steps(fixture)
        try fixture.a.enrolPasskey(name: "Counted", password: pw("a pw"), prf: SecureBytes(randomCount: 32),
                                   credential: VaultPasskeysTests.credential())
        let enrolment = steps.count
        steps.count = 0
        try fixture.directory.store.commit(.init())
        let cover = steps.count
        steps.count = 0
        return (steps, enrolment - cover)
    }

    /// The cover commit after an enrolment fails at every write from its first (a disk
    /// that refuses, even after the container is recovered in place): the enrolment stands
    /// and says that the free space still owes its overwrite; the directory opened afresh
    /// unlocks by the new passkey and by the password.
    @Test func aFailedCoverIsReportedAndTheChangeStands() throws {
        let harness = try CrashFixture()
        let password = pw("a pw")
        let (steps, beforeCover) = try Self.countedEnrolment(harness)
        #expect(!harness.a.credentialCoverOwed)
        steps.refused = { $0 > beforeCover }
        let prf = SecureBytes(randomCount: 32)
        let credential = try VaultPasskeysTests.credential()
        try harness.a.enrolPasskey(name: "Kept", password: password, prf: prf, credential: credential)
        #expect(steps.count > beforeCover, "the fault was not reached: \(steps.count) steps")
        #expect(harness.a.credentialCoverOwed)
        #expect(try harness.a.passkeys().map(\.name) == ["Counted", "Kept"])
        steps.refused = { _ in false }
        harness.close()

        let directory = try harness.root.open(create: false)
        let opened = try directory.unlock(passkeyPRF: prf) { $0 == credential }
        #expect(try opened.passkeys().map(\.name) == ["Counted", "Kept"])
        opened.lock()
        try directory.unlock(password: password).lock()
    }

    /// A credential commit that fails inside its catalog commit, at a sample of its
    /// steps: it throws, and the session either goes on in the old layout (rows, fields
    /// and header as they were, its next commit sealing no field) or has locked (a
    /// container written to needs recovery); the directory opened afresh holds one whole
    /// state whose rows and block 0 agree, and the password opens it.
    @Test func aFailedCredentialCommitLeavesTheOldCredentials() throws {
        let last: Int
        do {
            let fixture = try CrashFixture()
            last = try Self.countedEnrolment(fixture).beforeCover
            fixture.close()
        }
        #expect(last > 2)
        // Not its very end: the times a commit sets last are set again by recovery, and
        // their failure is not the commit's (SlotContainer.commit).
        for stop in Set([1, 2, last / 4, last / 2, 3 * last / 4]) {
            let fixture = try CrashFixture()
            let steps = Steps(fixture)
            steps.refused = { $0 == stop }
            let prf = SecureBytes(randomCount: 32)
            let header = fixture.a.header
            #expect(throws: (any Error).self, "stop \(stop) of \(last)") {
                try fixture.a.enrolPasskey(name: "Failed", password: pw("a pw"), prf: prf, credential: VaultPasskeysTests.credential())
            }
            // A container written to needs recovery, which the session cannot do: it locks
            // (on another thread, once this operation has ended). Either that, or it goes on
            // in the old layout; one or the other, said explicitly (review N6 a).
            let deadline = Date().addingTimeInterval(10)
            while !fixture.a.isLocked, (try? fixture.a.passkeys()) == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if fixture.a.isLocked {
                #expect(throws: VaultError.locked) { try fixture.a.passkeys() }
            } else {
                #expect(try fixture.a.passkeys().isEmpty && fixture.a.header == header, "stop \(stop)")
                #expect(fixture.a.catalog.pagedCatalog?.headerLayout == .a, "stop \(stop)")
                _ = try fixture.a.addNote(title: "after", body: "the failed enrolment")
                #expect(try fixture.directory.sweepPasskey(prf: prf) == nil, "stop \(stop)")
            }
            fixture.close()
            let directory = try fixture.root.open(create: false)
            let reopened = try directory.unlock(password: pw("a pw"))
            let enrolled = try reopened.passkeys().map(\.name)
            #expect(enrolled.isEmpty || enrolled == ["Failed"], "stop \(stop)")
            #expect((try directory.sweepPasskey(prf: prf)?.slotName == reopened.slotName) == !enrolled.isEmpty, "stop \(stop)")
            reopened.lock()
        }
    }

    /// The same failure before the container changed (review PR8 b): a directory handle's
    /// first commit begins by writing its superblocks back (the barrier, FORMAT.md §8.6),
    /// and a failure there leaves the container readable. The session goes on with its
    /// old rows, header and fields: the next commit seals no field, and the failed
    /// enrolment's PRF output opens nothing.
    @Test func aCredentialCommitFailedBeforeTheContainerKeepsTheSession() throws {
        let fixture = try CrashFixture()
        fixture.close()
        var armed = false
        struct Failed: Error {}
        let directory = try VaultDirectory(
            path: fixture.root.vaultPath, deviceSecrets: fixture.root.secrets, outerKey: fixture.root.outerKey, create: false,
            random: SystemRandom(), slotFiles: { path in SteppedSlotFiles(path: path) { if armed { throw Failed() } } })
        let vault = try directory.unlock(password: pw("a pw"), runningChores: false)
        defer { vault.lock() }
        let header = vault.header
        let prf = SecureBytes(randomCount: 32)
        armed = true
        #expect(throws: (any Error).self) {
            try vault.enrolPasskey(name: "Failed", password: pw("a pw"), prf: prf, credential: VaultPasskeysTests.credential())
        }
        armed = false
        #expect(!vault.isLocked)
        #expect(try vault.passkeys().isEmpty && vault.header == header)
        #expect(vault.catalog.pagedCatalog?.headerLayout == .a)
        _ = try vault.addNote(title: "after", body: "the failed enrolment")
        #expect(vault.catalog.pagedCatalog?.headerLayout == .a)
        #expect(try directory.sweepPasskey(prf: prf) == nil)
    }

    /// A cover commit that fails once (one write refused, as a transient I/O error
    /// would) leaves the container needing recovery; the store recovers it in place and
    /// makes the cover again (review S1), so nothing is owed and the vault writes on.
    @Test func aCoverFailedOnceIsMadeAfterAnInPlaceRecovery() throws {
        let harness = try CrashFixture()
        let (steps, beforeCover) = try Self.countedEnrolment(harness)
        steps.refused = { $0 == beforeCover + 1 }
        let prf = SecureBytes(randomCount: 32)
        let credential = try VaultPasskeysTests.credential()
        try harness.a.enrolPasskey(name: "Kept", password: pw("a pw"), prf: prf, credential: credential)
        #expect(steps.count > beforeCover + 1, "the cover was made again after the refused write: \(steps.count) steps")
        #expect(!harness.a.credentialCoverOwed && !harness.directory.coverOwed)
        _ = try harness.a.addNote(title: "after", body: "the recovered cover")
        #expect(try harness.directory.sweepPasskey(prf: prf)?.slotName == harness.a.slotName)
        harness.close()
    }

    /// A catalog reloaded from its slot (a resynchronisation, or a commit that landed and
    /// still threw) builds its field provider from the rows it reads, not the ones it had
    /// (review PR9): here another session of the same vault enrolled a passkey meanwhile,
    /// and the reloaded catalog's next commit must keep its field.
    @Test func aReloadedCatalogSealsTheFieldsOfTheRowsItReads() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("two sessions"), iterations: testIterations)
        defer { vault.lock() }
        let other = try directory.unlock(password: pw("two sessions"))
        let prf = SecureBytes(randomCount: 32)
        try other.enrolPasskey(name: "Other's", password: pw("two sessions"), prf: prf, credential: VaultPasskeysTests.credential())
        other.lock()
        #expect(vault.catalog.pagedCatalog?.headerLayout == .a)
        try vault.catalog.reload()
        #expect(vault.catalog.pagedCatalog?.headerLayout == .b)
        _ = try vault.addNote(title: "after the reload", body: "keeps the field")
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == vault.slotName)
        #expect(try vault.passkeys().map(\.name) == ["Other's"])
    }

    /// PK16 with something to do (review PR8 a): an item whose end has come is a chore an
    /// unlock runs, so a refused passkey unlock that opened the vault before its check
    /// would delete it and commit. None does: the directory stays byte for byte.
    @Test func aRefusedPasskeyUnlockRunsNoPendingChore() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("chore vault"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        let credential = try VaultPasskeysTests.credential()
        try vault.enrolPasskey(name: "Phone", password: pw("chore vault"), prf: prf, credential: credential)
        let note = try vault.addNote(title: "ends soon", body: "a chore for the next unlock")
        try vault.setEnd([note.id], ItemEnd(at: Date().addingTimeInterval(1), views: nil))
        vault.lock()
        Thread.sleep(forTimeInterval: 1.2)
        let before = try root.listing()
        let writes = directory.store.writeCount
        struct Refused: Error {}
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(passkeyPRF: prf) { _ in false } }
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(passkeyPRF: prf) { _ in throw Refused() } }
        #expect(try root.listing() == before)
        #expect(directory.store.writeCount == writes)
        // The accepted unlock runs the chore: the pending work was real.
        let opened = try directory.unlock(passkeyPRF: prf) { $0 == credential }
        defer { opened.lock() }
        #expect(opened.unlockChores.ended == 1)
        #expect(directory.store.writeCount > writes)
    }
}
