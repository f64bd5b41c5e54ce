import ObscuraCrypto

/// Errors from probing and thumbnailing. Messages never include image bytes.
public enum ImagingError: ObscuraError, Equatable {
    /// Not an image format this build can read.
    case unsupported
    /// The image could not be decoded (damaged or truncated).
    case corrupt(String)
    /// The image has more pixels than the limit; it was not decoded.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A movie's boxes could not be read (damaged, or laid out beyond what is supported).
    case corruptMovie(String)
    /// A helper program (ffmpeg, ffprobe) is not installed.
    case toolMissing(String)
    /// A helper program failed.
    case toolFailed(String)
    /// A helper program was killed by a signal (out of memory, say): not a verdict on
    /// its input.
    case toolKilled(String)

    public var description: String {
        switch self {
        case .unsupported: return "not an image this version can read"
        case let .corrupt(why): return "damaged or truncated image (\(why))"
        case let .corruptMovie(why): return "damaged or truncated video (\(why))"
        case let .tooLarge(w, h, limit):
            return "image too large: \(w)x\(h) is over the \(limit / 1_000_000)-megapixel limit"
        case let .toolMissing(tool): return "\(tool) is not installed"
        case let .toolFailed(why), let .toolKilled(why): return why
        }
    }
}
