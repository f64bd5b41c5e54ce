import Foundation

extension TestImages {
    /// An APP1 "Exif" segment holding only a GPS IFD: little-endian TIFF, IFD0 {GPS IFD
    /// pointer} at 8, the GPS IFD {LatitudeRef, Latitude, LongitudeRef, Longitude} at 26,
    /// its two arrays of three rationals at 80 and 104.
    public static func gpsSegment(latitude: [(UInt32, UInt32)], latitudeRef: String,
                           longitude: [(UInt32, UInt32)], longitudeRef: String) -> [UInt8] {
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        func u16(_ v: UInt16) { tiff += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { tiff += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func ref(_ tag: UInt16, _ letter: String) { u16(tag); u16(2); u32(2); tiff += Array(letter.utf8.prefix(1)) + [0, 0, 0] }
        u16(1)                                              // IFD0 at 8: one entry
        u16(0x8825); u16(4); u32(1); u32(26)                // GPS IFD pointer
        u32(0)
        u16(4)                                              // GPS IFD at 26: four entries
        ref(0x0001, latitudeRef)
        u16(0x0002); u16(5); u32(3); u32(80)                // RATIONAL × 3 at 80
        ref(0x0003, longitudeRef)
        u16(0x0004); u16(5); u32(3); u32(104)               // RATIONAL × 3 at 104
        u32(0)
        for (numerator, denominator) in latitude + longitude { u32(numerator); u32(denominator) }
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `jpeg` with a GPS segment for the position (decimal degrees, south and west
    /// negative) inserted after its start-of-image marker; seconds to 1/10,000.
    public static func withPosition(_ jpeg: [UInt8], latitude: Double, longitude: Double) -> [UInt8] {
        func rationals(_ degrees: Double) -> [(UInt32, UInt32)] {
            let value = abs(degrees)
            let whole = value.rounded(.down), minutes = ((value - whole) * 60).rounded(.down)
            let seconds = ((value - whole) * 60 - minutes) * 60
            return [(UInt32(whole), 1), (UInt32(minutes), 1), (UInt32((seconds * 10_000).rounded()), 10_000)]
        }
        let segment = gpsSegment(latitude: rationals(latitude), latitudeRef: latitude < 0 ? "S" : "N",
                                 longitude: rationals(longitude), longitudeRef: longitude < 0 ? "W" : "E")
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }
}
