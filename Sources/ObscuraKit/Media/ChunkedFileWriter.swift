import Foundation
import ObscuraCrypto
import ObscuraStore

/// Streams plaintext into a chunked file with memory bounded by one chunk (docs/FORMAT.md
/// §6): the plaintext's total size is declared up front, because it is authenticated in
/// every chunk; a source that ends early or runs long is an error, not a short file.
package enum ChunkedFileWriter {
    /// Reads up to `buffer.count` bytes into `buffer`; returns 0 at the end.
    package typealias Source = (UnsafeMutableRawBufferPointer) throws -> Int

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
        var hasher = SHA256Stream()
        let feeder = ChunkFeeder(header: header, source: source)
        defer { feeder.finish() }
        try (prefix + header.encoded()).withUnsafeBytes(sink)
        var sealed = [UInt8](repeating: 0, count: header.chunkSize + header.chunkOverhead)
        for index in 0..<header.chunkCount {
            let plain = try feeder.next()
            let sealedLength = plain.count + header.chunkOverhead
            if hashing { hasher.update(plain) }
            try sealed.withUnsafeMutableBytes {
                try cipher.seal(plain, index: index, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<sealedLength]))
            }
            feeder.release()
            try sealed.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<sealedLength])) }
            progress?(plain.count)
        }
        try feeder.end()
        return hashing ? hasher.finalize() : []
    }

    /// A source reading the file descriptor `fd`.
    static func source(fd: Int32, path: String) -> Source {
        return { buffer in try FileIO.readSome(fd, into: buffer, path: path) }
    }

    /// A source reading from memory.
    package static func source(bytes: UnsafeRawBufferPointer) -> Source {
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

/// Reads chunk plaintexts on a second thread, up to two chunks ahead, so that reading
/// (a kernel copy as costly as sealing on the machines measured) overlaps sealing and
/// writing. The source is only ever called from that thread, and never after `finish()`.
///
/// Two buffers go round between the threads by index: `free` carries the ones the reader
/// may fill, `filled` the filled ones in chunk order, so each buffer belongs to one
/// thread at a time.
private final class ChunkFeeder: @unchecked Sendable {
    // @unchecked: a buffer is touched only by the thread that took its index from a
    // hand-off; `held` and `taken` belong to the sealing thread.
    private let header: ChunkedHeader
    private let source: ChunkedFileWriter.Source
    private let buffers: [UnsafeMutableRawBufferPointer]
    /// Buffers the reader may fill; the sealing thread gives each back in ``release()``.
    private let free: BoundedHandoff<Int>
    /// Filled buffers in chunk order, then the end-of-source check's error, if any.
    private let filled: BoundedHandoff<Int>
    private let reader = WorkerThread()
    /// The buffer ``next()`` last returned, until ``release()``.
    private var held: Int?
    private var taken: UInt64 = 0

    init(header: ChunkedHeader, source: @escaping ChunkedFileWriter.Source) {
        self.header = header
        self.source = source
        buffers = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: max(header.chunkSize, 1), alignment: 16) }
        free = BoundedHandoff(capacity: buffers.count)
        filled = BoundedHandoff(capacity: buffers.count)
        // Neither waits nor throws: there is room for every buffer, and nothing cancelled.
        for buffer in buffers.indices { try! free.put(buffer) }
        reader.start { [self] in run() }
    }

    deinit {
        for buffer in buffers {
            secureZero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
    }

    private func run() {
        var total: UInt64 = 0
        do {
            for index in 0..<header.chunkCount {
                // nil: finish() came first.
                guard let buffer = try free.take() else { return }
                let want = header.plaintextLength(ofChunk: index)
                let got = try fill(UnsafeMutableRawBufferPointer(rebasing: buffers[buffer][0..<want]))
                total += UInt64(got)
                guard got == want else { throw StreamError.sizeMismatch(expected: header.totalSize, actual: total) }
                try filled.put(buffer)
            }
            // The source must be exhausted exactly at the declared size.
            var probe: UInt8 = 0
            if try withUnsafeMutableBytes(of: &probe, { try source($0) }) != 0 {
                throw StreamError.sizeMismatch(expected: header.totalSize, actual: total + 1)
            }
            filled.finish()
        } catch {
            filled.finish(throwing: error)
        }
    }

    /// The next chunk's plaintext; valid until ``release()``.
    func next() throws -> UnsafeRawBufferPointer {
        guard let buffer = try filled.take() else {
            preconditionFailure("ChunkFeeder: the reader ended before the header's last chunk")
        }
        held = buffer
        let index = taken
        taken += 1
        return UnsafeRawBufferPointer(rebasing: buffers[buffer][0..<header.plaintextLength(ofChunk: index)])
    }

    /// Hands the last chunk's buffer back for reading.
    func release() {
        guard let buffer = held else { return }
        held = nil
        // Never waits (there is room for every buffer); throws only after finish().
        try? free.put(buffer)
    }

    /// Waits for the end-of-source check.
    func end() throws {
        guard try filled.take() == nil else {
            preconditionFailure("ChunkFeeder: the reader read past the header's last chunk")
        }
    }

    /// Stops the reader thread and waits for it to leave, whatever state it is in: a
    /// reader waiting for a free buffer gets none, one about to hand a chunk over is
    /// refused it.
    func finish() {
        free.cancel()
        filled.cancel()
        reader.join()
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try source(UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }
}
