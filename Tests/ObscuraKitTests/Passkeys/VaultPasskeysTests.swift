import Crypto
import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKeys
@testable import ObscuraKit
@testable import ObscuraStore

/// Enrolling and removing passkeys in a real container (docs/FORMAT.md §3.3, §9.7, §9.8):
/// the `passkey` table of migration v11, the credential commit, block 0's fields that
/// follow the rows at every commit, every open and every reopen, and the rules an
/// enrolment meets before anything is written.
@Suite struct VaultPasskeysTests {
    /// A credential as a verified enrolment hands it over (its checks are
    /// PasskeyRegistrationTests'): only its key must be a real point.
    static func credential(synced: Bool = false) throws -> PasskeyCredential {
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        return PasskeyCredential(id: SystemRandom().bytes(32), userHandle: SystemRandom().bytes(16),
                                 key: try #require(SignatureKey.p256(point: point)), backupEligible: synced, backedUp: synced)
    }

    /// Block 0 of `vault`'s slot as the container holds it now.
    static func block0(_ vault: Vault) throws -> [UInt8] {
        try vault.directory.store.readBlock(vault.slotName, 0)
    }

    @Test func migrationV11MakesFourFreeRowsOnOnePage() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("fresh vault"), iterations: testIterations)
        defer { vault.lock() }
        let rows = try vault.catalog.passkeyRows()
        #expect(rows.count == 4 && rows.allSatisfy { $0.count == 448 })
        #expect(rows.allSatisfy { $0.withUnsafeBytes { $0[0] } == 0 })
        // Free records are random past their state byte: no two alike.
        #expect(Set(rows.map { $0.withUnsafeBytes { Array($0) } }).count == 4)
        #expect(try vault.catalog.passwordChangedAt() == 0)
        #expect(try vault.passkeys().isEmpty)
        // The table is one page, so a credential commit rewrites it in place (§3.3).
        let pages = try vault.catalog.database.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dbstat WHERE name = 'passkey'")
        }
        #expect(pages == 1)
        #expect(vault.catalog.pagedCatalog?.headerLayout == .a)
    }

    @Test func anEnrolledPasskeyOpensItsVaultThroughEveryCommitOpenAndRemoval() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let other = try directory.createVault(password: pw("the other vault"), iterations: testIterations)
        other.lock()
        let vault = try directory.createVault(password: pw("passkey vault"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        let info = try vault.enrolPasskey(name: "  Laptop ", password: pw("passkey vault"), prf: prf, credential: Self.credential(synced: true))
        #expect(info.name == "Laptop" && info.tag.utf8.count == 3 && info.synced)
        #expect(try vault.passkeys() == [info])
        #expect(vault.catalog.pagedCatalog?.headerLayout == .b)
        let match = try #require(try directory.sweepPasskey(prf: prf))
        #expect(match.slotName == vault.slotName && match.field == 0 && match.mek == vault.key)

        // Every commit seals the fields afresh: block 0 changes wholly, the vault stays in B.
        let before = try Self.block0(vault)
        _ = try vault.addNote(title: "a note", body: "written in layout B")
        let after = try Self.block0(vault)
        #expect(before[136..<376] != after[136..<376] && vault.catalog.pagedCatalog?.headerLayout == .b)
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == vault.slotName)
        vault.lock()

        // Opened by its password, the vault reads its rows and keeps writing its fields.
        let reopened = try directory.unlock(password: pw("passkey vault"))
        _ = try reopened.addNote(title: "another", body: "after a reopen")
        #expect(reopened.catalog.pagedCatalog?.headerLayout == .b)
        #expect(try directory.sweepPasskey(prf: prf)?.mek == reopened.key)

        // Removed: the field is random from that commit on, and the vault is back in A.
        #expect(throws: VaultError.wrongPassword) { try reopened.removePasskey(named: "Laptop", password: pw("wrong")) }
        #expect(throws: VaultError.noSuchPasskey("Phone")) { try reopened.removePasskey(named: "Phone", password: pw("passkey vault")) }
        try reopened.removePasskey(named: "Laptop", password: pw("passkey vault"))
        #expect(try reopened.passkeys().isEmpty)
        #expect(reopened.catalog.pagedCatalog?.headerLayout == .a)
        #expect(try directory.sweepPasskey(prf: prf) == nil)
        #expect(try reopened.catalog.counts().items == 2)
        reopened.lock()
        let last = try directory.unlock(password: pw("passkey vault"))
        defer { last.lock() }
        #expect(try last.catalog.counts().items == 2 && last.catalog.pagedCatalog?.headerLayout == .a)
    }

    @Test func anEnrolmentMeetsItsRulesBeforeAnythingIsWritten() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let other = try directory.createVault(password: pw("other vault"), iterations: testIterations)
        let otherPRF = SecureBytes(randomCount: 32)
        try other.enrolPasskey(name: "Key", password: pw("other vault"), prf: otherPRF, credential: Self.credential())
        other.lock()
        let vault = try directory.createVault(password: pw("rules vault"), iterations: testIterations)
        defer { vault.lock() }
        let password = pw("rules vault")
        let snapshot = try root.snapshot()
        #expect(throws: VaultError.wrongPassword) {
            try vault.enrolPasskey(name: "A", password: pw("other vault"), prf: SecureBytes(randomCount: 32), credential: Self.credential())
        }
        #expect(throws: VaultError.invalidPasskeyName) {
            try vault.enrolPasskey(name: " \n", password: password, prf: SecureBytes(randomCount: 32), credential: Self.credential())
        }
        #expect(throws: VaultError.invalidPasskeyName) {
            try vault.enrolPasskey(name: String(repeating: "é", count: 33), password: password, prf: SecureBytes(randomCount: 32),
                                   credential: Self.credential())
        }
        // One secret opens at most one slot: a PRF output that opens another vault's field.
        #expect(throws: VaultError.passkeyOpensAVault) {
            try vault.enrolPasskey(name: "A", password: password, prf: otherPRF, credential: Self.credential())
        }
        #expect(try root.snapshot() == snapshot)

        let prfs = (0..<4).map { _ in SecureBytes(randomCount: 32) }
        for (i, prf) in prfs.enumerated() {
            try vault.enrolPasskey(name: "key \(i)", password: password, prf: prf, credential: Self.credential())
            // Nor may one secret open two fields of the same vault (while a field is free).
            if i < 3 {
                #expect(throws: VaultError.passkeyOpensAVault) {
                    try vault.enrolPasskey(name: "again", password: password, prf: prf, credential: Self.credential())
                }
            }
        }
        #expect(try vault.passkeys().map(\.name) == ["key 0", "key 1", "key 2", "key 3"])
        #expect(throws: VaultError.passkeyNameTaken("key 2")) {
            try vault.enrolPasskey(name: "key 2", password: password, prf: SecureBytes(randomCount: 32), credential: Self.credential())
        }
        #expect(throws: VaultError.passkeyLimit) {
            try vault.enrolPasskey(name: "key 4", password: password, prf: SecureBytes(randomCount: 32), credential: Self.credential())
        }
        // Each enrolled field opens at its own index; a freed field is taken again first.
        for (i, prf) in prfs.enumerated() { #expect(try directory.sweepPasskey(prf: prf)?.field == i) }
        try vault.removePasskey(named: "key 1", password: password)
        let fresh = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "key 5", password: password, prf: fresh, credential: Self.credential())
        #expect(try directory.sweepPasskey(prf: fresh)?.field == 1)
        #expect(try directory.sweepPasskey(prf: prfs[1]) == nil)
    }

    @Test func aPasswordChangeKeepsThePasskeysOrRemovesThemAll() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("first password"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Phone", password: pw("first password"), prf: prf, credential: Self.credential())
        #expect(try vault.passkeys().map(\.enrolledAfterPasswordChange) == [true])
        try vault.changePassword(to: pw("second password"))
        #expect(try vault.catalog.passwordChangedAt() > 0)
        #expect(try vault.passkeys().map(\.enrolledAfterPasswordChange) == [false])
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == vault.slotName)
        // The old password no longer enrols or removes; the new one does.
        #expect(throws: VaultError.wrongPassword) { try vault.removePasskey(named: "Phone", password: pw("first password")) }
        vault.lock()
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("first password")) }
        let again = try directory.unlock(password: pw("second password"))
        try again.changePassword(to: pw("third password"), removingPasskeys: true)
        #expect(try again.passkeys().isEmpty && again.catalog.pagedCatalog?.headerLayout == .a)
        #expect(try directory.sweepPasskey(prf: prf) == nil)
        again.lock()
        let last = try directory.unlock(password: pw("third password"))
        last.lock()
    }

    /// A commit that fails before it reaches the container (here the field provider
    /// throws) leaves the catalog broken, and it is opened again from the slot: the
    /// reopened catalog must keep the provider, or its next commit would drop the fields.
    @Test func aCatalogReopenedAfterAFailedCommitKeepsTheFields() throws {
        final class Fault: @unchecked Sendable {
            // @unchecked: `armed` is read and written under `lock`.
            let lock = NSLock()
            var armed = false
        }
        struct Refused: Error {}
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("reopen vault"), iterations: testIterations)
        defer { vault.lock() }
        let prf = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Key", password: pw("reopen vault"), prf: prf, credential: Self.credential())
        let broken = try #require(vault.catalog.pagedCatalog)
        let sealer = try #require(broken.headerFields)
        let fault = Fault()
        broken.setHeaderFields {
            if fault.lock.withLock({ fault.armed }) { throw Refused() }
            return try sealer()
        }
        fault.lock.withLock { fault.armed = true }
        #expect(throws: (any Error).self) { try vault.addNote(title: "fails", body: "before the container") }
        fault.lock.withLock { fault.armed = false }
        #expect(vault.catalog.pagedCatalog !== broken)
        _ = try vault.addNote(title: "lands", body: "after the reopen")
        #expect(vault.catalog.pagedCatalog?.headerLayout == .b)
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == vault.slotName)
        #expect(try vault.catalog.counts().items == 1)
    }

    /// An export carries all four rows free (§9.7): neither the wrap key nor the
    /// credential id nor the public key of an enrolled passkey is in its catalog image.
    @Test func anExportCarriesNoPasskey() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("export vault"), iterations: testIterations)
        defer { vault.lock() }
        let credential = try Self.credential()
        try vault.enrolPasskey(name: "Exported?", password: pw("export vault"), prf: SecureBytes(randomCount: 32), credential: credential)
        let wrapKey = try #require(try VaultDirectory.passkeyRecords(vault.catalog.passkeyRows()).compactMap { $0 }.first).wrapKey
        let (slot, header) = try vault.exportedSlot()
        let image = try SlotCodec.openCatalog(contents: slot, header: header, key: vault.key)
        func contains(_ needle: [UInt8]) -> Bool {
            image.count >= needle.count && (0...(image.count - needle.count)).contains { Array(image[$0..<($0 + needle.count)]) == needle }
        }
        #expect(!contains(credential.id) && !contains(credential.key.bytes) && !contains(wrapKey.withUnsafeBytes { Array($0) }))
        #expect(!contains(Array("Exported?".utf8)))
        let exported = try Catalog.restore(image: image)
        #expect(try VaultDirectory.passkeyRecords(exported.passkeyRows()).allSatisfy { $0 == nil })
        // The vault itself keeps its passkey.
        #expect(try vault.passkeys().map(\.name) == ["Exported?"])
    }

    /// The unlock by passkey (§9.8, docs/PASSKEY.md §P4.2): the field that opens names its
    /// row, whose credential the caller verifies before the vault opens; a PRF output
    /// that opens nothing, a refused verification and a removed passkey all get the
    /// wrong-password answer, and none of them commits anything.
    @Test func aPasskeyUnlocksItsVaultOnlyOnceItsCredentialIsVerified() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let decoyVault = try directory.createVault(password: pw("another vault"), iterations: testIterations)
        _ = try decoyVault.addNote(title: "elsewhere", body: "not this one")
        decoyVault.lock()
        let vault = try directory.createVault(password: pw("unlock vault"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        let credential = try Self.credential()
        try vault.enrolPasskey(name: "Phone", password: pw("unlock vault"), prf: prf, credential: credential)
        _ = try vault.addNote(title: "mine", body: "in the passkey's vault")
        let key = vault.key.copy()
        vault.lock()
        let before = try root.snapshot()

        var offered = [PasskeyCredential]()
        #expect(throws: VaultError.wrongPassword) {
            try directory.unlock(passkeyPRF: SecureBytes(randomCount: 32)) { offered.append($0); return true }
        }
        #expect(offered.isEmpty)
        #expect(throws: VaultError.wrongPassword) {
            try directory.unlock(passkeyPRF: prf) { offered.append($0); return false }
        }
        struct Refused: Error {}
        #expect(throws: VaultError.wrongPassword) {
            try directory.unlock(passkeyPRF: prf) { _ in throw Refused() }
        }
        #expect(offered == [credential])
        // Nothing was committed: no migration, chore or commit before the verification.
        #expect(try root.snapshot() == before)

        let opened = try directory.unlock(passkeyPRF: prf) { $0 == credential }
        #expect(opened.key == key && opened.slotName == vault.slotName)
        #expect(try opened.items().map(\.record.name) == ["mine"])
        try opened.removePasskey(named: "Phone", password: pw("unlock vault"))
        opened.lock()
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(passkeyPRF: prf) { _ in true } }
    }

    /// The password stays the root (review PR3): a record whose name a later check
    /// would refuse still leaves the vault opening by its password, sealing its field,
    /// and the remedy (a password change removing every passkey) decodes nothing.
    @Test func aRecordThatNoLongerDecodesKeepsThePasswordWorking() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("root vault"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Named", password: pw("root vault"), prf: prf, credential: Self.credential())
        var row = try vault.catalog.passkeyRows()[0].withUnsafeBytes { Array($0) }
        row[PasskeyRecord.nameOffset] = 0x01    // a control character: refused by the name rule
        try vault.catalog.database.write { db in
            try db.execute(sql: "UPDATE passkey SET rec = ? WHERE field = 0", arguments: [Data(row)])
        }
        // Closing the catalog at lock releases the provider that holds the wrap keys (PR1).
        let paged = vault.catalog.pagedCatalog
        vault.lock()
        #expect(paged?.headerFields == nil)

        let reopened = try directory.unlock(password: pw("root vault"))
        defer { reopened.lock() }
        #expect(throws: VaultError.self) { try reopened.passkeys() }
        _ = try reopened.addNote(title: "still writes", body: "its field")
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == reopened.slotName)
        try reopened.changePassword(to: pw("new root"), removingPasskeys: true)
        #expect(try reopened.passkeys().isEmpty && reopened.catalog.pagedCatalog?.headerLayout == .a)
        #expect(try directory.sweepPasskey(prf: prf) == nil)
    }

    /// One shape for the three credential commits (docs/PASSKEY.md §P4.1, review PR7): an
    /// enrolment, a password change and a removal each change the same logical blocks of
    /// the slot, so a holder of O with every version cannot tell which one happened.
    @Test func enrolPasswordChangeAndRemovalChangeTheSameBlocks() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("shape vault"), iterations: testIterations)
        defer { vault.lock() }
        _ = try vault.addNote(title: "a note", body: "so that the catalog has rows")
        func payloads() throws -> [Int: [UInt8]] {
            var out = [Int: [UInt8]]()
            var j = 0
            while let block = try? directory.store.readBlock(vault.slotName, j) {
                out[j] = block
                j += 1
            }
            return out
        }
        func changed(_ body: () throws -> Void) throws -> Set<Int> {
            let before = try payloads()
            try body()
            let after = try payloads()
            return Set(after.keys.filter { before[$0] != after[$0] })
        }
        let first = SecureBytes(randomCount: 32), second = SecureBytes(randomCount: 32)
        let enrol = try changed { try vault.enrolPasskey(name: "A", password: pw("shape vault"), prf: first, credential: Self.credential()) }
        let enrolAgain = try changed { try vault.enrolPasskey(name: "B", password: pw("shape vault"), prf: second, credential: Self.credential()) }
        let change = try changed { try vault.changePassword(to: pw("shape vault 2")) }
        let remove = try changed { try vault.removePasskey(named: "A", password: pw("shape vault 2")) }
        let removeLast = try changed { try vault.removePasskey(named: "B", password: pw("shape vault 2")) }
        #expect(enrol.contains(0) && enrol.count >= 3, "\(enrol.sorted())")
        #expect(enrol == enrolAgain && enrol == change && enrol == remove && enrol == removeLast,
                "\(enrol.sorted()) \(enrolAgain.sorted()) \(change.sorted()) \(remove.sorted()) \(removeLast.sorted())")
    }

    @Test func aHeaderWhoseLayoutDisagreesWithTheRowsIsDamaged() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("odd vault"), iterations: testIterations)
        // Layout B written by hand with every row free: no credential commit makes this.
        vault.catalog.pagedCatalog?.setHeaderFields { SystemRandom().bytes(PasskeyFormat.fieldsLength) }
        _ = try vault.addNote(title: "a note", body: "in layout B without a passkey")
        vault.lock()
        #expect(throws: VaultError.corrupt("the passkey rows do not match the slot's header")) {
            try directory.unlock(password: pw("odd vault"))
        }
    }

    /// The name rule where the vault applies it (review PR8 g, PR11): control, format and
    /// separator characters refused, the 64-byte bound counted in bytes of multi-byte
    /// text, NFC and NFD of one text one name, one credential enrolled once, and a removal
    /// that finds a name as an enrolment stored it. Nothing refused writes anything.
    @Test func namesAreCheckedComparedAndFoundAsAnEnrolmentStoresThem() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("names vault"), iterations: testIterations)
        defer { vault.lock() }
        let password = pw("names vault")
        @discardableResult
        func enrol(_ name: String, credential: PasskeyCredential? = nil) throws -> PasskeyInfo {
            try vault.enrolPasskey(name: name, password: password, prf: SecureBytes(randomCount: 32), credential: credential ?? Self.credential())
        }
        let snapshot = try root.snapshot()
        let refused = ["bell\u{07}", "del\u{7F}", "nul\u{0}x", "evil\u{202E}gnp", "zero\u{200B}width", "left\u{200E}mark",
                       "arabic\u{061C}mark", "line\u{2028}break", "para\u{2029}graph", "word\u{2060}joiner"]
        for name in refused {
            #expect(throws: VaultError.invalidPasskeyName, "\(name.unicodeScalars.map { String($0.value, radix: 16) })") { try enrol(name) }
        }
        // 64 bytes exactly of multi-byte text, and one byte over.
        let longest = String(repeating: "\u{20AC}", count: 21) + "a"
        #expect(longest.utf8.count == 64 && longest.count == 22)
        #expect(throws: VaultError.invalidPasskeyName) { try enrol(longest + "b") }
        #expect(throws: VaultError.invalidPasskeyName) { try enrol(String(repeating: "\u{E9}", count: 32) + "x") }
        #expect(try root.snapshot() == snapshot)

        // Trimmed at both ends, an em space (Zs) and a line feed included.
        #expect(try enrol(" \t" + longest + "\u{2003}\n").name == longest)
        let composed = "Caf\u{E9}", decomposed = "Cafe\u{301}"
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        #expect(try enrol(composed).name == composed)
        #expect(throws: VaultError.passkeyNameTaken(decomposed)) { try enrol(decomposed) }

        // One credential enrolled once, even under another name and PRF output.
        let credential = try Self.credential()
        try enrol("First", credential: credential)
        let enrolled = try root.snapshot()
        #expect(throws: VaultError.passkeyOpensAVault) { try enrol("Second", credential: credential) }
        #expect(try root.snapshot() == enrolled)

        // A removal takes the name as an enrolment would store it.
        #expect(throws: VaultError.noSuchPasskey("Firs")) { try vault.removePasskey(named: "Firs", password: password) }
        try vault.removePasskey(named: "  First\n", password: password)
        try vault.removePasskey(named: decomposed, password: password)
        #expect(try vault.passkeys().map(\.name) == [longest])
    }

    /// Two enrolled rows with one name, or one credential, are damage (§3.3): a listing or
    /// a removal by name could not tell them apart. No enrolment writes them; the password
    /// still opens the vault (review PR3), and a password change removing every passkey
    /// is the remedy.
    @Test func twoRowsWithOneCredentialAreDamage() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("twin vault"), iterations: testIterations)
        defer { vault.lock() }
        try vault.enrolPasskey(name: "One", password: pw("twin vault"), prf: SecureBytes(randomCount: 32), credential: Self.credential())
        try vault.enrolPasskey(name: "Two", password: pw("twin vault"), prf: SecureBytes(randomCount: 32), credential: Self.credential())
        let first = try vault.catalog.passkeyRows()[0].withUnsafeBytes { Array($0) }
        try vault.catalog.database.write { db in
            try db.execute(sql: "UPDATE passkey SET rec = ? WHERE field = 1", arguments: [Data(first)])
        }
        #expect(throws: VaultError.corrupt("two passkey rows have one name or one credential")) { try vault.passkeys() }
        #expect(throws: VaultError.corrupt("two passkey rows have one name or one credential")) {
            try vault.removePasskey(named: "One", password: pw("twin vault"))
        }
        try vault.changePassword(to: pw("twin vault 2"), removingPasskeys: true)
        #expect(try vault.passkeys().isEmpty)
    }

    /// The mirror of the test above (review PR8 f): block 0 in layout A while a row is
    /// enrolled, which no credential commit makes, is damage too.
    @Test func aHeaderInLayoutAWithAnEnrolledRowIsDamaged() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("odd vault A"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Key", password: pw("odd vault A"), prf: prf, credential: Self.credential())
        vault.catalog.pagedCatalog?.setHeaderFields { nil }
        _ = try vault.addNote(title: "a note", body: "in layout A with an enrolled row")
        #expect(vault.catalog.pagedCatalog?.headerLayout == .a)
        vault.lock()
        #expect(throws: VaultError.corrupt("the passkey rows do not match the slot's header")) {
            try directory.unlock(password: pw("odd vault A"))
        }
        #expect(try directory.sweepPasskey(prf: prf) == nil)
    }

    /// Fixed work with a layout-B slot in the directory (review PR8 e): a PRF output that
    /// opens a field and one that opens none cost the same derivations and trials. And a
    /// catalog in layout B whose field provider is gone refuses to commit rather than
    /// write layout A (PC1); the session reopens its catalog, which seals the field again.
    @Test func aSweepDoesFixedWorkBesideALayoutBSlotAndAVaultNeverDropsItsField() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        try directory.createVault(password: pw("the other vault"), iterations: testIterations).lock()
        let vault = try directory.createVault(password: pw("layout B vault"), iterations: testIterations)
        defer { vault.lock() }
        let prf = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Key", password: pw("layout B vault"), prf: prf, credential: Self.credential())
        let slots = try root.slotNames().count
        for candidate in [prf, SecureBytes(randomCount: 32)] {
            let tally = PasskeySweep.Tally()
            let match = try directory.sweepPasskey(prf: candidate, tally: tally)
            #expect((match?.slotName == vault.slotName) == (candidate == prf))
            #expect(tally.derivations == slots && tally.trials == 4 * slots)
        }
        let paged = try #require(vault.catalog.pagedCatalog)
        #expect(paged.headerLayout == .b)
        paged.setHeaderFields(nil)
        #expect(throws: (any Error).self) { try vault.addNote(title: "would drop the field", body: "refused") }
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == vault.slotName)
        _ = try vault.addNote(title: "kept", body: "after the reopen")
        #expect(vault.catalog.pagedCatalog?.headerLayout == .b)
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == vault.slotName)
        #expect(try vault.items().map(\.record.name) == ["kept"])
    }

    /// An import whose catalog image carries an enrolled row, and an index and a trigger
    /// on the table, as no Obscura export does (review PR2, PR8 i): the first unlock
    /// converts it with v11's table of free rows, in layout A, and the vault works.
    @Test func anImportedImageWithAnEnrolledRowIsConvertedWithNone() throws {
        let source = try TestRoot()
        let vault = try source.initialized().createVault(password: pw("carried vault"), iterations: testIterations)
        let prf = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Carried", password: pw("carried vault"), prf: prf, credential: Self.credential())
        _ = try vault.addNote(title: "carried note", body: "comes along")
        try vault.catalog.database.write { db in
            try db.execute(sql: "CREATE INDEX passkey_rec ON passkey (rec)")
            try db.execute(sql: "CREATE TRIGGER passkey_touch AFTER UPDATE ON passkey BEGIN SELECT 1; END")
        }
        let image = try vault.catalog.image()
        let key = vault.key.copy()
        vault.lock()
        let slot = try SlotCodec.seal(password: pw("carried vault"), iterations: testIterations, key: key, catalog: image, using: SystemRandom())
        let manifest = ExportManifest(
            format: Int(ExportFormat.version), createdAt: 1_700_000_000, vault: .init(header: try SlotHeader.decode(slot)),
            folders: [], items: [])
        let payload = try ExportFormat.payloadPlaintext(manifest: manifest, slot: slot, records: [])
        let path = source.path + "/carried.obscura"
        try payload.withUnsafeBytes { raw in
            try ExportFormat.write(to: path, password: pw("export"), kdf: .pbkdf2(iterations: 1), totalSize: UInt64(payload.count),
                                   source: ChunkedFileWriter.source(bytes: raw), using: SystemRandom())
        }

        let root = try TestRoot()
        let directory = try root.initialized()
        #expect(try directory.importVault(from: path, password: pw("export")) == 0)
        let imported = try directory.unlock(password: pw("carried vault"))
        defer { imported.lock() }
        #expect(try imported.passkeys().isEmpty && imported.catalog.pagedCatalog?.headerLayout == .a)
        #expect(try imported.items().map(\.record.name) == ["carried note"])
        let objects = try imported.catalog.database.read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_schema WHERE tbl_name = 'passkey' ORDER BY name")
        }
        #expect(objects == ["passkey"])
        #expect(try directory.sweepPasskey(prf: prf) == nil)
        // It enrols as any vault does, the carried credential's PRF output included.
        try imported.enrolPasskey(name: "Again", password: pw("carried vault"), prf: prf, credential: Self.credential())
        #expect(try directory.sweepPasskey(prf: prf)?.slotName == imported.slotName)
        try directory.unlock(password: pw("carried vault")).lock()
    }
}
