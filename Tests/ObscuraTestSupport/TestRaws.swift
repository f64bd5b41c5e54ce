import Foundation

/// Camera RAW test files, written here byte by byte: DNGs laid out as Adobe's converter
/// lays them out (IFD0 a small picture; SubIFDs the sensor data and a JPEG preview; an
/// Exif IFD with the capture date), and the first bytes of the other RAW formats, enough
/// for sniffing. The sensor data is zeros: nothing here decodes it.
public enum TestRaws {
    /// The first image of a DNG (IFD0): what libvips would load.
    public enum FirstImage {
        /// A 16×12 RGB picture of one colour, as Adobe's converter writes a thumbnail there.
        case picture(red: UInt8, green: UInt8, blue: UInt8)
        /// The sensor data itself (a colour filter array), as pidng writes a DNG.
        case sensorData
    }

    /// A DNG whose sensor is `width`×`height`, embedding `preview` (a JPEG) when given.
    public static func dng(
        width: Int = 640, height: Int = 480, preview: [UInt8]?, firstImage: FirstImage = .picture(red: 0, green: 200, blue: 0),
        orientation: UInt16 = 1, date: String? = "2021:05:06 07:08:09"
    ) -> [UInt8] {
        let sensor = TIFFWriter.IFD([
            0x00FE: .long([0]), 0x0100: .long([UInt32(width)]), 0x0101: .long([UInt32(height)]),
            0x0102: .short([16]), 0x0103: .short([1]), 0x0106: .short([32803]), 0x0115: .short([1]),
            0x0116: .long([UInt32(height)]), 0x828D: .short([2, 2]), 0x828E: .bytes([0, 1, 1, 2]),
        ], data: [UInt8](repeating: 0, count: width * height * 2))
        var ifd0: TIFFWriter.IFD
        var subIFDs = [TIFFWriter.IFD]()
        switch firstImage {
        case let .picture(red, green, blue):
            ifd0 = TIFFWriter.IFD([
                0x00FE: .long([1]), 0x0100: .long([16]), 0x0101: .long([12]), 0x0102: .short([8, 8, 8]),
                0x0103: .short([1]), 0x0106: .short([2]), 0x0115: .short([3]), 0x0116: .long([12]), 0x011C: .short([1]),
            ], data: Array((0..<(16 * 12)).map { _ in [red, green, blue] }.joined()))
            subIFDs.append(sensor)
        case .sensorData:
            ifd0 = sensor
        }
        if let preview {
            subIFDs.append(TIFFWriter.IFD([
                0x00FE: .long([1]), 0x0103: .short([7]), 0x0106: .short([6]), 0x0115: .short([3]),
                0x0102: .short([8, 8, 8]),
            ], data: preview))
        }
        ifd0.entries[0x010F] = .ascii("Obscura")
        ifd0.entries[0x0110] = .ascii("Test DNG")
        ifd0.entries[0x0112] = .short([orientation])
        ifd0.entries[0xC612] = .bytes([1, 4, 0, 0])
        ifd0.entries[0xC614] = .ascii("Obscura Test DNG")
        ifd0.subIFDs = subIFDs
        if let date { ifd0.exif = TIFFWriter.IFD([0x9003: .ascii(date)]) }
        return TIFFWriter.write(ifd0)
    }

    /// A NEF or ARW as far as sniffing and exiftool go: IFD0 a small picture naming the
    /// maker, SubIFDs the full JPEG (by JPEGInterchangeFormat, as Nikon writes it) and the
    /// sensor data.
    public static func tiffRaw(make: String, preview: [UInt8], width: Int = 640, height: Int = 480) -> [UInt8] {
        var ifd0 = TIFFWriter.IFD([
            0x00FE: .long([1]), 0x0100: .long([16]), 0x0101: .long([12]), 0x0102: .short([8, 8, 8]),
            0x0103: .short([1]), 0x0106: .short([2]), 0x010F: .ascii(make), 0x0110: .ascii("Model X"),
            0x0112: .short([1]), 0x0115: .short([3]), 0x0116: .long([12]), 0x011C: .short([1]),
        ], data: [UInt8](repeating: 128, count: 16 * 12 * 3))
        var jpeg = TIFFWriter.IFD([0x00FE: .long([1]), 0x0103: .short([6])], data: preview)
        jpeg.dataAsJPEGInterchange = true
        let sensor = TIFFWriter.IFD([
            0x00FE: .long([0]), 0x0100: .long([UInt32(width)]), 0x0101: .long([UInt32(height)]),
            0x0102: .short([16]), 0x0103: .short([1]), 0x0106: .short([32803]), 0x0115: .short([1]),
            0x0116: .long([UInt32(height)]),
        ], data: [UInt8](repeating: 0, count: width * height * 2))
        ifd0.subIFDs = [jpeg, sensor]
        ifd0.exif = TIFFWriter.IFD([0x9003: .ascii("2022:01:02 03:04:05")])
        return TIFFWriter.write(ifd0)
    }

    /// A TIFF naming `make` with no SubIFDs: an ordinary picture (a Nikon scanner's, say).
    public static func plainTIFF(make: String) -> [UInt8] {
        TIFFWriter.write(TIFFWriter.IFD([
            0x0100: .long([16]), 0x0101: .long([12]), 0x0102: .short([8, 8, 8]), 0x0103: .short([1]),
            0x0106: .short([2]), 0x010F: .ascii(make), 0x0115: .short([3]), 0x0116: .long([12]),
            0x011C: .short([1]),
        ], data: [UInt8](repeating: 90, count: 16 * 12 * 3)))
    }

    /// The first bytes of a file in each RAW format told by its header alone, padded
    /// with zeros to 64 bytes: CR2, CR3, ORF, RW2, RAF.
    public static let headers: [String: [UInt8]] = [
        "image/x-canon-cr2": [0x49, 0x49, 0x2A, 0x00, 0x10, 0x00, 0x00, 0x00, 0x43, 0x52, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00],
        // ISO-BMFF: a 24-byte ftyp box of major brand "crx ", compatible "crx " and "isom".
        "image/x-canon-cr3": [0x00, 0x00, 0x00, 0x18] + Array("ftypcrx ".utf8) + [0x00, 0x00, 0x00, 0x01]
            + Array("crx isom".utf8) + [0x00, 0x00, 0x00, 0x08] + Array("moov".utf8),
        "image/x-olympus-orf": Array("IIRO".utf8) + [0x08, 0x00, 0x00, 0x00],
        "image/x-panasonic-rw2": [0x49, 0x49, 0x55, 0x00, 0x18, 0x00, 0x00, 0x00],
        "image/x-fuji-raf": Array("FUJIFILMCCD-RAW 0201FF383501".utf8),
    ].mapValues { $0 + [UInt8](repeating: 0, count: 64 - $0.count) }
}
