import ObscuraCrypto

/// The fixed-offset fields of WebAuthn authenticator data (docs/FORMAT.md §9.9): the
/// rpId hash [0, 32), the flags byte 32 and the sign counter [33, 37). Nothing here
/// parses CBOR: the unlock reads no extension output, and enrolment stops after the
/// credential id.
struct AuthenticatorData {
    /// Bytes before any attested credential data or extensions.
    static let fixedSize = 37
    /// The largest authenticator data accepted at unlock.
    static let maximumSize = 1_024
    /// Where a creation's attested credential data puts the credential id's length
    /// (after the 16-byte AAGUID), and where the id starts.
    static let credentialIDLengthOffset = 53
    static let credentialIDOffset = 55

    /// Flag bits of byte 32.
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// User present.
        static let userPresent = Flags(rawValue: 0x01)
        /// User verified.
        static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible.
        static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up (synced).
        static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data follows.
        static let attestedData = Flags(rawValue: 0x40)
        /// Extension data follows.
        static let extensionData = Flags(rawValue: 0x80)
    }

    let bytes: [UInt8]

    /// Nil when shorter than 37 bytes.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.fixedSize else { return nil }
        self.bytes = bytes
    }

    var rpIDHash: ArraySlice<UInt8> { bytes[0..<32] }
    var flags: Flags { Flags(rawValue: bytes[32]) }

    /// BS without BE is impossible for an honest authenticator (WebAuthn Level 3).
    var flagsConsistent: Bool { !flags.contains(.backedUp) || flags.contains(.backupEligible) }

    /// The credential id of a creation's attested credential data, without reading the
    /// COSE key after it; nil when the data is too short for the length it states.
    /// `tooLong` is set when the id is longer than the record holds.
    func credentialID() -> (id: [UInt8]?, tooLong: Bool) {
        guard bytes.count >= Self.credentialIDOffset else { return (nil, false) }
        let length = Int(bytes.readBigEndian(UInt16.self, at: Self.credentialIDLengthOffset))
        guard length >= 1 else { return (nil, false) }
        if length > PasskeyCredential.maximumIDSize { return (nil, true) }
        guard bytes.count >= Self.credentialIDOffset + length else { return (nil, false) }
        return (Array(bytes[Self.credentialIDOffset..<(Self.credentialIDOffset + length)]), false)
    }
}
