import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts writeback of a file while it is still being written, so that the fsync that
/// ends a large durable write (an export) finds little left to flush: the disk works
/// while the next chunks are sealed, instead of all of it after the last one.
///
/// Durability is unchanged: the caller still fsyncs before it renames. Elsewhere than
/// Linux, or where the call is missing, this does nothing.
struct Writeback {
    /// Bytes written between two writeback requests.
    static let window: UInt64 = 32 << 20
    /// linux/fs.h: SYNC_FILE_RANGE_WRITE, start writeback of dirty pages without waiting.
    static let syncFileRangeWrite: UInt32 = 2

    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    /// sync_file_range(2) is declared only under _GNU_SOURCE, which Swift's Glibc module
    /// does not define; it is looked up at run time, as MemoryTuning does for mallopt.
    private static let syncFileRange: SyncFileRange? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
        #else
        return nil
        #endif
    }()

    private let fd: Int32
    private var written: UInt64 = 0
    private var requested: UInt64 = 0

    init(fd: Int32) { self.fd = fd }

    /// Records `count` more bytes written; every ``window`` bytes, asks the kernel to
    /// start writing them out. Failures are ignored: the final fsync reports real errors.
    mutating func wrote(_ count: Int) {
        written += UInt64(count)
        guard written - requested >= Self.window, let call = Self.syncFileRange else { return }
        _ = call(fd, Int64(requested), Int64(written - requested), Self.syncFileRangeWrite)
        requested = written
    }
}
