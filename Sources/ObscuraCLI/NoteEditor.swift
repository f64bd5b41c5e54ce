import Foundation
import ObscuraKit

/// Runs the person's editor on a note held in an ``InMemoryFile`` (issue 19: editing never
/// leaves plaintext on disk). The editor gets `/dev/fd/N`, its own inherited descriptor;
/// nothing is written to a temporary file, and where no in-memory file can be had the
/// edit is refused.
enum NoteEditor {
    /// What the editor left after editing `text`; nil when it left nothing (an empty file
    /// is how one gives up a note, as with `git commit`).
    ///
    /// - Throws: ``CLIError`` when the editor cannot start or exits with a failure;
    ///   ``NoteError/noMemoryFile(_:)`` where there is no in-memory file.
    static func edit(_ text: String) throws -> String? {
        let editor = editorCommand()
        // vi by default, with no terminal to draw on (a pipe, a script): it could only fail
        // noisily, so the text is asked for another way.
        if editor == defaultEditor && isatty(STDIN_FILENO) == 0 {
            throw CLIError("no terminal for an editor: give the note's text as FILE, or - for standard input (or set EDITOR)")
        }
        let file = try InMemoryFile(name: "obscura-note")
        try file.write(Array(text.utf8))
        // As git runs its editor: through the shell, so that EDITOR may hold arguments.
        let script = editor + " \"$@\""
        var arguments = ["/bin/sh", "-c", script, "sh"] + extraArguments(for: editor) + [file.childPath]
        let status = try spawn(&arguments)
        guard status == 0 else { throw CLIError("the editor (\(editor)) exited with status \(status); the note is unchanged") }
        let bytes = try file.contents()
        guard bytes.count <= NoteFormat.maximumBodySize else { throw NoteError.bodyTooLarge(bytes.count) }
        guard let edited = String(validating: bytes, as: UTF8.self) else { throw NoteError.notText }
        return edited.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : edited
    }

    /// The editor when neither EDITOR nor VISUAL names one.
    static let defaultEditor = "vi"

    /// $EDITOR, else $VISUAL, else vi.
    static func editorCommand() -> String {
        let environment = ProcessInfo.processInfo.environment
        for name in ["EDITOR", "VISUAL"] {
            if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return value }
        }
        return defaultEditor
    }

    /// For Vim and Neovim: no swap file, no viminfo/shada, no backup or undo file, each
    /// of which would write the note's text to disk (a swap file for `/dev/fd/N` lands in
    /// `~/tmp` or `/var/tmp`, since `/dev/fd` takes none).
    ///
    /// The settings go in three times, because the person's configuration runs between
    /// them: `--cmd` before the vimrc or init.lua (so that the file loads without a swap
    /// file where the configuration does not ask for one), `-c` after it and its plugins
    /// (where a `set undofile` or `set backup` of theirs would win over `--cmd`), and an
    /// autocommand defined last, so that it runs after any of theirs just before a write.
    /// Vim's and Neovim's names for viminfo are both understood (Neovim's are aliases).
    static func extraArguments(for editor: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> [String] {
        guard isVim(programName(of: editor, path: path)) else { return [] }
        let settings = "set nobackup nowritebackup noundofile noswapfile viminfo= viminfofile=NONE"
        let beforeWrites = "autocmd BufWritePre,FileWritePre,FileAppendPre * setlocal nobackup nowritebackup noundofile"
        return ["-n", "-i", "NONE", "--cmd", settings, "-c", settings, "-c", beforeWrites]
    }

    /// Whether `name`, a program's real file name, is Vim's or Neovim's (Debian installs
    /// Vim as `vim.basic`, `vim.tiny`, `vim.gtk3`...).
    static func isVim(_ name: String) -> Bool {
        ["vi", "vim", "nvim", "view", "vimdiff", "gvim", "rvim"].contains(name) || name.hasPrefix("vim.")
    }

    /// The real file name of the program `editor` runs: past `env`, its options and any
    /// `NAME=value` words, found on PATH and followed through links, so that Debian's
    /// `editor` and `vi` (alternatives) are known by what they are.
    static func programName(of editor: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String {
        var words = editor.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if let first = words.first, (first as NSString).lastPathComponent == "env" {
            words = Array(words.dropFirst().drop { $0.hasPrefix("-") })
        }
        guard let word = words.drop(while: { $0.contains("=") }).first else { return "" }
        var file = word
        if !word.contains("/") {
            let directories = (path ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
            file = directories.map { $0 + "/" + word }.first { access($0, X_OK) == 0 } ?? word
        }
        guard let resolved = realpath(file, nil) else { return (word as NSString).lastPathComponent }
        defer { free(resolved) }
        return (String(cString: resolved) as NSString).lastPathComponent
    }

    /// Runs `arguments` with this process's descriptors (the in-memory file's among them)
    /// and waits; returns its exit status.
    private static func spawn(_ arguments: inout [String]) throws -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ)
        guard result == 0 else { throw CLIError("cannot start the editor: \(String(cString: strerror(result)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw CLIError("lost the editor: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import (macros).
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
