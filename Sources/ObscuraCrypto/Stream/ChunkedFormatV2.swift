/// Version 2 of the chunked format (docs/FORMAT.md §6.6): every file is sealed under keys
/// of its own, derived from the vault's key (and, protected, the folder key) and a random
/// salt in its header.
///
/// Version 1 sealed every file under the MEK itself, so a nonce could be used twice unless
/// every 4-byte prefix ever drawn stayed on record; a restored or imported copy of the
/// record forgot the prefixes drawn since, and two files could share nonces. With a key a
/// file, the nonces only need to differ within the file: a chunk counter does that.
public enum ChunkedFormatV2 {
    /// §6.6: the version field.
    public static let version: UInt16 = 2
    /// §6.6: header size; chunk 0 starts here.
    public static let headerSize = 52
    /// §6.6: the per-file random salt.
    public static let saltSize = 32
    /// §6.6: HKDF-SHA256 info of the inner layer's key, derived from the MEK.
    public static let innerKeyLabel = Array("obscura media v2 inner key".utf8)
    /// §6.6: HKDF-SHA256 info of the outer layer's key, derived from the folder key.
    public static let outerKeyLabel = Array("obscura media v2 outer key".utf8)

    /// §6.6: a layer's file key, HKDF-SHA256(salt = the header's salt, IKM = `root`,
    /// info = `label`, L = 32), in a zeroing container.
    public static func fileKey(root: SecureBytes, salt: [UInt8], label: [UInt8]) -> SecureBytes {
        precondition(salt.count == saltSize, "a version 2 salt is 32 bytes")
        return HKDFSHA256.derive(from: root, salt: salt, info: label, count: AESGCM.keySize)
    }

    /// §6.6: nonce_i = `00 00 00 00` ‖ UInt64BE(i), in both layers. Each key seals one
    /// file, so the counter alone keeps nonces unique under it.
    public static func nonce(_ index: UInt64) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 4)
        nonce.appendBigEndian(index)
        return nonce
    }
}
