import Foundation

/// The order in which a movie's boxes reach a reader that cannot seek.
///
/// An MP4 or QuickTime file (ISO/IEC 14496-12) keeps its index, the `moov` box, either
/// before its media data (`mdat`) or after it; cameras and ffmpeg's default write it after.
/// ffmpeg reading a pipe needs it first: it cannot go back to samples it has passed. So an
/// original that has it last is fed to ffmpeg rearranged, as `qt-faststart` would write
/// it: the boxes before the first `mdat`, then `moov`, then the rest; the chunk offsets in
/// `moov` (`stco`, `co64`) grow by the size of `moov` where the data they name moved.
/// Nothing is written anywhere: the pieces are read from the sealed original as they are
/// fed.
public enum MovieLayout {
    /// One piece of the rearranged file.
    public enum Piece: Equatable, Sendable {
        /// Bytes made here (the patched `moov`).
        case bytes([UInt8])
        /// A byte range of the original, fed as it is.
        case range(Range<UInt64>)
    }

    /// The largest `moov` read into memory (an hour of 4K video indexes in a few MiB).
    public static let maximumIndexSize: UInt64 = 64 << 20
    /// The most top-level boxes read before `moov`: a camera writes a handful, and each
    /// costs a read of the sealed original (a crafted file of millions of empty boxes
    /// would otherwise cost hours and gigabytes).
    public static let maximumBoxes = 10_000
    /// The deepest nesting of boxes walked inside `moov` (the offset tables sit at depth 5).
    public static let maximumDepth = 16

    /// The pieces to feed instead of the file, in order; nil when the file can be fed as it
    /// is (its `moov` comes first, or it is not made of boxes at all, which ffmpeg then
    /// judges itself).
    ///
    /// - Parameter read: bytes of the original; a range past the end is cut at the end.
    /// - Throws: ``ImagingError/corruptMovie(_:)`` for an index too large or an offset that
    ///   cannot be moved (a 32-bit offset past 4 GiB).
    public static func streamingOrder(size: UInt64, read: (Range<UInt64>) throws -> [UInt8]) throws -> [Piece]? {
        guard let boxes = try topLevelBoxes(size: size, read: read),
              let moov = boxes.first(where: { $0.type == "moov" }),
              let mdat = boxes.first(where: { $0.type == "mdat" }),
              mdat.range.lowerBound < moov.range.lowerBound
        else { return nil }
        guard UInt64(moov.range.count) <= maximumIndexSize else {
            throw ImagingError.corruptMovie("the movie's index is too large")
        }
        var index = try read(moov.range)
        guard UInt64(index.count) == UInt64(moov.range.count) else { throw ImagingError.corruptMovie("the movie is cut short") }
        // Data between the first mdat and moov moves forward by moov's size; data after
        // moov stays where it was (moov leaves from before it and arrives before it).
        let moved = mdat.range.lowerBound..<moov.range.lowerBound
        try shiftOffsets(in: &index, within: 0..<index.count, moved: moved, by: UInt64(index.count))
        var pieces: [Piece] = []
        if mdat.range.lowerBound > 0 { pieces.append(.range(0..<mdat.range.lowerBound)) }
        pieces.append(.bytes(index))
        pieces.append(.range(moved))
        if moov.range.upperBound < size { pieces.append(.range(moov.range.upperBound..<size)) }
        return pieces
    }

    /// One box: its four-character type and where it lies.
    package struct Box {
        /// The box's type, such as `moov`.
        package var type: String
        /// The box's bytes, its header included.
        package var range: Range<UInt64>
        /// Where the box's content starts (after its size, type and any 64-bit size).
        package var contentStart: UInt64
    }

    /// The top-level boxes up to `moov` (or all of them, `moov` absent), or nil when the
    /// bytes are not a sequence of boxes. What follows `moov` is not read: it is fed as
    /// it is, whatever it holds.
    ///
    /// - Throws: ``ImagingError/corruptMovie(_:)`` past ``maximumBoxes``.
    static func topLevelBoxes(size: UInt64, read: (Range<UInt64>) throws -> [UInt8]) throws -> [Box]? {
        var boxes = [Box]()
        var at: UInt64 = 0
        while at < size {
            guard boxes.count < maximumBoxes else { throw ImagingError.corruptMovie("more than \(maximumBoxes) boxes") }
            guard size - at >= 8 else { return nil }
            let head = try read(at..<min(at + 16, size))
            guard let box = parse(head, at: at, limit: size) else { return nil }
            boxes.append(box)
            if box.type == "moov" { break }
            at = box.range.upperBound
        }
        return boxes
    }

    /// The box whose header starts `bytes`, found at `at`, not reaching past `limit`.
    package static func parse(_ bytes: some Collection<UInt8>, at: UInt64, limit: UInt64) -> Box? {
        let b = Array(bytes.prefix(16))
        guard b.count >= 8 else { return nil }
        let size32 = UInt64(b[0]) << 24 | UInt64(b[1]) << 16 | UInt64(b[2]) << 8 | UInt64(b[3])
        let type = String(decoding: b[4..<8], as: UTF8.self)
        guard b[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        var length = size32
        var header: UInt64 = 8
        if size32 == 1 {
            guard b.count >= 16 else { return nil }
            length = b[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
            header = 16
        } else if size32 == 0 {
            length = limit - at
        }
        guard length >= header, length <= limit - at else { return nil }
        return Box(type: type, range: at..<at + length, contentStart: at + header)
    }

    /// Boxes that hold other boxes on the way from `moov` to the chunk offset tables.
    static let containers: Set<String> = ["trak", "mdia", "minf", "stbl"]

    /// Adds `delta` to every chunk offset inside `range` of `index` (a `moov` box, or a
    /// box within it) that falls in `moved`.
    static func shiftOffsets(
        in index: inout [UInt8], within range: Range<Int>, moved: Range<UInt64>, by delta: UInt64, depth: Int = 0
    ) throws {
        guard depth < maximumDepth else { throw ImagingError.corruptMovie("the movie's index is nested too deeply") }
        // moov's own header first, then its children; each container's children likewise.
        var at = range.lowerBound
        if at == 0, let box = parse(index[0...], at: 0, limit: UInt64(index.count)) {
            at = Int(box.contentStart)
        }
        while at < range.upperBound {
            guard let box = parse(index[at...], at: UInt64(at), limit: UInt64(range.upperBound)) else {
                throw ImagingError.corruptMovie("the movie's index is damaged")
            }
            let content = Int(box.contentStart)..<Int(box.range.upperBound)
            if containers.contains(box.type) {
                try shiftOffsets(in: &index, within: content, moved: moved, by: delta, depth: depth + 1)
            } else if box.type == "stco" || box.type == "co64" {
                let width = box.type == "stco" ? 4 : 8
                // Full box: version and flags (4 bytes), entry count (4), the entries.
                guard content.count >= 8 else { throw ImagingError.corruptMovie("the movie's index is damaged") }
                let count = Int(read(index, at: content.lowerBound + 4, width: 4))
                guard count <= (content.count - 8) / width else { throw ImagingError.corruptMovie("the movie's index is damaged") }
                for i in 0..<count {
                    let where_ = content.lowerBound + 8 + i * width
                    let offset = read(index, at: where_, width: width)
                    guard moved.contains(offset) else { continue }
                    let shifted = offset + delta
                    guard width == 8 || shifted <= UInt64(UInt32.max) else {
                        throw ImagingError.corruptMovie("the movie's index cannot be moved ahead of its data")
                    }
                    for k in 0..<width { index[where_ + k] = UInt8(truncatingIfNeeded: shifted >> UInt64(8 * (width - 1 - k))) }
                }
            }
            at = Int(box.range.upperBound)
        }
    }

    private static func read(_ bytes: [UInt8], at: Int, width: Int) -> UInt64 {
        bytes[at..<at + width].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
