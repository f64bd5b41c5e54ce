/// The chunked format for media and exports (docs/FORMAT.md §6): a 24-byte header, then
/// chunks sealed with AES-256-GCM under counter nonces, in the manner of age's STREAM.
public enum ChunkedFormat {
    /// §6.1: "OBSK", the first four bytes. Single-shot writers never emit a nonce that
    /// starts with these bytes, so readers can dispatch on them (§6.5).
    public static let magic: [UInt8] = [0x4F, 0x42, 0x53, 0x4B]
    /// §6.1: format version.
    public static let version: UInt16 = 1
    /// §6.1: flag bit 0, the chunks carry a second, folder-key layer (§6.4).
    public static let flagFolderProtected: UInt16 = 1 << 0
    /// §6.1: flags a reader of this version understands.
    public static let knownFlags: UInt16 = flagFolderProtected
    /// §6.1: header size; chunk 0 starts here.
    public static let headerSize = 24
    /// §6.1: size of the random nonce prefix.
    public static let noncePrefixSize = 4
    /// §6.2: the chunk size media writers use, 256 KiB (chosen by measurement, §6.2).
    public static let defaultChunkSize = 256 << 10
    /// §6.1: the largest file a header may describe: offsets are `off_t`, signed 64-bit.
    public static let maximumFileSize = UInt64(Int64.max)
    /// §6.1: chunk sizes readers accept.
    public static let chunkSizeRange = 4096...(16 << 20)
    /// §6.3: the associated-data byte marking the last chunk.
    public static let lastChunkMark: UInt8 = 0x01
    /// §6.3: the associated-data byte marking every other chunk.
    public static let middleChunkMark: UInt8 = 0x00
}

/// The parsed 24-byte header of a chunked file (docs/FORMAT.md §6.1).
public struct ChunkedHeader: Equatable, Sendable {
    /// Header flags (bit 0: folder-protected).
    public var flags: UInt16
    /// The 4-byte random nonce prefix.
    public var noncePrefix: [UInt8]
    /// Plaintext bytes per chunk (the last chunk may be shorter).
    public var chunkSize: Int
    /// Total plaintext size.
    public var totalSize: UInt64

    /// Creates a header.
    public init(flags: UInt16, noncePrefix: [UInt8], chunkSize: Int, totalSize: UInt64) {
        self.flags = flags
        self.noncePrefix = noncePrefix
        self.chunkSize = chunkSize
        self.totalSize = totalSize
    }

    /// Whether chunks carry the folder-key layer.
    public var isFolderProtected: Bool { flags & ChunkedFormat.flagFolderProtected != 0 }

    /// Number of chunks: ceil(total / chunkSize), and one (empty) chunk for an empty file.
    /// (Computed without `total + chunkSize - 1`, which overflows near 2^64.)
    public var chunkCount: UInt64 {
        totalSize == 0 ? 1 : totalSize / UInt64(chunkSize) + (totalSize % UInt64(chunkSize) == 0 ? 0 : 1)
    }

    /// Bytes a sealed chunk adds to its plaintext: one tag per layer.
    public var chunkOverhead: Int { AESGCM.tagSize * (isFolderProtected ? 2 : 1) }

    /// Plaintext length of chunk `index`.
    public func plaintextLength(ofChunk index: UInt64) -> Int {
        index == chunkCount - 1 ? Int(totalSize - index * UInt64(chunkSize)) : chunkSize
    }

    /// Offset of chunk `index` in the file.
    public func fileOffset(ofChunk index: UInt64) -> UInt64 {
        UInt64(ChunkedFormat.headerSize) + index * UInt64(chunkSize + chunkOverhead)
    }

    /// The exact size of a well-formed file with this header.
    public var fileSize: UInt64 {
        fileOffset(ofChunk: chunkCount - 1) + UInt64(plaintextLength(ofChunk: chunkCount - 1) + chunkOverhead)
    }

    /// The chunks holding plaintext bytes `range` (which must lie within the total).
    public func chunks(covering range: Range<UInt64>) -> ClosedRange<UInt64> {
        guard !range.isEmpty else { return 0...0 }
        return (range.lowerBound / UInt64(chunkSize))...((range.upperBound - 1) / UInt64(chunkSize))
    }

    /// The 24 header bytes.
    public func encoded() -> [UInt8] {
        var out = ChunkedFormat.magic
        out.appendBigEndian(ChunkedFormat.version)
        out.appendBigEndian(flags)
        out += noncePrefix
        out.appendBigEndian(UInt32(chunkSize))
        out.appendBigEndian(totalSize)
        return out
    }

    /// Parses a header. Throws ``StreamError/notChunked`` for another magic, and
    /// ``StreamError/unsupported(_:)`` for an unknown version, flag or chunk size.
    public static func decode(_ bytes: some Collection<UInt8>) throws -> ChunkedHeader {
        let b = Array(bytes.prefix(ChunkedFormat.headerSize))
        guard b.count == ChunkedFormat.headerSize else { throw StreamError.truncated }
        guard Array(b[0..<4]) == ChunkedFormat.magic else { throw StreamError.notChunked }
        guard b.readBigEndian(UInt16.self, at: 4) == ChunkedFormat.version else {
            throw StreamError.unsupported("unsupported chunked format version")
        }
        let flags = b.readBigEndian(UInt16.self, at: 6)
        guard flags & ~ChunkedFormat.knownFlags == 0 else { throw StreamError.unsupported("unknown flags") }
        let chunkSize = Int(b.readBigEndian(UInt32.self, at: 12))
        guard ChunkedFormat.chunkSizeRange.contains(chunkSize) else {
            throw StreamError.unsupported("chunk size out of range")
        }
        let header = ChunkedHeader(
            flags: flags, noncePrefix: Array(b[8..<12]), chunkSize: chunkSize,
            totalSize: b.readBigEndian(UInt64.self, at: 16))
        // Chunk indices must fit the nonce counter with room for the outer layer (§6.4).
        guard header.chunkCount < UInt64(1) << 62 else { throw StreamError.unsupported("total size out of range") }
        // The file's size, and so every chunk offset, must be a valid off_t. Without this
        // check a damaged total size made `fileSize` overflow and trap (scripts/fuzz,
        // fuzz/regressions/chunked): one altered media file stopped the process.
        let overhead = header.chunkCount.multipliedReportingOverflow(by: UInt64(header.chunkOverhead))
        let size = header.totalSize.addingReportingOverflow(overhead.partialValue + UInt64(ChunkedFormat.headerSize))
        guard !overhead.overflow, !size.overflow, size.partialValue <= ChunkedFormat.maximumFileSize else {
            throw StreamError.unsupported("total size out of range")
        }
        return header
    }
}

/// Errors from the chunked and single-shot formats. None carries plaintext.
public enum StreamError: ObscuraError, Equatable {
    /// The data is shorter than its header says.
    case truncated
    /// The data is longer than its header says.
    case trailingData
    /// The data does not start with the chunked magic.
    case notChunked
    /// A version, flag or size this reader does not support.
    case unsupported(String)
    /// A chunk failed authentication: altered, reordered, truncated, or the wrong key.
    case chunkFailed(UInt64)
    /// The plaintext source ended before or after the size declared in the header.
    case sizeMismatch(expected: UInt64, actual: UInt64)

    public var description: String {
        switch self {
        case .truncated: return "encrypted file is truncated"
        case .trailingData: return "encrypted file has unexpected trailing data"
        case .notChunked: return "not a chunked Obscura file"
        case let .unsupported(why): return why
        case let .chunkFailed(i): return "chunk \(i) failed authentication (file altered, reordered or truncated, or wrong key)"
        case let .sizeMismatch(expected, actual): return "source size changed while reading: expected \(expected) bytes, got \(actual)"
        }
    }
}
