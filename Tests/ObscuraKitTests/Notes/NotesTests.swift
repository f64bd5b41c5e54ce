import Foundation
import GRDB
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Notes (issue 19; docs/FORMAT.md §3.3, "Notes"): a title and a Markdown body sealed in
/// the pool like any original, found by search, kept by folders, the trash and exports,
/// with photos attached; no plaintext byte of a note on disk.
@Suite struct NotesTests {
    /// Every byte under the vault directory, to look for plaintext in.
    func diskBytes(_ root: TestRoot) throws -> Data {
        var all = Data()
        let base = URL(fileURLWithPath: root.vaultPath)
        for case let url as URL in FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)! {
            if let data = FileManager.default.contents(atPath: url.path) { all += data }
        }
        return all
    }

    func contains(_ haystack: Data, _ needle: String) -> Bool {
        haystack.range(of: Data(needle.utf8)) != nil
    }

    @Test func aNoteIsWrittenReadEditedAndFoundWithNoPlaintextOnDisk() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let note = try vault.addNote(title: nil, body: "# Walnut harvest\n\nThe *zebracake* recipe.\n")
        #expect(note.kind == .note && note.name == "Walnut harvest" && note.mimeType == NoteFormat.mimeType)
        #expect(note.takenAt != nil && note.thumbId == nil)
        #expect(try vault.noteBody(note.id) == "# Walnut harvest\n\nThe *zebracake* recipe.\n")

        let found = try vault.itemListing(scope: .visible, filter: ItemFilter(text: "zebracake"), limit: 10)
        #expect(found.items.map(\.record.id) == [note.id] && found.total == 1, "the body is searched")
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(kind: .note), limit: 10).total == 1)

        let oldFile = try vault.directory.pool.dataPath(note.mediaId)
        let edited = try vault.editNote(note.id, body: "Now about *quincetart*.")
        #expect(edited.id == note.id && edited.name == "Walnut harvest", "the title stays unless given")
        #expect(edited.mediaId != note.mediaId && !FileManager.default.fileExists(atPath: oldFile), "the old body is removed")
        #expect(try vault.noteBody(note.id) == "Now about *quincetart*.")
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "zebracake"), limit: 10).total == 0)
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "quincetart"), limit: 10).total == 1)
        let retitled = try vault.editNote(note.id, title: "Orchard", body: "Now about *quincetart*.")
        #expect(retitled.name == "Orchard")
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "orchard"), limit: 10).total == 1)
        #expect(try vault.consistencyProblems().isEmpty)

        vault.lock()
        let disk = try diskBytes(root)
        for word in ["zebracake", "quincetart", "Orchard", "Walnut"] { #expect(!contains(disk, word), "\(word) on disk") }
    }

    @Test func aNoteGoesToTheTrashAndBackAndIsRefusedAnEditThere() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let note = try vault.addNote(title: "List", body: "eggs")
        try vault.trashItems([note.id])
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "eggs"), limit: 10).total == 0)
        #expect(throws: VaultError.inTrash(note.id)) { try vault.editNote(note.id, body: "milk") }
        try vault.restoreItems([note.id])
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "eggs"), limit: 10).total == 1)
        let photo = try vault.addRaw(Array("not a note".utf8), name: "p.bin")
        #expect(throws: NoteError.notANote(photo.id)) { try vault.noteBody(photo.id) }
        #expect(throws: NoteError.bodyTooLarge(NoteFormat.maximumBodySize + 1)) {
            try vault.addNote(title: nil, body: String(repeating: "a", count: NoteFormat.maximumBodySize + 1))
        }
        let empty = try vault.addNote(title: nil, body: "")
        #expect(empty.name == NoteFormat.untitled)
        #expect(try vault.noteBody(empty.id) == "")
        #expect(try vault.consistencyProblems().isEmpty)
    }

    @Test func aProtectedFoldersNoteSealsItsTitleAndText() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let folder = try vault.createFolder("Diary", password: pw("fpw"), iterations: testIterations)
        let note = try vault.addNote(title: "Secret plan", body: "meet at the lighthouse", into: folder)
        let stored = try vault.catalog.rows(ids: [note.id])[0]
        #expect(stored.name == "" && stored.noteText == nil && stored.protectedMeta != nil)
        #expect(try vault.itemListing(scope: .folder(folder), filter: ItemFilter(text: "lighthouse"), limit: 10).total == 1,
                "an open protected folder is searched in Swift")
        try vault.editNote(note.id, body: "meet at the harbour")
        #expect(try vault.noteBody(note.id) == "meet at the harbour")
        vault.lockFolder(folder)
        #expect(throws: VaultError.noSuchItem(note.id)) { try vault.noteBody(note.id) }
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "harbour"), limit: 10).total == 0)
    }

    @Test func photosAttachInOrderAndLeaveWhenDeleted() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let note = try vault.addNote(title: "Trip", body: "day one")
        let a = try vault.addRaw(Array("a".utf8), name: "a.bin")
        let b = try vault.addRaw(Array("b".utf8), name: "b.bin")
        try vault.attach([b.id, a.id], to: note.id)
        try vault.attach([a.id], to: note.id)
        #expect(try vault.attachments(of: note.id).map(\.id) == [b.id, a.id], "attached once, in order")
        #expect(throws: NoteError.cannotAttach(note.id)) { try vault.attach([note.id], to: note.id) }
        try vault.trashItems([b.id])
        #expect(try vault.attachments(of: note.id).map(\.id) == [a.id], "a trashed item is not shown")
        try vault.restoreItems([b.id])
        try vault.deleteItems([a.id])
        #expect(try vault.attachments(of: note.id).map(\.id) == [b.id], "a deleted item leaves the note")
        try vault.detach([b.id], from: note.id)
        #expect(try vault.attachments(of: note.id).isEmpty)
        try vault.attach([b.id], to: note.id)
        try vault.deleteItems([note.id])
        let left = try vault.catalog.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note_attachment") }
        #expect(left == 0, "a deleted note takes its attachments")
        #expect(try vault.consistencyProblems().isEmpty)
    }

    @Test func anExportCarriesNotesAndTheirAttachments() throws {
        let a = try TestRoot(), b = try TestRoot()
        let source = try a.initialized().createVault(password: pw("vault pw"), iterations: testIterations)
        let note = try source.addNote(title: "Exported", body: "# Exported\nwith **bold** text")
        let photo = try source.addRaw(Array("photo".utf8), name: "p.bin")
        try source.attach([photo.id], to: note.id)
        let file = a.path + "/vault.obscura"
        try source.exportVault(to: file, password: pw("export pw"), iterations: testIterations)

        let target = try b.initialized()
        #expect(try target.importVault(from: file, password: pw("export pw")) == 2)
        let imported = try target.unlock(password: pw("vault pw"))
        #expect(try imported.noteBody(note.id) == "# Exported\nwith **bold** text")
        #expect(try imported.attachments(of: note.id).map(\.id) == [photo.id])
        #expect(try imported.itemListing(scope: .visible, filter: ItemFilter(text: "bold"), limit: 10).total == 1)
    }

    @Test func titlesAndSearchTextFollowTheFormat() {
        #expect(NoteFormat.title("  Given  ", body: "# Other") == "Given")
        #expect(NoteFormat.title(nil, body: "\n\n## Heading two\nbody") == "Heading two")
        #expect(NoteFormat.title("", body: "  \n") == NoteFormat.untitled)
        #expect(NoteFormat.title(String(repeating: "é", count: 200), body: "").utf8.count == 254)
        let long = String(repeating: "ab", count: 3000)
        #expect(NoteFormat.searchText(long)?.utf8.count == NoteFormat.searchTextLimit)
        #expect(NoteFormat.searchText("") == nil)
        let accented = String(repeating: "é", count: 3000)
        #expect(NoteFormat.searchText(accented)?.utf8.count == NoteFormat.searchTextLimit, "cut at a whole character")
    }
}
