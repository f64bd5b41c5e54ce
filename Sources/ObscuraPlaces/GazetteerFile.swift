import Foundation

/// The gazetteer file as scripts/make-gazetteer writes it, read into arrays.
///
/// Layout, integers little-endian, with C countries, R regions, P places, T text bytes:
///
/// | bytes | field |
/// |---|---|
/// | 8 | magic `OBSGAZ1\n` |
/// | 4 × u32 | C, R, P, T |
/// | C × 2 | each country's ISO 3166-1 alpha-2 code, ASCII |
/// | R × u16 | each region's country index |
/// | P × i32 | each place's latitude, in 1e-5 degree |
/// | P × i32 | each place's longitude, in 1e-5 degree |
/// | P × u16 | each place's region index |
/// | T | UTF-8 text: C country names, R region names, P town names, each ended by `\n` |
///
/// Nothing may follow the text. Town names stay as bytes until a lookup needs one: making
/// 144,000 Strings would be most of the load time.
struct GazetteerFile: Sendable {
    static let magic = Array("OBSGAZ1\n".utf8)

    var countryCodes: [String] = []
    var countryNames: [String] = []
    var regionCountry: [UInt16] = []
    var regionNames: [String] = []
    var latitudes: [Int32] = []
    var longitudes: [Int32] = []
    var placeRegion: [UInt16] = []
    /// The text's bytes, and where each town's name starts in it (P + 1 offsets: the last
    /// is one past the final name's `\n`).
    var text: [UInt8] = []
    var townStart: [Int] = []

    var placeCount: Int { latitudes.count }

    /// Reads `bytes`, checking every count and index so that a lookup never goes out of
    /// range, whatever the bytes.
    init(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var cursor = 0
            func take(_ count: Int, _ what: String) throws -> UnsafeRawBufferPointer {
                guard count >= 0, count <= raw.count - cursor else {
                    throw GazetteerError.malformed("file ends inside the \(what)")
                }
                defer { cursor += count }
                return UnsafeRawBufferPointer(rebasing: raw[cursor..<cursor + count])
            }
            func integers<T: FixedWidthInteger>(_ count: Int, _ what: String, as: T.Type) throws -> [T] {
                let field = try take(count * MemoryLayout<T>.size, what)
                let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                    if count > 0 { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: field) }
                    initialized = count
                }
                #if _endian(big)
                return values.map { T(littleEndian: $0) }
                #else
                return values
                #endif
            }
            guard Array(try take(8, "magic")) == Self.magic else { throw GazetteerError.malformed("not a gazetteer") }
            let counts = try integers(4, "header", as: UInt32.self).map(Int.init)
            let (c, r, p, t) = (counts[0], counts[1], counts[2], counts[3])
            let codes = try take(2 * c, "country codes")
            countryCodes = (0..<c).map { String(decoding: codes[2 * $0..<2 * $0 + 2], as: UTF8.self) }
            regionCountry = try integers(r, "regions", as: UInt16.self)
            latitudes = try integers(p, "latitudes", as: Int32.self)
            longitudes = try integers(p, "longitudes", as: Int32.self)
            placeRegion = try integers(p, "places' regions", as: UInt16.self)
            text = Array(try take(t, "text"))
            guard cursor == raw.count else { throw GazetteerError.malformed("bytes after the text") }
            guard Self.all(regionCountry, below: c) else { throw GazetteerError.malformed("region of no country") }
            guard Self.all(placeRegion, below: r) else { throw GazetteerError.malformed("place in no region") }
            guard Self.all(latitudes, within: 9_000_000), Self.all(longitudes, within: 18_000_000) else {
                throw GazetteerError.malformed("coordinates out of range")
            }
        }
        var lineStarts = [0]
        lineStarts.reserveCapacity(countryCodes.count + regionCountry.count + latitudes.count + 1)
        text.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var start = 0
            while start < bytes.count, let newline = memchr(base + start, 0x0A, bytes.count - start) {
                start = base.distance(to: UnsafeRawPointer(newline)) + 1
                lineStarts.append(start)
            }
        }
        let lines = countryCodes.count + regionCountry.count + latitudes.count
        guard lineStarts.count == lines + 1, lineStarts.last == text.count else {
            throw GazetteerError.malformed("\(lineStarts.count - 1) names in the text for \(lines) entries")
        }
        let names = (0..<countryCodes.count + regionCountry.count).map { name(lineStarts[$0], lineStarts[$0 + 1]) }
        countryNames = Array(names[..<countryCodes.count])
        regionNames = Array(names[countryCodes.count...])
        townStart = Array(lineStarts[(countryCodes.count + regionCountry.count)...])
    }

    /// Whether every value is below `limit`. (Loops over raw pointers here and below are
    /// for debug builds, which call a function for every array subscript.)
    private static func all(_ values: [UInt16], below limit: Int) -> Bool {
        values.withUnsafeBufferPointer { buffer in
            guard var p = buffer.baseAddress else { return true }
            for _ in 0..<buffer.count {
                if Int(p.pointee) >= limit { return false }
                p += 1
            }
            return true
        }
    }

    /// Whether every value lies in `-limit...limit`.
    private static func all(_ values: [Int32], within limit: Int32) -> Bool {
        values.withUnsafeBufferPointer { buffer in
            guard var p = buffer.baseAddress else { return true }
            for _ in 0..<buffer.count {
                if p.pointee < -limit || p.pointee > limit { return false }
                p += 1
            }
            return true
        }
    }

    /// The name in `text` from `start` to the `\n` before `end`.
    func name(_ start: Int, _ end: Int) -> String {
        String(decoding: text[start..<end - 1], as: UTF8.self)
    }

    /// The town name of place `index`.
    func town(_ index: Int) -> String { name(townStart[index], townStart[index + 1]) }
}
