import Foundation

extension ExternalTool {
    /// Writes a file's bytes, piece by piece, with the function it is given.
    public typealias Feed = (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void

    /// Runs `tool` like ``run(_:_:standardInput:)``, with the bytes `feed` writes as its
    /// standard input: bytes in memory, or an original decrypted chunk by chunk, reach the
    /// tool without a file.
    ///
    /// - Throws: what `feed` threw (a failed decryption outranks the tool's answer), then
    ///   what ``run(_:_:standardInput:)`` throws.
    public static func run(_ tool: String, _ arguments: [String], feeding feed: @escaping Feed) throws -> [UInt8] {
        var data = [UInt8]()
        try stream(tool, arguments, feeding: feed) { data += $0 }
        return data
    }

    /// Runs `tool` with the bytes `feed` writes as its standard input, handing its standard
    /// output to `output` piece by piece as it arrives (a transcode's output can be larger
    /// than memory), and each line of its standard error to `diagnostics` (or nowhere).
    ///
    /// `feed` runs on a thread of its own while `output` runs on the calling thread; both
    /// have ended when this returns. The bytes go through a socket pair rather than a pipe
    /// so that they are sent with `MSG_NOSIGNAL`: a tool that exits before reading
    /// everything (exiftool stops once it has what it was asked for) ends the feed quietly
    /// instead of killing this process with SIGPIPE. The tool reads its input as a stream:
    /// it cannot seek, and Linux will not let it open a socket again as /dev/stdin.
    ///
    /// When `feed` or `output` throws, the tool is killed: it must not finish on a cut
    /// input as if that were the whole file.
    ///
    /// - Throws: what `feed` threw, then what `output` threw, then
    ///   ``ImagingError/toolMissing(_:)`` or ``ImagingError/toolFailed(_:)``.
    public static func stream(
        _ tool: String, _ arguments: [String], feeding feed: @escaping Feed,
        diagnostics: (@Sendable (Substring) -> Void)? = nil, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let executable = locate(tool) else { throw ImagingError.toolMissing(tool) }
        var pair: [Int32] = [-1, -1]
        // Close-on-exec: no other child started meanwhile inherits either end, so the
        // tool sees the end of its input as soon as this process closes its end.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ImagingError.toolFailed("cannot connect to \(tool) (errno \(errno))")
        }
        let (ours, theirs) = (pair[0], pair[1])

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = diagnostics == nil ? FileHandle.nullDevice : err
        process.standardInput = FileHandle(fileDescriptor: theirs, closeOnDealloc: false)
        do {
            try process.run()
        } catch {
            close(ours)
            close(theirs)
            throw error
        }
        // Only the tool holds its end now: once it exits, a send fails (EPIPE) rather than
        // waiting for room forever.
        close(theirs)

        let feeder = Feeder(fd: ours, feed: feed, onError: { process.terminate() })
        let lines = diagnostics.map { LineReader(fd: err.fileHandleForReading.fileDescriptor, each: $0) }
        var failed: Error? = nil
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let fd = out.fileHandleForReading.fileDescriptor
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            do {
                try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            } catch {
                failed = error
                process.terminate()
                feeder.stop()
                // Drain, so that the tool is not left blocked on a full pipe.
                _ = readAll(fd)
                break
            }
        }
        let fed = feeder.wait()
        lines?.wait()
        withExtendedLifetime((out, err)) { process.waitUntilExit() }
        if let fed { throw fed }
        if let failed { throw failed }
        let name = (tool as NSString).lastPathComponent
        guard process.terminationReason == .exit else {
            throw ImagingError.toolKilled("\(name) was killed (signal \(process.terminationStatus))")
        }
        guard process.terminationStatus == 0 else {
            throw ImagingError.toolFailed("\(name) failed (exit \(process.terminationStatus))")
        }
    }

    private struct ToolStoppedReading: Error {}

    private static func send(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws {
        guard var at = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.send(fd, at, left, Int32(MSG_NOSIGNAL))
            if n > 0 {
                at += n
                left -= n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw ToolStoppedReading()
            }
        }
    }

    /// Runs a feed on a thread of its own into one end of the socket pair, and closes that
    /// end when the feed is done, so that the tool sees the end of its input.
    private final class Feeder: @unchecked Sendable {
        // @unchecked: `error` is written by the thread before it signals, read after the
        // wait; `open` is guarded by `lock`, so that `stop()` never shuts down a descriptor
        // number the thread has closed and something else has since been given.
        private var error: Error? = nil
        private let done = DispatchSemaphore(value: 0)
        private let fd: Int32
        private let lock = NSLock()
        private var open = true

        init(fd: Int32, feed: @escaping Feed, onError: @escaping @Sendable () -> Void) {
            self.fd = fd
            let body = UncheckedBox(feed)
            Thread { [self] in
                do {
                    try body.value { bytes in try ExternalTool.send(bytes, to: fd) }
                } catch is ToolStoppedReading {
                    // The tool had enough; its exit status says whether it succeeded.
                } catch {
                    self.error = error
                    onError()
                }
                lock.withLock {
                    close(fd)
                    open = false
                }
                done.signal()
            }.start()
        }

        /// Makes a send in progress, and every later one, fail.
        func stop() { lock.withLock { if open { _ = shutdown(fd, Int32(SHUT_RDWR)) } } }

        /// Waits for the feed to end; returns what it threw.
        func wait() -> Error? {
            done.wait()
            return error
        }
    }

    /// Reads a tool's standard error on a thread of its own, a line at a time.
    private final class LineReader: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)

        init(fd: Int32, each: @escaping @Sendable (Substring) -> Void) {
            Thread { [self] in
                var pending = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    pending += buffer[0..<n]
                    while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        each(Substring(decoding: pending[..<end], as: UTF8.self))
                        pending.removeSubrange(...end)
                    }
                }
                done.signal()
            }.start()
        }

        func wait() { done.wait() }
    }
}

/// A value handed to another thread that the caller keeps to itself meanwhile.
private final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
