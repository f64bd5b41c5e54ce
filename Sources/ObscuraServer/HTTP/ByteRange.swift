/// A single byte range of a `Range: bytes=...` header (RFC 9110 §14.1.2), resolved
/// against a representation of a known size.
enum ByteRange: Equatable {
    /// Serve the whole representation (no Range header, one we ignore, or an If-Range
    /// that does not match).
    case whole
    /// Serve these bytes (206).
    case partial(Range<UInt64>)
    /// No byte of the range exists (416).
    case unsatisfiable

    /// Resolves `header` for a representation of `size` bytes. Syntax we do not serve
    /// (other units, several ranges, malformed values) is ignored, as RFC 9110 allows:
    /// the answer is the whole representation.
    static func resolve(_ header: String?, size: UInt64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit) else { return .whole }
        if first.isEmpty {
            // Suffix range: the last N bytes.
            guard let n = UInt64(last) else { return .whole }
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .partial((size - min(n, size))..<size)
        }
        guard let start = UInt64(first) else { return .whole }
        let end: UInt64
        if last.isEmpty {
            end = size
        } else {
            guard let l = UInt64(last), l >= start else { return .whole }
            end = l == UInt64.max ? size : min(l + 1, size)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(start..<end)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

import Foundation
