import Foundation
import ObscuraImaging
import ObscuraStore

/// Why a file was not imported, said twice: plainly, for the person who added it (the
/// gallery shows `message`), and with the technical detail, for a log or the CLI's
/// report (`detail`, which may quote libvips or ffprobe). Neither holds the file's name
/// or any of its bytes.
public struct ImportFailure: Sendable, Equatable, CustomStringConvertible {
    /// A sentence fit to show anyone: no library names, no codes.
    public var message: String
    /// What went wrong, as the tools said it.
    public var detail: String
    /// Whether the file itself was refused (damaged, unsupported, too large), so that
    /// trying it again would fail again; false for a failure of the moment (a full disk,
    /// a permission, a missing or killed tool). A drop is removed only for the first kind.
    public var isRefusal: Bool

    /// A failure with its own two texts: a refusal of the file, unless said otherwise.
    public init(_ message: String, detail: String, isRefusal: Bool = true) {
        self.message = message
        self.detail = detail
        self.isRefusal = isRefusal
    }

    /// The failure `error` describes.
    public init(_ error: Error) {
        isRefusal = false
        switch error {
        case let error as ImagingError:
            detail = "not imported: \(error)"
            switch error {
            case .toolMissing, .toolKilled: isRefusal = false
            default: isRefusal = true
            }
            switch error {
            case .unsupported: message = "This image cannot be read: it is damaged, or in a format Obscura does not know."
            case .corrupt: message = "This image is damaged or incomplete, so it was not added."
            case let .tooLarge(width, height, limit):
                message = "This image is too large: \(width) × \(height) pixels is over the \(limit / 1_000_000)-megapixel limit."
            case .toolMissing, .toolFailed, .toolKilled, .corruptMovie: message = "This video could not be read, so it was not added."
            }
        case let error as StorageError where error.code == EACCES:
            detail = "cannot read: permission denied"
            message = "The file could not be read: permission denied."
        case let error as CustomStringConvertible:
            detail = error.description
            message = "The file could not be added."
        default:
            detail = "\(error)"
            message = "The file could not be added."
        }
    }

    /// The detail, as reports and logs print a failure.
    public var description: String { detail }
}
