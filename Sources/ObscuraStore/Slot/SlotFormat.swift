import ObscuraCrypto

/// Byte layout of a slot file, format version 3 (docs/FORMAT.md §3).
///
/// A slot file is `header ‖ sealed catalog ‖ padding`. All integers are big-endian.
public enum SlotFormat {
    /// §3.1: the four bytes every slot file starts with, "OBSV".
    public static let magic: [UInt8] = [0x4F, 0x42, 0x53, 0x56]
    /// §3.1: the format version this code writes and reads.
    public static let version: UInt16 = 3
    /// §9.5: the format version of a slot whose catalog is paged (its header block).
    public static let pagedVersion: UInt16 = 4
    /// §3.1: cipher suite 1 = PBKDF2-HMAC-SHA256 key derivation, AES-256-GCM sealing.
    public static let cipherSuite: UInt16 = KDFParameters.pbkdf2Suite
    /// §3.1: the suites a reader accepts: 1, and 2 = Argon2id key derivation with
    /// AES-256-GCM sealing (§2).
    public static let cipherSuites: Set<UInt16> = [KDFParameters.pbkdf2Suite, KDFParameters.argon2idSuite]

    // §3.1 header field offsets and sizes.
    /// Offset of the magic.
    public static let magicOffset = 0
    /// Offset of the UInt16 format version.
    public static let versionOffset = 4
    /// Offset of the UInt16 cipher-suite id.
    public static let suiteOffset = 6
    /// Offset of the UInt32 cost word: PBKDF2's iteration count, or Argon2id's packed cost (§2).
    public static let iterationsOffset = 8
    /// Offset of the 32-byte KDF salt.
    public static let saltOffset = 12
    /// Offset of the wrapped MEK: a sealed box of the 32-byte MEK under the KEK.
    public static let wrappedKeyOffset = 44
    /// Size of the wrapped MEK (12 + 32 + 16).
    public static let wrappedKeySize = 60
    /// Offset of the envelope: a sealed box of the UInt64 sealed-catalog length under the MEK.
    public static let envelopeOffset = 104
    /// Plaintext size of the envelope.
    public static let envelopePlaintextSize = 8
    /// Size of the sealed envelope (12 + 8 + 16).
    public static let envelopeSize = 36
    /// Offset of the SHA-256 checksum of header bytes [0, 140).
    public static let checksumOffset = 140
    /// Size of the checksum.
    public static let checksumSize = 32
    /// Total header size; the sealed catalog starts here.
    public static let headerSize = 172

    // §9.5: the paged header's prefix, bytes [0, 136) of logical block 0. Magic through
    // wrapped MEK are §3.1's; the checksum follows the wrapped MEK, and the sealed root
    // follows the prefix.
    /// Offset of the paged header's SHA-256 of bytes [0, 104).
    public static let pagedChecksumOffset = 104
    /// Size of the paged header prefix.
    public static let pagedPrefixSize = 136

    // §3.2 associated data: each sealed region authenticates the header bytes before it.
    /// The wrapped MEK authenticates header bytes [0, 44): magic through salt.
    public static let wrappedKeyAAD = 0..<wrappedKeyOffset
    /// The envelope authenticates header bytes [0, 104): magic through wrapped MEK.
    public static let envelopeAAD = 0..<envelopeOffset
    /// The catalog authenticates header bytes [0, 8): magic, version, suite. It leaves out
    /// the salt and wrapped MEK so that a password change never touches catalog bytes.
    public static let catalogAAD = 0..<iterationsOffset

    /// §3.4: slot counts. A directory holds at least this many slots.
    public static let minimumSlotCount = 10
}
