import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKeys
@testable import ObscuraKit
@testable import ObscuraStore

/// The passkey sweep over a real container (docs/FORMAT.md §9.8): fixed work per slot,
/// the PRF input's stability, and a vault whose commits write layout B (through the
/// catalog engine's field provider, as the credential commit will) opening by its field
/// and still by its password.
@Suite struct PasskeySweepVaultTests {
    @Test func aDirectoryWithoutPasskeysOpensNothingWithFixedWork() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vaults = try [pw("sweep one"), pw("sweep two")].map { try directory.createVault(password: $0, iterations: testIterations) }
        defer { vaults.forEach { $0.lock() } }
        let slots = try root.slotNames().count
        let tally = PasskeySweep.Tally()
        #expect(try directory.sweepPasskey(prf: SecureBytes(randomCount: 32), tally: tally) == nil)
        #expect(tally.derivations == slots && tally.trials == 4 * slots)
    }

    @Test func thePRFInputSurvivesAnOuterKeyRotation() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let before = try directory.passkeyPRFInput()
        #expect(before.count == 32)
        try directory.rotateOuterKey(to: SecureBytes(randomCount: 32))
        #expect(try directory.passkeyPRFInput() == before)
        // Another directory, another input.
        #expect(try TestRoot().initialized().passkeyPRFInput() != before)
    }

    @Test func aLayoutBVaultOpensByItsFieldAndStillByItsPassword() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let other = try directory.createVault(password: pw("the other vault"), iterations: testIterations)
        other.lock()
        let vault = try directory.createVault(password: pw("passkey vault"), iterations: testIterations)
        let slotName = vault.slotName
        let slotID = try #require(SlotID(fileName: slotName)).bytes
        let directoryID = try directory.store.directoryID()
        let prf = SecureBytes(randomCount: 32)
        let wrap = PasskeyFields.wrapKey(prf: prf, directoryID: directoryID, slotID: slotID)
        let mek = vault.key.copy()
        let paged = try #require(vault.catalog.pagedCatalog)
        paged.setHeaderFields {
            var fields = [UInt8]()
            for index in 0..<PasskeyFormat.fieldCount {
                fields += index == 2
                    ? try PasskeyFields.seal(mek: mek, key: wrap, directoryID: directoryID, slotID: slotID, index: index)
                    : SystemRandom().bytes(PasskeyFormat.fieldSize)
            }
            return fields
        }
        _ = try vault.addNote(title: "written in layout B", body: "body")
        #expect(paged.headerLayout == .b)
        let tally = PasskeySweep.Tally()
        let match = try #require(try directory.sweepPasskey(prf: prf, tally: tally))
        #expect(match.slotName == slotName && match.field == 2 && match.mek == vault.key)
        #expect(tally.trials == 4 * (try root.slotNames().count))
        #expect(try directory.sweepPasskey(prf: SecureBytes(randomCount: 32)) == nil)
        vault.lock()

        // The password still opens it: the root is read B first, then A (§9.5).
        let reopened = try directory.unlock(password: pw("passkey vault"))
        #expect(try reopened.catalog.counts().items == 1)
        #expect(reopened.catalog.pagedCatalog?.headerLayout == .b)
        // Opened without the vault's fields, it refuses to write rather than drop them
        // (PC1): the passkey still opens it afterwards, and nothing was lost.
        #expect(throws: (any Error).self) { try reopened.addNote(title: "would drop the fields", body: "body") }
        reopened.lock()
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == slotName)
        let again = try directory.unlock(password: pw("passkey vault"))
        #expect(try again.catalog.counts().items == 1)
        // Leaving layout B is explicit: a provider that says nil. Then the field is gone.
        again.catalog.pagedCatalog?.setHeaderFields { nil }
        _ = try again.addNote(title: "back in layout A", body: "body")
        #expect(again.catalog.pagedCatalog?.headerLayout == .a)
        #expect(try directory.sweepPasskey(prf: prf) == nil)
        again.lock()
    }
}
