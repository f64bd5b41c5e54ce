import Foundation
import GRDB

/// What an item is, which decides how it is shown and thumbnailed.
public enum ItemKind: String, Codable, Sendable {
    /// A still image libvips can read.
    case photo
    /// A video (MP4, MOV, WebM).
    case video
    /// Any other file, stored as is with a generic icon.
    case file
    /// A note (issue 19; docs/FORMAT.md §3.3, "Notes"): a title (the item's `name`) and
    /// a Markdown body, stored as the item's original like any file's bytes.
    case note
}

/// One row of the `item` table (docs/FORMAT.md §3.3).
public struct ItemRecord: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
    public static let databaseTableName = "item"
    /// Item id (UUID, lower case).
    public var id: String
    /// Photo, video or file.
    public var kind: ItemKind
    /// Id of the sealed original in the media pool.
    public var mediaId: String
    /// Id of the sealed thumbnail, if one was made.
    public var thumbId: String?
    /// Original file name; empty for items of a protected folder (see `protectedMeta`).
    public var name: String
    /// MIME type; empty for items of a protected folder.
    public var mimeType: String
    /// Plaintext size in bytes.
    public var size: Int64
    /// Pixel width, if known.
    public var width: Int?
    /// Pixel height, if known.
    public var height: Int?
    /// EXIF orientation (1...8), if known.
    public var orientation: Int?
    /// Duration in seconds (videos).
    public var duration: Double?
    /// Capture date (seconds since 1970, UTC), if known.
    public var takenAt: Double?
    /// Import date (seconds since 1970).
    public var importedAt: Double
    /// Folder id, nil at the top level.
    public var folderId: String?
    /// Marked as favourite.
    public var favorite: Bool
    /// The keyed content hash of the plaintext, for duplicate detection (docs/FORMAT.md
    /// §6.7): `01` ‖ HMAC-SHA256 under a key derived from the MEK or, in a protected
    /// folder, from its folder key. Catalogs written before keyed hashes hold the plain
    /// SHA-256 (32 bytes) until converted.
    public var contentHash: Data
    /// For items of a protected folder: ``ProtectedMeta`` sealed under the folder key.
    public var protectedMeta: Data?
    /// When the item was moved to the trash (seconds since 1970); nil outside the trash.
    public var deletedAt: Double? = nil
    /// Latitude of the capture, in degrees north, from EXIF GPS; nil in a protected folder.
    public var latitude: Double? = nil
    /// Longitude of the capture, in degrees east, from EXIF GPS; nil in a protected folder.
    public var longitude: Double? = nil
    /// The place of the capture ("town, region, country"), from the offline gazetteer;
    /// nil in a protected folder.
    public var place: String? = nil

    /// Id of the sealed rendition in the media pool (a video browsers cannot play,
    /// ``RenditionState``), once it is made.
    public var renditionId: String? = nil
    /// Where the item's rendition stands; nil when it needs none. A Live Photo's
    /// rendition is of its motion.
    public var renditionState: RenditionState? = nil

    /// Id of the item's second original in the media pool (a Live Photo's motion, or the
    /// RAW taken with a JPEG: ``CompanionRole``); nil for an item of one file.
    public var companionId: String? = nil
    /// What the second original is; nil exactly when ``companionId`` is.
    public var companionRole: CompanionRole? = nil
    /// The second original's file name; empty for items of a protected folder.
    public var companionName: String? = nil
    /// The second original's MIME type; empty for items of a protected folder.
    public var companionMimeType: String? = nil
    /// The second original's plaintext size in bytes.
    public var companionSize: Int64? = nil
    /// The second original's keyed content hash, as ``contentHash`` (docs/FORMAT.md §6.7).
    public var companionHash: Data? = nil
    /// What pairs a still with the other half of its pair imported apart: Apple's content
    /// identifier, or the file name's stem and the capture time, keyed like a content hash
    /// (docs/FORMAT.md §3.3, §6.7); nil when the file has neither, or once it is paired.
    public var pairKey: Data? = nil

    /// When the item ends (seconds since 1970): at that time it is deleted for good,
    /// without passing through the trash (docs/FORMAT.md §3.3, "Ends"); nil when it has
    /// no end in time.
    public var endsAt: Double? = nil
    /// Views the viewer may still open before the item ends; nil when it has no end in
    /// views. 0: the last view was taken and the item ends when it closes (``endsAt``
    /// then holds the latest moment).
    public var viewsLeft: Int? = nil

    /// A note's search text (docs/FORMAT.md §3.3, "Notes"): the start of its body, which
    /// the search index holds beside names and places; nil for other kinds and in a
    /// protected folder (sealed in ``ProtectedMeta/noteText`` there).
    public var noteText: String? = nil

    /// Whether the item is in the trash.
    public var isTrashed: Bool { deletedAt != nil }

    /// A row with every column given; the rest at their defaults (what a memberwise init would be, for the vault's modules).
    package init(
        id: String,
        kind: ItemKind,
        mediaId: String,
        thumbId: String? = nil,
        name: String,
        mimeType: String,
        size: Int64,
        width: Int? = nil,
        height: Int? = nil,
        orientation: Int? = nil,
        duration: Double? = nil,
        takenAt: Double? = nil,
        importedAt: Double,
        folderId: String? = nil,
        favorite: Bool,
        contentHash: Data,
        protectedMeta: Data? = nil,
        deletedAt: Double? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        place: String? = nil,
        renditionId: String? = nil,
        renditionState: RenditionState? = nil,
        companionId: String? = nil,
        companionRole: CompanionRole? = nil,
        companionName: String? = nil,
        companionMimeType: String? = nil,
        companionSize: Int64? = nil,
        companionHash: Data? = nil,
        pairKey: Data? = nil,
        endsAt: Double? = nil,
        viewsLeft: Int? = nil,
        noteText: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.mediaId = mediaId
        self.thumbId = thumbId
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.width = width
        self.height = height
        self.orientation = orientation
        self.duration = duration
        self.takenAt = takenAt
        self.importedAt = importedAt
        self.folderId = folderId
        self.favorite = favorite
        self.contentHash = contentHash
        self.protectedMeta = protectedMeta
        self.deletedAt = deletedAt
        self.latitude = latitude
        self.longitude = longitude
        self.place = place
        self.renditionId = renditionId
        self.renditionState = renditionState
        self.companionId = companionId
        self.companionRole = companionRole
        self.companionName = companionName
        self.companionMimeType = companionMimeType
        self.companionSize = companionSize
        self.companionHash = companionHash
        self.pairKey = pairKey
        self.endsAt = endsAt
        self.viewsLeft = viewsLeft
        self.noteText = noteText
    }
}

/// The fields of an item that a protected folder hides, sealed as JSON under its key.
public struct ProtectedMeta: Codable, Sendable, Equatable {
    /// Original file name.
    public var name: String
    /// MIME type.
    public var mimeType: String
    /// Capture date.
    public var takenAt: Double?
    /// Pixel width.
    public var width: Int?
    /// Pixel height.
    public var height: Int?
    /// Latitude of the capture.
    public var latitude: Double? = nil
    /// Longitude of the capture.
    public var longitude: Double? = nil
    /// Place name of the capture.
    public var place: String? = nil
    /// The second original's file name (``ItemRecord/companionName``).
    public var companionName: String? = nil
    /// The second original's MIME type.
    public var companionMimeType: String? = nil
    /// A note's search text (``ItemRecord/noteText``).
    public var noteText: String? = nil

    /// Hidden fields; those past `height` start out absent.
    package init(
        name: String, mimeType: String, takenAt: Double?, width: Int?, height: Int?, latitude: Double? = nil,
        longitude: Double? = nil, place: String? = nil, companionName: String? = nil, companionMimeType: String? = nil,
        noteText: String? = nil
    ) {
        self.name = name
        self.mimeType = mimeType
        self.takenAt = takenAt
        self.width = width
        self.height = height
        self.latitude = latitude
        self.longitude = longitude
        self.place = place
        self.companionName = companionName
        self.companionMimeType = companionMimeType
        self.noteText = noteText
    }
}

/// One row of the `folder` table.
public struct FolderRecord: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
    public static let databaseTableName = "folder"
    /// Folder id (UUID, lower case).
    public var id: String
    /// Parent folder id; nil at the top level.
    public var parentId: String?
    /// Display name (unique among siblings).
    public var name: String
    /// Creation date (seconds since 1970).
    public var createdAt: Double
    /// KDF salt of the folder password; nil when unprotected.
    public var kdfSalt: Data?
    /// The cost word of the folder password's KDF: PBKDF2's rounds, or Argon2id's packed
    /// cost (docs/FORMAT.md §2).
    public var kdfIterations: Int?
    /// The KDF suite of the folder password (§2); nil is suite 1, PBKDF2.
    public var kdfSuite: Int? = nil
    /// The folder key sealed under the folder KEK.
    public var wrappedKey: Data?
    /// SHA-256 of the folder KEK: a fast check of the password before unwrapping.
    public var keyVerifier: Data?

    /// Whether the folder has a password.
    public var isProtected: Bool { wrappedKey != nil }

    /// A folder row; without the KDF fields it has no password.
    package init(
        id: String, parentId: String?, name: String, createdAt: Double, kdfSalt: Data? = nil, kdfIterations: Int? = nil,
        kdfSuite: Int? = nil, wrappedKey: Data? = nil, keyVerifier: Data? = nil
    ) {
        self.id = id
        self.parentId = parentId
        self.name = name
        self.createdAt = createdAt
        self.kdfSalt = kdfSalt
        self.kdfIterations = kdfIterations
        self.kdfSuite = kdfSuite
        self.wrappedKey = wrappedKey
        self.keyVerifier = keyVerifier
    }
}
