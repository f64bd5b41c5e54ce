import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura note add|edit|cat|attach|detach`: notes (issue 19; docs/FORMAT.md §3.3,
/// "Notes"). A note's body is read from a file, from standard input, or typed in `$EDITOR`
/// on an in-memory file that never reaches the disk.
struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note", abstract: "Write, edit and read notes (Markdown, kept encrypted like photos).",
        discussion: """
            A note is an item: it lives in folders, the trash, search (`obscura ls --kind \
            note --search TEXT`) and exports like a photo. Without FILE, or with `-` for \
            standard input, the body is typed in $EDITOR (else $VISUAL, else vi), given an \
            in-memory file as /dev/fd/N: the text is never written to disk by obscura. The \
            editor's own swap, backup and undo files are the editor's: obscura turns them \
            off for Vim and Neovim (however EDITOR names them: vi, editor, env vim...); \
            for another editor, turn them off yourself.
            """,
        subcommands: [Add.self, Edit.self, Cat.self, Attach.self, Detach.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a note from FILE, standard input (-) or $EDITOR; prints its id.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions

        @Option(help: ArgumentHelp("The note's title (default: its first line).", valueName: "title"))
        var title: String?

        @Option(help: ArgumentHelp("Add it to this folder (a protected one's password is read next).", valueName: "name"))
        var folder: String?

        @Argument(help: "A Markdown file, or - for standard input; none opens $EDITOR.")
        var file: String?

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            let folder = try session.folder(self.folder)
            let body = try file.map(NoteCommand.read) ?? NoteEditor.edit("")
            guard let body else { throw CLIError("no note written: the editor left it empty") }
            let note = try session.vault.addNote(title: title, body: body, into: folder)
            Terminal.output(note.id)
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Edit a note in $EDITOR (or replace its body from FILE or -; --title alone renames it).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        @Option(help: ArgumentHelp("A new title (blank: the body's first line).", valueName: "title"))
        var title: String?

        @Argument(help: "Note id (or a unique prefix of at least 4 characters).")
        var id: String

        @Argument(help: "A Markdown file, or - for standard input, to replace the body without an editor.")
        var file: String?

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            let old = try session.vault.noteBody(id)
            let body: String
            if let file {
                body = try NoteCommand.read(file)
            } else if title != nil {
                // A new title and no new text: a rename, with no editor.
                body = old
            } else {
                guard let edited = try NoteEditor.edit(old) else { throw CLIError("note not changed: the editor left it empty") }
                body = edited
            }
            guard body != old || title != nil else { return Terminal.note("Note not changed.") }
            let note = try session.vault.editNote(id, title: title, body: body)
            Terminal.output("Saved note \(note.id.prefix(8)): \(TerminalText.escaped(note.name))")
        }
    }

    struct Cat: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cat", abstract: "Print a note's Markdown body.", aliases: ["show"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        @Argument(help: "Note id (or a unique prefix of at least 4 characters).")
        var id: String

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            let row = try session.vault.item(id)
            guard row.kind == .note else { throw NoteError.notANote(row.id) }
            try EndCommand.viewing(row, in: session.vault) {
                try FileHandle.standardOutput.write(contentsOf: Data(try session.vault.noteBody(row.id).utf8))
            }
        }
    }

    struct Attach: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "attach", abstract: "Attach items (photos, videos, files) to a note.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        @Argument(help: "Note id.")
        var note: String

        @Argument(help: "Ids of the items to attach.")
        var ids: [String]

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            try session.vault.attach(ids, to: note)
            Terminal.output("Attached \(ids.count) item\(ids.count == 1 ? "" : "s").")
        }
    }

    struct Detach: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "detach", abstract: "Detach items from a note; the items stay.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var item: ItemOptions

        @Argument(help: "Note id.")
        var note: String

        @Argument(help: "Ids of the items to detach.")
        var ids: [String]

        func run() throws {
            let session = try VaultSession(global: global, passwords: passwords)
            _ = try session.folder(item.folder)
            let ids = try ids.map { try session.vault.item($0).id }
            try session.vault.detach(ids, from: note)
            Terminal.output("Detached \(ids.count) item\(ids.count == 1 ? "" : "s").")
        }
    }

    /// The text of `file`, or of standard input for `-`: UTF-8, at most a note's size.
    static func read(_ file: String) throws -> String {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let read = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read \(file)") }
            data = read
        }
        guard data.count <= NoteFormat.maximumBodySize else { throw NoteError.bodyTooLarge(data.count) }
        guard let text = String(data: data, encoding: .utf8) else { throw NoteError.notText }
        return text
    }
}
