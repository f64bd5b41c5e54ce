import Foundation
import ObscuraCatalog

extension ItemRecord {
    /// The name the item's original takes as a file outside the vault (a download, a ZIP
    /// entry): its name, and for a note its title with `.md` (``NoteFormat/fileName(_:)``).
    public var fileName: String { kind == .note ? NoteFormat.fileName(name) : name }
}
