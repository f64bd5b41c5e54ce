import Foundation
import ObscuraImaging

/// Whether a file of a type phones make is whole (docs/PHONE.md §W2.3, "The structure
/// check"): a writer that stalls longer than the settle window leaves a file that is
/// quiet but cut short, and only its structure says so.
///
/// The parser reads files that may come from others (a shared folder): it reads through
/// `read` with bounds, never allocates by a size it read beyond them, and answers
/// ``Verdict/incomplete`` for anything malformed; only an I/O error is thrown.
package enum WatchStructure {
    /// What the check found.
    package enum Verdict: Equatable, Sendable {
        /// A JPEG up to its EOI, a PNG up to a final `IEND`, a movie or HEIF whose boxes
        /// tile the file with their index present.
        case whole
        /// Cut short, still being written, or malformed.
        case incomplete
        /// Not a type the check knows (camera RAW, DNG, any other file): only the settle
        /// window and the read lease say when it is done (PHONE.md §W0.1 A7).
        case unchecked
    }

    /// The piece a JPEG's entropy-coded data is read in.
    static let piece: UInt64 = 256 << 10

    /// The verdict on a file of `size` bytes whose bytes `read` gives (a range past the
    /// end is cut at the end).
    package static func check(size: UInt64, read: (Range<UInt64>) throws -> [UInt8]) throws -> Verdict {
        guard size >= 12 else { return .unchecked }
        let head = try read(0..<min(size, 32))
        // Shorter than `size` says: the file shrank since it was measured.
        guard head.count >= 12 else { return .incomplete }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return try jpeg(size: size, read: read) }
        if head.starts(with: pngSignature) { return try png(size: size, read: read) }
        let type = String(decoding: head[4..<8], as: UTF8.self)
        if type == "ftyp" {
            return try boxes(size: size, read: read, heif: isHEIF(head))
        }
        if quickTimeTopLevel.contains(type) { return try boxes(size: size, read: read, heif: false) }
        return .unchecked
    }

    // MARK: JPEG

    /// Walks the marker segments by their lengths up to the first SOS (so that a whole
    /// thumbnail inside APP1 is skipped, not taken for the end), then the entropy-coded
    /// data: stuffing (`FF 00`), restart markers and fill bytes continue it, a segment
    /// between scans (a progressive JPEG's DHT and SOS) is skipped by its length, and
    /// `FF D9` ends the image. Bytes after the EOI are not looked at (a Samsung trailer,
    /// a Motion Photo's movie).
    static func jpeg(size: UInt64, read: (Range<UInt64>) throws -> [UInt8]) throws -> Verdict {
        try withoutActuallyEscaping(read) { try jpeg(size: size, reader: Reader(size: size, read: $0)) }
    }

    private static func jpeg(size: UInt64, reader: Reader) throws -> Verdict {
        var bytes = reader
        var at: UInt64 = 2
        var inScan = false
        while true {
            if inScan {
                guard let mark = try bytes.next(0xFF, from: at), let code = try bytes.byte(mark + 1) else { return .incomplete }
                switch code {
                case 0x00, 0xD0...0xD7: at = mark + 2
                case 0xFF: at = mark + 1
                case 0xD9: return .whole
                default:
                    at = mark
                    inScan = false
                }
                continue
            }
            guard try bytes.byte(at) == 0xFF else { return .incomplete }
            var marker = at + 1
            while try bytes.byte(marker) == 0xFF { marker += 1 }
            guard let code = try bytes.byte(marker) else { return .incomplete }
            switch code {
            case 0xD9: return .whole
            case 0x01, 0xD0...0xD7: at = marker + 1
            case 0x00, 0xD8: return .incomplete
            default:
                guard let high = try bytes.byte(marker + 1), let low = try bytes.byte(marker + 2) else { return .incomplete }
                let length = UInt64(high) << 8 | UInt64(low)
                guard length >= 2 else { return .incomplete }
                at = marker + 1 + length
                guard at <= size else { return .incomplete }
                inScan = code == 0xDA
            }
        }
    }

    /// Forward reads of a file in pieces of ``piece``: one pass, one piece in memory.
    struct Reader {
        let size: UInt64
        let read: (Range<UInt64>) throws -> [UInt8]
        var base: UInt64 = 0
        var buffer: [UInt8] = []

        init(size: UInt64, read: @escaping (Range<UInt64>) throws -> [UInt8]) {
            self.size = size
            self.read = read
        }

        /// The byte at `at`, or nil past the end.
        mutating func byte(_ at: UInt64) throws -> UInt8? {
            guard at < size else { return nil }
            if at < base || at >= base + UInt64(buffer.count) { try load(at) }
            guard at - base < UInt64(buffer.count) else { return nil }
            return buffer[Int(at - base)]
        }

        /// Where the next `value` at or after `at` is, or nil when none is before the end.
        mutating func next(_ value: UInt8, from at: UInt64) throws -> UInt64? {
            var at = at
            while at < size {
                if at < base || at >= base + UInt64(buffer.count) { try load(at) }
                guard at - base < UInt64(buffer.count) else { return nil }
                if let found = buffer[Int(at - base)...].firstIndex(of: value) { return base + UInt64(found) }
                at = base + UInt64(buffer.count)
            }
            return nil
        }

        private mutating func load(_ at: UInt64) throws {
            base = at
            buffer = try read(at..<min(size, at + WatchStructure.piece))
        }
    }

    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The chunks, walked by their lengths, must end with an `IEND` that is the file's
    /// last 12 bytes.
    static func png(size: UInt64, read: (Range<UInt64>) throws -> [UInt8]) throws -> Verdict {
        var at: UInt64 = 8
        for _ in 0..<MovieLayout.maximumBoxes {
            guard size - at >= 12 else { return .incomplete }
            let head = try read(at..<at + 8)
            guard head.count == 8 else { return .incomplete }
            let length = head[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let end = at + 12 + length
            guard end <= size else { return .incomplete }
            if head[4..<8].elementsEqual("IEND".utf8) { return end == size ? .whole : .incomplete }
            at = end
        }
        return .incomplete
    }

    // MARK: Movies and HEIF

    /// Top-level box types a QuickTime file may start with instead of `ftyp`.
    static let quickTimeTopLevel: Set<String> = ["moov", "mdat", "wide", "free", "skip", "pnot"]
    /// `ftyp` brands that make a file HEIF (ISO/IEC 23008-12) or AVIF.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"]

    /// Whether the `ftyp` box at the start of `head` names a HEIF brand, as its major
    /// brand or among the compatible brands it holds within `head`.
    static func isHEIF(_ head: [UInt8]) -> Bool {
        let size = Int(head[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        var brands = [8]
        var at = 16
        while at + 4 <= min(size, head.count) {
            brands.append(at)
            at += 4
        }
        return brands.contains { heifBrands.contains(String(decoding: head[$0..<$0 + 4], as: UTF8.self)) }
    }

    /// The top-level boxes must tile the file exactly (a size-0 box, "to the end", only
    /// as the last one and only after the index), and the index must be there: `moov`
    /// for a movie (or `moof` with a closing `mfra` for a fragmented one), `meta` with
    /// every `iloc` extent inside the file for HEIF. A recording's placeholder `mdat`
    /// with no `moov` yet is incomplete.
    static func boxes(size: UInt64, read: (Range<UInt64>) throws -> [UInt8], heif: Bool) throws -> Verdict {
        var at: UInt64 = 0
        var types: [String] = []
        var meta: MovieLayout.Box?
        while at < size {
            guard types.count < MovieLayout.maximumBoxes, size - at >= 8 else { return .incomplete }
            let head = try read(at..<min(at + 16, size))
            guard let box = MovieLayout.parse(head, at: at, limit: size) else { return .incomplete }
            let toTheEnd = head.prefix(4).allSatisfy { $0 == 0 }
            if toTheEnd && !types.contains("moov") && !types.contains("meta") { return .incomplete }
            types.append(box.type)
            if box.type == "meta" && meta == nil { meta = box }
            at = box.range.upperBound
        }
        guard at == size else { return .incomplete }
        if heif {
            guard let meta else { return .incomplete }
            return try extentsFit(meta: meta, size: size, read: read) ? .whole : .incomplete
        }
        if types.contains("moov") { return .whole }
        return types.contains("moof") && types.last == "mfra" ? .whole : .incomplete
    }

    /// Whether every extent the `iloc` box inside `meta` gives for data in this file
    /// (construction method 0) lies within the file's `size` bytes.
    static func extentsFit(meta: MovieLayout.Box, size: UInt64, read: (Range<UInt64>) throws -> [UInt8]) throws -> Bool {
        guard UInt64(meta.range.count) <= MovieLayout.maximumIndexSize else { return false }
        let bytes = try read(meta.range)
        guard UInt64(bytes.count) == UInt64(meta.range.count) else { return false }
        // meta is a full box: version and flags, then its children.
        var at = Int(meta.contentStart - meta.range.lowerBound) + 4
        while at + 8 <= bytes.count {
            guard let child = MovieLayout.parse(bytes[at...], at: UInt64(at), limit: UInt64(bytes.count)) else { return false }
            if child.type == "iloc" {
                var fields = Fields(bytes: bytes, at: Int(child.contentStart), end: Int(child.range.upperBound))
                return (try? fields.extentsFit(size: size)) ?? false
            }
            at = Int(child.range.upperBound)
        }
        return false
    }

    /// Big-endian fields of a box's content, read with bounds.
    struct Fields {
        let bytes: [UInt8]
        var at: Int
        let end: Int

        struct Short: Error {}

        mutating func number(_ width: Int) throws -> UInt64 {
            guard width >= 0, at + width <= end else { throw Short() }
            defer { at += width }
            return bytes[at..<at + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }

        /// The `iloc` box (ISO/IEC 14496-12, clause 8.11.3), versions 0 to 2.
        mutating func extentsFit(size: UInt64) throws -> Bool {
            let version = try number(1)
            _ = try number(3)
            guard version <= 2 else { return false }
            let sizes = try number(2)
            let offsetSize = Int(sizes >> 12 & 0xF), lengthSize = Int(sizes >> 8 & 0xF)
            let baseOffsetSize = Int(sizes >> 4 & 0xF), indexSize = version >= 1 ? Int(sizes & 0xF) : 0
            let items = try number(version < 2 ? 2 : 4)
            for _ in 0..<items {
                _ = try number(version < 2 ? 2 : 4)
                let method = try version >= 1 ? number(2) & 0xF : 0
                _ = try number(2)
                let base = try number(baseOffsetSize)
                let extents = try number(2)
                // Extents of no width hold nothing to check, and would cost a loop each.
                guard indexSize + offsetSize + lengthSize > 0 else { continue }
                for _ in 0..<extents {
                    _ = try number(indexSize)
                    let offset = try number(offsetSize)
                    let length = try number(lengthSize)
                    // Method 0 is data in this file; 1 and 2 point into other items.
                    guard method == 0 else { continue }
                    let (start, overflowed) = base.addingReportingOverflow(offset)
                    guard !overflowed, start <= size, length <= size - start else { return false }
                }
            }
            return true
        }
    }
}
