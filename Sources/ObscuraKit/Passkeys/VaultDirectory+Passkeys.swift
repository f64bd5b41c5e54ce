import ObscuraCrypto
import ObscuraKeys
import ObscuraStore

/// The directory side of passkey unlock (docs/FORMAT.md §9.8): the PRF input a page asks
/// the authenticator for, and the sweep of one PRF output over every slot's fields.
///
/// Only the read side exists yet: no vault enrols a passkey until the `passkey` table
/// and the credential commit land (docs/PASSKEY.md §P4.1), so every slot is in layout A
/// and the sweep opens nothing in a directory this code wrote.
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
}
