import ObscuraCrypto

/// The header at the start of every slot: the 172 bytes of a version 3 slot
/// (docs/FORMAT.md §3.1), or the 136-byte prefix of a paged slot's header block (§9.5).
///
/// Both carry the KDF suite and cost, salt and wrapped MEK at the same offsets, so the
/// unlock sweep (§3.5) treats them alike; the version is part of the wrapped MEK's
/// associated data, so one never opens as the other.
public struct SlotHeader: Equatable, Sendable {
    /// The format version: ``SlotFormat/version`` (3) or ``SlotFormat/pagedVersion`` (4).
    public var version: UInt16
    /// The password KDF and its cost, from which the KEK is derived: the suite at bytes
    /// [6, 8) and the cost word at [8, 12) (§2, §3.1).
    public var kdf: KDFParameters
    /// KDF salt, 32 bytes.
    public var salt: [UInt8]
    /// The MEK sealed under the KEK, 60 bytes.
    public var wrappedKey: [UInt8]
    /// Version 3: the sealed-catalog length sealed under the MEK, 36 bytes. Version 4
    /// has none (the root after the prefix holds the catalog's size).
    public var envelope: [UInt8]

    /// Creates a version 3 header from its variable fields; magic and version are fixed.
    public init(kdf: KDFParameters, salt: [UInt8], wrappedKey: [UInt8], envelope: [UInt8]) {
        self.init(version: SlotFormat.version, kdf: kdf, salt: salt, wrappedKey: wrappedKey, envelope: envelope)
    }

    /// Creates a header of `version` (3 or 4).
    public init(version: UInt16, kdf: KDFParameters, salt: [UInt8], wrappedKey: [UInt8], envelope: [UInt8] = []) {
        self.version = version
        self.kdf = kdf
        self.salt = salt
        self.wrappedKey = wrappedKey
        self.envelope = envelope
    }

    /// The cost word at bytes [8, 12): a PBKDF2 header's iteration count.
    public var iterations: UInt32 { kdf.word }

    /// Whether this is a paged slot's header (§9.5).
    public var isPaged: Bool { version == SlotFormat.pagedVersion }

    /// The bytes [0, 44): magic, version, suite, cost word and salt.
    public var prefixThroughSalt: [UInt8] {
        var out = SlotFormat.magic
        out.appendBigEndian(version)
        out.appendBigEndian(kdf.suite)
        out.appendBigEndian(kdf.word)
        out += salt
        return out
    }

    /// The bytes [0, 104): everything the envelope authenticates.
    public var prefixThroughWrappedKey: [UInt8] { prefixThroughSalt + wrappedKey }

    /// The header bytes, checksum included: 172 for version 3, the 136-byte prefix for
    /// version 4.
    public func encoded() -> [UInt8] {
        var out = prefixThroughWrappedKey + (isPaged ? [] : envelope)
        out += SHA256Digest.hash(out)
        assert(out.count == (isPaged ? SlotFormat.pagedPrefixSize : SlotFormat.headerSize))
        return out
    }

    /// Parses the header at the start of `bytes`: 172 bytes of version 3, or 136 of
    /// version 4.
    ///
    /// - Throws: ``SlotError/truncated`` when fewer bytes are given,
    ///   ``SlotError/unsupported(_:)`` for an unknown magic, version or suite, and
    ///   ``SlotError/corrupt(_:)`` when the checksum does not match.
    public static func decode(_ bytes: some Collection<UInt8>) throws -> SlotHeader {
        let b = Array(bytes.prefix(SlotFormat.headerSize))
        guard b.count >= SlotFormat.versionOffset + 2 else { throw SlotError.truncated }
        guard Array(b[0..<4]) == SlotFormat.magic else { throw SlotError.unsupported("not an Obscura slot file") }
        let version = b.readBigEndian(UInt16.self, at: SlotFormat.versionOffset)
        let checksumOffset: Int
        switch version {
        case SlotFormat.version: checksumOffset = SlotFormat.checksumOffset
        case SlotFormat.pagedVersion: checksumOffset = SlotFormat.pagedChecksumOffset
        default: throw SlotError.unsupported("unsupported slot format version")
        }
        let size = checksumOffset + SlotFormat.checksumSize
        guard b.count >= size else { throw SlotError.truncated }
        let suite = b.readBigEndian(UInt16.self, at: SlotFormat.suiteOffset)
        guard SlotFormat.cipherSuites.contains(suite) else {
            throw SlotError.unsupported("unsupported cipher suite")
        }
        let checksum = SHA256Digest.hash(b[0..<checksumOffset])
        guard ConstantTime.equals(checksum, b[checksumOffset..<size]) else {
            throw SlotError.corrupt("header checksum mismatch")
        }
        guard let kdf = KDFParameters(suite: suite, word: b.readBigEndian(UInt32.self, at: SlotFormat.iterationsOffset)) else {
            throw SlotError.corrupt("header key derivation cost out of range")
        }
        return SlotHeader(
            version: version,
            kdf: kdf,
            salt: Array(b[SlotFormat.saltOffset..<SlotFormat.wrappedKeyOffset]),
            wrappedKey: Array(b[SlotFormat.wrappedKeyOffset..<SlotFormat.envelopeOffset]),
            envelope: version == SlotFormat.version ? Array(b[SlotFormat.envelopeOffset..<SlotFormat.checksumOffset]) : [])
    }
}
