import CObscuraVips
import Foundation

/// What a header-only probe learns about an image.
public struct ImageInfo: Sendable, Equatable {
    /// Stored pixel width (before EXIF rotation).
    public var width: Int
    /// Stored pixel height (one page of a multi-page image).
    public var height: Int
    /// EXIF orientation, 1...8; 1 when absent.
    public var orientation: Int
    /// "jpeg", "png", "heif", "webp", "gif", "tiff", or libvips's loader name otherwise.
    public var format: String
    /// EXIF DateTimeOriginal, read as UTC (EXIF carries no zone); nil if absent or invalid.
    public var takenAt: Date?
    /// EXIF GPS latitude in decimal degrees, north positive; nil unless the image holds a
    /// valid position (``longitude`` is then set too; see `GPS.coordinates`).
    public var latitude: Double?
    /// EXIF GPS longitude in decimal degrees, east positive; nil exactly when ``latitude`` is.
    public var longitude: Double?
    /// Apple's content identifier (the MakerNote's tag 0x0011), which a Live Photo's
    /// still shares with its motion (``LivePhoto``); nil when absent.
    public var contentIdentifier: String? = nil
}

/// Image probing and thumbnails through libvips, entirely in memory.
public enum Imaging {
    /// Longest side of a grid thumbnail.
    public static let thumbnailSize = 256
    /// Longest side of a viewer preview.
    public static let previewSize = 1440
    /// Images with more pixels than this are refused before decoding (a 100-megapixel
    /// RGBA image is 400 MB decoded).
    public static let defaultPixelLimit = 100_000_000

    /// Reads the header of the image in `bytes`; never decodes pixels. Its
    /// ``ImageInfo/contentIdentifier`` is read only when `readingContentIdentifier` is set
    /// (an import): the EXIF block is copied and walked for it, which the checks before a
    /// thumbnail or a preview do not need.
    ///
    /// - Throws: ``ImagingError/unsupported`` for data libvips cannot read, and
    ///   ``ImagingError/tooLarge(width:height:limit:)`` over `pixelLimit`.
    public static func probe(
        _ bytes: UnsafeRawBufferPointer, pixelLimit: Int = defaultPixelLimit, readingContentIdentifier: Bool = false
    ) throws -> ImageInfo {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw ImagingError.unsupported }
        var raw = obscura_vips_info()
        guard obscura_vips_probe(base, bytes.count, readingContentIdentifier ? 1 : 0, &raw) == 0 else {
            _ = lastError()
            throw ImagingError.unsupported
        }
        defer { obscura_vips_free(raw.exif) }
        let exif = raw.exif.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: raw.exif_length)) } ?? []
        let position = GPS.coordinates(
            latitude: string(raw.gps_latitude), latitudeRef: string(raw.gps_latitude_ref),
            longitude: string(raw.gps_longitude), longitudeRef: string(raw.gps_longitude_ref))
        let info = ImageInfo(
            width: Int(raw.width), height: Int(raw.height), orientation: Int(raw.orientation),
            format: format(fromLoader: string(raw.loader)), takenAt: exifDate(string(raw.date_taken)),
            latitude: position?.latitude, longitude: position?.longitude,
            contentIdentifier: LivePhoto.identifier(exif: exif))
        let pixels = info.width.multipliedReportingOverflow(by: info.height)
        guard !pixels.overflow, pixels.partialValue <= pixelLimit else {
            throw ImagingError.tooLarge(width: info.width, height: info.height, limit: pixelLimit)
        }
        return info
    }

    /// A JPEG thumbnail, upright (EXIF orientation applied), longest side at most
    /// `maxSide`. The pixel limit is checked on the header before anything is decoded.
    public static func thumbnail(
        _ bytes: UnsafeRawBufferPointer, maxSide: Int = thumbnailSize, pixelLimit: Int = defaultPixelLimit
    ) throws -> [UInt8] {
        _ = try probe(bytes, pixelLimit: pixelLimit)
        var output: UnsafeMutableRawPointer?
        var length = 0
        guard obscura_vips_thumbnail(bytes.baseAddress!, bytes.count, Int32(maxSide), &output, &length) == 0,
              let output
        else {
            throw ImagingError.corrupt(lastError())
        }
        defer { obscura_vips_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }

    /// libvips's error text, cleared after reading. The buffer is process-wide and keeps
    /// warnings from calls that went on to succeed (heifload's "bad seek", for one), so
    /// the last line, the newest, is the one most likely to be this call's.
    static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 8192)
        obscura_vips_last_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").last.map(String.init) ?? "unreadable image"
    }

    /// Bytes above which libvips would decode into a temporary file (set out of reach).
    static var discThreshold: Int64 { Int64(obscura_vips_disc_threshold()) }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func format(fromLoader loader: String) -> String {
        for (prefix, name) in [("jpeg", "jpeg"), ("png", "png"), ("heif", "heif"), ("webp", "webp"),
                               ("gif", "gif"), ("tiff", "tiff")] where loader.hasPrefix(prefix) {
            return name
        }
        return loader
    }

    /// Parses "2023:07:14 18:32:05 (2023:07:14 18:32:05, ASCII, ...)": the part before the
    /// first space-parenthesis, as UTC.
    static func exifDate(_ text: String) -> Date? {
        let value = text.components(separatedBy: " (").first ?? ""
        let parts = value.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard parts.count == 6, parts[0] > 1800, (1...12).contains(parts[1]), (1...31).contains(parts[2]),
              (0...23).contains(parts[3]), (0...59).contains(parts[4]), (0...60).contains(parts[5])
        else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        (components.hour, components.minute, components.second) = (parts[3], parts[4], parts[5])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }
}
