/// What an item's second original is (docs/FORMAT.md §3.3, `companionRole`).
public enum CompanionRole: String, Codable, Sendable {
    /// The motion of a Live Photo: a QuickTime movie the item's still shares Apple's
    /// content identifier with. Its rendition, if it needs one, is the item's rendition.
    case motion
    /// The camera RAW taken together with the item's JPEG or HEIC (the same file name
    /// but for its extension, the same capture time): kept as it is, shown through the
    /// still.
    case raw
}
