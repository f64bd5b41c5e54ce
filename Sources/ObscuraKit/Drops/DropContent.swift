import Foundation
import ObscuraCrypto

/// The content of a drop blob opened for this vault (docs/FORMAT.md §10.4): the blob's
/// chunked reader, every position moved past the envelope at the start of chunk 0.
///
/// The intake reads it piece by piece, one chunk of plaintext in memory at a time, as
/// often as it needs (a hash pass, a seal pass, a feed to ffprobe and ffmpeg): every
/// chunk is authenticated at every read. What ``forEachPiece(in:check:_:)`` and
/// ``source(check:)`` hand on is zeroed once used; what ``read(_:)`` returns is the
/// caller's to zero. `check` runs before each chunk is decrypted: the intake passes the
/// vault's open check there, so that a lock stops a read within one chunk (docs/PHONE.md
/// §W3.2). A chunk that fails its tag, or a blob cut short, throws ``DropDamage``: only
/// that error says the blob itself is bad. Not thread-safe: one reader at a time.
final class DropContent {
    private let reader: ChunkedFileReader
    /// The envelope's length: where the content starts in chunk 0's plaintext.
    private let offset: UInt64
    /// The chunk ``read(_:)`` decrypted last, kept for the next read: a movie's box
    /// headers are read 16 bytes at a time, and a crafted file of many small boxes would
    /// otherwise cost a chunk's decryption per header (review S1-R3).
    private var cached: (index: UInt64, plain: [UInt8])?

    /// The content of the opened blob `reader`, whose envelope ends at `contentOffset`.
    init(reader: ChunkedFileReader, contentOffset: Int) {
        self.reader = reader
        offset = UInt64(contentOffset)
    }

    deinit { dropCache() }

    /// The content's size in bytes.
    var size: UInt64 { reader.size - offset }

    /// Blob chunk `index`, decrypted and authenticated.
    ///
    /// - Throws: ``DropDamage`` for a chunk that fails its tag or a blob cut short.
    func chunk(_ index: UInt64) throws -> [UInt8] {
        do {
            return try reader.chunk(index)
        } catch let error as StreamError {
            throw DropDamage(underlying: error)
        } catch let error as CryptoError {
            throw DropDamage(underlying: error)
        }
    }

    /// Content bytes `range` (clamped to the content), through a one-chunk cache.
    func read(_ range: Range<UInt64>) throws -> [UInt8] {
        let clamped = min(range.lowerBound, size)..<min(range.upperBound, size)
        let blob = (clamped.lowerBound + offset)..<(clamped.upperBound + offset)
        guard !blob.isEmpty else { return [] }
        var out = [UInt8]()
        out.reserveCapacity(Int(blob.count))
        for index in reader.header.chunks(covering: blob) {
            if cached?.index != index {
                dropCache()
                cached = (index, try chunk(index))
            }
            let plain = cached!.plain
            out += plain[share(of: blob, inChunk: index, count: plain.count)]
        }
        return out
    }

    /// Where blob bytes `blob` fall within chunk `index`, whose plaintext is `count` bytes.
    private func share(of blob: Range<UInt64>, inChunk index: UInt64, count: Int) -> Range<Int> {
        let start = index * UInt64(reader.header.chunkSize)
        return Int(max(blob.lowerBound, start) - start)..<Int(min(blob.upperBound, start + UInt64(count)) - start)
    }

    /// Zeroes and forgets the cached chunk.
    func dropCache() {
        guard var plain = cached?.plain else { return }
        cached = nil
        Self.zero(&plain)
    }

    /// Hands `body` the content bytes `range` (all of it by default) in order, one blob
    /// chunk's share at a time, each zeroed after `body` returns.
    func forEachPiece(in range: Range<UInt64>? = nil, check: () throws -> Void, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let wanted = range ?? 0..<size
        let blob = (min(wanted.lowerBound, size) + offset)..<(min(wanted.upperBound, size) + offset)
        guard !blob.isEmpty else { return }
        for index in reader.header.chunks(covering: blob) {
            try check()
            var plain = try chunk(index)
            defer { Self.zero(&plain) }
            let share = share(of: blob, inChunk: index, count: plain.count)
            try plain.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[share])) }
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
        do {
            try forEachPiece(check: check) { out.append(contentsOf: $0) }
        } catch {
            // Stopped part-way (a lock, a damaged chunk): what was decrypted goes too.
            Self.zero(&out)
            throw error
        }
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
                    pending = try content.chunk(next)
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

    /// Zeroes the storage `bytes` shares with every copy of it, in place: for plaintext
    /// held in several places at once (a closure's capture), none of which is used after.
    static func wipe(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { secureZero(UnsafeMutableRawPointer(mutating: base), raw.count) }
        }
    }

    static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { secureZero(base, $0.count) } }
    }
}

/// A drop blob that is bad in itself: a chunk that fails its tag, or a blob cut short.
/// The intake removes such a blob (docs/FORMAT.md §10.6); any other error leaves it.
struct DropDamage: Error, CustomStringConvertible {
    let underlying: Error
    var description: String { "\(underlying)" }
}
