import Foundation

/// Camera RAW files (DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2): their capture metadata
/// and the JPEG preview the camera embedded, read by `exiftool` (Debian's
/// libimage-exiftool-perl) from its standard input. The sensor data itself is never
/// decoded: the largest embedded JPEG is the picture Obscura shows, turned by the RAW's
/// orientation tag.
public enum RawImage {
    /// The RAW formats Obscura recognises by their first bytes.
    public static let mimeTypes: Set<String> = [
        "image/x-adobe-dng", "image/x-canon-cr2", "image/x-canon-cr3", "image/x-nikon-nef",
        "image/x-sony-arw", "image/x-fuji-raf", "image/x-olympus-orf", "image/x-panasonic-rw2",
    ]

    /// Whether `mimeType` names a camera RAW format.
    public static func isRaw(_ mimeType: String) -> Bool { mimeTypes.contains(mimeType) }

    /// Where exiftool reads the file from; either way no byte of it is written to a file.
    public enum Source {
        /// An open file, given to exiftool as its standard input and read from where its
        /// offset stands (the caller seeks to 0 first).
        case descriptor(Int32)
        /// The bytes `feed` writes (see ``ExternalTool/run(_:_:feeding:)``).
        case stream(ExternalTool.Feed)
    }

    /// What exiftool found in a RAW file.
    public struct Info: Sendable {
        /// The sensor's image size, before orientation (not the preview's).
        public var width: Int?
        /// The sensor's image height, before orientation.
        public var height: Int?
        /// EXIF orientation, 1...8; 1 when absent.
        public var orientation: Int = 1
        /// EXIF DateTimeOriginal, read as UTC like ``ImageInfo/takenAt``.
        public var takenAt: Date?
        /// EXIF GPS latitude in decimal degrees, north positive, as for ``ImageInfo/latitude``.
        public var latitude: Double?
        /// EXIF GPS longitude in decimal degrees, east positive; nil exactly when ``latitude`` is.
        public var longitude: Double?
        /// The largest embedded JPEG that libvips reads within the pixel limit; nil when
        /// the file embeds none.
        public var preview: [UInt8]?
        /// Whether the file's first image (IFD0 of a TIFF-based RAW, the one libvips would
        /// load) is an ordinary picture rather than sensor data: the fallback for a RAW
        /// without a preview (a DNG converted from an old camera, say).
        public var firstImageIsPicture = false
    }

    /// The embedded images exiftool can extract, by its names.
    static let previewTags = ["JpgFromRaw", "PreviewImage", "OtherImage", "ThumbnailImage"]

    /// Reads the metadata and embedded previews of the RAW file `source` in one exiftool run
    /// (a RAW is read once, however many previews it holds).
    ///
    /// - Throws: ``ImagingError/toolMissing(_:)`` without exiftool;
    ///   ``ImagingError/corrupt(_:)`` when exiftool cannot read the file, or an embedded
    ///   preview it names is cut short or damaged; ``ImagingError/tooLarge(width:height:limit:)``
    ///   when every preview is over `pixelLimit`.
    public static func inspect(_ source: Source, pixelLimit: Int = Imaging.defaultPixelLimit) throws -> Info {
        // -config "": no user configuration file changes what is read; -n: numbers, not
        // descriptions; -b: embedded images as base64 in the JSON.
        let arguments = ["-config", "", "-j", "-n", "-b"]
            + (previewTags + ["Orientation", "ImageSize", "ImageWidth", "ImageHeight", "DateTimeOriginal", "GPSLatitude", "GPSLongitude",
                              "IFD0:PhotometricInterpretation", "Warning", "Error"]).map { "-" + $0 }
            + ["-"]
        let output: [UInt8]
        do {
            switch source {
            case let .descriptor(fd): output = try ExternalTool.run("exiftool", arguments, standardInput: fd)
            case let .stream(feed): output = try ExternalTool.run("exiftool", arguments, feeding: feed)
            }
        } catch let ImagingError.toolFailed(why) {
            throw ImagingError.corrupt("exiftool cannot read this RAW file: \(why)")
        }
        guard let list = try? JSONSerialization.jsonObject(with: Data(output)) as? [[String: Any]], let tags = list.first else {
            throw ImagingError.corrupt("exiftool returned no metadata")
        }
        return try info(from: tags, pixelLimit: pixelLimit)
    }

    /// ``inspect(_:pixelLimit:)``'s reading of exiftool's JSON object.
    static func info(from tags: [String: Any], pixelLimit: Int) throws -> Info {
        if let error = tags["Error"] as? String { throw ImagingError.corrupt("exiftool: \(error)") }
        var info = Info()
        if let size = (tags["ImageSize"] as? String)?.split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap({ Int($0) }),
           size.count == 2 {
            (info.width, info.height) = (size[0], size[1])
        } else {
            (info.width, info.height) = (number(tags["ImageWidth"]), number(tags["ImageHeight"]))
        }
        if let orientation = number(tags["Orientation"]), (1...8).contains(orientation) { info.orientation = orientation }
        info.takenAt = (tags["DateTimeOriginal"] as? String).flatMap(Imaging.exifDate)
        // With -n, exiftool's composite GPSLatitude and GPSLongitude are signed degrees.
        let position = GPS.coordinates(latitude: tags["GPSLatitude"] as? Double, longitude: tags["GPSLongitude"] as? Double)
        (info.latitude, info.longitude) = (position?.latitude, position?.longitude)
        // TIFF photometric interpretations of pictures: white- or black-is-zero, RGB,
        // YCbCr. Sensor data is CFA (32803) or LinearRaw (34892).
        info.firstImageIsPicture = number(tags["PhotometricInterpretation"]).map { [0, 1, 2, 6].contains($0) } ?? false

        // A preview that lies past the end of a cut-off file: exiftool keeps its length and
        // warns "Error reading PreviewImage from file". (One that is not a JPEG at all it
        // leaves out, warning "not a valid JPEG image": that RAW just has no preview.)
        var damaged = (tags["Warning"] as? String)?.contains("Error reading") == true
        var candidates = [[UInt8]]()
        for tag in previewTags {
            guard let text = tags[tag] as? String, text.hasPrefix("base64:"),
                  let data = Data(base64Encoded: String(text.dropFirst(7)))
            else { continue }
            candidates.append(Array(data))
        }
        var tooLarge: ImagingError? = nil
        for jpeg in candidates.sorted(by: { $0.count > $1.count }) where jpeg.starts(with: [0xFF, 0xD8]) {
            do {
                _ = try jpeg.withUnsafeBytes { try Imaging.probe($0, pixelLimit: pixelLimit) }
                info.preview = jpeg
                return info
            } catch let error as ImagingError {
                if case .tooLarge = error { tooLarge = tooLarge ?? error } else { damaged = true }
            }
        }
        if damaged { throw ImagingError.corrupt("the embedded preview is cut short or damaged") }
        if let tooLarge { throw tooLarge }
        return info
    }

    /// An upright JPEG of `info`'s preview whose longest side is at most `maxSide`, or the
    /// preview's own size when `maxSide` is nil; nil when the RAW embeds no preview.
    public static func picture(_ info: Info, maxSide: Int?, pixelLimit: Int = Imaging.defaultPixelLimit) throws -> [UInt8]? {
        guard let preview = info.preview else { return nil }
        return try preview.withUnsafeBytes { bytes in
            let side = try maxSide ?? {
                let size = try Imaging.probe(bytes, pixelLimit: pixelLimit)
                return max(size.width, size.height, 1)
            }()
            return try Imaging.thumbnail(bytes, maxSide: side, orientation: info.orientation, pixelLimit: pixelLimit)
        }
    }

    private static func number(_ value: Any?) -> Int? {
        switch value {
        case let n as Int: return n
        case let n as Double: return Int(exactly: n.rounded())
        case let s as String: return Int(s)
        default: return nil
        }
    }
}
