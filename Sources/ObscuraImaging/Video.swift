import Foundation

/// Video metadata and poster frames through Debian's ffprobe and ffmpeg, reading the
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
    public static func poster(path: String, maxSide: Int = Imaging.thumbnailSize) throws -> [UInt8] {
        var frame = [UInt8]()
        for seek in ["1", "0"] {
            frame = try ExternalTool.run("ffmpeg", ["-v", "error", "-nostdin", "-ss", seek, "-i", path, "-frames:v", "1",
                                       "-f", "image2pipe", "-vcodec", "mjpeg", "-"])
            if !frame.isEmpty { break }
        }
        guard !frame.isEmpty else { throw ImagingError.toolFailed("ffmpeg found no video frame") }
        return try frame.withUnsafeBytes { try Imaging.thumbnail($0, maxSide: maxSide) }
    }
}
