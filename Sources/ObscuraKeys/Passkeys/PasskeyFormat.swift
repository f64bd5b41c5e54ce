/// The constants of passkey unlock: the fields every slot carries in its block 0, the
/// PRF input, and the wrap (docs/FORMAT.md §9.8; the design record is docs/PASSKEY.md).
public enum PasskeyFormat {
    /// Fields per slot (§9.8, "Fields"): a fixed number, so that every slot is swept as
    /// holding exactly this many whatever its vault has enrolled.
    public static let fieldCount = 4
    /// One field: nonce 12 ‖ the sealed 32-byte MEK ‖ tag 16 (§9.8, "Fields").
    public static let fieldSize = 60
    /// Where the fields start in block 0: after the 136-byte header prefix (§9.5, §9.8).
    public static let fieldsOffset = 136
    /// The bytes of block 0 the sweep reads as fields: [136, 376) (§9.8).
    public static let fieldsLength = fieldCount * fieldSize
    /// The MEK a field wraps (§3.1).
    static let keySize = 32

    /// Label of the PRF input, hashed with the directory id (§9.8, "PRF input").
    static let prfInputLabel = Array("obscura passkey prf input v1".utf8)
    /// WebAuthn's PRF extension hashes the page's input with this prefix before it
    /// reaches the authenticator's hmac-secret (§9.8, "PRF input"): "WebAuthn PRF" and
    /// one zero byte.
    static let webAuthnPRFPrefix = Array("WebAuthn PRF".utf8) + [0]
    /// HKDF-Extract salt of the wrap key (§9.8, "Wrap key").
    static let extractSalt = Array("obscura v4 passkey".utf8)
    /// HKDF-Expand info prefix of the wrap key, followed by the directory and slot ids.
    static let wrapInfo = Array("obscura v4 passkey wrap".utf8)
    /// Associated-data label of a field, followed by the directory id, the slot id and
    /// the field's index (§9.8, "Wrap").
    static let associatedDataLabel = Array("obsv4pk".utf8) + [0]
    /// Size of a directory id and of a slot id (§8.1, §8.4).
    static let idSize = 16
}
