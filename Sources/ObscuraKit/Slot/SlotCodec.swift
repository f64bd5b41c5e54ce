import ObscuraCrypto
import ObscuraStore

/// Seals and opens the contents of a slot file: header ‖ sealed catalog, without padding
/// (docs/FORMAT.md §3). Real vaults and decoys go through exactly these functions.
public enum SlotCodec {
    /// Builds the contents of a new slot: a fresh salt, the KEK derived from `password`,
    /// `key` (the MEK) wrapped under it, and `catalog` sealed under the MEK.
    public static func seal(
        password: SecureBytes, kdf: KDFParameters, key: SecureBytes, catalog: [UInt8],
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        let header = try wrap(key: key, password: password, kdf: kdf, using: random)
        return try resealCatalog(header: header, key: key, catalog: catalog, using: random)
    }

    /// Returns a header whose salt, KDF cost and wrapped MEK are new; its envelope
    /// is empty until ``envelope(header:key:sealedCatalogLength:using:)`` fills it.
    static func wrap(
        key: SecureBytes, password: SecureBytes, kdf: KDFParameters, using random: RandomSource
    ) throws -> SlotHeader {
        try wrap(key: key, password: password, kdf: kdf, versions: [SlotFormat.version], using: random)[0]
    }

    /// One header per version in `versions`, all with one new salt and one KEK derived
    /// from `password`, each wrapping `key` under its own associated data (the version is
    /// part of it, §3.2): a paged header (§9.5) and the version 3 header its vault's
    /// exports carry (§7) cost one key derivation.
    package static func wrap(
        key: SecureBytes, password: SecureBytes, kdf: KDFParameters, versions: [UInt16], using random: RandomSource
    ) throws -> [SlotHeader] {
        let salt = random.bytes(PasswordKDF.saltSize)
        let kek = try kdf.deriveKey(password: password, salt: salt)
        return try versions.map { version in
            var header = SlotHeader(version: version, kdf: kdf, salt: salt, wrappedKey: [])
            header.wrappedKey = try AESGCM.sealSecret(key, key: kek, authenticating: header.prefixThroughSalt, using: random)
            return header
        }
    }

    /// Seals `catalog` under the MEK and returns header ‖ sealed catalog with a new
    /// envelope; salt and wrapped MEK stay as they are (no key derivation).
    public static func resealCatalog(
        header: SlotHeader, key: SecureBytes, catalog: [UInt8],
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        let sealedCatalog = try AESGCM.seal(
            catalog, key: key, authenticating: Array(header.prefixThroughSalt[SlotFormat.catalogAAD]),
            using: random)
        var sealedHeader = header
        sealedHeader.envelope = try envelope(
            header: header, key: key, sealedCatalogLength: sealedCatalog.count, using: random)
        return sealedHeader.encoded() + sealedCatalog
    }

    /// Re-wraps the MEK under `newPassword` with a new salt. The sealed catalog bytes of
    /// `contents` are carried over untouched; only the header changes.
    public static func rewrap(
        contents: [UInt8], key: SecureBytes, newPassword: SecureBytes, kdf: KDFParameters,
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        let old = try SlotHeader.decode(contents)
        let length = try sealedCatalogLength(contents: contents, header: old, key: key)
        var header = try wrap(key: key, password: newPassword, kdf: kdf, using: random)
        header.envelope = try envelope(header: header, key: key, sealedCatalogLength: length, using: random)
        let catalogRange = SlotFormat.headerSize..<(SlotFormat.headerSize + length)
        return header.encoded() + contents[catalogRange]
    }

    /// Derives the KEK from `password` and unwraps the MEK: the step every slot takes in
    /// an unlock sweep. Throws ``SlotError/wrongKey`` when the tag does not verify.
    public static func unwrapKey(header: SlotHeader, password: SecureBytes) throws -> SecureBytes {
        let kek = try header.kdf.deriveKey(password: password, salt: header.salt)
        do {
            return try AESGCM.openSecret(header.wrappedKey, key: kek, authenticating: header.prefixThroughSalt)
        } catch {
            throw SlotError.wrongKey
        }
    }

    /// Opens the catalog image of a slot whose MEK is known.
    public static func openCatalog(contents: [UInt8], header: SlotHeader, key: SecureBytes) throws -> [UInt8] {
        let length = try sealedCatalogLength(contents: contents, header: header, key: key)
        let sealed = contents[SlotFormat.headerSize..<(SlotFormat.headerSize + length)]
        do {
            return try AESGCM.open(
                sealed, key: key,
                authenticating: Array(header.prefixThroughSalt[SlotFormat.catalogAAD]))
        } catch {
            throw SlotError.corrupt("catalog failed authentication")
        }
    }

    /// Opens the envelope and checks the catalog length it holds against the file.
    static func sealedCatalogLength(contents: [UInt8], header: SlotHeader, key: SecureBytes) throws -> Int {
        let plain: [UInt8]
        do {
            plain = try AESGCM.open(header.envelope, key: key, authenticating: header.prefixThroughWrappedKey)
        } catch {
            throw SlotError.corrupt("envelope failed authentication")
        }
        guard plain.count == SlotFormat.envelopePlaintextSize else { throw SlotError.corrupt("envelope size") }
        let length = plain.readBigEndian(UInt64.self, at: 0)
        guard length >= UInt64(AESGCM.overhead) else { throw SlotError.corrupt("catalog length") }
        guard length <= UInt64(contents.count - SlotFormat.headerSize) else { throw SlotError.truncated }
        return Int(length)
    }

    static func envelope(
        header: SlotHeader, key: SecureBytes, sealedCatalogLength: Int, using random: RandomSource
    ) throws -> [UInt8] {
        var plain = [UInt8]()
        plain.appendBigEndian(UInt64(sealedCatalogLength))
        return try AESGCM.seal(plain, key: key, authenticating: header.prefixThroughWrappedKey, using: random)
    }

    /// ``seal(password:kdf:key:catalog:using:)`` with PBKDF2 at `iterations`.
    package static func seal(
        password: SecureBytes, iterations: Int, key: SecureBytes, catalog: [UInt8],
        using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        try seal(password: password, kdf: .pbkdf2(iterations: iterations), key: key, catalog: catalog, using: random)
    }
}
