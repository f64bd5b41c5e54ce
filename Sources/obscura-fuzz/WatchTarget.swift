// The structure check of `obscura watch` (docs/PHONE.md §W2.3): it reads files that may
// come from others (a shared or synced folder) to tell whether a JPEG, PNG, HEIF or
// movie is whole. Whatever the bytes, it must answer, within its bounds, and never trap.
import ObscuraKit

let watchStructureTarget = FuzzTarget("watch-structure") { bytes in
    // The size the check is told may exceed what reads give, as for a file that shrank
    // after it was measured (review W-S2): the last byte, when odd, says by how much.
    let claimed = UInt64(bytes.count) + UInt64((bytes.last ?? 0) & 1 == 1 ? bytes.last! : 0)
    _ = try? WatchStructure.check(size: claimed) { range in
        let lower = Int(min(range.lowerBound, UInt64(bytes.count)))
        let upper = Int(min(range.upperBound, UInt64(bytes.count)))
        return Array(bytes[lower..<max(lower, upper)])
    }
}
