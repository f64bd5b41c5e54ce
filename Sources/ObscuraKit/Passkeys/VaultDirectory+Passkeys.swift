import ObscuraCatalog
import ObscuraCrypto
import ObscuraKeys
import ObscuraPages
import ObscuraStore

/// The directory side of passkey unlock (docs/FORMAT.md §9.8): the PRF input a page asks
/// the authenticator for, the sweep of one PRF output over every slot's fields, and the
/// fields a vault's commits seal, made from its `passkey` rows whenever its catalog opens.
extension VaultDirectory {
    /// The directory's PRF input, SHA-256(`obscura passkey prf input v1` ‖ DID): the same
    /// before and after an outer-key rotation, since the directory id does not change.
    public func passkeyPRFInput() throws -> [UInt8] {
        try requireContainer()
        return PasskeyFields.prfInput(directoryID: try store.directoryID())
    }

    /// What the sweep found: the slot, the field's index (its catalog row) and the MEK.
    package struct PasskeyMatch {
        package let slotName: String
        package let field: Int
        package let mek: SecureBytes
    }

    /// Sweeps `prf` over the four fields of every slot with a readable header, with no
    /// early return (§9.8 "Sweep"): block 0's bytes [136, 376) whatever the slot's layout,
    /// version or vault. Nil when no field opens.
    package func sweepPasskey(prf: SecureBytes, tally: PasskeySweep.Tally? = nil) throws -> PasskeyMatch? {
        try requireContainer()
        let end = PasskeyFormat.fieldsOffset + PasskeyFormat.fieldsLength
        let (directoryID, heads) = try store.directoryHeads(count: end)
        let slots = heads.map { entry -> PasskeySweep.Slot in
            guard let head = entry.head, head.count == end, (try? SlotHeader.decode(head)) != nil else {
                return PasskeySweep.Slot(slotID: entry.slotID, fields: nil)
            }
            return PasskeySweep.Slot(slotID: entry.slotID, fields: Array(head[PasskeyFormat.fieldsOffset..<end]))
        }
        guard let match = PasskeySweep.run(prf: prf, directoryID: directoryID, slots: slots, tally: tally) else { return nil }
        return PasskeyMatch(slotName: heads[match.slot].name, field: match.field, mek: match.mek)
    }

    /// Opens the vault whose passkey field `prf` opens (docs/FORMAT.md §9.8), once
    /// `verify` has accepted the credential of that field's row: the caller checks the
    /// request's assertion against it (§9.9). Before that, the slot's catalog is opened
    /// only to read the row: no migration, chore or commit runs for a request that has
    /// not proved it holds the credential (docs/PASSKEY.md §P4.2, PK16).
    ///
    /// - Throws: ``VaultError/wrongPassword`` when no field opens, when the field's row is
    ///   not enrolled, and when `verify` refuses or throws: one answer for all three, the
    ///   answer a wrong password gets.
    public func unlock(
        passkeyPRF prf: SecureBytes, runningChores: Bool = true, verify: (PasskeyCredential) throws -> Bool
    ) throws -> Vault {
        // From the sweep to the open, no enrolment, removal or password change may land
        // (review PR5): a passkey removed meanwhile must not open the vault once more.
        let vault = try credentialLock.withLock { () -> Vault in
            guard let match = try sweepPasskey(prf: prf) else {
                logger.debug("passkey unlock refused")
                throw VaultError.wrongPassword
            }
            var handedOver = false
            defer { if !handedOver { match.mek.zeroize() } }
            // Anything that goes wrong before the credential is verified is the one answer
            // (review PR4): the request has not shown it holds the passkey.
            guard let header = try? SlotHeader.decode(store.readHeader(match.slotName)),
                  let record = try? passkeyRecord(slotName: match.slotName, header: header, mek: match.mek, field: match.field),
                  (try? verify(record.credential)) == true else {
                logger.debug("passkey unlock refused")
                throw VaultError.wrongPassword
            }
            let vault = try openVault(name: match.slotName, header: header, key: match.mek)
            handedOver = true
            // As a password unlock says it (review UX14); no name, no field.
            logger.debug("passkey unlock opened a vault")
            return vault
        }
        if runningChores { vault.runUnlockChores() }
        return vault
    }

    /// Row `field` of slot `name`'s catalog, read without migrating or committing; nil
    /// when it is free or the slot is not in layout B (a field that opened in a slot
    /// without passkeys: crafted, since no writer seals one there).
    private func passkeyRecord(slotName name: String, header: SlotHeader, mek: SecureBytes, field: Int) throws -> PasskeyRecord? {
        guard header.isPaged else { return nil }
        do {
            let paged = try openPaged(name, key: mek)
            defer { try? paged.close() }
            guard paged.headerLayout == .b, let rows = try Catalog.passkeyRows(readingOnly: paged) else { return nil }
            return try Self.passkeyRecords(rows)[field]
        } catch let error as PagesError {
            throw VaultError.corrupt(error.description)
        }
    }

    /// The `passkey` rows decoded, in field order: nil for a free row. A catalog before
    /// migration v11 has no rows, and so no passkey. Two enrolled rows with one name or
    /// one credential id are damage (§3.3): no enrolment writes them, and a listing or a
    /// removal by name could not tell them apart.
    static func passkeyRecords(_ rows: [SecureBytes]) throws -> [PasskeyRecord?] {
        guard !rows.isEmpty else { return Array(repeating: nil, count: PasskeyFormat.fieldCount) }
        let records: [PasskeyRecord?]
        do {
            records = try rows.map { row in try row.withUnsafeBytes { try PasskeyRecord.decode($0) } }
        } catch let error as PasskeyRecordError {
            throw VaultError.corrupt(error.description)
        }
        let enrolled = records.compactMap { $0 }
        for (i, record) in enrolled.enumerated() {
            guard !enrolled[..<i].contains(where: { $0.name == record.name || $0.credential.id == record.credential.id }) else {
                throw VaultError.corrupt("two passkey rows have one name or one credential")
            }
        }
        return records
    }

    /// What the catalog of slot `name` under `mek` makes its field provider from: its
    /// rows' wrap keys. Block 0 is in layout B exactly while a row is enrolled (§9.8); a
    /// catalog whose layout and rows disagree is damaged, since one credential commit
    /// writes both.
    func passkeyFields(slotName name: String, mek: SecureBytes) -> Catalog.HeaderFieldsFromRows {
        { [self] rows, layout in
            let wrapKeys: [SecureBytes?]
            do {
                // The state byte and K_pk only (PR3): a name or key a later check refuses
                // must not keep the password from opening the vault.
                wrapKeys = rows.isEmpty
                    ? Array(repeating: nil, count: PasskeyFormat.fieldCount)
                    : try rows.map { row in try row.withUnsafeBytes { try PasskeyRecord.wrapKey($0) } }
            } catch let error as PasskeyRecordError {
                throw VaultError.corrupt(error.description)
            }
            let enrolled = wrapKeys.contains { $0 != nil }
            guard enrolled == (layout == .b) else {
                throw VaultError.corrupt("the passkey rows do not match the slot's header")
            }
            return try passkeyFieldProvider(slotName: name, mek: mek, wrapKeys: wrapKeys)
        }
    }

    /// What slot `name`'s commits seal into block 0 for these wrap keys (nil for a free
    /// row): layout A, explicitly, while none is enrolled; else a sealer of the fields.
    func passkeyFieldProvider(slotName name: String, mek: SecureBytes, wrapKeys: [SecureBytes?]) throws -> @Sendable () throws -> [UInt8]? {
        // Only a vault with a passkey needs the directory id (a container's, behind O).
        guard wrapKeys.contains(where: { $0 != nil }) else { return PasskeyFieldSealer.layoutA }
        guard let slotID = SlotID(fileName: name)?.bytes else { throw VaultError.corrupt("a slot name outside the container") }
        return PasskeyFieldSealer(mek: mek, wrapKeys: wrapKeys, directoryID: try store.directoryID(), slotID: slotID, random: random).provider
    }
}
