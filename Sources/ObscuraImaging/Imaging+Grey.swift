import CObscuraVips

/// A picture decoded to 8-bit grey, rows of ``width`` bytes: OCR's input
/// (docs/SEARCH.md §S2.3).
public struct GreyPicture: Sendable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// `width` × `height` bytes, top row first.
    public let pixels: [UInt8]
}

extension Imaging {
    /// The picture in `bytes` upright, its longest side at most `maxSide`, in grey: what
    /// the indexer reads text from (docs/SEARCH.md §S2.3). Everything stays in memory, as
    /// for thumbnails; the pixel limit is checked on the header before anything is decoded.
    ///
    /// - Throws: ``ImagingError/unsupported``, ``ImagingError/tooLarge(width:height:limit:)``,
    ///   or ``ImagingError/corrupt(_:)`` when the decode fails.
    public static func grey(
        _ bytes: UnsafeRawBufferPointer, maxSide: Int = previewSize, pixelLimit: Int = defaultPixelLimit
    ) throws -> GreyPicture {
        _ = try probe(bytes, pixelLimit: pixelLimit)
        var output: UnsafeMutableRawPointer?
        var width: Int32 = 0
        var height: Int32 = 0
        guard obscura_vips_grey(bytes.baseAddress!, bytes.count, Int32(maxSide), &output, &width, &height) == 0, let output
        else {
            throw ImagingError.corrupt(lastError())
        }
        defer { obscura_vips_free(output) }
        let count = Int(width) * Int(height)
        return GreyPicture(width: Int(width), height: Int(height),
                           pixels: Array(UnsafeRawBufferPointer(start: output, count: count)))
    }

    /// Leaves only the loaders of pictures OCR reads (JPEG, PNG, WebP, HEIF, TIFF, GIF, PDF,
    /// SVG) in this process: the indexer calls it once before its first picture, so that a
    /// crafted file cannot reach libvips's untrusted loaders (ImageMagick's among them).
    /// Anything else then reads as ``ImagingError/unsupported``.
    public static func allowPictureLoadersOnly() {
        _ = obscura_vips_allow_picture_loaders_only()
    }
}
