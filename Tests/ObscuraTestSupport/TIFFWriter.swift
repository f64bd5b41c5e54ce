import Foundation

/// A little-endian TIFF file built from a tree of directories, each laid out before the
/// ones it points to (IFD0 at offset 8, as cameras write it), the image data after all of
/// them.
public enum TIFFWriter {
    /// A TIFF field value: BYTE, ASCII (written NUL-terminated), SHORT or LONG.
    public enum Value {
        case bytes([UInt8]), ascii(String), short([UInt16]), long([UInt32])

        var type: UInt16 {
            switch self {
            case .bytes: return 1
            case .ascii: return 2
            case .short: return 3
            case .long: return 4
            }
        }

        var encoded: [UInt8] {
            switch self {
            case let .bytes(b): return b
            case let .ascii(s): return Array(s.utf8) + [0]
            case let .short(v): return v.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            case let .long(v): return v.flatMap(TIFFWriter.le32)
            }
        }

        var count: Int {
            switch self {
            case let .bytes(b): return b.count
            case let .ascii(s): return s.utf8.count + 1
            case let .short(v): return v.count
            case let .long(v): return v.count
            }
        }
    }

    /// One image file directory; the writer adds the tags that point at `data`,
    /// `subIFDs` and `exif`.
    public struct IFD {
        /// Tags and values, written in ascending tag order as TIFF requires.
        public var entries: [UInt16: Value]
        /// The image bytes: one strip (StripOffsets, StripByteCounts), or with
        /// `dataAsJPEGInterchange` a JPEG (JPEGInterchangeFormat and its length).
        public var data: [UInt8]?
        /// Point at `data` as Nikon does at its JpgFromRaw, not as a strip.
        public var dataAsJPEGInterchange = false
        /// Directories listed by the SubIFDs tag (0x014A).
        public var subIFDs: [IFD] = []
        /// The Exif IFD (kept in an array: a struct cannot hold an optional of itself).
        public var exif: IFD? {
            get { exifStorage.first }
            set { exifStorage = newValue.map { [$0] } ?? [] }
        }
        private var exifStorage: [IFD] = []

        /// A directory of `entries`, holding `data` when given.
        public init(_ entries: [UInt16: Value], data: [UInt8]? = nil) {
            self.entries = entries
            self.data = data
        }
    }

    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    /// The file, IFD0 first.
    public static func write(_ root: IFD) -> [UInt8] {
        var order = [IFD]()
        func visit(_ ifd: IFD) {
            order.append(ifd)
            ifd.subIFDs.forEach(visit)
            ifd.exif.map(visit)
        }
        visit(root)
        // Children's indexes in `order`, to fill the pointers once offsets are known.
        var children = [[Int]](repeating: [], count: order.count)
        var exifIndex = [Int?](repeating: nil, count: order.count)
        var next = 1
        func number(_ ifd: IFD, _ index: Int) {
            for sub in ifd.subIFDs {
                let i = next
                next += 1
                children[index].append(i)
                number(sub, i)
            }
            if let exif = ifd.exif {
                let i = next
                next += 1
                exifIndex[index] = i
                number(exif, i)
            }
        }
        number(root, 0)

        func entries(_ i: Int, offsets: [Int], dataOffsets: [Int]) -> [UInt16: Value] {
            var e = order[i].entries
            if let data = order[i].data {
                let (at, length): (UInt16, UInt16) = order[i].dataAsJPEGInterchange ? (0x0201, 0x0202) : (0x0111, 0x0117)
                e[at] = .long([UInt32(dataOffsets[i])])
                e[length] = .long([UInt32(data.count)])
            }
            if !children[i].isEmpty { e[0x014A] = .long(children[i].map { UInt32(offsets[$0]) }) }
            if let x = exifIndex[i] { e[0x8769] = .long([UInt32(offsets[x])]) }
            return e
        }
        func size(_ e: [UInt16: Value]) -> Int {
            2 + 12 * e.count + 4 + e.values.map { $0.encoded.count > 4 ? ($0.encoded.count + 1) & ~1 : 0 }.reduce(0, +)
        }
        let zeros = [Int](repeating: 0, count: order.count)
        var offsets = zeros
        var position = 8
        for i in order.indices {
            offsets[i] = position
            position += size(entries(i, offsets: zeros, dataOffsets: zeros))
        }
        var dataOffsets = zeros
        for (i, ifd) in order.enumerated() {
            guard let data = ifd.data else { continue }
            dataOffsets[i] = position
            position += (data.count + 1) & ~1
        }

        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        for i in order.indices {
            let e = entries(i, offsets: offsets, dataOffsets: dataOffsets)
            precondition(out.count == offsets[i])
            var values = [UInt8]()
            let valuesStart = offsets[i] + 2 + 12 * e.count + 4
            out += [UInt8(e.count & 0xFF), UInt8(e.count >> 8)]
            for tag in e.keys.sorted() {
                let value = e[tag]!
                let bytes = value.encoded
                out += [UInt8(tag & 0xFF), UInt8(tag >> 8), UInt8(value.type & 0xFF), 0] + le32(UInt32(value.count))
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += le32(UInt32(valuesStart + values.count))
                    values += bytes + (bytes.count % 2 == 1 ? [0] : [])
                }
            }
            out += le32(0) + values
        }
        for ifd in order {
            guard let data = ifd.data else { continue }
            out += data + (data.count % 2 == 1 ? [0] : [])
        }
        return out
    }
}
