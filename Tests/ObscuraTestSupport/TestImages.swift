import Foundation
import ObscuraImaging

/// Test images made at run time with ImageMagick and ffmpeg (installed by scripts/setup),
/// with EXIF written here byte by byte.
public enum TestImages {
    /// A one-page PDF (A4 landscape) showing `lines` in Helvetica, which the file names but
    /// does not embed: poppler finds a substitute through fontconfig, which would like to
    /// write its cache (docs/SEARCH.md §S3.4.2: EPERM, not a kill).
    public static func pdf(_ lines: [String]) -> [UInt8] {
        var content = "BT /F1 28 Tf 60 500 Td 36 TL\n"
        for line in lines { content += "(\(line)) Tj T*\n" }
        content += "ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 595] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { text += String(format: "%010d 00000 n \n", offset) }
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(text.utf8)
    }

    /// ImageMagick; /usr/local/bin/convert on these machines is something else.
    static let convert = "/usr/bin/convert"

    static func run(_ tool: String, _ arguments: [String]) throws -> [UInt8] {
        try ExternalTool.run(tool, arguments)
    }

    /// An image of `width`×`height` in `format` ("jpg", "png", "webp", "gif", "tif", "heic").
    public static func image(_ format: String, width: Int, height: Int) throws -> [UInt8] {
        try run(convert, ["-size", "\(width)x\(height)", "gradient:red-blue", "\(format):-"])
    }

    /// A JPEG with the fine detail of a photo (a seeded plasma), whose scan is long
    /// enough to cut or damage in its middle.
    public static func detailedJPEG(width: Int, height: Int) throws -> [UInt8] {
        try run(convert, ["-seed", "7", "-size", "\(width)x\(height)", "plasma:fractal", "-quality", "90", "jpg:-"])
    }

    /// A JPEG with an EXIF block carrying `orientation` and DateTimeOriginal `date`
    /// ("YYYY:MM:DD HH:MM:SS").
    public static func cameraJPEG(width: Int, height: Int, date: String, orientation: UInt16) throws -> [UInt8] {
        let jpeg = try image("jpg", width: width, height: height)
        return Array(jpeg[0..<2]) + exifSegment(date: date, orientation: orientation) + Array(jpeg[2...])
    }

    /// APP1 "Exif" segment: little-endian TIFF, IFD0 {Orientation, ExifIFD pointer},
    /// Exif IFD {DateTimeOriginal}.
    public static func exifSegment(date: String, orientation: UInt16) -> [UInt8] {
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        func u16(_ v: UInt16) { tiff += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { tiff += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        u16(2)                                           // IFD0 at 8: two entries
        u16(0x0112); u16(3); u32(1); u16(orientation); u16(0)
        u16(0x8769); u16(4); u32(1); u32(38)             // Exif IFD at 8 + 30
        u32(0)
        u16(1)                                           // Exif IFD at 38: one entry
        u16(0x9003); u16(2); u32(20); u32(56)            // value at 38 + 18
        u32(0)
        tiff += Array(date.utf8.prefix(19)) + [0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The colours of `image` box-averaged down to `columns`×`rows` pixels, left to right
    /// and top to bottom, each as [red, green, blue] (ImageMagick, reading the image from its standard input).
    public static func averagedColours(_ image: [UInt8], columns: Int = 1, rows: Int = 1) throws -> [[Int]] {
        let arguments = ["-", "-scale", "\(columns)x\(rows)!", "-depth", "8", "txt:-"]
        let text = try ExternalTool.run(convert, arguments, feeding: { write in try image.withUnsafeBytes(write) })
        // Lines such as "0,0: (255,0,0)  #FF0000  red", after a "# ImageMagick" header.
        return String(decoding: text, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let inner = line.split(separator: "(").dropFirst().first?.split(separator: ")").first ?? ""
            return inner.split(separator: ",").prefix(3).compactMap { Int(Double($0.trimmingCharacters(in: .whitespaces)) ?? -1) }
        }
    }

    /// A short MP4 made by ffmpeg in `directory`, named `name`, with `metadata` as its
    /// container's tags (`creation_time`, or a QuickTime key such as Apple's
    /// `com.apple.quicktime.creationdate`, which ffmpeg writes into a `.mov`'s `keys`).
    public static func video(in directory: String, seconds: Int = 2, name: String = "clip.mp4",
                             metadata: KeyValuePairs<String, String> = [:]) throws -> String {
        let path = directory + "/" + name
        // A reverse-DNS key needs the `keys` box; without one, `creation_time` goes where
        // cameras put it, the `mvhd` header.
        let keys = metadata.contains { $0.key.contains(".") } ? ["-movflags", "use_metadata_tags"] : []
        let tags = metadata.flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
        _ = try run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=320x240:rate=10",
                                        "-pix_fmt", "yuv420p"] + keys + tags + ["-y", path])
        return path
    }

    /// A phone-like HEVC clip: H.265 (`hvc1`) and AAC in a QuickTime `.mov`, its index
    /// (`moov`) after its media data as ffmpeg writes it by default, and a test pattern
    /// whose frames differ, so that a decode that skips or repeats frames shows.
    public static func hevcVideo(in directory: String, name: String = "phone.mov", seconds: Int = 2,
                                 width: Int = 640, height: Int = 360) throws -> String {
        let path = directory + "/" + name
        _ = try run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=duration=\(seconds):size=\(width)x\(height):rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-y", path])
        return path
    }

    /// A Live Photo's still: a JPEG whose EXIF holds an Apple MakerNote with `identifier`
    /// as its content identifier (tag 0x0011), laid out as an iPhone writes it: IFD0 →
    /// Exif IFD → MakerNote ("Apple iOS\0", version 1, "MM", then a big-endian IFD whose
    /// offsets count from the MakerNote's start). exiftool cannot create a MakerNote, so
    /// the bytes are made here; `exiftool -MakerNotes:all` reads them back (LivePhotoTests).
    public static func livePhotoJPEG(identifier: String, width: Int = 64, height: Int = 48) throws -> [UInt8] {
        let jpeg = try image("jpg", width: width, height: height)
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] { u16(tag) + u16(type) + u32(count) + u32(value) }
        let text = Array(identifier.utf8) + [0]
        var note = Array("Apple iOS".utf8) + [0] + u16(1) + Array("MM".utf8)
        note += u16(1) + entry(0x0011, 2, text.count, 14 + 2 + 12 + 4) + u32(0) + text
        // TIFF header (8), IFD0 at 8 (18 bytes), Exif IFD at 26 (18 bytes), MakerNote at 44.
        var tiff = Array("MM".utf8) + u16(42) + u32(8)
        tiff += u16(1) + entry(0x8769, 4, 1, 26) + u32(0)
        tiff += u16(1) + entry(0x927C, 7, note.count, 44) + u32(0)
        tiff += note
        let app1 = [0xFF, 0xE1] + u16(2 + 6 + tiff.count) + Array("Exif".utf8) + [0, 0] + tiff
        return Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2))
    }

    /// A Live Photo's motion: a one-second HEVC `.mov` as ``hevcVideo(in:name:seconds:width:height:)``
    /// makes it, carrying `identifier` as its `com.apple.quicktime.content.identifier`
    /// in a QuickTime `keys` entry, where a camera writes it (exiftool reads it back as
    /// Keys:ContentIdentifier; its 12.57 cannot write that tag).
    public static func livePhotoMovie(in directory: String, identifier: String, name: String = "IMG_0001.MOV") throws -> String {
        let path = directory + "/" + name
        _ = try run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=duration=1:size=320x240:rate=30",
            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
            "-pix_fmt", "yuv420p", "-movflags", "use_metadata_tags",
            "-metadata", "com.apple.quicktime.content.identifier=" + identifier, "-y", path])
        return path
    }
}
