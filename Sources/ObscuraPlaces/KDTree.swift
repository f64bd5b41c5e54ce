/// A k-d tree over points of the unit sphere, as 3-D vectors, for nearest-neighbour
/// queries.
///
/// Working in 3-D rather than in latitude and longitude makes the straight-line (chord)
/// distance a monotone function of the great-circle distance, everywhere: no seam at the
/// antimeridian, no crowding at the poles. The tree is implicit: the node of the range
/// `lo..<hi` of the arrays is its middle element `(lo + hi) / 2`, whose coordinate on
/// `axis[mid]` is at least every coordinate on that axis in `lo..<mid` and at most every
/// one in `mid + 1..<hi`; so the tree costs no pointers, only the reordering.
struct KDTree: Sendable {
    /// Coordinates in tree order: `coordinates[3 * i + a]` is axis a of node i.
    private let coordinates: [Double]
    /// The axis each node splits on (0, 1, 2: x, y, z).
    private let axis: [UInt8]
    /// The caller's index of the point at each node.
    private let id: [Int32]

    var count: Int { id.count }

    /// Builds the tree over `points`, given as x, y, z triples (`points[3 * i ..< 3 * i + 3]`
    /// is point i). Each range splits on the axis along which its points spread most, at its
    /// median (found by quickselect), so the depth is log₂ n and building costs O(n log n).
    /// The loops run on raw pointers rather than array subscripts, which an unoptimized
    /// build checks and calls one by one: that made a debug build of this tree about three
    /// times faster (the tests load the gazetteer in a debug build).
    init(points: [Double]) {
        precondition(points.count % 3 == 0 && points.count / 3 < Int(Int32.max))
        let n = points.count / 3
        var coordinates = points
        var axis = [UInt8](repeating: 0, count: n)
        var id = [Int32](repeating: 0, count: n)
        coordinates.withUnsafeMutableBufferPointer { c in
            axis.withUnsafeMutableBufferPointer { a in
                id.withUnsafeMutableBufferPointer { d in
                    guard let c = c.baseAddress, let a = a.baseAddress, let d = d.baseAddress else { return }
                    var i = 0
                    while i < n {
                        d[i] = Int32(i)
                        i += 1
                    }
                    var pending = [(0, n)]
                    while let range = pending.popLast() {
                        let (lo, hi) = range
                        guard hi - lo > 1 else { continue }
                        let mid = (lo + hi) / 2
                        let split = Self.widestAxis(c, lo, hi)
                        Self.select(c, d, lo, hi, mid, split)
                        a[mid] = UInt8(split)
                        pending.append((lo, mid))
                        pending.append((mid + 1, hi))
                    }
                }
            }
        }
        self.coordinates = coordinates
        self.axis = axis
        self.id = id
    }

    /// The point nearest to `query` whose squared chord distance is at most `limit`, and
    /// that squared distance; nil when none is that near. Of points at the same distance,
    /// the one with the lowest index wins, as in a linear scan.
    func nearest(to query: (Double, Double, Double), within limit: Double) -> (index: Int, squaredDistance: Double)? {
        var best = (index: -1, distance: limit)
        let q = [query.0, query.1, query.2]
        coordinates.withUnsafeBufferPointer { c in
            axis.withUnsafeBufferPointer { a in
                id.withUnsafeBufferPointer { d in
                    q.withUnsafeBufferPointer { q in
                        guard let c = c.baseAddress, let a = a.baseAddress, let d = d.baseAddress else { return }
                        Self.search(c, a, d, q.baseAddress!, 0, count, &best)
                    }
                }
            }
        }
        return best.index < 0 ? nil : (best.index, best.distance)
    }

    private static func search(
        _ c: UnsafePointer<Double>, _ a: UnsafePointer<UInt8>, _ d: UnsafePointer<Int32>,
        _ q: UnsafePointer<Double>, _ lo: Int, _ hi: Int, _ best: inout (index: Int, distance: Double)
    ) {
        guard lo < hi else { return }
        let mid = (lo + hi) / 2
        let p = c + 3 * mid
        let dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2]
        let distance = dx * dx + dy * dy + dz * dz
        let index = Int(d[mid])
        if distance < best.distance || (distance == best.distance && (best.index < 0 || index < best.index)) {
            best = (index, distance)
        }
        guard hi - lo > 1 else { return }
        let split = Int(a[mid])
        let offset = q[split] - p[split]
        let (near, far) = offset < 0 ? ((lo, mid), (mid + 1, hi)) : ((mid + 1, hi), (lo, mid))
        search(c, a, d, q, near.0, near.1, &best)
        // Every point beyond the splitting plane is at least |offset| away along this axis
        // alone; "<=" rather than "<" so that a tie with a lower index is still found.
        if offset * offset <= best.distance {
            search(c, a, d, q, far.0, far.1, &best)
        }
    }

    /// The axis along which the points in `lo..<hi` spread most.
    private static func widestAxis(_ c: UnsafeMutablePointer<Double>, _ lo: Int, _ hi: Int) -> Int {
        var low = (Double.infinity, Double.infinity, Double.infinity)
        var high = (-Double.infinity, -Double.infinity, -Double.infinity)
        var (p, end) = (c + 3 * lo, c + 3 * hi)
        while p < end {
            if p[0] < low.0 { low.0 = p[0] }
            if p[0] > high.0 { high.0 = p[0] }
            if p[1] < low.1 { low.1 = p[1] }
            if p[1] > high.1 { high.1 = p[1] }
            if p[2] < low.2 { low.2 = p[2] }
            if p[2] > high.2 { high.2 = p[2] }
            p += 3
        }
        let (sx, sy, sz) = (high.0 - low.0, high.1 - low.1, high.2 - low.2)
        return sx >= sy ? (sx >= sz ? 0 : 2) : (sy >= sz ? 1 : 2)
    }

    /// Reorders `lo..<hi` so that the element at `k` is the one a sort on `split` would put
    /// there, smaller or equal ones before it and greater or equal ones after (Hoare's
    /// quickselect, middle pivot).
    private static func select(
        _ c: UnsafeMutablePointer<Double>, _ d: UnsafeMutablePointer<Int32>,
        _ lo: Int, _ hi: Int, _ k: Int, _ split: Int
    ) {
        let key = c + split
        var (left, right) = (lo, hi - 1)
        while left < right {
            let pivot = key[3 * ((left + right) / 2)]
            var (i, j) = (left, right)
            while i <= j {
                while key[3 * i] < pivot { i += 1 }
                while key[3 * j] > pivot { j -= 1 }
                if i <= j {
                    let (p, q) = (c + 3 * i, c + 3 * j)
                    (p[0], q[0]) = (q[0], p[0])
                    (p[1], q[1]) = (q[1], p[1])
                    (p[2], q[2]) = (q[2], p[2])
                    (d[i], d[j]) = (d[j], d[i])
                    i += 1
                    j -= 1
                }
            }
            if k <= j { right = j } else if k >= i { left = i } else { return }
        }
    }
}
