import Foundation

/// Apple's content identifier, the link between a Live Photo's still (HEIC or JPEG) and
/// its motion (a QuickTime movie): the camera writes the same value into both, and
/// nothing else ties the two files together (docs/FORMAT.md §3.3, "Live Photos").
///
/// - The still holds it in Apple's MakerNote (EXIF tag 0x927C of the Exif IFD), an IFD
///   of its own after the header "Apple iOS\0", version and "MM", as the ASCII tag 0x0011
///   (exiftool: MediaGroupUUID / ContentIdentifier).
/// - The movie holds it as the metadata key `com.apple.quicktime.content.identifier`,
///   which ffprobe lists among the format's tags.
///
/// Parsing is bounded: offsets are checked against the block, an IFD is read only up to
/// ``maximumEntries`` entries, and nothing outside the 64 KiB EXIF block is touched.
public enum LivePhoto {
    /// The movie's metadata key.
    public static let movieTag = "com.apple.quicktime.content.identifier"
    /// EXIF: the Exif IFD pointer in IFD0.
    static let exifPointerTag: UInt16 = 0x8769
    /// EXIF: the MakerNote in the Exif IFD.
    static let makerNoteTag: UInt16 = 0x927C
    /// Apple MakerNote: the header before its IFD, then 2 bytes of version and "MM".
    static let appleHeader: [UInt8] = Array("Apple iOS".utf8) + [0]
    /// Apple MakerNote: where its IFD starts, counted from the MakerNote's first byte
    /// (which is also what its offsets count from).
    static let appleIFDOffset = 14
    /// Apple MakerNote: the content identifier's tag.
    static let identifierTag: UInt16 = 0x0011
    /// More entries than any camera writes in one IFD; a larger count is damage.
    static let maximumEntries = 1000
    /// An identifier is a UUID (36 characters); anything longer is not one.
    package static let maximumLength = 64

    /// The identifier `text` holds, normalised as docs/FORMAT.md §3.3 says: ASCII white
    /// space around it removed, then 1 to 64 printable ASCII characters (0x21-0x7E), with
    /// `a`-`z` in upper case. Anything else (a non-ASCII character, which a Unicode upper
    /// casing could turn into ASCII) is no identifier.
    public static func identifier(_ text: String?) -> String? {
        guard let text else { return nil }
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, isSpace(first) { bytes.removeFirst() }
        while let last = bytes.last, isSpace(last) { bytes.removeLast() }
        guard (1...maximumLength).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// The identifier in an image's EXIF block (as libvips gives it: the TIFF structure,
    /// optionally after "Exif\0\0"), or nil when it has none or the block is damaged.
    public static func identifier(exif block: [UInt8]) -> String? {
        var exif = block[...]
        if exif.starts(with: Array("Exif".utf8) + [0, 0]) { exif = exif.dropFirst(6) }
        let tiff = Array(exif)
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        let reader = Reader(bytes: tiff, bigEndian: bigEndian)
        guard reader.u16(2) == 42, let ifd0 = reader.u32(4),
              let exifIFD = reader.entry(Self.exifPointerTag, inIFDAt: Int(ifd0)).flatMap({ reader.u32($0.valueAt) }),
              let note = reader.entry(Self.makerNoteTag, inIFDAt: Int(exifIFD)),
              note.valueAt >= 0, note.count <= tiff.count - note.valueAt
        else { return nil }
        let makerNote = Array(tiff[note.valueAt..<(note.valueAt + note.count)])
        guard makerNote.starts(with: Self.appleHeader), makerNote.count > Self.appleIFDOffset,
              makerNote[12] == 0x4D, makerNote[13] == 0x4D else { return nil }
        let apple = Reader(bytes: makerNote, bigEndian: true)
        guard let entry = apple.entry(Self.identifierTag, inIFDAt: Self.appleIFDOffset), entry.type == 2,
              entry.count <= makerNote.count - entry.valueAt else { return nil }
        let text = makerNote[entry.valueAt..<(entry.valueAt + entry.count)].prefix { $0 != 0 }
        return identifier(String(decoding: text, as: UTF8.self))
    }

    /// Reads a TIFF-style structure; every read is bounds-checked.
    private struct Reader {
        let bytes: [UInt8]
        let bigEndian: Bool

        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let (a, b) = (UInt16(bytes[at]), UInt16(bytes[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func u32(_ at: Int) -> UInt32? {
            guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }

        /// The entry `tag` of the IFD at `offset`: its type, count (of bytes, for the
        /// one-byte types read here) and where its value starts (inline when it fits in
        /// four bytes).
        func entry(_ tag: UInt16, inIFDAt offset: Int) -> (type: UInt16, count: Int, valueAt: Int)? {
            guard let count = u16(offset), Int(count) <= LivePhoto.maximumEntries else { return nil }
            for i in 0..<Int(count) {
                let at = offset + 2 + 12 * i
                guard let found = u16(at), let type = u16(at + 2), let n = u32(at + 4) else { return nil }
                guard found == tag else { continue }
                let size = type == 4 ? 4 : Int(n)
                if size <= 4 { return (type, Int(n), at + 8) }
                guard let valueAt = u32(at + 8) else { return nil }
                return (type, Int(n), Int(valueAt))
            }
            return nil
        }
    }
}
