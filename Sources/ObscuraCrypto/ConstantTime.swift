/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Returns whether `a` and `b` hold the same bytes. Lengths are not secret: unequal
    /// lengths return false at once; equal lengths always read every byte.
    @inline(never)
    public static func equals<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) {
            difference |= x ^ y
        }
        return difference == 0
    }
}
