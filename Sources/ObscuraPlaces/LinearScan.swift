/// The nearest town found by measuring every one: the reference the k-d tree is tested
/// against. The towns' vectors are worked out once, when the scan is made.
package struct LinearScan: Sendable {
    private let gazetteer: Gazetteer
    /// x, y, z of each town, in the gazetteer's order.
    private let vectors: [Double]

    /// A scan over every town of `gazetteer`.
    package init(_ gazetteer: Gazetteer) {
        self.gazetteer = gazetteer
        vectors = (0..<gazetteer.count).flatMap { i -> [Double] in
            let town = gazetteer.coordinates(ofTown: i)
            let v = Gazetteer.unitVector(latitude: town.latitude, longitude: town.longitude)
            return [v.0, v.1, v.2]
        }
    }

    /// What ``Gazetteer/nearest(latitude:longitude:)`` should answer: the nearest town
    /// within the search radius, the first in the file's order of those equally near.
    package func nearest(latitude: Double, longitude: Double) -> Place? {
        guard let q = Gazetteer.validVector(latitude: latitude, longitude: longitude) else { return nil }
        var best = (index: -1, distance: Gazetteer.squaredChord(kilometres: Gazetteer.searchRadius))
        vectors.withUnsafeBufferPointer { buffer in
            // A raw pointer, not the array: in a debug build this loop is most of the tests' time.
            guard var p = buffer.baseAddress else { return }
            var i = 0
            while i < gazetteer.count {
                let (dx, dy, dz) = (q.0 - p[0], q.1 - p[1], q.2 - p[2])
                let distance = dx * dx + dy * dy + dz * dz
                if distance < best.distance || (distance == best.distance && best.index < 0) {
                    best = (i, distance)
                }
                p += 3
                i += 1
            }
        }
        return best.index < 0 ? nil : gazetteer.place(best.index, squaredChord: best.distance)
    }
}
