import Foundation

/// One file of a streamed ZIP archive, as ``ZipStream`` needs it before its bytes.
struct ZipEntry: Sendable, Equatable {
    /// The name in the archive (already made safe, see ``ZipEntryNames``).
    var name: String
    /// The exact number of bytes that will follow; known in advance, so that the archive's
    /// whole length is too (``ZipStream/archiveSize(of:)``).
    var size: UInt64
    /// The modification time the entry carries.
    var modified: Date
}
