import Foundation

extension ExternalTool {
    /// Writes a file's bytes, piece by piece, with the function it is given.
    public typealias Feed = (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void

    /// Runs `tool` like ``run(_:_:standardInput:)``, with the bytes `feed` writes as its
    /// standard input: bytes in memory, or an original decrypted chunk by chunk, reach the
    /// tool without a file. `feed` runs on the calling thread while another reads the
    /// tool's output.
    ///
    /// The bytes go through a socket pair rather than a pipe so that they are sent with
    /// `MSG_NOSIGNAL`: a tool that exits before reading everything (exiftool stops once it
    /// has what it was asked for) ends the feed quietly instead of killing this process
    /// with SIGPIPE. The tool reads its input as a stream: it cannot seek, and Linux will
    /// not let it open a socket again as /dev/stdin.
    ///
    /// - Throws: what `feed` threw (a failed decryption outranks the tool's answer), then
    ///   what ``run(_:_:standardInput:)`` throws.
    public static func run(_ tool: String, _ arguments: [String], feeding feed: Feed) throws -> [UInt8] {
        guard let executable = locate(tool) else { throw ImagingError.toolMissing(tool) }
        var pair: [Int32] = [-1, -1]
        // Close-on-exec: no other child started meanwhile inherits either end, so the
        // tool sees the end of its input as soon as this process closes its end.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ImagingError.toolFailed("cannot connect to \(tool) (errno \(errno))")
        }
        let (ours, theirs) = (pair[0], pair[1])
        var oursOpen = true
        defer { if oursOpen { close(ours) } }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle(fileDescriptor: theirs, closeOnDealloc: false)
        do {
            try process.run()
        } catch {
            close(theirs)
            throw error
        }
        // Only the tool holds its end now: once it exits, a send fails (EPIPE) rather than
        // waiting for room forever.
        close(theirs)

        let reader = OutputReader(fd: output.fileHandleForReading.fileDescriptor)
        var fed: Error? = nil
        do {
            try feed { bytes in try send(bytes, to: ours) }
        } catch is ToolStoppedReading {
            // The tool had enough; its exit status says whether it succeeded.
        } catch {
            fed = error
        }
        close(ours)
        oursOpen = false
        let data = withExtendedLifetime(output) { reader.wait() }
        process.waitUntilExit()
        if let fed { throw fed }
        guard process.terminationStatus == 0 else {
            throw ImagingError.toolFailed("\((tool as NSString).lastPathComponent) failed (exit \(process.terminationStatus))")
        }
        return data
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

    /// Reads a tool's output to its end on a thread of its own, so that the caller can
    /// write to the tool meanwhile (each side would otherwise wait for the other).
    private final class OutputReader: @unchecked Sendable {
        // @unchecked: `data` is written by the thread before it signals, read after the wait.
        private var data: [UInt8] = []
        private let done = DispatchSemaphore(value: 0)

        init(fd: Int32) {
            Thread { [self] in
                data = ExternalTool.readAll(fd)
                done.signal()
            }.start()
        }

        func wait() -> [UInt8] {
            done.wait()
            return data
        }
    }
}
