/// Which of a directory's two secrets a key is (docs/FORMAT.md §4.3, §4.4).
///
/// The outer key O opens a vault directory; the decoy secret D keys its decoys and is
/// needed only to create, destroy or import a vault. They are independent 32-byte
/// values, and nothing lets one stand in for the other: their texts, keyring schemas
/// and Keychain services all differ.
public enum KeyKind: Sendable, CaseIterable {
    /// The outer key O, one per vault directory.
    case outer
    /// The decoy secret D (the V3 device secret), one per user.
    case decoy

    /// The size of either key in bytes.
    public static let byteCount = 32

    /// The word that starts the key's text: `OUTER` or `DECOY` (§4.3).
    public var word: String {
        switch self {
        case .outer: return "OUTER"
        case .decoy: return "DECOY"
        }
    }

    /// The byte that separates the two kinds' check groups (§4.3): the ASCII code of the
    /// word's first letter, 0x4F (O) or 0x44 (D).
    var checkByte: UInt8 {
        switch self {
        case .outer: return 0x4F
        case .decoy: return 0x44
        }
    }

    /// What people call the key, for messages.
    public var name: String {
        switch self {
        case .outer: return "outer key"
        case .decoy: return "decoy secret"
        }
    }
}
