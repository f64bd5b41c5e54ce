/// Names the files of one flat archive: each name made safe to extract, and unique.
///
/// Safe: an extractor joins the name to its target directory, so nothing in it may lead
/// elsewhere. No `/` or `\` (a path on any system), no `:` (a drive on Windows, `C:x` is
/// relative to drive C's current directory), no name of only dots (`.` and `..`). Nor
/// anything that hides a name's real form: control characters, line breaks, and the
/// bidirectional overrides that make `photo<U+202E>gpj.exe` show as `photoexe.jpg`. Each
/// becomes `_`; a leading dot stays (`.hidden` is a plain file name).
///
/// Unique: a name already given gets " (2)", " (3)", ... before its extension. Names that
/// differ only in case or Unicode normalisation count as the same, since they land on one
/// file where the file system folds them (macOS, Windows).
struct ZipEntryNames {
    /// The longest name handed out, in UTF-8 bytes: what common file systems accept for
    /// one path component.
    static let maximumLength = 255
    /// What an empty name (or one left empty by the rules above) becomes.
    static let fallback = "unnamed"

    /// The names handed out so far, folded.
    private var taken: Set<String> = []

    /// An empty set of names.
    init() {}

    /// A safe name for `name` that no earlier call returned.
    mutating func unique(_ name: String) -> String {
        let safe = Self.sanitized(name)
        let (stem, ext) = Self.split(safe)
        var candidate = safe
        var number = 2
        while taken.contains(Self.folded(candidate)) {
            let suffix = " (\(number))" + ext
            candidate = Self.truncated(stem, toBytes: Self.maximumLength - suffix.utf8.count) + suffix
            number += 1
        }
        taken.insert(Self.folded(candidate))
        return candidate
    }

    /// `name` with every character that could lead out of the extraction directory, or
    /// hide the name's form, replaced by `_`, and cut to ``maximumLength`` bytes.
    static func sanitized(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? "_" : scalar)
        }
        var safe = String(scalars)
        if safe.allSatisfy({ $0 == "." }) { safe = safe.isEmpty ? fallback : String(repeating: "_", count: safe.count) }
        // Windows drops trailing dots and spaces and will not make CON, NUL, COM1... (with
        // any extension): such a name would extract as another file or not at all.
        if let last = safe.last, last == "." || last == " " {
            safe.removeLast()
            safe.append("_")
        }
        if Self.windowsReserved.contains(split(safe).stem.uppercased()) { safe = "_" + safe }
        guard safe.utf8.count > maximumLength else { return safe }
        let (stem, ext) = split(safe)
        // A very long extension is no extension worth keeping.
        guard ext.utf8.count < maximumLength / 2 else { return truncated(safe, toBytes: maximumLength) }
        return truncated(stem, toBytes: maximumLength - ext.utf8.count) + ext
    }

    /// Device names Windows reserves, whatever the extension.
    static let windowsReserved: Set<String> = Set(["CON", "PRN", "AUX", "NUL"]
        + (1...9).map { "COM\($0)" } + (1...9).map { "LPT\($0)" })

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "/", "\\", ":": return true
        // Bidirectional embeddings, overrides and isolates (Unicode's UAX #9).
        case "\u{202A}"..."\u{202E}", "\u{2066}"..."\u{2069}": return true
        default: return [.control, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
        }
    }

    /// The name before its extension, and the extension with its dot; a leading dot does
    /// not start an extension (`.profile` has none).
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// The longest run of whole characters from the start of `text` within `limit` bytes.
    private static func truncated(_ text: String, toBytes limit: Int) -> String {
        var out = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > limit { break }
            out.append(character)
            bytes += size
        }
        return out
    }

    /// The form two names share when a case-folding, normalising file system would store
    /// them as one file: Swift compares strings by canonical equivalence, so lower case
    /// is the remaining step.
    private static func folded(_ name: String) -> String { name.lowercased() }
}
