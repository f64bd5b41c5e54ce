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
    private var fd: Int32 = -1
    private var remaining: Int64 = 0

    init(_ segments: [Segment]) { self.segments = segments }

    deinit { if fd >= 0 { close(fd) } }

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
                    remaining = size
                }
                if remaining > 0 {
                    let want = Int(min(Int64(buffer.count), remaining))
                    let n = try FileIO.readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), path: path)
                    guard n > 0 else { throw VaultError.sourceChanged }
                    remaining -= Int64(n)
                    return n
                }
                close(fd)
                fd = -1
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
