import Foundation
import ObscuraCrypto

/// The content of a drop blob opened for this vault (docs/FORMAT.md §10.4): the blob's
/// chunked reader, every position moved past the envelope at the start of chunk 0.
///
/// The intake reads it piece by piece, one chunk of plaintext in memory at a time, as
/// often as it needs (a hash pass, a seal pass, a feed to ffprobe and ffmpeg): every
/// chunk is authenticated at every read, and each piece is zeroed once handed on. `check`
/// runs before each chunk is decrypted: the intake passes the vault's open check there,
/// so that a lock stops a read within one chunk (docs/PHONE.md §W3.2). Not thread-safe:
/// one reader at a time.
final class DropContent {
    private let reader: ChunkedFileReader
    /// The envelope's length: where the content starts in chunk 0's plaintext.
    private let offset: UInt64

    /// The content of the opened blob `reader`, whose envelope ends at `contentOffset`.
    init(reader: ChunkedFileReader, contentOffset: Int) {
        self.reader = reader
        offset = UInt64(contentOffset)
    }

    /// The content's size in bytes.
    var size: UInt64 { reader.size - offset }

    /// Content bytes `range` (clamped to the content).
    func read(_ range: Range<UInt64>) throws -> [UInt8] {
        let clamped = min(range.lowerBound, size)..<min(range.upperBound, size)
        return try reader.read((clamped.lowerBound + offset)..<(clamped.upperBound + offset))
    }

    /// Hands `body` the content bytes `range` (all of it by default) in order, one blob
    /// chunk's share at a time, each zeroed after `body` returns.
    func forEachPiece(in range: Range<UInt64>? = nil, check: () throws -> Void, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let wanted = range ?? 0..<size
        let blob = (min(wanted.lowerBound, size) + offset)..<(min(wanted.upperBound, size) + offset)
        guard !blob.isEmpty else { return }
        let chunkSize = UInt64(reader.header.chunkSize)
        for index in reader.header.chunks(covering: blob) {
            try check()
            var plain = try reader.chunk(index)
            defer { Self.zero(&plain) }
            let start = index * chunkSize
            let from = Int(max(blob.lowerBound, start) - start)
            let to = Int(min(blob.upperBound, start + UInt64(plain.count)) - start)
            try plain.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[from..<to])) }
        }
    }

    /// SHA-256 of the content, read once.
    func sha256(check: () throws -> Void) throws -> [UInt8] {
        var hasher = SHA256Stream()
        try forEachPiece(check: check) { hasher.update($0) }
        return hasher.finalize()
    }

    /// The whole content in memory, for a photo (at most ``Vault/maximumPhotoFileSize``):
    /// the caller zeroes it.
    func whole(check: () throws -> Void) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Int(size))
        try forEachPiece(check: check) { out.append(contentsOf: $0) }
        return out
    }

    /// A source for ``ChunkedFileWriter``: the content once, from its start. The writer
    /// calls it from a thread of its own, while this content is read by nothing else.
    func source(check: @escaping () throws -> Void) -> ChunkedFileWriter.Source {
        let cursor = Cursor(self, check: check)
        return { buffer in try cursor.fill(buffer) }
    }

    /// Where a ``source(check:)`` stands: the chunk being handed out, zeroed when spent
    /// and when the source is released (a seal stopped part-way).
    private final class Cursor {
        let content: DropContent
        let check: () throws -> Void
        var next: UInt64 = 0
        var pending: [UInt8] = []
        var at = 0

        init(_ content: DropContent, check: @escaping () throws -> Void) {
            self.content = content
            self.check = check
        }

        deinit { DropContent.zero(&pending) }

        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            var filled = 0
            while filled < buffer.count {
                if at == pending.count {
                    DropContent.zero(&pending)
                    guard next < content.reader.header.chunkCount else { break }
                    try check()
                    pending = try content.reader.chunk(next)
                    at = next == 0 ? Int(content.offset) : 0
                    next += 1
                    continue
                }
                let n = min(buffer.count - filled, pending.count - at)
                pending.withUnsafeBytes { raw in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + n)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[at..<(at + n)]))
                }
                at += n
                filled += n
            }
            return filled
        }
    }

    private static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { secureZero(base, $0.count) } }
    }
}
