import Foundation
import ObscuraCrypto

/// Reads chunk plaintexts on a second thread, up to two chunks ahead, so that reading
/// (a kernel copy as costly as sealing on the machines measured) overlaps sealing and
/// writing. The source is only ever called from that thread, and never after `finish()`.
final class ChunkFeeder: @unchecked Sendable {
    // @unchecked: buffers alternate between the threads under the semaphores' handoff;
    // `error` and `stopped` are written before a signal and read after the matching wait.
    private let header: ChunkedHeader
    private let source: ChunkedFileWriter.Source
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let free = DispatchSemaphore(value: 2)
    private let ready = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private var error: Error?
    private var stopped = false
    private var taken: UInt64 = 0

    init(header: ChunkedHeader, source: @escaping ChunkedFileWriter.Source) {
        self.header = header
        self.source = source
        buffers = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: max(header.chunkSize, 1), alignment: 16) }
        let thread = Thread { [self] in run() }
        thread.start()
    }

    deinit {
        for buffer in buffers {
            secureZero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
    }

    private func run() {
        defer { exited.signal() }
        var total: UInt64 = 0
        for index in 0..<header.chunkCount {
            free.wait()
            if stopped { return }
            let want = header.plaintextLength(ofChunk: index)
            do {
                let got = try fill(UnsafeMutableRawBufferPointer(rebasing: buffers[Int(index % 2)][0..<want]))
                total += UInt64(got)
                guard got == want else { throw StreamError.sizeMismatch(expected: header.totalSize, actual: total) }
            } catch {
                self.error = error
                ready.signal()
                return
            }
            ready.signal()
        }
        // The source must be exhausted exactly at the declared size.
        var probe: UInt8 = 0
        do {
            if try withUnsafeMutableBytes(of: &probe, { try source($0) }) != 0 {
                error = StreamError.sizeMismatch(expected: header.totalSize, actual: total + 1)
            }
        } catch {
            self.error = error
        }
        ready.signal()
    }

    /// The next chunk's plaintext; valid until ``release()``.
    func next() throws -> UnsafeRawBufferPointer {
        ready.wait()
        if let error { throw error }
        let index = taken
        taken += 1
        return UnsafeRawBufferPointer(rebasing: buffers[Int(index % 2)][0..<header.plaintextLength(ofChunk: index)])
    }

    /// Hands the last chunk's buffer back for reading.
    func release() { free.signal() }

    /// Waits for the end-of-source check.
    func end() throws {
        ready.wait()
        if let error { throw error }
    }

    /// Stops the reader thread and waits for it to leave, whatever state it is in.
    func finish() {
        stopped = true
        free.signal()
        free.signal()
        exited.wait()
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

/// Seals chunks on a thread of its own, up to ``depth`` chunks ahead of the caller, fed by
/// a ``ChunkFeeder``: reading, sealing and the caller's writing then run on three threads
/// and overlap, where sealing and write(2) used to share one (docs/BENCHMARKS.md, "Export
/// and import"). Chunks still come out strictly in order, so the bytes are the same;
/// memory stays bounded by two plaintext and ``depth`` sealed chunks.
final class ChunkSealer: @unchecked Sendable {
    // @unchecked: each sealed buffer belongs either to the sealing thread or to the caller,
    // handed over by the semaphores; `error`, `hash` and `stopped` are written before a
    // signal and read after the matching wait.
    static let depth = 3
    private let cipher: ChunkCipher
    private let hashing: Bool
    private let feeder: ChunkFeeder
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let free = DispatchSemaphore(value: ChunkSealer.depth)
    private let ready = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private var error: Error?
    private var hash: [UInt8] = []
    private var stopped = false
    private var taken: UInt64 = 0

    init(cipher: ChunkCipher, hashing: Bool, source: @escaping ChunkedFileWriter.Source) {
        self.cipher = cipher
        self.hashing = hashing
        let header = cipher.header
        feeder = ChunkFeeder(header: header, source: source)
        buffers = (0..<Self.depth).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: header.chunkSize + header.chunkOverhead, alignment: 64)
        }
        let thread = Thread { [self] in run() }
        thread.start()
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    private func run() {
        defer { exited.signal() }
        // The feeder's thread is stopped by this one, the only thread that talks to it.
        defer { feeder.finish() }
        let header = cipher.header
        var hasher = SHA256Stream()
        do {
            for index in 0..<header.chunkCount {
                free.wait()
                if stopped { return }
                let plain = try feeder.next()
                if hashing { hasher.update(plain) }
                let slot = buffers[Int(index % UInt64(Self.depth))]
                try cipher.seal(plain, index: index, into: UnsafeMutableRawBufferPointer(rebasing: slot[0..<(plain.count + header.chunkOverhead)]))
                feeder.release()
                ready.signal()
            }
            try feeder.end()
            if hashing { hash = hasher.finalize() }
        } catch {
            self.error = error
        }
        ready.signal()
    }

    /// The next sealed chunk; valid until ``release()``.
    func next() throws -> UnsafeRawBufferPointer {
        ready.wait()
        if let error { throw error }
        let index = taken
        taken += 1
        let length = cipher.header.plaintextLength(ofChunk: index) + cipher.header.chunkOverhead
        return UnsafeRawBufferPointer(rebasing: buffers[Int(index % UInt64(Self.depth))][0..<length])
    }

    /// Hands the last sealed chunk's buffer back.
    func release() { free.signal() }

    /// Waits for the end-of-source check; returns SHA-256 of the plaintext when hashing.
    func end() throws -> [UInt8] {
        ready.wait()
        if let error { throw error }
        return hash
    }

    /// Stops the sealing thread (and with it the reader) and waits for it to leave.
    func finish() {
        stopped = true
        for _ in 0..<Self.depth { free.signal() }
        exited.wait()
    }
}
