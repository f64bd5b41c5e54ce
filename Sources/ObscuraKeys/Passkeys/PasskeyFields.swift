import ObscuraCrypto

/// The keys and seals of the passkey fields (docs/FORMAT.md §9.8): a PRF output R from
/// one credential, evaluated at the directory's PRF input, yields a wrap key per slot,
/// under which a field seals the vault's MEK.
public enum PasskeyFields {
    /// The PRF input the page passes to the browser for this directory:
    /// SHA-256("obscura passkey prf input v1" ‖ DID). It is readable only with the outer
    /// key, which the directory id is sealed under, and survives an outer-key rotation.
    public static func prfInput(directoryID: [UInt8]) -> [UInt8] {
        precondition(directoryID.count == PasskeyFormat.idSize, "directory id")
        return SHA256Digest.hash(PasskeyFormat.prfInputLabel + directoryID)
    }

    /// The salt the browser hands to the authenticator's hmac-secret for `prfInput`:
    /// what a native client (libfido2) must send itself to obtain the same R.
    public static func authenticatorSalt(prfInput: [UInt8]) -> [UInt8] {
        SHA256Digest.hash(PasskeyFormat.webAuthnPRFPrefix + prfInput)
    }

    /// The wrap key of slot `slotID`: HKDF-SHA256 with R as input key material, salt
    /// "obscura v4 passkey", info "obscura v4 passkey wrap" ‖ DID ‖ slot id. Binding both
    /// ids means an R or a field copied to another slot or directory opens nothing.
    public static func wrapKey(prf: SecureBytes, directoryID: [UInt8], slotID: [UInt8]) -> SecureBytes {
        precondition(directoryID.count == PasskeyFormat.idSize && slotID.count == PasskeyFormat.idSize, "ids")
        return HKDFSHA256.derive(from: prf, salt: PasskeyFormat.extractSalt, info: PasskeyFormat.wrapInfo + directoryID + slotID)
    }

    /// The associated data of field `index` of a slot: the index is bound so that a
    /// field moved to another index opens nothing, and the index the sweep reports is
    /// the catalog row it belongs to.
    static func associatedData(directoryID: [UInt8], slotID: [UInt8], index: Int) -> [UInt8] {
        PasskeyFormat.associatedDataLabel + directoryID + slotID + [UInt8(index)]
    }

    /// Field `index` sealing `mek` under `key` (the slot's wrap key), with a fresh nonce.
    public static func seal(
        mek: SecureBytes, key: SecureBytes, directoryID: [UInt8], slotID: [UInt8], index: Int,
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        precondition((0..<PasskeyFormat.fieldCount).contains(index), "field index")
        return try AESGCM.sealSecret(mek, key: key, authenticating: associatedData(directoryID: directoryID, slotID: slotID, index: index),
                                     using: random)
    }

    /// The MEK in `field` (60 bytes), or nil when its tag does not verify under `key`
    /// for this slot and index: an unused field, a field of another slot or index, or
    /// any byte of a layout-A block 0 (§9.8).
    public static func open(
        field: some Collection<UInt8>, key: SecureBytes, directoryID: [UInt8], slotID: [UInt8], index: Int
    ) -> SecureBytes? {
        guard field.count == PasskeyFormat.fieldSize,
              let mek = try? AESGCM.openSecret(field, key: key, authenticating: associatedData(directoryID: directoryID, slotID: slotID, index: index)),
              mek.count == PasskeyFormat.keySize else { return nil }
        return mek
    }
}
