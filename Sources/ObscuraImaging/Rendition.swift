import Foundation

/// A browser-playable copy of a video that browsers cannot play as it is: phones record
/// H.265 (HEVC), which Chromium on Linux and Firefox do not decode.
///
/// The rendition is H.264 and AAC in MP4, at most 1080p, made by ffmpeg from the original
/// fed through a socket, and written by ffmpeg to a pipe: no byte of either touches a
/// file. A pipe cannot be rewound, so the MP4 is fragmented (an empty `moov` first, then a
/// fragment every key frame, two seconds or 1 MiB (one frame, if larger), and a `mfra`
/// index at the end): a browser can start it before the end arrives, as `faststart` would
/// allow, and seeks by HTTP Range.
public enum Rendition {
    /// Video codecs every browser the gallery supports plays in MP4 or WebM.
    public static let playableVideo: Set<String> = ["h264", "vp8", "vp9", "av1"]
    /// Audio codecs likewise.
    public static let playableAudio: Set<String> = ["aac", "mp3", "opus", "vorbis", "flac"]

    /// The rendition's longest side, and its shortest: 1080p in either orientation.
    public static let longSide = 1920
    /// See ``longSide``.
    public static let shortSide = 1080

    /// The rendition's MIME type.
    public static let mimeType = "video/mp4"

    /// Whether a video of these codecs needs a rendition; one that ffprobe could not read
    /// gets none (there is nothing to make it from).
    public static func isNeeded(_ info: Video.Info) -> Bool {
        guard let video = info.videoCodec else { return false }
        return !playableVideo.contains(video) || info.audioCodec.map { !playableAudio.contains($0) } == true
    }

    /// ffmpeg's arguments: its input on standard input, the MP4 on standard output, its
    /// progress (`key=value` lines) on standard error.
    ///
    /// Memory decides the settings as much as speed (docs/BENCHMARKS.md, "Renditions"):
    /// one decoder thread; x264's `zerolatency` tuning, which keeps no frames for
    /// look-ahead or B-frames (about 150 MB less at 1080p than the `veryfast` preset alone,
    /// for a rendition about twice as large at the same quality); whole-pixel motion search
    /// (`subme=0`), which spares x264 three half-pixel planes per frame (about 10 MB at
    /// 1080p, for a rendition a fifth to three fifths larger, with the picture); and
    /// fragments cut at 1 MiB, since the muxer holds a whole fragment: two seconds of a
    /// high bit rate would be tens of MB.
    public static func arguments(input: String = "pipe:0") -> [String] {
        let box = "if(gte(iw,ih),\(longSide),\(shortSide))"
        let boxHeight = "if(gte(iw,ih),\(shortSide),\(longSide))"
        return [
            "-hide_banner", "-nostdin", "-v", "error", "-nostats", "-progress", "pipe:2",
            "-threads", "1", "-i", input,
            "-map", "0:v:0", "-map", "0:a:0?", "-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1",
            "-filter_threads", "1",
            "-vf", "scale=w='min(iw,\(box))':h='min(ih,\(boxHeight))':force_original_aspect_ratio=decrease:force_divisible_by=2,format=yuv420p",
            "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-crf", "23", "-profile:v", "high",
            "-x264-params", "threads=2:subme=0",
            "-c:a", "aac", "-b:a", "160k", "-ac", "2",
            "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-frag_duration", "2000000", "-frag_size", "1048576",
            "-f", "mp4", "pipe:1",
        ]
    }

    /// Makes the rendition of the movie `feed` writes, handing the MP4 to `output` as
    /// ffmpeg writes it, and the share done (0...1, from ffmpeg's progress against
    /// `duration`) to `progress`.
    ///
    /// - Throws: what `feed` or `output` threw, ``ImagingError/toolMissing(_:)``, or
    ///   ``ImagingError/toolFailed(_:)`` when ffmpeg cannot make it.
    public static func make(
        feeding feed: @escaping ExternalTool.Feed, duration: Double?,
        progress: @escaping @Sendable (Double) -> Void, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let reached = Reached()
        try ExternalTool.stream("ffmpeg", arguments(), feeding: feed, diagnostics: { line in
            // `out_time_us` is the output's position in microseconds.
            guard line.hasPrefix("out_time_us="), let us = Double(line.dropFirst("out_time_us=".count)) else { return }
            reached.seconds = us / 1e6
            guard let duration, duration > 0 else { return }
            progress(min(max(us / 1e6 / duration, 0), 1))
        }, output: output)
        // ffmpeg reading a pipe ends without an error when it cannot reach the samples (an
        // index behind junk it could not skip): an MP4 with no frames, or a stub of the
        // video, is no rendition.
        guard reached.seconds > 0 else { throw ImagingError.toolFailed("ffmpeg wrote no frame") }
        if let duration, duration > 1, reached.seconds < duration / 2 {
            throw ImagingError.toolFailed("ffmpeg wrote \(Int(reached.seconds)) s of \(Int(duration)) s")
        }
    }

    /// How far ffmpeg's output got, written by its progress reader.
    private final class Reached: @unchecked Sendable {
        // @unchecked: written by the progress thread, read after ffmpeg has exited and
        // that thread has ended (ExternalTool.stream waits for it).
        var seconds: Double = 0
    }
}
