#if canImport(Glibc)
import Glibc
#endif

/// Process-wide allocator tuning for the bulk encryption path (docs/FORMAT.md §6.2).
///
/// glibc serves allocations above its mmap threshold (128 KiB, adjusted upwards only
/// after frees) with fresh mmap calls, so every 1 MiB CryptoKit output buffer costs
/// 256 page faults and a munmap: seal throughput falls to a third. Raising the threshold
/// keeps such buffers on the heap, where they are reused.
public enum MemoryTuning {
    /// glibc's M_MMAP_THRESHOLD option (<malloc.h>).
    static let mmapThresholdOption: Int32 = -3
    /// glibc's M_TRIM_THRESHOLD option: free heap top kept before returning it to the
    /// kernel; without raising it too, each freed buffer is trimmed and faulted in again.
    static let trimThresholdOption: Int32 = -1
    /// Allocations up to this size stay on the heap: a few chunks' worth, so that memory
    /// stays bounded while chunk buffers are reused.
    public static let mmapThreshold: Int32 = 4 << 20

    /// Raises glibc's mmap threshold; a no-op elsewhere. Executables call it once at start.
    /// Returns whether the setting took effect.
    @discardableResult
    public static func keepLargeBuffersOnHeap() -> Bool {
        #if canImport(Glibc)
        // mallopt is declared in <malloc.h>, which Swift's Glibc module does not export.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        return mallopt(mmapThresholdOption, mmapThreshold) == 1 && mallopt(trimThresholdOption, 2 * mmapThreshold) == 1
        #else
        return false
        #endif
    }
}
