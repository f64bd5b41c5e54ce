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
    static func write(
        to path: String, prefix: [UInt8] = [], cipher: ChunkCipher, source: Source, progress: ((Int) -> Void)? = nil
    ) throws -> [UInt8] {
        let header = cipher.header
        var hasher = SHA256Stream()
        try FileIO.createDurably(path) { fd in
            try FileIO.writeAll(fd, prefix + header.encoded(), path: path)
            var buffer = [UInt8](repeating: 0, count: header.chunkSize)
            var sealed = [UInt8](repeating: 0, count: header.chunkSize + header.chunkOverhead)
            defer { buffer.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            var total: UInt64 = 0
            for index in 0..<header.chunkCount {
                let want = header.plaintextLength(ofChunk: index)
                let got = try buffer.withUnsafeMutableBytes { try fill(UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]), from: source) }
                total += UInt64(got)
                guard got == want else { throw StreamError.sizeMismatch(expected: header.totalSize, actual: total) }
                let sealedLength = want + header.chunkOverhead
                try buffer.withUnsafeBytes { raw in
                    let plain = UnsafeRawBufferPointer(rebasing: raw[0..<want])
                    hasher.update(plain)
                    try sealed.withUnsafeMutableBytes {
                        try cipher.seal(plain, index: index, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<sealedLength]))
                    }
                }
                try FileIO.writeAll(fd, sealed, count: sealedLength, path: path)
                progress?(want)
            }
            // The source must be exhausted exactly at the declared size.
            var probe: UInt8 = 0
            let extra = try withUnsafeMutableBytes(of: &probe) { try source($0) }
            guard extra == 0 else { throw StreamError.sizeMismatch(expected: header.totalSize, actual: total + 1) }
        }
        return hasher.finalize()
    }

    /// Reads from `source` until `buffer` is full or the source ends.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from source: Source) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try source(UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
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
