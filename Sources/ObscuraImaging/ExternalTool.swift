import Foundation

/// Runs the helper programs imaging relies on (ffmpeg, ffprobe) and captures their output.
public enum ExternalTool {
    /// Runs `tool` (a name looked up on PATH, or an absolute path) and returns its
    /// standard output. Standard input is `standardInput` when given (the tool may open
    /// it again as `/dev/stdin`), else empty; standard error is discarded.
    ///
    /// - Throws: ``ImagingError/toolMissing(_:)`` when it is not installed, and
    ///   ``ImagingError/toolFailed(_:)`` when it exits with a non-zero status.
    public static func run(_ tool: String, _ arguments: [String], standardInput: Int32? = nil) throws -> [UInt8] {
        guard let executable = locate(tool) else { throw ImagingError.toolMissing(tool) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = standardInput.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) }
            ?? FileHandle.nullDevice
        try process.run()
        let data = readAll(output.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ImagingError.toolFailed("\((tool as NSString).lastPathComponent) failed (exit \(process.terminationStatus))")
        }
        return data
    }

    /// The path of `tool`: as given when it has a `/`, else the first executable of that
    /// name on `PATH` (and `/usr/bin`); nil when there is none.
    ///
    /// - Parameter searchPath: the list to search, `PATH`'s form (the process's `PATH`
    ///   unless a test names another).
    package static func locate(_ tool: String, searchPath: String? = nil) -> String? {
        if tool.contains("/") { return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil }
        let list = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        // Each entry as a String: with `+ ["/usr/bin"]` the compiler chose Sequence's
        // split, whose [Character] slices interpolated as `["u", "s", "r"]`, so only
        // the built-in /usr/bin was ever searched (an outside review). Relative entries,
        // and the empty one that means the working directory, are passed over: a tool
        // fed a vault's plaintext must not be one planted where the command started.
        let entries: [String] = list.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") } + ["/usr/bin"]
        return entries.map { $0 + "/" + tool }.first(where: FileManager.default.isExecutableFile)
    }

    /// Reads a pipe to its end, retrying reads a signal interrupted (Foundation's
    /// `readDataToEndOfFile` traps on EINTR, which child processes make likely).
    static func readAll(_ fd: Int32) -> [UInt8] {
        var out = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n > 0 { out += buffer[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            return out
        }
    }
}
