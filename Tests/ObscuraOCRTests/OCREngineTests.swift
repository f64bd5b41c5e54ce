import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraOCR

/// The OCR chain of docs/SEARCH.md §S2.3 on pictures of known text rendered now by libvips
/// (`vips text`, DejaVu from fonts-dejavu-core), with the floor of issue 38's step 3: on
/// documents, skewed pages, screenshots (light and dark) and German pages, at least 90% of
/// the words findable and a character error rate of at most 5%, per category. Turned pages
/// and a picture without text are checked too: the orientation retry, and the word filter.
@Suite struct OCREngineTests {
    /// A rendered test picture: its text and where its PGM is.
    struct Page {
        let category: String
        let text: String
        let path: String
    }

    static let english = [
        "The quick brown fox jumps over the lazy dog near the river bank.\nPhotographs of receipts, tickets and signs hold words worth finding later.",
        "Meeting notes for Tuesday: budget review, travel plans and the garden project.\nPlease bring the signed contract and your library card.",
    ]
    static let german = [
        "Die Straße nach München war gesperrt, also fuhren wir über Würzburg.\nDer Bäcker öffnet täglich um sieben Uhr früh.",
        "Grüße aus Köln: das Wetter ist schön und die Brücke über den Rhein glänzt.\nÄrger gab es nur wegen der Fahrkarten.",
    ]
    static let screen = [
        "Inbox  Archive  Settings\nAlice: Are we still meeting at noon tomorrow\nBob: Yes, the cafe on Market Street\nAlice: Great, see you there",
        "Downloads  Photos  Documents\nQuarterly report final version\nHoliday pictures from Lisbon\nInvoice number 4711 from the plumber",
    ]

    /// `text` rendered as a PGM file (``TextPages/render(_:name:in:font:points:dark:angle:format:)``).
    static func render(_ text: String, name: String, in directory: String, font: String = "DejaVu Sans", points: Int = 20,
                       dark: Bool = false, angle: Int = 0) throws -> String {
        try TextPages.render(text, name: name, in: directory, font: font, points: points, dark: dark, angle: angle)
    }

    /// A binary PGM's pixels (comments skipped), as vips writes it.
    static func pgm(_ path: String) throws -> (pixels: [UInt8], width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields = [String]()
        var at = 0
        while fields.count < 4 {
            while bytes[at] == UInt8(ascii: "#") || bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 {
                if bytes[at] == UInt8(ascii: "#") {
                    while bytes[at] != 0x0A { at += 1 }
                }
                at += 1
            }
            let start = at
            while ![0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
            fields.append(String(decoding: bytes[start..<at], as: UTF8.self))
        }
        at += 1
        guard fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255" else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return (Array(bytes[at..<(at + width * height)]), width, height)
    }

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Edit distance over characters.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Character error rate (capped at 1) and the share of the truth's words of three or
    /// more letters that a case-insensitive substring search of the read finds.
    static func measure(truth: String, read: String) -> (cer: Double, findable: Double) {
        let t = Array(collapsed(truth)), r = Array(collapsed(read))
        let cer = min(1, Double(distance(t, r)) / Double(max(t.count, 1)))
        let words = truth.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).filter { $0.count >= 3 }
        let found = words.filter { read.range(of: $0, options: [.caseInsensitive]) != nil }
        return (cer, Double(found.count) / Double(words.count))
    }

    @Test func theChainReadsPagesScreensAndGermanAboveTheFloor() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var pages = [Page]()
        for (i, text) in Self.english.enumerated() {
            pages.append(Page(category: "document", text: text, path: try Self.render(
                text, name: "doc\(i)", in: directory, font: i == 0 ? "DejaVu Sans" : "DejaVu Serif")))
            pages.append(Page(category: "skewed", text: text, path: try Self.render(
                text, name: "skew\(i)", in: directory, angle: i == 0 ? 5 : 352)))
        }
        for (i, text) in Self.screen.enumerated() {
            pages.append(Page(category: "screenshot", text: text, path: try Self.render(
                text, name: "screen\(i)", in: directory, points: 12, dark: i == 1)))
        }
        for (i, text) in Self.german.enumerated() {
            pages.append(Page(category: "german", text: text, path: try Self.render(text, name: "de\(i)", in: directory)))
        }
        let engine = try OCREngine(languages: "eng+deu")
        var scores = [String: [(cer: Double, findable: Double)]]()
        for page in pages {
            let (pixels, width, height) = try Self.pgm(page.path)
            let read = try pixels.withUnsafeBytes { try engine.read(grey: $0, width: width, height: height) }
            let measured = Self.measure(truth: page.text, read: read.text)
            scores[page.category, default: []].append(measured)
            print("ocr \(page.category) \((page.path as NSString).lastPathComponent): CER \(String(format: "%.3f", measured.cer)), "
                  + "findable \(String(format: "%.2f", measured.findable)), skew \(read.skew), sauvola \(read.sauvola)")
        }
        for (category, measured) in scores.sorted(by: { $0.key < $1.key }) {
            let cer = measured.map(\.cer).reduce(0, +) / Double(measured.count)
            let findable = measured.map(\.findable).reduce(0, +) / Double(measured.count)
            #expect(findable >= 0.90 && cer <= 0.05, "\(category): findable \(findable), CER \(cer)")
        }
    }

    /// A page turned by a quarter or a half reads weakly upright; the orientation retry
    /// turns it back (§S2.3, step 3).
    @Test(arguments: [90, 180])
    func aTurnedPageIsReadAfterTheOrientationRetry(angle: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = Self.english[0]
        let (pixels, width, height) = try Self.pgm(try Self.render(text, name: "turned", in: directory, points: 24, angle: angle))
        let read = try pixels.withUnsafeBytes { try OCREngine(languages: "eng").read(grey: $0, width: width, height: height) }
        if angle == 180 { #expect(read.rotated == 180, "\(read)") }
        #expect(Self.measure(truth: text, read: read.text).findable >= 0.9, "\(read.text)")
    }

    /// A fixed sequence, so that the noise picture is the same at every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11 | state << 53
        }
    }

    /// Noise with no text keeps (almost) nothing: the words under confidence 50 go.
    @Test func aPictureWithoutTextKeepsNoJunkWords() throws {
        var generator = Seeded(state: 38)
        let (width, height) = (640, 480)
        // Blotches of grey, as a texture a page segmenter may take for letters.
        var pixels = [UInt8](repeating: 200, count: width * height)
        for _ in 0..<400 {
            let (cx, cy, r) = (Int.random(in: 0..<width, using: &generator), Int.random(in: 0..<height, using: &generator),
                               Int.random(in: 2..<9, using: &generator))
            let shade = UInt8.random(in: 0..<120, using: &generator)
            for y in max(0, cy - r)..<min(height, cy + r) {
                for x in max(0, cx - r)..<min(width, cx + r) { pixels[y * width + x] = shade }
            }
        }
        let read = try pixels.withUnsafeBytes { try OCREngine(languages: "eng").read(grey: $0, width: width, height: height) }
        let kept = read.text.split(whereSeparator: { $0.isWhitespace })
        #expect(kept.count <= 2, "junk words kept: \(kept), dropped \(read.droppedWords)")
    }

    /// The word filter keeps what is at or above the confidence asked for: everything at
    /// 0, nothing at 101 (Tesseract's confidences stop at 100), the words dropped counted.
    @Test func theWordFilterKeepsOnlyWordsAtTheConfidenceAskedFor() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (pixels, width, height) = try Self.pgm(try Self.render(Self.english[1], name: "filter", in: directory))
        let engine = try OCREngine(languages: "eng")
        let all = try pixels.withUnsafeBytes { try engine.read(grey: $0, width: width, height: height, minimumWordConfidence: 0) }
        let none = try pixels.withUnsafeBytes { try engine.read(grey: $0, width: width, height: height, minimumWordConfidence: 101) }
        #expect(all.droppedWords == 0 && Self.measure(truth: Self.english[1], read: all.text).findable >= 0.9)
        #expect(none.text.isEmpty && none.droppedWords == all.text.split(whereSeparator: { $0.isWhitespace }).count)
    }

    @Test func theKeptTextIsCleanAndCappedAfterAWholeWord() {
        let (clean, cut) = OCREngine.kept("Cafe\u{301}\u{07}\u{7F}\u{85} bar\tbaz\n")
        // Scalars, not `==`, which would call the two forms equal anyway.
        #expect(Array(clean.unicodeScalars) == Array("Caf\u{E9} bar\tbaz\n".unicodeScalars) && !cut)
        // A word that ends exactly at the cap is kept whole.
        let exact = String(repeating: "abc ", count: 959) + "abcd" + " tail"
        let (fitted, fittedCut) = OCREngine.kept(exact)
        #expect(fittedCut && fitted.utf8.count == OCREngine.textCap && fitted.hasSuffix("abcd"))
        let long = String(repeating: "word ", count: 1000)
        let (capped, shortened) = OCREngine.kept(long)
        #expect(shortened && capped.utf8.count <= OCREngine.textCap && capped.hasSuffix("word"))
        let (oneWord, oneCut) = OCREngine.kept(String(repeating: "\u{E9}", count: 3000))
        #expect(oneCut && oneWord.utf8.count == OCREngine.textCap)
    }

    @Test func aLanguageThatIsNotInstalledIsSaid() {
        #expect(throws: OCRError.unavailable("xyz")) { try OCREngine(languages: "xyz") }
    }
}
