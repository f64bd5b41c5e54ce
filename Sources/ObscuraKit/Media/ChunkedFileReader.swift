import Foundation
import ObscuraCrypto

/// Reads a chunked file, decrypting only the chunks a request touches
/// (docs/FORMAT.md §6). Every chunk read is authenticated; nothing unverified is returned.
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
            var headerBytes = [UInt8](repeating: 0, count: ChunkedFormat.headerSize)
            let n = headerBytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(offset)) }
            guard n == ChunkedFormat.headerSize else { throw StreamError.truncated }
            header = try ChunkedHeader.decode(headerBytes)
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
        bytesRead = ChunkedFormat.headerSize
    }

    deinit { close(fd) }

    /// The plaintext size.
    var size: UInt64 { header.totalSize }

    /// Decrypts chunk `index`.
    func chunk(_ index: UInt64) throws -> [UInt8] {
        let length = header.plaintextLength(ofChunk: index) + header.chunkOverhead
        // One buffer for every chunk read: no allocation and zero-fill per chunk.
        if sealed.count != length { sealed = [UInt8](repeating: 0, count: length) }
        var done = 0
        let position = offset + header.fileOffset(ofChunk: index)
        while done < length {
            let n = sealed.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, length - done, off_t(position) + off_t(done)) }
            if n < 0 { if errno == EINTR { continue }; throw StorageError.io(path, errno) }
            if n == 0 { throw StreamError.truncated }
            done += n
        }
        bytesRead += length
        chunksDecrypted += 1
        return try cipher.open(sealed, index: index)
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
