import Foundation

/// How a note is stored (docs/FORMAT.md §3.3, "Notes"): its title in the item's `name`, its
/// Markdown body as the item's original in the media pool (UTF-8, MIME type
/// ``mimeType``), and the start of its body in `noteText` for search.
public enum NoteFormat {
    /// §3.3 "Notes": the `mimeType` of every note.
    public static let mimeType = "text/markdown"
    /// §3.3 "Notes": the largest body a note may have, in UTF-8 bytes. Notes are typed text;
    /// a larger Markdown file is imported as a file.
    public static let maximumBodySize = 1 << 20
    /// §3.3 "Notes": the most UTF-8 bytes of a body kept in `noteText`, cut at a character
    /// boundary: enough for any note's words to be found, without doubling a long one in
    /// the catalog.
    public static let searchTextLimit = 4096
    /// §3.3 "Notes": the most UTF-8 bytes of a title, as of any item name.
    public static let maximumTitleSize = 255
    /// The title of a note that has none and whose body has no line of text.
    public static let untitled = "Untitled note"

    /// The extension a note's file takes when it leaves the vault as a file (a download,
    /// a ZIP entry): its body is Markdown, and its title alone would open as nothing.
    public static let fileExtension = "md"

    /// The name of a note's file: its title, with ``fileExtension`` unless it ends so.
    public static func fileName(_ title: String) -> String {
        title.lowercased().hasSuffix("." + fileExtension) ? title : title + "." + fileExtension
    }

    /// The title a note is stored under: `title` trimmed when it has text, else the first
    /// line of text of `body` without its Markdown heading marks, at most
    /// ``maximumTitleSize`` bytes, control characters dropped.
    public static func title(_ title: String?, body: String) -> String {
        let given = clean(title ?? "")
        if !given.isEmpty { return given }
        for line in body.split(whereSeparator: \.isNewline) {
            let text = clean(String(line.drop { $0 == "#" || $0 == " " || $0 == "\t" }))
            if !text.isEmpty { return text }
        }
        return untitled
    }

    /// The search text of `body`: its first ``searchTextLimit`` bytes, cut after a whole
    /// character; nil for an empty body.
    public static func searchText(_ body: String) -> String? {
        guard !body.isEmpty else { return nil }
        var text = ""
        var bytes = 0
        for character in body {
            bytes += character.utf8.count
            if bytes > searchTextLimit { break }
            text.append(character)
        }
        return text
    }

    /// `text` trimmed, control characters dropped, at most ``maximumTitleSize`` bytes.
    private static func clean(_ text: String) -> String {
        var cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
            .trimmingCharacters(in: .whitespaces)
        while cleaned.utf8.count > maximumTitleSize { cleaned.removeLast() }
        return cleaned
    }
}
