import Foundation

/// A request's query read as `application/x-www-form-urlencoded`, the encoding the page's
/// `URLSearchParams` writes (docs/API.md): `+` is a space and `%XX` escapes are decoded
/// once. Hummingbird's `queryParameters` decodes the escapes but leaves `+`, so a space in
/// an uploaded file's name came back as "+" (issue 16).
struct FormQuery {
    private var values: [String: String] = [:]

    /// Parses `query` (the part after `?`, undecoded); the first value of a key wins.
    init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decode(parts[0])
            if values[key] == nil { values[key] = parts.count > 1 ? Self.decode(parts[1]) : "" }
        }
    }

    /// The value of `key`, decoded.
    subscript(_ key: String) -> String? { values[key] }

    /// `+` to space, then the escapes; text with a malformed escape is kept as it came.
    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
