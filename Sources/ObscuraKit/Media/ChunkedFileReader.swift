import Foundation
import ObscuraCrypto
import ObscuraStore

/// Reads a chunked file of either version, decrypting only the chunks a request touches
/// (docs/FORMAT.md §6, §6.6). Every chunk read is authenticated; nothing unverified is returned.
final class ChunkedFileReader {
    let path: String
    let header: ChunkedHeader
    private let cipher: ChunkCipher
    private let fd: Int32
    /// Where the chunked header starts (after an outer format's own header).
    let offset: UInt64
    /// Number of chunks decrypted so far (tests check range reads touch at most two).
    private(set) var chunksDecrypted = 0
    /// Bytes read from the file so far.
    private(set) var bytesRead = 0
    /// The sealed bytes of the chunk being opened.
    private var sealed: [UInt8] = []

    /// Opens `path`, checks the chunked header at `offset` and that the file ends exactly
    /// where the header says. `makeCipher` builds the cipher for the header (keys depend
    /// on its flags).
    init(path: String, offset: UInt64 = 0, makeCipher: (ChunkedHeader) throws -> ChunkCipher) throws {
        self.path = path
        self.offset = offset
        let fd = try FileIO.openForReading(path)
        // Everything is checked into locals and the descriptor stored last: once every
        // stored property is set, a throw runs deinit, which closes the descriptor too,
        // and a second close could close a descriptor another thread has just opened.
        let header: ChunkedHeader
        let cipher: ChunkCipher
        do {
            // Enough for the longest header; a shorter file of version 1 is still whole.
            var headerBytes = [UInt8](repeating: 0, count: ChunkedFormat.maximumHeaderSize)
            let n = try headerBytes.withUnsafeMutableBytes { try Self.read(fd, into: $0, at: offset, path: path) }
            header = try ChunkedHeader.decode(headerBytes.prefix(n))
            // §6.2 order: header, keys (protection must match), size, then chunks.
            cipher = try makeCipher(header)
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw StorageError.io(path, errno) }
            if UInt64(st.st_size) < offset + header.fileSize { throw StreamError.truncated }
            if UInt64(st.st_size) > offset + header.fileSize { throw StreamError.trailingData }
        } catch {
            close(fd)
            throw error
        }
        self.header = header
        self.cipher = cipher
        self.fd = fd
        bytesRead = header.headerSize
    }

    deinit { close(fd) }

    /// The plaintext size.
    var size: UInt64 { header.totalSize }

    /// Decrypts chunk `index`.
    func chunk(_ index: UInt64) throws -> [UInt8] {
        let length = header.plaintextLength(ofChunk: index) + header.chunkOverhead
        // One buffer for every chunk read: no allocation and zero-fill per chunk.
        if sealed.count != length { sealed = [UInt8](repeating: 0, count: length) }
        let position = offset + header.fileOffset(ofChunk: index)
        let done = try sealed.withUnsafeMutableBytes { try Self.read(fd, into: $0, at: position, path: path) }
        if done < length { throw StreamError.truncated }
        bytesRead += length
        chunksDecrypted += 1
        return try cipher.open(sealed, index: index)
    }

    /// Fills `buffer` from `position` on, short only at the end of the file; returns the
    /// bytes read.
    private static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at position: UInt64, path: String) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(position) + off_t(done))
            if n < 0 { if errno == EINTR { continue }; throw StorageError.io(path, errno) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Plaintext bytes `range` (clamped to the file), decrypting only the chunks it touches.
    func read(_ range: Range<UInt64>) throws -> [UInt8] {
        let clamped = min(range.lowerBound, size)..<min(range.upperBound, size)
        guard !clamped.isEmpty else { return [] }
        var out = [UInt8]()
        out.reserveCapacity(Int(clamped.count))
        for index in header.chunks(covering: clamped) {
            let start = index * UInt64(header.chunkSize)
            let plain = try chunk(index)
            let from = Int(max(clamped.lowerBound, start) - start)
            let to = Int(min(clamped.upperBound, start + UInt64(plain.count)) - start)
            out += plain[from..<to]
        }
        return out
    }

    /// Calls `body` with each decrypted chunk in order.
    func forEachChunk(_ body: ([UInt8]) throws -> Void) throws {
        for index in 0..<header.chunkCount { try body(try chunk(index)) }
    }
}
