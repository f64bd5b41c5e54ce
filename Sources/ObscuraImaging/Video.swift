import Foundation

/// Video metadata and poster frames through Debian's ffprobe and ffmpeg, reading the
/// source file where it already is: nothing is copied, no temporary file is written.
public enum Video {
    /// Duration in seconds and display size, from `ffprobe`.
    public static func probe(path: String) throws -> (duration: Double?, width: Int?, height: Int?) {
        let output = try run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
        guard let json = try? JSONSerialization.jsonObject(with: Data(output)) as? [String: Any] else {
            throw ImagingError.toolFailed("ffprobe returned no metadata")
        }
        let streams = json["streams"] as? [[String: Any]] ?? []
        let video = streams.first { $0["codec_type"] as? String == "video" }
        let format = json["format"] as? [String: Any]
        let duration = (format?["duration"] as? String).flatMap(Double.init)
        return (duration, video?["width"] as? Int, video?["height"] as? Int)
    }

    /// A JPEG poster frame, one second in (or the first frame of a shorter video), scaled
    /// to `maxSide` by ``Imaging/thumbnail(_:maxSide:pixelLimit:)``.
    public static func poster(path: String, maxSide: Int = Imaging.thumbnailSize) throws -> [UInt8] {
        var frame = [UInt8]()
        for seek in ["1", "0"] {
            frame = try run("ffmpeg", ["-v", "error", "-nostdin", "-ss", seek, "-i", path, "-frames:v", "1",
                                       "-f", "image2pipe", "-vcodec", "mjpeg", "-"])
            if !frame.isEmpty { break }
        }
        guard !frame.isEmpty else { throw ImagingError.toolFailed("ffmpeg found no video frame") }
        return try frame.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: maxSide) }
    }

    /// Runs a tool found on PATH and returns its standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> [UInt8] {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"]
        guard let executable = paths.map({ "\($0)/\(tool)" }).first(where: FileManager.default.isExecutableFile) else {
            throw ImagingError.toolMissing(tool)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = readAll(output.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ImagingError.toolFailed("\(tool) could not read the video (exit \(process.terminationStatus))")
        }
        return data
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

