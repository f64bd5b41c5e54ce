import ObscuraCrypto

/// Errors of notes (issue 19; docs/FORMAT.md §3.3, "Notes").
public enum NoteError: ObscuraError, Equatable {
    /// The item named is not a note.
    case notANote(String)
    /// The body is larger than ``NoteFormat/maximumBodySize``.
    case bodyTooLarge(Int)
    /// The body is not UTF-8 text.
    case notText
    /// The item cannot be attached to the note: the note itself, or another note.
    case cannotAttach(String)
    /// The system offers no in-memory file to edit a note in (``InMemoryFile``); the
    /// reason. A note is then not edited: a file on disk would hold its plaintext.
    case noMemoryFile(String)

    public var description: String {
        switch self {
        case let .notANote(id):
            return "item \(id) is not a note"
        case let .bodyTooLarge(size):
            return "the note is too large (\(size) bytes; at most \(NoteFormat.maximumBodySize))"
        case .notText:
            return "a note's body must be UTF-8 text"
        case let .cannotAttach(id):
            return "item \(id) cannot be attached to a note (a note is not attached to a note)"
        case let .noMemoryFile(reason):
            return "cannot edit a note here: this system has no in-memory file to give the editor (\(reason)), and a file on disk would hold the note in plaintext; use `obscura note edit ID -` with the new text on standard input"
        }
    }
}
