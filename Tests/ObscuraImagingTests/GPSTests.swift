import ObscuraTestSupport
import Testing
@testable import ObscuraImaging

@Suite struct GPSTests {
    static let paris = "48/1 51/1 2938/100 (48, 51, 29.38, Rational, 3 components, 24 bytes)"
    static let north = "N (N, ASCII, 2 components, 2 bytes)"

    func position(_ lat: String, _ latRef: String, _ lon: String, _ lonRef: String) -> (latitude: Double, longitude: Double)? {
        GPS.coordinates(latitude: lat, latitudeRef: latRef, longitude: lon, longitudeRef: lonRef)
    }

    @Test func degreesMinutesSeconds() throws {
        let degrees = try #require(GPS.degrees(Self.paris))
        #expect(abs(degrees - (48 + 51.0 / 60 + 29.38 / 3600)) < 1e-12)
        #expect(abs(try #require(GPS.degrees("48/1 5130/100 0/1")) - 48.855) < 1e-12)
        #expect(GPS.degrees("488566/10000 (48.8566, Rational, 1 components, 8 bytes)") == 48.8566)
        #expect(GPS.degrees("48/1 30/1") == 48.5)
        #expect(GPS.degrees("0/1 0/1 0/1") == 0)
    }

    @Test(arguments: [
        "", " (, Rational, 0 components, 0 bytes)", "48/0 51/1 2938/100", "48/1 51/1 2938/0", "0/0 0/0 0/0",
        "48/1 60/1 0/1", "48/1 0/1 60/1", "48 51 29", "48/1 51/1 29/1 1/1", "-48/1 51/1 2938/100",
        "48/1 x/1 2938/100", "48/1/2 51/1", "4294967296/1 0/1 0/1",
    ])
    func unreadableDegrees(_ text: String) {
        #expect(GPS.degrees(text) == nil)
    }

    @Test func referencesGiveTheSign() throws {
        let p = try #require(position(Self.paris, Self.north, "2/1 21/1 744/100 (2, 21, 7.44, Rational, 3 components, 24 bytes)",
                                      "E (E, ASCII, 2 components, 2 bytes)"))
        #expect(abs(p.latitude - 48.858161) < 1e-6 && abs(p.longitude - 2.352067) < 1e-6)
        let sydney = try #require(position("33/1 52/1 0/1", "S", "151/1 12/1 0/1", "E"))
        #expect(sydney.latitude < 0 && sydney.longitude > 0)
        let newYork = try #require(position("40/1 42/1 46/1", "N (N, ASCII, 2 components, 2 bytes)", "74/1 0/1 21/1", "w"))
        #expect(newYork.latitude > 0 && abs(newYork.longitude + 74.005833) < 1e-6)
    }

    @Test func invalidPositionsAreNil() {
        let lon = "2/1 21/1 744/100"
        #expect(position("", "", "", "") == nil, "no GPS at all")
        #expect(position(Self.paris, "", lon, "E") == nil, "no latitude reference")
        #expect(position(Self.paris, Self.north, "", "E") == nil, "no longitude")
        #expect(position(Self.paris, "E", lon, "E") == nil, "an east latitude")
        #expect(position(Self.paris, "N", lon, "N") == nil)
        #expect(position(Self.paris, "NORTH", lon, "E") == nil)
        #expect(position("91/1 0/1 0/1", "N", lon, "E") == nil, "beyond the pole")
        #expect(position("90/1 0/1 1/1", "S", lon, "E") == nil)
        #expect(position(Self.paris, "N", "180/1 0/1 1/100", "W") == nil, "beyond the antimeridian")
        #expect(position("0/1 0/1 0/1", "N", "0/1 0/1 0/1", "E") == nil, "a camera without a fix")
        let limits = position("90/1 0/1 0/1", "S", "180/1 0/1 0/1", "W")
        #expect(limits?.latitude == -90 && limits?.longitude == -180, "the limits themselves are valid")
    }

    @Test func probeReadsGPSFromAJPEG() throws {
        let plain = try TestImages.image("jpg", width: 64, height: 48)
        func probe(_ exif: [UInt8]) throws -> ImageInfo {
            let jpeg = Array(plain[0..<2]) + exif + Array(plain[2...])
            return try jpeg.withUnsafeBytes { try Imaging.probe($0) }
        }
        // Rio de Janeiro: 22°54'40.8" S, 43°12'20.4" W.
        let rio = try probe(Self.gpsSegment(latitude: [(22, 1), (54, 1), (408, 10)], latitudeRef: "S",
                                            longitude: [(43, 1), (12, 1), (2040, 100)], longitudeRef: "W"))
        #expect(rio.width == 64 && rio.format == "jpeg")
        let latitude = try #require(rio.latitude), longitude = try #require(rio.longitude)
        #expect(abs(latitude + 22.9113333) < 1e-6 && abs(longitude + 43.2056667) < 1e-6)

        let noFix = try probe(Self.gpsSegment(latitude: [(0, 1), (0, 1), (0, 1)], latitudeRef: "N",
                                              longitude: [(0, 1), (0, 1), (0, 1)], longitudeRef: "E"))
        #expect(noFix.latitude == nil && noFix.longitude == nil)
        let zeroDenominator = try probe(Self.gpsSegment(latitude: [(22, 1), (54, 0), (0, 1)], latitudeRef: "S",
                                                        longitude: [(43, 1), (12, 1), (0, 1)], longitudeRef: "W"))
        #expect(zeroDenominator.latitude == nil && zeroDenominator.longitude == nil)
        let camera = try TestImages.cameraJPEG(width: 64, height: 48, date: "2023:07:14 18:32:05", orientation: 1)
        let without = try camera.withUnsafeBytes { try Imaging.probe($0) }
        #expect(without.takenAt != nil && without.latitude == nil && without.longitude == nil)
    }

    /// An APP1 "Exif" segment holding only a GPS IFD: little-endian TIFF, IFD0 {GPS IFD
    /// pointer} at 8, the GPS IFD {LatitudeRef, Latitude, LongitudeRef, Longitude} at 26,
    /// its two arrays of three rationals at 80 and 104.
    static func gpsSegment(latitude: [(UInt32, UInt32)], latitudeRef: String,
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
}
