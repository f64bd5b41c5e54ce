import Foundation

/// Video metadata and poster frames through Debian's ffprobe, ffmpegthumbnailer and ffmpeg, reading the
/// source file where it already is: nothing is copied, no temporary file is written.
///
/// A file with no path of its own (an upload in an unlinked memory file) is handed to the
/// tools as their standard input, which they open again as ``standardInputPath``. They
/// cannot reach it through `/proc/PID/fd` of the server: a process that is not dumpable
/// (ProcessHardening) keeps its /proc entries from other users' processes, its own
/// children included.
public enum Video {
    /// The path a tool opens its standard input by.
    public static let standardInputPath = "/dev/stdin"

    /// What `ffprobe` says of a video.
    public struct Info: Sendable, Equatable {
        /// Duration in seconds.
        public var duration: Double?
        /// Width of the first video stream, in pixels.
        public var width: Int?
        /// Height of the first video stream, in pixels.
        public var height: Int?
        /// ffmpeg's name of the first video stream's codec (`h264`, `hevc`, ...).
        public var videoCodec: String?
        /// ffmpeg's name of the first audio stream's codec (`aac`, ...); nil when silent.
        public var audioCodec: String?
        /// Apple's content identifier (`com.apple.quicktime.content.identifier`), which the
        /// motion of a Live Photo shares with its photo (``LivePhoto``); nil when absent.
        public var contentIdentifier: String? = nil
    }

    /// Duration, display size and codecs, from `ffprobe`.
    ///
    /// - Parameter standardInput: the file to read when `path` is ``standardInputPath``.
    public static func probe(path: String, standardInput: Int32? = nil) throws -> Info {
        try info(ExternalTool.run(
            "ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path], standardInput: standardInput))
    }

    /// ``probe(path:standardInput:)`` of the bytes `feed` writes: a stream, which ffprobe
    /// reads from its start without seeking (a movie whose index comes last is fed
    /// rearranged, ``MovieLayout``).
    public static func probe(feeding feed: @escaping ExternalTool.Feed) throws -> Info {
        try info(ExternalTool.run(
            "ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "pipe:0"], feeding: feed))
    }

    private static func info(_ output: [UInt8]) throws -> Info {
        guard let json = try? JSONSerialization.jsonObject(with: Data(output)) as? [String: Any] else {
            throw ImagingError.toolFailed("ffprobe returned no metadata")
        }
        let streams = json["streams"] as? [[String: Any]] ?? []
        let video = streams.first { $0["codec_type"] as? String == "video" }
        let audio = streams.first { $0["codec_type"] as? String == "audio" }
        let format = json["format"] as? [String: Any]
        let duration = (format?["duration"] as? String).flatMap(Double.init)
        let tags = format?["tags"] as? [String: Any]
        return Info(duration: duration, width: video?["width"] as? Int, height: video?["height"] as? Int,
                    videoCodec: video?["codec_name"] as? String, audioCodec: audio?["codec_name"] as? String,
                    contentIdentifier: LivePhoto.identifier(tags?[LivePhoto.movieTag] as? String))
    }

    /// A JPEG poster frame, one second in (or the first frame of a shorter video), whose
    /// longest side is `maxSide`.
    ///
    /// `ffmpegthumbnailer` (libavcodec without ffmpeg's filter and device libraries) is
    /// tried first and its JPEG used as it is: the poster dominates the memory of a video
    /// import, and this way libvips is not even started (docs/BENCHMARKS.md). ffmpeg is
    /// the fallback, asked to do as little as it can (one decoder thread, key frames only,
    /// no probing beyond the container header, a frame already scaled down), then with
    /// full probing; its frame is scaled by ``Imaging/thumbnail(_:maxSide:pixelLimit:)``.
    /// `standardInput` is the file to read when `path` is ``standardInputPath``.
    public static func poster(path: String, maxSide: Int = Imaging.thumbnailSize, standardInput: Int32? = nil) throws -> [UInt8] {
        var missing = Set<String>()
        for seek in ["00:00:01", "0%"] where !missing.contains("ffmpegthumbnailer") {
            do {
                let jpeg = try ExternalTool.run(
                    "ffmpegthumbnailer", ["-i", path, "-o", "-", "-c", "jpeg", "-s", "\(maxSide)", "-t", seek],
                    standardInput: standardInput)
                if jpeg.starts(with: [0xFF, 0xD8]) { return jpeg }
            } catch ImagingError.toolMissing {
                missing.insert("ffmpegthumbnailer")
            } catch {
                continue
            }
        }
        let lean = ["-threads", "1", "-skip_frame", "nokey", "-probesize", "32", "-analyzeduration", "0"]
        for (options, seek) in [(lean, "1"), (lean, "0"), ([], "0")] {
            do {
                let frame = try ExternalTool.run("ffmpeg", ["-v", "error", "-nostdin"] + options + [
                    "-ss", seek, "-i", path, "-an", "-sn", "-dn", "-frames:v", "1",
                    "-vf", "scale='min(\(2 * maxSide),iw)':-2", "-threads", "1", "-filter_threads", "1",
                    "-f", "image2pipe", "-vcodec", "mjpeg", "-",
                ], standardInput: standardInput)
                if !frame.isEmpty { return try frame.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: maxSide) } }
            } catch ImagingError.toolMissing {
                throw ImagingError.toolMissing("ffmpeg")
            } catch {
                continue
            }
        }
        throw ImagingError.toolFailed("no video frame could be decoded")
    }
}
