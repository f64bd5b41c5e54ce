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
        /// When the movie was taken (docs/FORMAT.md §3.3, "Capture time"), read as
        /// ``ImageInfo/takenAt`` is: nil when the container names no time.
        public var takenAt: Date? = nil
    }

    /// Apple's capture time (QuickTime `keys`): the camera's local time with its zone.
    static let appleCreationDateTag = "com.apple.quicktime.creationdate"
    /// The container's creation time (`mvhd`), which ffprobe gives in UTC.
    static let creationTimeTag = "creation_time"

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
                    contentIdentifier: LivePhoto.identifier(tags?[LivePhoto.movieTag] as? String),
                    takenAt: captureDate(formatTags: tags, streamTags: video?["tags"] as? [String: Any]))
    }

    /// The capture time of a movie (docs/FORMAT.md §3.3, "Capture time"). Apple's
    /// creation date comes first: its digits are the camera's local time, which is how a
    /// photo's EXIF time is read too (``Imaging/exifDate(_:)``, its zone dropped), so a
    /// phone's stills and movies of one moment sort together. Otherwise the container's
    /// `creation_time`, in UTC, from the file or else from its video stream. The
    /// QuickTime and Unix epochs are what muxers write when they know no time: no date.
    static func captureDate(formatTags: [String: Any]?, streamTags: [String: Any]?) -> Date? {
        let candidates = [formatTags?[appleCreationDateTag], formatTags?[creationTimeTag], streamTags?[creationTimeTag]]
        for case let text as String in candidates {
            if let date = isoWallClock(text), !noTimeDates.contains(date) { return date }
        }
        return nil
    }

    /// 1904-01-01 and 1970-01-01 at midnight, the zero times of QuickTime and of Unix.
    private static let noTimeDates: Set<Date> = [Date(timeIntervalSince1970: -2_082_844_800), Date(timeIntervalSince1970: 0)]

    /// The date and time of an ISO 8601 text (`2024-07-20T16:03:11+0200`,
    /// `2024-07-20T14:03:11.000000Z`) as UTC, whatever zone follows the seconds.
    static func isoWallClock(_ text: String) -> Date? {
        let head = Array(text.utf8.prefix(19))
        guard head.count == 19, head[4] == UInt8(ascii: "-"), head[7] == UInt8(ascii: "-"),
              head[10] == UInt8(ascii: "T") || head[10] == UInt8(ascii: " "),
              head[13] == UInt8(ascii: ":"), head[16] == UInt8(ascii: ":") else { return nil }
        var exif = head
        (exif[4], exif[7], exif[10]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: " "))
        return Imaging.exifDate(String(decoding: exif, as: UTF8.self))
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
                let frame = try ExternalTool.run(
                    "ffmpeg", ["-v", "error", "-nostdin"] + options + ["-ss", seek, "-i", path] + frameOutput(maxSide: maxSide),
                    standardInput: standardInput)
                if !frame.isEmpty { return try frame.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: maxSide) } }
            } catch ImagingError.toolMissing {
                throw ImagingError.toolMissing("ffmpeg")
            } catch {
                continue
            }
        }
        throw ImagingError.toolFailed("no video frame could be decoded")
    }

    /// ffmpeg's arguments after its input for a poster: one frame, no other stream, scaled
    /// to twice the poster's side on one thread, as a JPEG on standard output.
    private static func frameOutput(maxSide: Int) -> [String] {
        ["-an", "-sn", "-dn", "-frames:v", "1", "-vf", "scale='min(\(2 * maxSide),iw)':-2", "-threads", "1", "-filter_threads", "1",
         "-f", "image2pipe", "-vcodec", "mjpeg", "-"]
    }

    /// ``poster(path:maxSide:standardInput:)`` of the bytes `feed` writes (a movie whose
    /// index comes last is fed rearranged, ``MovieLayout``). Only ffmpeg reads a stream:
    /// ffmpegthumbnailer seeks to its offset, which a stream refuses. The second in is
    /// reached by decoding up to it (an output-side skip), one thread, key frames only;
    /// then the first frame; then the same with every frame decoded. Each try feeds the
    /// stream again from its start, and ffmpeg stops reading once it has its frame.
    ///
    /// - Throws: what `feed` threw (a failed decryption, a lock) before any tool's answer;
    ///   ``ImagingError/toolMissing(_:)`` without ffmpeg.
    public static func poster(feeding feed: @escaping ExternalTool.Feed, maxSide: Int = Imaging.thumbnailSize) throws -> [UInt8] {
        let lean = ["-threads", "1", "-skip_frame", "nokey"]
        for (options, seek) in [(lean, "1"), (lean, "0"), ([], "0")] {
            do {
                let frame = try ExternalTool.run(
                    "ffmpeg", ["-v", "error"] + options + ["-i", "pipe:0", "-ss", seek] + frameOutput(maxSide: maxSide), feeding: feed)
                if !frame.isEmpty { return try frame.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: maxSide) } }
            } catch ImagingError.toolMissing {
                throw ImagingError.toolMissing("ffmpeg")
            } catch is ImagingError {
                continue
            }
        }
        throw ImagingError.toolFailed("no video frame could be decoded")
    }
}
