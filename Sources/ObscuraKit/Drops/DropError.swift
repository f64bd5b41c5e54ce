/// Errors of drops (docs/FORMAT.md §10).
public enum DropError: Error, Equatable, CustomStringConvertible {
    /// A drop code that does not read: wrong word, length, symbol, padding bits or check.
    case invalidCode
    /// A drop larger than ``DropFormat/maximumContentSize``.
    case tooLarge
    /// A blob that is not a well-formed drop blob (§10.3): header, sizes.
    case malformedBlob(String)
    /// The inbox holds as many blobs or bytes as it may (``DropInbox/maximumBlobs``,
    /// ``DropInbox/maximumBytes``) until a vault takes its drops in.
    case inboxFull

    public var description: String {
        switch self {
        case .invalidCode: return "not a valid drop code"
        case .tooLarge: return "the file is larger than a drop may be (4 GiB)"
        case let .malformedBlob(why): return "not a drop: \(why)"
        case .inboxFull: return "the vault's inbox is full until its owner unlocks it"
        }
    }
}
