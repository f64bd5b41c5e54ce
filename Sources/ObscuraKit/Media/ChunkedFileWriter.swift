import Foundation
import ObscuraCrypto

/// Streams plaintext into a chunked file with memory bounded by one chunk (docs/FORMAT.md
/// §6): the plaintext's total size is declared up front, because it is authenticated in
/// every chunk; a source that ends early or runs long is an error, not a short file.
enum ChunkedFileWriter {
    /// Reads up to `buffer.count` bytes into `buffer`; returns 0 at the end.
    typealias Source = (UnsafeMutableRawBufferPointer) throws -> Int

    /// Seals everything `source` yields into a new file at `path` (created exclusively,
    /// fsynced), after `prefix` (an outer format's own header, written as is). Returns
    /// SHA-256 of the plaintext. On failure the file is removed.
    ///
    /// With `hashing` false (exports, which need no content hash) the returned hash is empty.
    @discardableResult
    static func write(
        to path: String, prefix: [UInt8] = [], cipher: ChunkCipher, hashing: Bool = true, source: @escaping Source,
        progress: ((Int) -> Void)? = nil
    ) throws -> [UInt8] {
        var hash: [UInt8] = []
        try FileIO.createDurably(path) { fd in
            hash = try write(prefix: prefix, cipher: cipher, hashing: hashing, source: source, progress: progress) { bytes in
                try FileIO.writeAll(fd, bytes, path: path)
            }
        }
        return hash
    }

    /// Seals everything `source` yields and hands `prefix`, the chunked header and each
    /// sealed chunk to `sink` in order (a file, or a network response). The buffer given
    /// to `sink` is reused: it must be consumed before `sink` returns.
    @discardableResult
    static func write(
        prefix: [UInt8] = [], cipher: ChunkCipher, hashing: Bool = true, source: @escaping Source,
        progress: ((Int) -> Void)? = nil, sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> [UInt8] {
        let header = cipher.header
        let sealer = ChunkSealer(cipher: cipher, hashing: hashing, source: source)
        defer { sealer.finish() }
        try (prefix + header.encoded()).withUnsafeBytes(sink)
        for index in 0..<header.chunkCount {
            let sealed = try sealer.next()
            try sink(sealed)
            sealer.release()
            progress?(header.plaintextLength(ofChunk: index))
        }
        return try sealer.end()
    }

    /// A source reading the file descriptor `fd`.
    static func source(fd: Int32, path: String) -> Source {
        return { buffer in try FileIO.readSome(fd, into: buffer, path: path) }
    }

    /// A source reading from memory.
    static func source(bytes: UnsafeRawBufferPointer) -> Source {
        var offset = 0
        return { buffer in
            let n = min(buffer.count, bytes.count - offset)
            if n > 0 {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]))
                offset += n
            }
            return n
        }
    }
}
