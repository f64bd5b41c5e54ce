import ObscuraCatalog
/// Recognises a file's type from its first bytes, never from its name.
enum ContentSniffer {
    /// How many leading bytes `sniff` looks at: enough for the first directory of a
    /// TIFF-based camera RAW and the camera maker's name it points to, which cameras
    /// write within the first few hundred bytes (NEF, ARW and DNG differ from a plain TIFF
    /// only there).
    static let prefixLength = 4096

    /// The kind and MIME type of content starting with `prefix`.
    static func sniff(_ prefix: [UInt8]) -> (kind: ItemKind, mimeType: String) {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + bytes.count && Array(prefix[offset..<(offset + bytes.count)]) == bytes
        }
        func ascii(_ s: String, at offset: Int = 0) -> Bool { starts(Array(s.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return (.photo, "image/jpeg") }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return (.photo, "image/png") }
        if ascii("GIF87a") || ascii("GIF89a") { return (.photo, "image/gif") }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return (.photo, "image/webp") }
        // Camera RAW files whose headers are their own (TIFF-like, but not TIFF's magic).
        if ascii("IIRO") || ascii("IIRS") || ascii("MMOR") { return (.photo, "image/x-olympus-orf") }
        if ascii("IIU\0") { return (.photo, "image/x-panasonic-rw2") }
        if ascii("FUJIFILMCCD-RAW") { return (.photo, "image/x-fuji-raf") }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            if ascii("CR", at: 8) { return (.photo, "image/x-canon-cr2") }
            return (.photo, TIFFDirectory(prefix)?.rawMimeType ?? "image/tiff")
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return (.video, "video/webm") }
        if ascii("ftyp", at: 4), prefix.count >= 12 {
            let brand = String(decoding: prefix[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": return (.photo, "image/heic")
            case "avif": return (.photo, "image/avif")
            case "crx ": return (.photo, "image/x-canon-cr3")
            case "qt  ": return (.video, "video/quicktime")
            default: return (.video, "video/mp4")
            }
        }
        return (.file, "application/octet-stream")
    }

    /// The first directory (IFD0) of a TIFF file, as far as the prefix holds it: the tags
    /// that tell a DNG, NEF or ARW from a plain TIFF.
    struct TIFFDirectory {
        /// Tag numbers present.
        var tags: Set<UInt16> = []
        /// The Make tag's text, when its bytes lie within the prefix.
        var make: String?

        /// nil when the directory does not start within `prefix`.
        init?(_ prefix: [UInt8]) {
            let little = prefix.first == 0x49
            func u16(_ at: Int) -> Int? {
                guard at >= 0, at + 2 <= prefix.count else { return nil }
                return little ? Int(prefix[at]) | Int(prefix[at + 1]) << 8 : Int(prefix[at]) << 8 | Int(prefix[at + 1])
            }
            func u32(_ at: Int) -> Int? {
                guard let a = u16(at), let b = u16(at + 2) else { return nil }
                return little ? a | b << 16 : a << 16 | b
            }
            guard let start = u32(4), let count = u16(start) else { return nil }
            for i in 0..<count {
                let entry = start + 2 + 12 * i
                guard let tag = u16(entry), let type = u16(entry + 2), let length = u32(entry + 4) else { break }
                tags.insert(UInt16(tag))
                // Make: ASCII (type 2), stored in the entry itself when it fits in 4 bytes.
                if tag == 0x010F, type == 2, length > 0, length < 256,
                   let at = length <= 4 ? entry + 8 : u32(entry + 8), at + length <= prefix.count {
                    make = String(decoding: prefix[at..<(at + length)].prefix { $0 != 0 }, as: UTF8.self)
                }
            }
        }

        /// DNG carries DNGVersion (0xC612). NEF and ARW are told by the maker, and by the
        /// SubIFDs (0x014A) that hold their sensor data: a Nikon or Sony TIFF without
        /// them is an ordinary picture.
        var rawMimeType: String? {
            if tags.contains(0xC612) { return "image/x-adobe-dng" }
            guard tags.contains(0x014A), let make = make?.uppercased() else { return nil }
            if make.hasPrefix("NIKON") { return "image/x-nikon-nef" }
            if make.hasPrefix("SONY") { return "image/x-sony-arw" }
            return nil
        }
    }
}
