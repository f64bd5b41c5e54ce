import ObscuraCatalog
import ObscuraKit

/// An item as the API shows it (docs/API.md, "Items").
struct ItemJSON: Encodable {
    var id: String
    var kind: String
    var name: String
    var mimeType: String
    var size: Int64
    var width: Int?
    var height: Int?
    var orientation: Int?
    var duration: Double?
    var takenAt: Double?
    var importedAt: Double
    var favorite: Bool
    var folderId: String?
    var hasThumbnail: Bool
    var place: String?
    var latitude: Double?
    var longitude: Double?
    var deletedAt: Double?
    /// `pending`, `ready` or `failed` for a video browsers cannot play; nil otherwise.
    var rendition: String?
    /// A pair's second original: a Live Photo's motion or the RAW taken with a JPEG;
    /// nil for an item of one file.
    var companion: CompanionJSON?
    /// When the item ends (seconds since 1970), and the views the viewer may still open
    /// (docs/FORMAT.md §3.3, "Ends"); nil for no end of that kind.
    var endsAt: Double?
    var viewsLeft: Int?
    /// The start of a note's text, for the journal (docs/API.md, "Notes"); nil for other
    /// kinds, and for a view-limited note, which shows nothing outside its viewer.
    var excerpt: String?

    /// The most characters of a note's text an item carries as its ``excerpt``.
    static let excerptLength = 240

    /// A pair's second original: its role (`motion`, `raw`), file name, type and size.
    struct CompanionJSON: Encodable {
        var role: String
        var name: String
        var mimeType: String
        var size: Int64
    }

    init(_ item: ItemRecord) {
        id = item.id
        kind = item.kind.rawValue
        name = item.name
        mimeType = item.mimeType
        size = item.size
        width = item.width
        height = item.height
        orientation = item.orientation
        duration = item.duration
        takenAt = item.takenAt
        importedAt = item.importedAt
        favorite = item.favorite
        folderId = item.folderId
        hasThumbnail = item.thumbId != nil
        place = item.place
        latitude = item.latitude
        longitude = item.longitude
        deletedAt = item.deletedAt
        rendition = item.renditionState?.rawValue
        companion = item.companion.map {
            CompanionJSON(role: item.companionRole?.rawValue ?? "", name: $0.name, mimeType: $0.mimeType, size: $0.size)
        }
        endsAt = item.endsAt
        viewsLeft = item.viewsLeft
        // A view-limited item shows nothing before the viewer opens a counted view.
        if item.isViewLimited { hasThumbnail = false }
        if item.kind == .note, !item.isViewLimited, let text = item.noteText { excerpt = String(text.prefix(Self.excerptLength)) }
    }

    // Nulls are written out, so every item has every key. Optionals go through
    // encodeOrNull: handed to the container as they are, they take JSONEncoder's generic
    // path, which made encoding a page of 200 items twice as slow (docs/BENCHMARKS.md).
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(name, forKey: .name)
        try c.encode(mimeType, forKey: .mimeType)
        try c.encode(size, forKey: .size)
        try c.encodeOrNull(width, forKey: .width)
        try c.encodeOrNull(height, forKey: .height)
        try c.encodeOrNull(orientation, forKey: .orientation)
        try c.encodeOrNull(duration, forKey: .duration)
        try c.encodeOrNull(takenAt, forKey: .takenAt)
        try c.encode(importedAt, forKey: .importedAt)
        try c.encode(favorite, forKey: .favorite)
        try c.encodeOrNull(folderId, forKey: .folderId)
        try c.encode(hasThumbnail, forKey: .hasThumbnail)
        try c.encodeOrNull(place, forKey: .place)
        try c.encodeOrNull(latitude, forKey: .latitude)
        try c.encodeOrNull(longitude, forKey: .longitude)
        try c.encodeOrNull(deletedAt, forKey: .deletedAt)
        try c.encodeOrNull(rendition, forKey: .rendition)
        try c.encodeOrNull(companion, forKey: .companion)
        try c.encodeOrNull(endsAt, forKey: .endsAt)
        try c.encodeOrNull(viewsLeft, forKey: .viewsLeft)
        try c.encodeOrNull(excerpt, forKey: .excerpt)
    }

    private enum CodingKeys: String, CodingKey {
        case id, kind, name, mimeType, size, width, height, orientation, duration, takenAt, importedAt, favorite, folderId, hasThumbnail
        case place, latitude, longitude, deletedAt, rendition, companion, endsAt, viewsLeft, excerpt
    }
}

/// A folder as the API shows it.
struct FolderJSON: Encodable {
    var id: String
    var parentId: String?
    var name: String
    var path: String
    var protected: Bool
    var unlocked: Bool
    var itemCount: Int

    init(_ folder: FolderRecord, in vault: Vault) throws {
        id = folder.id
        parentId = folder.parentId
        name = folder.name
        path = try vault.folderPath(folder)
        protected = folder.isProtected
        unlocked = vault.isOpen(folder)
        itemCount = try vault.itemCount(in: folder)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeOrNull(parentId, forKey: .parentId)
        try c.encode(name, forKey: .name)
        try c.encode(path, forKey: .path)
        try c.encode(protected, forKey: .protected)
        try c.encode(unlocked, forKey: .unlocked)
        try c.encode(itemCount, forKey: .itemCount)
    }

    private enum CodingKeys: String, CodingKey { case id, parentId, name, path, protected, unlocked, itemCount }
}

extension KeyedEncodingContainer {
    /// Writes `value`, or null when there is none, through the container's concrete
    /// overload for the type: the same bytes as `encode(value)` of an optional, without
    /// the generic path's dynamic casts.
    mutating func encodeOrNull(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// The same as the `String?` overload, for this type.
    mutating func encodeOrNull(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// The same as the `String?` overload, for this type.
    mutating func encodeOrNull(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// The same as the `String?` overload, for this type.
    mutating func encodeOrNull(_ value: (some Encodable)?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
