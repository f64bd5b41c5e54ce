import Foundation

/// A `result` after the parent's checks (docs/SEARCH.md §S3.4.3). The parent trusts
/// nothing the worker sends: a worker that decodes hostile pictures may be compromised.
public struct CheckedResult: Sendable, Equatable {
    /// The outcome.
    public var status: ItemStatus
    /// The text kept: valid UTF-8 the worker sent, then NFC and C0 controls other than tab
    /// and line feed removed here, whatever the worker did. Empty unless `status` is done.
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
    ///   text over C_TEXT bytes or not UTF-8.
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
        let text = String(String.UnicodeScalarView(raw.precomposedStringWithCanonicalMapping.unicodeScalars.filter {
            $0.value >= 0x20 || $0 == "\t" || $0 == "\n"
        }))
        var vector: [Float]?
        var vectorFailed = false
        if wanted.contains(.vector), status == .done {
            vector = result.vector.flatMap(Self.normalised)
            vectorFailed = vector == nil
        }
        return CheckedResult(status: status, text: status == .done ? text : "", confidence: result.confidence,
                             vector: vector, vectorFailed: vectorFailed)
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
