/// Where an item's rendition stands (docs/FORMAT.md §3.3, `renditionState`): a video
/// browsers cannot play gets a browser-playable copy, made after the import.
public enum RenditionState: String, Codable, Sendable {
    /// To be made: the background work picks it up while the vault is open.
    case pending
    /// Made: `renditionId` names it in the pool.
    case ready
    /// ffmpeg could not make it; the viewer offers the original as it is.
    case failed
}
