import Dispatch
import Foundation
import ObscuraPlaces
import Testing

@Suite struct GazetteerTests {
    static let gazetteer: Gazetteer = {
        guard let shared = Gazetteer.shared else { fatalError("the bundled gazetteer did not load: \(String(describing: try? Gazetteer.bundledURL()))") }
        return shared
    }()

    /// The reference the index is checked against, made once: it works out every town's vector.
    static let scan = LinearScan(gazetteer)

    var gazetteer: Gazetteer { Self.gazetteer }

    @Test func bundledGazetteerLoads() throws {
        #expect(try Gazetteer.bundledURL().lastPathComponent == "gazetteer.bin")
        #expect(gazetteer.count > 140_000)
    }

    @Test func knownCities() throws {
        let paris = try #require(gazetteer.nearest(latitude: 48.8566, longitude: 2.3522))
        #expect(paris.town == "Paris" && paris.region == "Île-de-France" && paris.country == "France")
        #expect(paris.countryCode == "FR")
        #expect(paris.label == "Paris, Île-de-France, France")
        #expect(abs(paris.distance - 0.43) < 0.01, "Paris's GeoNames point is 430 m from this one")
        #expect(abs(paris.latitude - 48.85341) < 1e-9 && abs(paris.longitude - 2.3488) < 1e-9)

        #expect(gazetteer.nearest(latitude: 35.6762, longitude: 139.6503)?.label == "Tokyo, Japan")
        #expect(gazetteer.nearest(latitude: -33.8688, longitude: 151.2093)?.label == "Sydney, New South Wales, Australia")
        #expect(gazetteer.nearest(latitude: 40.7128, longitude: -74.0060)?.label == "New York City, New York, United States")
        #expect(gazetteer.nearest(latitude: 21.3069, longitude: -157.8583)?.label == "Honolulu, Hawaii, United States")
        #expect(gazetteer.nearest(latitude: 1.3521, longitude: 103.8198)?.label == "Singapore", "no region, town = country")
        // Zermatt has about 5,800 people; the query is 60 m from its point.
        let zermatt = try #require(gazetteer.nearest(latitude: 46.0207, longitude: 7.7491))
        #expect(zermatt.label == "Zermatt, Valais, Switzerland")
        #expect(zermatt.distance < 0.1)
    }

    @Test func nearestAcrossTheAntimeridian() throws {
        // West of 180° on Vanua Levu's side of Fiji: the nearest town lies east of it, at +179.4°.
        let fiji = try #require(gazetteer.nearest(latitude: -16.6, longitude: -179.8))
        #expect(fiji.town == "Lambasa" && fiji.country == "Fiji")
        #expect(fiji.longitude > 179 && abs(fiji.distance - 89.4) < 0.5)
        // And the other way: east of 180° in Chukotka, the nearest town is at -179.1°.
        let chukotka = try #require(gazetteer.nearest(latitude: 66.3, longitude: 179.9))
        #expect(chukotka.town == "Egvekinot" && chukotka.countryCode == "RU" && chukotka.longitude < -179)
        #expect(gazetteer.nearest(latitude: 66.3, longitude: -180)?.town == "Egvekinot")
        #expect(gazetteer.nearest(latitude: 66.3, longitude: 180)?.town == "Egvekinot")
    }

    @Test(arguments: [
        (90.0, 0.0), (-90.0, 0.0), (90.0, 123.0),   // the poles: Longyearbyen and McMurdo are 1,300 km away
        (0.0, -140.0), (-48.88, -123.39),             // mid-Pacific, Point Nemo
        (0.0, 0.0), (-40.0, -20.0),                   // the Gulf of Guinea, the South Atlantic
    ])
    func farFromAnyTownIsNil(_ latitude: Double, _ longitude: Double) {
        #expect(gazetteer.nearest(latitude: latitude, longitude: longitude) == nil)
    }

    @Test func theSearchRadiusBounds() throws {
        // McMurdo Station is the only place in Antarctica; 1° of latitude is 111 km.
        let mcmurdo = try #require(gazetteer.nearest(latitude: -77.85, longitude: 166.67))
        #expect(mcmurdo.town == "McMurdo Station" && mcmurdo.region == nil && mcmurdo.label == "McMurdo Station, Antarctica")
        #expect(gazetteer.nearest(latitude: -79.5, longitude: 166.676)?.town == "McMurdo Station")
        #expect(gazetteer.nearest(latitude: -79.7, longitude: 166.676) == nil)
    }

    @Test(arguments: [
        (Double.nan, 0.0), (0.0, Double.nan), (Double.infinity, 0.0), (0.0, -Double.infinity),
        (90.000001, 0.0), (-91.0, 0.0), (48.8566, 180.5), (48.8566, -181.0), (1e300, 1e300),
    ])
    func invalidCoordinatesAreNil(_ latitude: Double, _ longitude: Double) {
        #expect(gazetteer.nearest(latitude: latitude, longitude: longitude) == nil)
        #expect(Self.scan.nearest(latitude: latitude, longitude: longitude) == nil)
    }

    /// The index against a linear scan over every town: 300 points within about 100 km
    /// of towns drawn at random (a seeded generator, so a failure repeats), and 100 points
    /// anywhere on the sphere, most of them at sea. (Four times as many took a minute of
    /// the suite's two cores in a debug build.)
    @Test func indexAgreesWithALinearScan() {
        var random = SplitMix64(seed: 0x0b5c_0a1a)
        var points: [(Double, Double)] = []
        for _ in 0..<300 {
            let town = gazetteer.coordinates(ofTown: Int.random(in: 0..<gazetteer.count, using: &random))
            let latitude = min(90, max(-90, town.latitude + Double.random(in: -1...1, using: &random)))
            var longitude = town.longitude + Double.random(in: -1...1, using: &random)
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            points.append((latitude, longitude))
        }
        for _ in 0..<100 {
            points.append((asin(Double.random(in: -1...1, using: &random)) * 180 / .pi, Double.random(in: -180...180, using: &random)))
        }
        // The scan is the slow part (a debug build, 400 × 145,000 distances): spread it.
        let scanned = Results(count: points.count)
        let queries = points
        DispatchQueue.concurrentPerform(iterations: ProcessInfo.processInfo.activeProcessorCount) { worker in
            for i in stride(from: worker, to: queries.count, by: ProcessInfo.processInfo.activeProcessorCount) {
                scanned.set(i, Self.scan.nearest(latitude: queries[i].0, longitude: queries[i].1))
            }
        }
        var found = 0
        for (i, (latitude, longitude)) in points.enumerated() {
            let indexed = gazetteer.nearest(latitude: latitude, longitude: longitude)
            #expect(indexed == scanned.values[i], "at \(latitude), \(longitude)")
            if indexed != nil { found += 1 }
        }
        #expect(found > 300, "most points near towns find one")
    }

    @Test func concurrentLookupsAgree() {
        let points: [(Double, Double)] = (0..<64).map { (i: Int) -> (Double, Double) in
            (Double(i % 16) * 10 - 70, Double(i) * 5.5 - 175)
        }
        let expected = points.map { gazetteer.nearest(latitude: $0.0, longitude: $0.1) }
        let results = Results(count: points.count)
        DispatchQueue.concurrentPerform(iterations: points.count) { i in
            results.set(i, gazetteer.nearest(latitude: points[i].0, longitude: points[i].1))
        }
        #expect(results.values == expected)
    }

    /// Load time and lookup rate, printed for docs/BENCHMARKS.md-style reporting; the
    /// bound is loose because the test machine is shared.
    @Test func loadAndLookupSpeed() throws {
        let url = try Gazetteer.bundledURL()
        let loadStart = ContinuousClock.now
        let loaded = try Gazetteer(contentsOf: url)
        let load = ContinuousClock.now - loadStart
        var random = SplitMix64(seed: 42)
        let points = (0..<20_000).map { _ in
            let town = loaded.coordinates(ofTown: Int.random(in: 0..<loaded.count, using: &random))
            return (town.latitude + Double.random(in: -0.2...0.2, using: &random), town.longitude)
        }
        let lookupStart = ContinuousClock.now
        var hits = 0
        for (latitude, longitude) in points where loaded.nearest(latitude: latitude, longitude: longitude) != nil { hits += 1 }
        let lookups = ContinuousClock.now - lookupStart
        let perLookup = lookups / points.count
        let rate = Double(points.count) / (Double(lookups.components.attoseconds) / 1e18 + Double(lookups.components.seconds))
        print("gazetteer: \(loaded.count) towns loaded in \(load); \(points.count) lookups in \(lookups) (\(perLookup) each, \(Int(rate))/s)")
        #expect(hits == points.count)
        #expect(perLookup < .milliseconds(1))
    }

    @Test func damagedFilesAreRefused() throws {
        let bytes = Array(try Data(contentsOf: Gazetteer.bundledURL()))
        #expect(throws: GazetteerError.malformed("not a gazetteer")) { try Gazetteer(bytes: Array("OBSGAZ2\n".utf8) + bytes.dropFirst(8)) }
        for length in [0, 7, 8, 20, 24, 1_000, bytes.count / 2, bytes.count - 1] {
            #expect(throws: GazetteerError.self, "cut at \(length)") { try Gazetteer(bytes: Array(bytes.prefix(length))) }
        }
        #expect(throws: GazetteerError.malformed("bytes after the text")) { try Gazetteer(bytes: bytes + [0x0A]) }
        // One more place claimed in the header: every later field shifts, so some check fails.
        var counts = bytes
        counts[16] &+= 1
        #expect(throws: GazetteerError.self) { try Gazetteer(bytes: counts) }
        // The last newline turned into a letter: one name too few.
        var text = bytes
        text[text.count - 1] = UInt8(ascii: "x")
        #expect(throws: GazetteerError.self) { try Gazetteer(bytes: text) }
    }
}

/// Results written from many threads at once.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Place?]
    init(count: Int) { stored = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ place: Place?) { lock.withLock { stored[i] = place } }
    var values: [Place?] { lock.withLock { stored } }
}

/// A small seeded generator (SplitMix64), so that random test points repeat.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
