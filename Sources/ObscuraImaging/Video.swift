import Foundation

/// Video metadata and poster frames through Debian's ffprobe, ffmpegthumbnailer and ffmpeg, reading the
/// source file where it already is: nothing is copied, no temporary file is written.
public enum Video {
    /// Duration in seconds and display size, from `ffprobe`.
    public static func probe(path: String) throws -> (duration: Double?, width: Int?, height: Int?) {
        let output = try ExternalTool.run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
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
    ///
    /// `ffmpegthumbnailer` (libavcodec without ffmpeg's filter and device libraries) is
    /// tried first: it needs the least memory, and the poster dominates the memory of a
    /// video import (docs/BENCHMARKS.md). ffmpeg is the fallback, asked to do as little
    /// as it can: one decoder thread, key frames only, no probing beyond the container
    /// header, a frame already scaled down; then, if that finds nothing, full probing.
    public static func poster(path: String, maxSide: Int = Imaging.thumbnailSize) throws -> [UInt8] {
        let size = "\(2 * maxSide)"
        var attempts: [(tool: String, arguments: [String])] = [
            ("ffmpegthumbnailer", ["-i", path, "-o", "-", "-c", "jpeg", "-s", size, "-t", "00:00:01"]),
            ("ffmpegthumbnailer", ["-i", path, "-o", "-", "-c", "jpeg", "-s", size, "-t", "0%"]),
        ]
        let lean = ["-threads", "1", "-skip_frame", "nokey", "-probesize", "32", "-analyzeduration", "0"]
        for (options, seek) in [(lean, "1"), (lean, "0"), ([], "0")] {
            attempts.append(("ffmpeg", ["-v", "error", "-nostdin"] + options + [
                "-ss", seek, "-i", path, "-an", "-sn", "-dn", "-frames:v", "1",
                "-vf", "scale='min(\(size),iw)':-2", "-threads", "1", "-filter_threads", "1",
                "-f", "image2pipe", "-vcodec", "mjpeg", "-",
            ]))
        }
        var missing = Set<String>()
        for attempt in attempts where !missing.contains(attempt.tool) {
            do {
                let frame = try ExternalTool.run(attempt.tool, attempt.arguments)
                if !frame.isEmpty { return try frame.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: maxSide) } }
            } catch ImagingError.toolMissing {
                missing.insert(attempt.tool)
            } catch {
                continue
            }
        }
        if missing.contains("ffmpeg") { throw ImagingError.toolMissing("ffmpeg") }
        throw ImagingError.toolFailed("no video frame could be decoded")
    }
}
