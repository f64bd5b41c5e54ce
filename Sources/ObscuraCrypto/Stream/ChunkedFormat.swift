/// The chunked format for media and exports (docs/FORMAT.md §6): a header, then chunks
/// sealed with AES-256-GCM under counter nonces, in the manner of age's STREAM.
///
/// Two versions share the magic, the chunk layout and the associated data: version 1
/// (§6.1, §6.2) seals under the MEK itself with a random 4-byte nonce prefix, and is
/// still read, and written for export payloads (§7.3); version 2 (§6.6,
/// ``ChunkedFormatV2``) seals each file under its own key, and is what media writers write.
public enum ChunkedFormat {
    /// §6.1: "OBSK", the first four bytes. Single-shot writers never emit a nonce that
    /// starts with these bytes, so readers can dispatch on them (§6.5).
    public static let magic: [UInt8] = [0x4F, 0x42, 0x53, 0x4B]
    /// §6.1: format version 1, the version export payloads use (§7.3).
    public static let version: UInt16 = 1
    /// §6.1: flag bit 0, the chunks carry a second, folder-key layer (§6.4).
    public static let flagFolderProtected: UInt16 = 1 << 0
    /// §6.1, §6.6: flags a reader of either version understands.
    public static let knownFlags: UInt16 = flagFolderProtected
    /// §6.1: version 1's header size; chunk 0 of a version 1 file starts here.
    public static let headerSize = 24
    /// §6.1, §6.6: the bytes a reader needs to learn a header's version: magic and version.
    public static let versionPrefixSize = 6
    /// §6.6: the longest header of a version this reader knows (version 2's).
    public static let maximumHeaderSize = ChunkedFormatV2.headerSize
    /// §6.1: size of version 1's random nonce prefix.
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

/// The parsed header of a chunked file: 24 bytes in version 1 (docs/FORMAT.md §6.1), 52
/// in version 2 (§6.6).
public struct ChunkedHeader: Equatable, Sendable {
    /// Format version: ``ChunkedFormat/version`` (1) or ``ChunkedFormatV2/version`` (2).
    public var version: UInt16
    /// Header flags (bit 0: folder-protected).
    public var flags: UInt16
    /// Version 1: the 4-byte random nonce prefix. Empty in version 2.
    public var noncePrefix: [UInt8]
    /// Version 2: the 32-byte random salt the file's keys are derived with. Empty in
    /// version 1.
    public var salt: [UInt8]
    /// Plaintext bytes per chunk (the last chunk may be shorter).
    public var chunkSize: Int
    /// Total plaintext size.
    public var totalSize: UInt64

    /// Creates a version 1 header (§6.1): export payloads, and tests of the old format.
    public init(flags: UInt16, noncePrefix: [UInt8], chunkSize: Int, totalSize: UInt64) {
        precondition(noncePrefix.count == ChunkedFormat.noncePrefixSize, "a version 1 nonce prefix is 4 bytes")
        self.version = ChunkedFormat.version
        self.flags = flags
        self.noncePrefix = noncePrefix
        self.salt = []
        self.chunkSize = chunkSize
        self.totalSize = totalSize
    }

    /// Creates a version 2 header (§6.6): `salt` must be 32 fresh random bytes, drawn for
    /// this file alone.
    public init(flags: UInt16, salt: [UInt8], chunkSize: Int, totalSize: UInt64) {
        precondition(salt.count == ChunkedFormatV2.saltSize, "a version 2 salt is 32 bytes")
        self.version = ChunkedFormatV2.version
        self.flags = flags
        self.noncePrefix = []
        self.salt = salt
        self.chunkSize = chunkSize
        self.totalSize = totalSize
    }

    /// Whether chunks carry the folder-key layer.
    public var isFolderProtected: Bool { flags & ChunkedFormat.flagFolderProtected != 0 }

    /// The encoded header's size: where chunk 0 starts.
    public var headerSize: Int { version == ChunkedFormatV2.version ? ChunkedFormatV2.headerSize : ChunkedFormat.headerSize }

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
        UInt64(headerSize) + index * UInt64(chunkSize + chunkOverhead)
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

    /// The header bytes: 24 in version 1 (§6.1), 52 in version 2 (§6.6).
    public func encoded() -> [UInt8] {
        var out = ChunkedFormat.magic
        out.appendBigEndian(version)
        out.appendBigEndian(flags)
        if version == ChunkedFormatV2.version {
            out.appendBigEndian(UInt32(chunkSize))
            out.appendBigEndian(totalSize)
            out += salt
        } else {
            out += noncePrefix
            out.appendBigEndian(UInt32(chunkSize))
            out.appendBigEndian(totalSize)
        }
        return out
    }

    /// Parses a header from the start of `bytes`, which may run on past it. Throws
    /// ``StreamError/notChunked`` for another magic, ``StreamError/truncated`` when
    /// `bytes` end inside the magic and version or inside the header of that version, and
    /// ``StreamError/unsupported(_:)`` for an unknown version, flag or chunk size.
    public static func decode(_ bytes: some Collection<UInt8>) throws -> ChunkedHeader {
        let b = Array(bytes.prefix(ChunkedFormat.maximumHeaderSize))
        guard b.count >= ChunkedFormat.versionPrefixSize else { throw StreamError.truncated }
        guard Array(b[0..<4]) == ChunkedFormat.magic else { throw StreamError.notChunked }
        let version = b.readBigEndian(UInt16.self, at: 4)
        let size: Int
        switch version {
        case ChunkedFormat.version: size = ChunkedFormat.headerSize
        case ChunkedFormatV2.version: size = ChunkedFormatV2.headerSize
        default: throw StreamError.unsupported("unsupported chunked format version")
        }
        guard b.count >= size else { throw StreamError.truncated }
        let flags = b.readBigEndian(UInt16.self, at: 6)
        guard flags & ~ChunkedFormat.knownFlags == 0 else { throw StreamError.unsupported("unknown flags") }
        let header: ChunkedHeader
        if version == ChunkedFormatV2.version {
            header = ChunkedHeader(
                flags: flags, salt: Array(b[20..<52]), chunkSize: Int(b.readBigEndian(UInt32.self, at: 8)),
                totalSize: b.readBigEndian(UInt64.self, at: 12))
        } else {
            header = ChunkedHeader(
                flags: flags, noncePrefix: Array(b[8..<12]), chunkSize: Int(b.readBigEndian(UInt32.self, at: 12)),
                totalSize: b.readBigEndian(UInt64.self, at: 16))
        }
        guard ChunkedFormat.chunkSizeRange.contains(header.chunkSize) else {
            throw StreamError.unsupported("chunk size out of range")
        }
        // Chunk indices must fit the nonce counter with room for the outer layer (§6.4).
        guard header.chunkCount < UInt64(1) << 62 else { throw StreamError.unsupported("total size out of range") }
        // The file's size, and so every chunk offset, must be a valid off_t. Without this
        // check a damaged total size made `fileSize` overflow and trap (scripts/fuzz,
        // fuzz/regressions/chunked): one altered media file stopped the process.
        let overhead = header.chunkCount.multipliedReportingOverflow(by: UInt64(header.chunkOverhead))
        let fileSize = header.totalSize.addingReportingOverflow(overhead.partialValue + UInt64(size))
        guard !overhead.overflow, !fileSize.overflow, fileSize.partialValue <= ChunkedFormat.maximumFileSize else {
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
