import Foundation

/// A `result` after the parent's checks (docs/SEARCH.md §S3.4.3). The parent trusts
/// nothing the worker sends: a worker that decodes hostile pictures may be compromised.
public struct CheckedResult: Sendable, Equatable {
    /// The outcome.
    public var status: ItemStatus
    /// The text kept: valid UTF-8 the worker sent, then ``displayable(_:)`` here, whatever
    /// the worker did. Empty unless `status` is done.
    public var text: String
    /// Mean confidence, 0 … 100.
    public var confidence: Float
    /// The vector, normalised, when one was asked for and passed its checks.
    public var vector: [Float]?
    /// A vector was asked for and none passed: the item's vector is marked failed, and
    /// the worker goes on (a broken model gives such vectors without any attack).
    public var vectorFailed: Bool

    /// Checks `result` against the request in flight.
    ///
    /// - Throws: ``IndexerError/violation(_:)`` (the caller kills the worker) for another
    ///   request's id, an unknown status, a confidence not finite or outside 0 … 100, or
    ///   text over C_TEXT bytes (as sent, or after NFC) or not UTF-8, text with a result
    ///   other than done, or a vector nobody asked for.
    public static func check(_ result: ItemResult, id: UInt32, wanted: Wanted) throws -> CheckedResult {
        guard result.id == id else { throw IndexerError.violation("a result for request \(result.id), not \(id)") }
        guard let status = ItemStatus(rawValue: result.status) else {
            throw IndexerError.violation("a result with status \(result.status)")
        }
        guard result.confidence.isFinite, (0...100).contains(result.confidence) else {
            throw IndexerError.violation("a result with confidence \(result.confidence)")
        }
        guard result.text.count <= IndexerProtocol.textCap else {
            throw IndexerError.violation("a result with \(result.text.count) bytes of text")
        }
        guard let raw = String(validating: result.text, as: UTF8.self) else {
            throw IndexerError.violation("a result whose text is not UTF-8")
        }
        guard status == .done || raw.isEmpty else { throw IndexerError.violation("text with a \(status) result") }
        guard wanted.contains(.vector) || result.vector == nil else {
            throw IndexerError.violation("a vector nobody asked for")
        }
        // Controls first, then NFC, then the cap again: NFC may grow a text (review I-R12).
        let text = Self.displayable(raw)
        guard text.utf8.count <= IndexerProtocol.textCap else {
            throw IndexerError.violation("a result whose text grows past the cap in NFC")
        }
        var vector: [Float]?
        var vectorFailed = false
        if wanted.contains(.vector), status == .done {
            vector = result.vector.flatMap(Self.normalised)
            vectorFailed = vector == nil
        }
        return CheckedResult(status: status, text: status == .done ? text : "", confidence: result.confidence,
                             vector: vector, vectorFailed: vectorFailed)
    }

    /// `text` without control characters but tab and line feed (C0, DEL and C1, 8-bit CSI
    /// among them) and without the bidirectional overrides, isolates and marks that could
    /// make a name or a command look other than it is, then in NFC.
    public static func displayable(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { scalar in
            if scalar == "\t" || scalar == "\n" { return true }
            if scalar.properties.generalCategory == .control { return false }
            return !((0x200E...0x200F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value))
        }
        return String(String.UnicodeScalarView(kept)).precomposedStringWithCanonicalMapping
    }

    /// `vector` normalised, or nil unless it holds exactly 512 finite values whose norm
    /// lies in (10⁻⁶, 10⁶) (§S3.4.3).
    public static func normalised(_ vector: [Float]) -> [Float]? {
        guard vector.count == IndexerProtocol.vectorLength, vector.allSatisfy(\.isFinite) else { return nil }
        // In Double: 512 squares of values up to Float's maximum overflow a Float sum.
        let norm = vector.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 1e-6, norm < 1e6 else { return nil }
        return vector.map { Float(Double($0) / norm) }
    }
}
