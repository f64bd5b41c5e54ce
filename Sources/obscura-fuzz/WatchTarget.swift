// The structure check of `obscura watch` (docs/PHONE.md §W2.3): it reads files that may
// come from others (a shared or synced folder) to tell whether a JPEG, PNG, HEIF or
// movie is whole. Whatever the bytes, it must answer, within its bounds, and never trap.
import ObscuraKit

let watchStructureTarget = FuzzTarget("watch-structure") { bytes in
    _ = try? WatchStructure.check(size: UInt64(bytes.count)) { range in
        let lower = Int(min(range.lowerBound, UInt64(bytes.count)))
        let upper = Int(min(range.upperBound, UInt64(bytes.count)))
        return Array(bytes[lower..<max(lower, upper)])
    }
}
