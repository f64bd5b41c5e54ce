import ObscuraCrypto

/// The fixed 172-byte header at the start of every slot file (docs/FORMAT.md §3.1).
public struct SlotHeader: Equatable, Sendable {
    /// PBKDF2 iteration count used to derive the KEK.
    public var iterations: UInt32
    /// PBKDF2 salt, 32 bytes.
    public var salt: [UInt8]
    /// The MEK sealed under the KEK, 60 bytes.
    public var wrappedKey: [UInt8]
    /// The sealed-catalog length sealed under the MEK, 36 bytes.
    public var envelope: [UInt8]

    /// Creates a header from its variable fields; magic, version and suite are fixed.
    public init(iterations: UInt32, salt: [UInt8], wrappedKey: [UInt8], envelope: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.wrappedKey = wrappedKey
        self.envelope = envelope
    }

    /// The bytes [0, 44): magic, version, suite, iterations and salt.
    public var prefixThroughSalt: [UInt8] {
        var out = SlotFormat.magic
        out.appendBigEndian(SlotFormat.version)
        out.appendBigEndian(SlotFormat.cipherSuite)
        out.appendBigEndian(iterations)
        out += salt
        return out
    }

    /// The bytes [0, 104): everything the envelope authenticates.
    public var prefixThroughWrappedKey: [UInt8] { prefixThroughSalt + wrappedKey }

    /// The 172 header bytes, checksum included.
    public func encoded() -> [UInt8] {
        var out = prefixThroughWrappedKey + envelope
        out += SHA256Digest.hash(out)
        assert(out.count == SlotFormat.headerSize)
        return out
    }

    /// Parses the first 172 bytes of `bytes`.
    ///
    /// - Throws: ``SlotError/truncated`` when fewer bytes are given,
    ///   ``SlotError/unsupported(_:)`` for an unknown magic, version or suite, and
    ///   ``SlotError/corrupt(_:)`` when the checksum does not match.
    public static func decode(_ bytes: some Collection<UInt8>) throws -> SlotHeader {
        let b = Array(bytes.prefix(SlotFormat.headerSize))
        guard b.count == SlotFormat.headerSize else { throw SlotError.truncated }
        guard Array(b[0..<4]) == SlotFormat.magic else { throw SlotError.unsupported("not an Obscura slot file") }
        guard b.readBigEndian(UInt16.self, at: SlotFormat.versionOffset) == SlotFormat.version else {
            throw SlotError.unsupported("unsupported slot format version")
        }
        guard b.readBigEndian(UInt16.self, at: SlotFormat.suiteOffset) == SlotFormat.cipherSuite else {
            throw SlotError.unsupported("unsupported cipher suite")
        }
        let checksum = SHA256Digest.hash(b[0..<SlotFormat.checksumOffset])
        guard ConstantTime.equals(checksum, b[SlotFormat.checksumOffset..<SlotFormat.headerSize]) else {
            throw SlotError.corrupt("header checksum mismatch")
        }
        let iterations = b.readBigEndian(UInt32.self, at: SlotFormat.iterationsOffset)
        guard iterations >= 1, iterations <= PasswordKDF.maximumIterations else {
            throw SlotError.corrupt("iteration count out of range")
        }
        return SlotHeader(
            iterations: iterations,
            salt: Array(b[SlotFormat.saltOffset..<SlotFormat.wrappedKeyOffset]),
            wrappedKey: Array(b[SlotFormat.wrappedKeyOffset..<SlotFormat.envelopeOffset]),
            envelope: Array(b[SlotFormat.envelopeOffset..<SlotFormat.checksumOffset]))
    }
}
