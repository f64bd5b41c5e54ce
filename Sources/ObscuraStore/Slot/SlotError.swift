import ObscuraCrypto

/// Errors reading or writing one slot file. None carries key or catalog bytes.
public enum SlotError: ObscuraError, Equatable {
    /// The file is shorter than its header or than the catalog its envelope announces.
    case truncated
    /// The file is not a slot this version can read (magic, version or suite).
    case unsupported(String)
    /// The header or catalog failed a checksum, bound or authentication check.
    case corrupt(String)
    /// The password (or device credential) does not open this slot.
    case wrongKey

    public var description: String {
        switch self {
        case .truncated: return "slot file is truncated"
        case let .unsupported(why): return why
        case let .corrupt(why): return "slot file is corrupt: \(why)"
        case .wrongKey: return "wrong password"
        }
    }
}
