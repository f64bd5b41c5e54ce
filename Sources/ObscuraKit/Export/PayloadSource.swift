import Foundation
import ObscuraCrypto
import ObscuraStore

/// An export payload as a sequence of in-memory and file segments, read in order, chunk
/// by chunk, with memory bounded by one mapping window and one chunk.
final class PayloadSource {
    enum Segment {
        case bytes([UInt8])
        case file(path: String, size: Int64)
    }

    private var segments: [Segment]
    private var index = 0
    private var offset = 0
    /// File segments are read through a sliding mapping: copying from the page cache in
    /// user space is several times cheaper here than read(2)'s kernel copy, and a chunk
    /// that lies inside the mapping is sealed straight from it with no copy at all
    /// (docs/BENCHMARKS.md). A window of `window` bytes keeps resident memory bounded.
    static let window = 16 << 20
    private var fd: Int32 = -1
    private var fileSize = 0
    private var mapping: UnsafeMutableRawPointer?
    private var mappingStart = 0
    private var mappingSize = 0
    /// Chunks that span segments are gathered here. They may hold the manifest (names and
    /// dates, in the clear before sealing), so the buffer is zeroed when released.
    private var staging: UnsafeMutableRawBufferPointer?

    init(_ segments: [Segment]) { self.segments = segments }

    deinit {
        closeFile()
        releaseStaging()
    }

    private func releaseStaging() {
        if let staging {
            secureZero(staging.baseAddress!, staging.count)
            staging.deallocate()
        }
        staging = nil
    }

    private func unmap() {
        if let mapping { munmap(mapping, mappingSize) }
        mapping = nil
        mappingSize = 0
    }

    private func closeFile() {
        unmap()
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Total bytes the segments hold.
    var totalSize: UInt64 {
        segments.reduce(0) { sum, segment in
            switch segment {
            case let .bytes(b): return sum + UInt64(b.count)
            case let .file(_, size): return sum + UInt64(size)
            }
        }
    }

    /// The next `count` bytes, which must all remain (the caller asks for the chunk
    /// lengths of ``totalSize``). Lent straight from the file's mapping when they lie in
    /// one file segment, gathered into a buffer otherwise; valid until the next call.
    func next(_ count: Int) throws -> UnsafeRawBufferPointer {
        if count > 0, let lent = try lend(count) { return lent }
        let buffer: UnsafeMutableRawBufferPointer
        if let staging, staging.count >= count {
            buffer = staging
        } else {
            releaseStaging()
            buffer = .allocate(byteCount: max(count, 1), alignment: 16)
            staging = buffer
        }
        var done = 0
        while done < count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done..<count]))
            // Only a source shorter than its own total gets here: a caller's error.
            guard n > 0 else { throw StreamError.sizeMismatch(expected: totalSize, actual: UInt64(done)) }
            done += n
        }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }

    /// `count` bytes of the current file segment, from its mapping, if they all lie in it.
    private func lend(_ count: Int) throws -> UnsafeRawBufferPointer? {
        guard index < segments.count, case let .file(path, size) = segments[index] else { return nil }
        try openIfNeeded(path: path, size: size)
        guard fileSize - offset >= count else { return nil }
        try map(path: path, covering: count)
        let lent = UnsafeRawBufferPointer(start: mapping! + (offset - mappingStart), count: count)
        offset += count
        return lent
    }

    /// Fills `buffer` from the current segment; 0 at the end of the last one. A file that
    /// is shorter than when it was measured is an error (the total is in every chunk).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while index < segments.count {
            switch segments[index] {
            case let .bytes(bytes):
                let n = min(buffer.count, bytes.count - offset)
                if n > 0 {
                    bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
                    offset += n
                    return n
                }
            case let .file(path, size):
                try openIfNeeded(path: path, size: size)
                if offset < fileSize {
                    try map(path: path, covering: 1)
                    let n = min(buffer.count, mappingStart + mappingSize - offset)
                    buffer.copyMemory(from: UnsafeRawBufferPointer(start: mapping! + (offset - mappingStart), count: n))
                    offset += n
                    return n
                }
                closeFile()
            }
            index += 1
            offset = 0
        }
        return 0
    }

    private func openIfNeeded(path: String, size: Int64) throws {
        guard fd < 0 else { return }
        fd = try FileIO.openForReading(path)
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
        guard Int64(st.st_size) == size else { throw VaultError.sourceChanged }
        fileSize = Int(size)
    }

    /// Makes the mapping cover `count` bytes from `offset`, moving the window if needed:
    /// it starts at the page holding `offset` (mmap offsets are page-aligned).
    private func map(path: String, covering count: Int) throws {
        if mapping != nil, offset >= mappingStart, offset + count <= mappingStart + mappingSize { return }
        unmap()
        mappingStart = offset & ~(Self.pageSize - 1)
        mappingSize = min(max(Self.window, offset - mappingStart + count), fileSize - mappingStart)
        guard let mapped = mmap(nil, mappingSize, PROT_READ, MAP_PRIVATE, fd, off_t(mappingStart)), mapped != MAP_FAILED
        else {
            mappingSize = 0
            throw StorageError.io(path, errno)
        }
        _ = madvise(mapped, mappingSize, MADV_SEQUENTIAL)
        mapping = mapped
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Reads a decrypted payload front to back, chunk by chunk.
/// (Package so that ``ExportFile/open(password:)`` can return it; its API is internal.)
package final class PayloadReader {
    private let reader: ChunkedFileReader
    private var chunkIndex: UInt64 = 0
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// Plaintext bytes consumed so far.
    private(set) var consumed: UInt64 = 0

    init(_ reader: ChunkedFileReader) { self.reader = reader }

    /// Whether every payload byte has been consumed.
    var atEnd: Bool { consumed == reader.size }

    /// Payload bytes not consumed yet: the most any length field may claim.
    var remaining: UInt64 { reader.size - consumed }

    /// Calls `body` with the next `count` bytes, in pieces of at most one chunk.
    func read(_ count: UInt64, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        var left = count
        while left > 0 {
            if pendingOffset == pending.count {
                guard chunkIndex < reader.header.chunkCount else { throw ExportError.damaged("payload ends early") }
                pending = try reader.chunk(chunkIndex)
                pendingOffset = 0
                chunkIndex += 1
            }
            // `left` comes from a length field: compare before narrowing it to Int.
            let n = Int(min(left, UInt64(pending.count - pendingOffset)))
            try body(pending[pendingOffset..<(pendingOffset + n)])
            pendingOffset += n
            left -= UInt64(n)
            consumed += UInt64(n)
        }
    }

    /// The next `count` bytes as an array (for small fields).
    func bytes(_ count: UInt64) throws -> [UInt8] {
        var out = [UInt8]()
        try read(count) { out += $0 }
        return out
    }

    /// The next big-endian integer.
    func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try bytes(UInt64(MemoryLayout<T>.size)).readBigEndian(T.self, at: 0)
    }
}
