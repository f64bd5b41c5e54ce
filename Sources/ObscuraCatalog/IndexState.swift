/// The `state` of an `item_index` row (docs/FORMAT.md §3.3, "The picture index"): a sum
/// of flags. Separate failure flags, so that an item whose text failed still gets its
/// vector and the reverse.
public struct IndexState: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    /// A state of the raw flags `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Text was read (it may be empty).
    public static let textRead = IndexState(rawValue: 1)
    /// A vector was made.
    public static let vectorMade = IndexState(rawValue: 2)
    /// The item is of a kind the job does not read (docs/SEARCH.md §S2.5).
    public static let notIndexable = IndexState(rawValue: 4)
    /// Reading text failed.
    public static let textFailed = IndexState(rawValue: 8)
    /// Making a vector failed.
    public static let vectorFailed = IndexState(rawValue: 16)
    /// The read was weak (docs/SEARCH.md §S2.3).
    public static let weakRead = IndexState(rawValue: 32)
    /// The placeholder of an item with an end in views: nothing was read.
    public static let viewLimited = IndexState(rawValue: 64)
    /// A protected item's row: the outcome is inside its sealed box, this flag alone shows.
    public static let protected = IndexState(rawValue: 128)

    /// The flags an outcome may carry, in a plaintext row or inside a box (1–32).
    public static let outcomes: IndexState = [.textRead, .vectorMade, .notIndexable, .textFailed, .vectorFailed, .weakRead]
}
