import CObscuraVips

extension Imaging {
    /// A JPEG thumbnail like ``thumbnail(_:maxSide:pixelLimit:)``, but turned upright by
    /// `orientation` (EXIF, 1...8) rather than by the image's own EXIF: a camera RAW's
    /// embedded preview has the sensor's pixels and the orientation is the RAW's tag, which
    /// the preview may lack or contradict.
    public static func thumbnail(
        _ bytes: UnsafeRawBufferPointer, maxSide: Int, orientation: Int, pixelLimit: Int = defaultPixelLimit
    ) throws -> [UInt8] {
        _ = try probe(bytes, pixelLimit: pixelLimit)
        var output: UnsafeMutableRawPointer?
        var length = 0
        guard obscura_vips_thumbnail_oriented(bytes.baseAddress!, bytes.count, Int32(maxSide), Int32(orientation),
                                              &output, &length) == 0,
              let output
        else {
            throw ImagingError.corrupt(lastError())
        }
        defer { obscura_vips_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }
}
