import CObscuraOCR
import Foundation

/// Text read from a picture by libtesseract, through the chain of docs/SEARCH.md §S2.3
/// (``CObscuraOCR``): deskew, then Sauvola and orientation only for a weak read.
///
/// The engine belongs in the indexer process, never in one that holds a vault's keys
/// (docs/SEARCH.md §S3.4): libtesseract links libcurl and libgomp, and reads what a
/// picture puts before it. Until the indexer lands (issue 38, step 3) nothing but the
/// tests uses it. One read at a time per engine.
public final class OCREngine {
    /// What is kept of a read (§S2.3).
    public struct Read: Sendable, Equatable {
        /// The words kept, in reading order, NFC, no C0 control but tab and line feed,
        /// at most ``OCREngine/textCap`` UTF-8 bytes, cut after a whole word.
        public var text: String
        /// Mean confidence of the read kept, 0 … 100; -1 when it found no word.
        public var confidence: Int
        /// Degrees the picture was turned by (counter-clockwise) for the read kept.
        public var rotated: Int
        /// Degrees of skew removed.
        public var skew: Double
        /// Whether the read kept used Sauvola's local threshold.
        public var sauvola: Bool
        /// Words under the confidence asked for, dropped.
        public var droppedWords: Int
        /// Whether the text was cut at the cap.
        public var shortened: Bool
    }

    /// C_TEXT of docs/SEARCH.md §S2.3: the most UTF-8 bytes of text kept per item, so that
    /// an index row never needs an overflow page.
    public static let textCap = 3840
    /// Words under this Tesseract confidence are not kept (§S2.3; provisional until step
    /// 3 measures junk words on textless photographs).
    public static let minimumWordConfidence = 50

    /// libtesseract's version ("5.3.0").
    public static var version: String { String(cString: obscura_ocr_version()) }

    private let handle: OpaquePointer

    /// An engine for `languages` ("eng", "eng+deu").
    ///
    /// - Throws: ``OCRError/unavailable(_:)`` when the languages or the orientation model
    ///   are not installed (Debian's tesseract-ocr-eng, -osd, …).
    public init(languages: String = "eng") throws {
        guard let handle = obscura_ocr_open(languages) else { throw OCRError.unavailable(languages) }
        self.handle = handle
    }

    deinit { obscura_ocr_close(handle) }

    /// Reads `width` × `height` 8-bit grey pixels, rows of `width` bytes.
    ///
    /// - Throws: ``OCRError/failed`` when the recognition fails outright.
    public func read(grey: UnsafeRawBufferPointer, width: Int, height: Int,
                     minimumWordConfidence: Int = OCREngine.minimumWordConfidence) throws -> Read {
        precondition(width > 0 && height > 0 && grey.count == width * height, "grey pixels: width × height bytes")
        var result = obscura_ocr_result()
        let status = obscura_ocr_read(handle, grey.assumingMemoryBound(to: UInt8.self).baseAddress, Int32(width), Int32(height),
                                      Int32(minimumWordConfidence), &result)
        guard status == 0, let bytes = result.text else { throw OCRError.failed }
        defer { obscura_ocr_free(&result) }
        let (text, shortened) = Self.kept(String(cString: bytes))
        return Read(text: text, confidence: Int(result.confidence), rotated: Int(result.rotated), skew: Double(result.skew),
                    sauvola: result.sauvola != 0, droppedWords: Int(result.dropped), shortened: shortened)
    }

    /// `text` as it is kept (§S2.3): control characters other than tab and line feed and the
    /// bidirectional controls removed, NFC, then cut after the last whole word within ``textCap`` bytes (a single
    /// longer word at a scalar boundary); and whether it was cut.
    static func kept(_ text: String) -> (String, Bool) {
        // Every control character goes (DEL and C1 too), but tab and line feed, and the
        // bidirectional overrides, isolates and marks; then NFC, so that what is kept is NFC
        // (removing a control between a letter and its accent would otherwise undo it).
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            guard $0 != "\t", $0 != "\n" else { return true }
            return $0.properties.generalCategory != .control && !(0x200E...0x200F).contains($0.value)
                && !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value)
        })).precomposedStringWithCanonicalMapping
        guard clean.utf8.count > textCap else { return (clean, false) }
        var cut = String.UnicodeScalarView()
        var bytes = 0
        var rest = clean.unicodeScalars.makeIterator()
        var next: Unicode.Scalar?
        while let scalar = rest.next() {
            guard bytes + scalar.utf8.count <= textCap else {
                next = scalar
                break
            }
            cut.append(scalar)
            bytes += scalar.utf8.count
        }
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" }
        // Back to the last white space, unless the cut falls between words already, or the
        // first word alone is over the cap.
        if let next, !isSpace(next), let space = cut.lastIndex(where: isSpace) {
            cut = String.UnicodeScalarView(cut[..<space])
        }
        return (String(cut), true)
    }
}

/// Why a picture could not be read.
public enum OCRError: Error, Equatable, CustomStringConvertible {
    /// libtesseract has no model for these languages, or no orientation model.
    case unavailable(String)
    /// The recognition failed outright.
    case failed

    public var description: String {
        switch self {
        case let .unavailable(languages): "no OCR model for \(languages) (or for orientation) is installed"
        case .failed: "the text recognition failed"
        }
    }
}
