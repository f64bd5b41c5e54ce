import Foundation
import Testing
@testable import ObscuraCLI

/// The editor of `obscura note` gets Vim's no-swap, no-viminfo, no-backup arguments
/// whatever EDITOR calls it: a review found `env vim` and Debian's `editor` (a link to
/// `vim.basic`) passed over, so that Vim wrote the note into a swap file in /var/tmp.
/// And they hold against the person's own configuration: a later review found a vimrc's
/// `set undofile` and `set backup` winning over them (issue 40 point 2).
@Suite(.serialized) struct NoteEditorTests {
    /// A directory for PATH holding `vim.basic` and `nano` (empty executables) and
    /// `editor`, a link to `vim.basic`, as Debian's alternatives make it.
    func programs() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-editor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in ["vim.basic", "nano"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("#!/bin/sh\n".utf8),
                                                   attributes: [.posixPermissions: 0o755]))
        }
        try FileManager.default.createSymbolicLink(atPath: directory + "/editor", withDestinationPath: directory + "/vim.basic")
        return directory
    }

    @Test func vimIsKnownThroughLinksEnvAndAssignments() throws {
        let path = try programs()
        defer { try? FileManager.default.removeItem(atPath: path) }
        for editor in ["editor", "env editor", "/usr/bin/env -i LANG=C editor +10", "LANG=C editor", path + "/editor -f"] {
            #expect(NoteEditor.programName(of: editor, path: path) == "vim.basic", "\(editor)")
        }
        #expect(NoteEditor.programName(of: "nano -w", path: path) == "nano")
        #expect(NoteEditor.programName(of: "env", path: path) == "")
        #expect(NoteEditor.isVim("vim.basic") && NoteEditor.isVim("nvim") && NoteEditor.isVim("vi"))
        #expect(!NoteEditor.isVim("nano") && !NoteEditor.isVim("nvi") && !NoteEditor.isVim("emacs"))
    }

    @Test func onlyVimGetsVimsArguments() throws {
        let path = try programs()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(NoteEditor.extraArguments(for: "env editor", path: path).prefix(3) == ["-n", "-i", "NONE"])
        #expect(NoteEditor.extraArguments(for: "nano", path: path).isEmpty)
    }

    /// A configuration that asks for every file Vim and Neovim can write a buffer's text
    /// to (swap, backup, undo, viminfo/ShaDa), into folders under the runner's HOME, also
    /// from a BufWritePre autocommand that runs after the file was loaded.
    func hostileConfiguration(_ cli: CLIRunner) throws -> [String] {
        let folders = ["undo", "backup", "swap"].map { cli.root + "/leak-" + $0 }
        for folder in folders { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let (undo, backup, swap) = (folders[0], folders[1], folders[2])
        try """
            set undofile undodir=\(undo) backup writebackup backupdir=\(backup) swapfile directory=\(swap) updatecount=1
            set viminfo='20,<50 viminfofile=\(cli.root)/leak-undo/viminfo
            autocmd BufWritePre * set undofile backup writebackup

            """.write(toFile: cli.root + "/.vimrc", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: cli.config + "/nvim", withIntermediateDirectories: true)
        try """
            vim.opt.undofile = true
            vim.opt.undodir = "\(undo)"
            vim.opt.backup = true
            vim.opt.writebackup = true
            vim.opt.backupdir = "\(backup)"
            vim.opt.swapfile = true
            vim.opt.directory = "\(swap)"
            vim.opt.updatecount = 1
            vim.opt.shadafile = "\(undo)/shada"
            vim.api.nvim_create_autocmd("BufWritePre", { command = "set undofile backup writebackup" })

            """.write(toFile: cli.config + "/nvim/init.lua", atomically: true, encoding: .utf8)
        return folders
    }

    /// Edits a note in the real Vim and the real Neovim (keys typed from a script) under a
    /// configuration that asks for swap, backup and undo files, and finds none of them,
    /// during the edit or after, and the note's text nowhere under HOME.
    @Test(arguments: ["vim", "nvim"])
    func theEditorWritesTheNoteNowhereWhateverItsConfigurationAsks(_ program: String) throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let folders = try hostileConfiguration(cli)
        let secret = "marmalade-\(UUID().uuidString.prefix(8))"
        let add = try cli.run(["note", "add", "--password-stdin", "--title", "Plans", "-"], stdin: "pw\n\(secret)\n")
        #expect(add.code == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Typed after start-up: a line added, the folders listed while the buffer is open
        // (a swap file exists only then), then written and quit.
        let during = cli.root + "/during.txt"
        let keys = cli.root + "/keys"
        try "Goadded \(secret)\u{1b}:silent !find \(folders.joined(separator: " ")) -type f > \(during)\r:wq\r"
            .write(toFile: keys, atomically: true, encoding: .utf8)
        let edit = try cli.run(["note", "edit", "--password-stdin", id], stdin: "pw\n",
                               environment: ["EDITOR": "\(program) -s \(keys)"])
        #expect(edit.code == 0 && edit.stdout.contains("Saved note"), "\(edit.stdout)\(edit.stderr)")
        #expect(try cli.run(["note", "cat", "--password-stdin", id], stdin: "pw\n").stdout == "\(secret)\nadded \(secret)\n")

        let listed = try String(contentsOfFile: during, encoding: .utf8)
        #expect(listed.isEmpty, "files while \(program) had the note open: \(listed)")
        for folder in folders {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "\(program) wrote into \(folder)")
        }
        // Nor anywhere else under HOME (the vault's files are sealed; the key script holds it).
        for file in try FileManager.default.subpathsOfDirectory(atPath: cli.root) where file != "keys" {
            guard let data = FileManager.default.contents(atPath: cli.root + "/" + file) else { continue }
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(program) left the note's text in \(file)")
        }
    }
}
