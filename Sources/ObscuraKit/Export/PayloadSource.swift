import Foundation
import ObscuraCrypto

/// An export payload as a sequence of in-memory and file segments, read in order by the
/// chunked writer with memory bounded by one chunk.
final class PayloadSource {
    enum Segment {
        case bytes([UInt8])
        case file(path: String, size: Int64)
    }

    private var segments: [Segment]
    private var index = 0
    private var offset = 0
    /// The current file segment is read through a sliding mapping: copying from the page
    /// cache in user space is several times cheaper here than read(2)'s kernel copy
    /// (docs/BENCHMARKS.md), and a window of `window` bytes keeps resident memory bounded.
    static let window = 16 << 20
    private var fd: Int32 = -1
    private var fileSize = 0
    private var mapping: UnsafeMutableRawPointer?
    private var mappingStart = 0
    private var mappingSize = 0

    init(_ segments: [Segment]) { self.segments = segments }

    deinit { closeFile() }

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
                if fd < 0 {
                    fd = try FileIO.openForReading(path)
                    var st = stat()
                    guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
                    guard Int64(st.st_size) == size else { throw VaultError.sourceChanged }
                    fileSize = Int(size)
                }
                if offset < fileSize {
                    if mapping == nil || offset >= mappingStart + mappingSize {
                        unmap()
                        mappingStart = offset
                        mappingSize = min(Self.window, fileSize - offset)
                        guard let mapped = mmap(nil, mappingSize, PROT_READ, MAP_PRIVATE, fd, off_t(mappingStart)),
                              mapped != MAP_FAILED
                        else { throw StorageError.io(path, errno) }
                        _ = madvise(mapped, mappingSize, MADV_SEQUENTIAL)
                        mapping = mapped
                    }
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
}

/// Reads a decrypted payload front to back, chunk by chunk.
/// (Public so that ``ExportFile/open(password:)`` can return it; its API is internal.)
public final class PayloadReader {
    private let reader: ChunkedFileReader
    private var chunkIndex: UInt64 = 0
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// Plaintext bytes consumed so far.
    private(set) var consumed: UInt64 = 0

    init(_ reader: ChunkedFileReader) { self.reader = reader }

    /// Whether every payload byte has been consumed.
    var atEnd: Bool { consumed == reader.size }

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
            let n = min(Int(left), pending.count - pendingOffset)
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
