/// Text made safe to show on a terminal: the one escaping every message and listing of
/// the command line goes through (issue #13 item 10).
///
/// A file, folder or item name, a path or an argument can hold control characters; a
/// terminal acts on them (ESC and the C1 CSI start sequences that move the cursor, set
/// the window title or rewrite the screen, CR overwrites the line). Each C0 control, DEL
/// and each C1 control (U+0080 to U+009F, which a UTF-8 terminal may also act on) is
/// shown as `\u` and four lower-case hex digits instead. That is JSON's own escape, so the
/// same function keeps `--json` output valid JSON (its encoder escapes C0 controls
/// already, but leaves DEL and C1 as they are).
enum TerminalText {
    /// `text` with every control character escaped; with `keepingNewlines`, line feeds
    /// are kept, for messages of several lines.
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingNewlines && $0 == "\n") }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) && !(keepingNewlines && scalar == "\n") {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// C0 controls, DEL and C1 controls.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
