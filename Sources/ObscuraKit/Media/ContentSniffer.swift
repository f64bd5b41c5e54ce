/// Recognises a file's type from its first bytes, never from its name.
enum ContentSniffer {
    /// How many leading bytes `sniff` looks at.
    static let prefixLength = 32

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
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return (.photo, "image/tiff") }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return (.video, "video/webm") }
        if ascii("ftyp", at: 4), prefix.count >= 12 {
            let brand = String(decoding: prefix[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": return (.photo, "image/heic")
            case "avif": return (.photo, "image/avif")
            case "qt  ": return (.video, "video/quicktime")
            default: return (.video, "video/mp4")
            }
        }
        return (.file, "application/octet-stream")
    }
}
