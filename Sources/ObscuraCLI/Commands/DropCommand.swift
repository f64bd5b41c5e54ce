import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura drop`: add files to a vault without unlocking it (docs/FORMAT.md §10).
///
/// `drop code` (vault password) prints the vault's drop code; `drop --code CODE FILE...`
/// needs no password and no key: it seals each file to the code and leaves it in the
/// directory's shared inbox, which the vault takes in at its next unlock.
struct DropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Add files to a vault while it is locked, with its drop code.",
        subcommands: [DropFilesCommand.self, DropCodeCommand.self],
        defaultSubcommand: DropFilesCommand.self)
}

/// `obscura drop --code CODE FILE...`.
struct DropFilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Seal files to a drop code; the vault takes them in at its next unlock.",
        discussion: """
            No password and no key are needed, and the vault may be in use: each file is \
            sealed to the code and left in the directory's inbox. Nothing there says which \
            vault it is for. With --note, each file (or standard input, -) is dropped as a \
            note: Markdown text of at most 1 MiB, titled by --title or the file's name.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The vault's drop code (from 'obscura drop code').", valueName: "code"))
    var code: String

    @Flag(name: .long, help: "Drop each file (or standard input, '-') as a note: UTF-8 Markdown text.")
    var note = false

    @Option(name: .long, help: ArgumentHelp("With --note: the note's title (default: the file's name, else its first line).", valueName: "title"))
    var title: String?

    @Argument(help: "Files to add.")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file to drop.") }
        guard note || title == nil else { throw ValidationError("--title goes with --note.") }
        guard !files.contains("-") || note else { throw ValidationError("Standard input ('-') is dropped only as a note (--note).") }
    }

    func run() throws {
        let dropCode: DropCode
        do {
            dropCode = try DropCode(text: code)
        } catch {
            throw CLIError("\(error): check it against the one in the vault's settings or 'obscura drop code'")
        }
        let path = global.vaultPath()
        guard FileManager.default.fileExists(atPath: path + "/data") else {
            throw CLIError("\(path) is not a vault directory")
        }
        let inbox = DropInbox(vaultPath: path)
        // Every file is looked at before any is dropped: a directory, an empty or an
        // unreadable file would otherwise stop the command half-way, or be refused only
        // at the vault's next unlock.
        if !note { try files.forEach(Self.check) }
        var dropped = 0
        for file in files {
            do {
                if note {
                    let (body, name) = try Self.noteText(file, title: title)
                    try inbox.drop(bytes: body, name: name, kind: .note, to: dropCode)
                } else {
                    try inbox.drop(file: file, to: dropCode)
                }
            } catch {
                let done = dropped == 0 ? "" : " (\(dropped) of \(files.count) dropped before it)"
                if let error = error as? CLIError { throw CLIError(error.description + done) }
                throw CLIError("could not drop \(file): \(error)" + done)
            }
            dropped += 1
        }
        let what = note ? "note" : "file"
        print("Dropped \(files.count) \(what)\(files.count == 1 ? "" : "s"); the vault takes \(files.count == 1 ? "it" : "them") in at its next unlock.")
    }

    /// Refuses `file` unless it is a readable, non-empty regular file.
    static func check(_ file: String) throws {
        var st = stat()
        guard stat(file, &st) == 0 else { throw CLIError("cannot drop \(file): \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) != S_IFDIR else { throw CLIError("cannot drop \(file): it is a directory; name its files") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw CLIError("cannot drop \(file): not a regular file") }
        guard st.st_size > 0 else { throw CLIError("cannot drop \(file): the file is empty") }
        guard access(file, R_OK) == 0 else { throw CLIError("cannot drop \(file): \(String(cString: strerror(errno)))") }
    }

    /// A note's body read from `file` (or standard input), checked as the vault will check
    /// it (UTF-8, at most 1 MiB) so that a refusal comes now rather than at the unlock, and
    /// its title: `title`, else the file's name without `.md`, else (standard input) the
    /// body's first line, as the vault titles an untitled note.
    static func noteText(_ file: String, title: String?) throws -> (body: [UInt8], name: String) {
        let handle = file == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: file)
        guard let handle else { throw CLIError("cannot read \(file)") }
        let body = Array(try handle.read(upToCount: NoteFormat.maximumBodySize + 1) ?? Data())
        guard body.count <= NoteFormat.maximumBodySize else { throw CLIError("\(file): \(NoteError.bodyTooLarge(body.count))") }
        guard let text = String(validating: body, as: UTF8.self) else { throw CLIError("\(file): \(NoteError.notText)") }
        let stem = file == "-" ? "" : ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return (body, NoteFormat.title(title ?? stem, body: text))
    }
}

/// `obscura drop code`.
struct DropCodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "code",
        abstract: "Print the vault's drop code (asks for the vault password).",
        discussion: """
            Whoever has the code can add files to the vault, and do nothing else: it opens \
            nothing and shows nothing.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        defer { session.vault.lock() }
        print(try session.vault.dropCode().text)
    }
}
