import Foundation
import GRDB

/// One row of `item_index` (docs/FORMAT.md §3.3, "The picture index"), as read.
///
/// Fetchable only: rows are written by the explicit statements of `Catalog+Index.swift`,
/// never by a record's whole-row `update()`, which could write a stale text back (I6).
public struct IndexRow: FetchableRecord, Sendable, Equatable {
    /// Indexing order: every insert appends.
    public var seq: Int64
    /// The item's rowid.
    public var itemRowid: Int64
    /// The row's flags.
    public var state: IndexState
    /// The `index_profile` that read the text, if any.
    public var textProfile: Int64?
    /// The `index_profile` that made the vector, if any.
    public var vectorProfile: Int64?
    /// An unprotected item's text, at most ``IndexLimits/textCap`` bytes of UTF-8.
    public var ocrText: String?
    /// A protected item's box (docs/FORMAT.md §6.4, "The index box").
    public var sealed: Data?

    public init(row: Row) throws {
        seq = row["seq"]
        itemRowid = row["itemRowid"]
        state = IndexState(rawValue: row["state"])
        textProfile = row["textProfile"]
        vectorProfile = row["vectorProfile"]
        ocrText = row["ocrText"]
        sealed = row["sealed"]
    }
}

/// The sizes of the picture index (docs/FORMAT.md §3.3, §6.4).
public enum IndexLimits {
    /// §3.3: an `ocrText` holds at most 3,840 bytes of UTF-8, so that a row never takes an
    /// overflow page and an insert or a delete touches one leaf, whatever the text.
    public static let textCap = 3840
    /// §3.3: a vector's dimension.
    public static let dimension = 512
    /// §3.3: a stored vector, Float32LE scale ‖ Int8 × 512.
    public static let vectorSize = 4 + dimension
    /// §6.4, "The index box": every protected item's box is this long, whatever it holds.
    public static let boxSize = 4636
}
