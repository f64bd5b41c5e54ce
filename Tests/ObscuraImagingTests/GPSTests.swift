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
        let rio = try probe(TestImages.gpsSegment(latitude: [(22, 1), (54, 1), (408, 10)], latitudeRef: "S",
                                            longitude: [(43, 1), (12, 1), (2040, 100)], longitudeRef: "W"))
        #expect(rio.width == 64 && rio.format == "jpeg")
        let latitude = try #require(rio.latitude), longitude = try #require(rio.longitude)
        #expect(abs(latitude + 22.9113333) < 1e-6 && abs(longitude + 43.2056667) < 1e-6)

        let noFix = try probe(TestImages.gpsSegment(latitude: [(0, 1), (0, 1), (0, 1)], latitudeRef: "N",
                                              longitude: [(0, 1), (0, 1), (0, 1)], longitudeRef: "E"))
        #expect(noFix.latitude == nil && noFix.longitude == nil)
        let zeroDenominator = try probe(TestImages.gpsSegment(latitude: [(22, 1), (54, 0), (0, 1)], latitudeRef: "S",
                                                        longitude: [(43, 1), (12, 1), (0, 1)], longitudeRef: "W"))
        #expect(zeroDenominator.latitude == nil && zeroDenominator.longitude == nil)
        let camera = try TestImages.cameraJPEG(width: 64, height: 48, date: "2023:07:14 18:32:05", orientation: 1)
        let without = try camera.withUnsafeBytes { try Imaging.probe($0) }
        #expect(without.takenAt != nil && without.latitude == nil && without.longitude == nil)
    }
}
