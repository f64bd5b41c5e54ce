import Foundation
import ObscuraTestSupport
import Testing

/// `obscura note` (issue 19, item 1): a note written from standard input, edited in
/// $EDITOR on an in-memory file, read, searched, exported and imported.
@Suite struct NoteCLITests {
    /// An editor that replaces "apple" with "pear" in the file it is given, after checking
    /// that it was given an in-memory file (/dev/fd/N, no path on disk).
    func editorScript(_ cli: CLIRunner) throws -> String {
        let path = cli.root + "/editor.sh"
        try """
            #!/bin/sh
            case "$1" in /dev/fd/*) ;; *) echo "not an in-memory file: $1" >&2; exit 3 ;; esac
            text=$(cat "$1")
            printf '%s\\n' "$text" | sed 's/apple/pear/g' > "$1"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o700)
        return path
    }

    @Test func aNoteIsAddedEditedReadSearchedExportedAndImported() throws {
        let a = try CLIRunner(), b = try CLIRunner()
        try a.initializeQuickly(password: "pw")
        let add = try a.run(["note", "add", "--password-stdin", "--title", "Groceries", "-"], stdin: "pw\n# List\n- apple crumble\n- flour\n")
        #expect(add.code == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 36)
        #expect(try a.run(["note", "cat", "--password-stdin", id], stdin: "pw\n").stdout == "# List\n- apple crumble\n- flour\n")

        let edit = try a.run(["note", "edit", "--password-stdin", String(id.prefix(8))], stdin: "pw\n",
                             environment: ["EDITOR": try editorScript(a)])
        #expect(edit.code == 0 && edit.stdout.contains("Saved note \(id.prefix(8)): Groceries"), "\(edit.stdout)\(edit.stderr)")
        #expect(try a.run(["note", "cat", "--password-stdin", id], stdin: "pw\n").stdout == "# List\n- pear crumble\n- flour\n")
        let unchanged = try a.run(["note", "edit", "--password-stdin", id], stdin: "pw\n", environment: ["EDITOR": "true"])
        #expect(unchanged.code == 0 && unchanged.stderr.contains("Note not changed."), "\(unchanged.stderr)")
        let failed = try a.run(["note", "edit", "--password-stdin", id], stdin: "pw\n", environment: ["EDITOR": "false"])
        #expect(failed.code != 0 && failed.stderr.contains("exited with status 1"), "\(failed.stderr)")

        let found = try a.run(["ls", "--password-stdin", "--kind", "note", "--search", "crumble"], stdin: "pw\n")
        #expect(found.stdout.contains("note") && found.stdout.contains("Groceries"), "\(found.stdout)")
        #expect(!(try a.run(["ls", "--password-stdin", "--search", "apple"], stdin: "pw\n").stdout.contains("Groceries")))

        let export = try a.run(["export", "--generate-password", "--password-stdin", "-o", a.root + "/v.obscura"], stdin: "pw\n")
        #expect(export.code == 0, "\(export.stderr)")
        let password = try #require(export.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        try b.initializeQuickly()
        #expect(try b.run(["import", "--password-stdin", a.root + "/v.obscura"], stdin: password + "\n").code == 0)
        #expect(try b.run(["note", "cat", "--password-stdin", id], stdin: "pw\n").stdout == "# List\n- pear crumble\n- flour\n")
    }

    @Test func notesTakeFilesAndRefuseWhatIsNotANote() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        try Data("First line title\nbody\n".utf8).write(to: URL(fileURLWithPath: cli.root + "/n.md"))
        let add = try cli.run(["note", "add", "--password-stdin", cli.root + "/n.md"], stdin: "pw\n")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try cli.run(["ls", "--password-stdin"], stdin: "pw\n").stdout.contains("First line title"))
        let replaced = try cli.run(["note", "edit", "--password-stdin", "--title", "Renamed", id, "-"], stdin: "pw\nnew body\n")
        #expect(replaced.code == 0 && replaced.stdout.contains("Renamed"), "\(replaced.stderr)")
        #expect(try cli.run(["note", "cat", "--password-stdin", id], stdin: "pw\n").stdout == "new body\n")

        try Data([0xff, 0xfe]).write(to: URL(fileURLWithPath: cli.root + "/bad.md"))
        let bad = try cli.run(["note", "add", "--password-stdin", cli.root + "/bad.md"], stdin: "pw\n")
        #expect(bad.code != 0 && bad.stderr.contains("UTF-8"), "\(bad.stderr)")
        let empty = try cli.run(["note", "add", "--password-stdin"], stdin: "pw\n", environment: ["EDITOR": "true"])
        #expect(empty.code != 0 && empty.stderr.contains("no note written"), "\(empty.stderr)")

        try Data("not a note".utf8).write(to: URL(fileURLWithPath: cli.root + "/f.txt"))
        #expect(try cli.run(["add", "--password-stdin", cli.root + "/f.txt"], stdin: "pw\n").code == 0)
        let listed = try cli.run(["ls", "--password-stdin", "--kind", "file"], stdin: "pw\n").stdout
        let fileId = try #require(listed.split(separator: " ").first.map(String.init))
        let notANote = try cli.run(["note", "cat", "--password-stdin", fileId], stdin: "pw\n")
        #expect(notANote.code != 0 && notANote.stderr.contains("is not a note"), "\(notANote.stderr)")
        let attached = try cli.run(["note", "attach", "--password-stdin", id, fileId], stdin: "pw\n")
        #expect(attached.code == 0 && attached.stdout == "Attached 1 item.\n", "\(attached.stderr)")
    }

    /// A new user's findings: `note show` is `note cat`; `--title` alone renames without
    /// an editor; with no EDITOR and no terminal, vi is not started to fail noisily.
    @Test func aNoteIsShownRenamedAndNeverGivenToViWithoutATerminal() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let id = try cli.run(["note", "add", "--password-stdin", "-"], stdin: "pw\n# Plums\nripe\n").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try cli.run(["note", "show", "--password-stdin", id], stdin: "pw\n").stdout == "# Plums\nripe\n")
        let renamed = try cli.run(["note", "edit", "--password-stdin", "--title", "Damsons", id], stdin: "pw\n",
                                  environment: ["EDITOR": "false"])
        #expect(renamed.code == 0 && renamed.stdout.contains("Damsons"), "no editor runs: \(renamed.stdout)\(renamed.stderr)")
        #expect(try cli.run(["note", "cat", "--password-stdin", id], stdin: "pw\n").stdout == "# Plums\nripe\n")
        let noTerminal = try cli.run(["note", "edit", "--password-stdin", id], stdin: "pw\n", environment: ["EDITOR": "", "VISUAL": ""])
        #expect(noTerminal.code != 0 && noTerminal.stderr.contains("no terminal for an editor"), "\(noTerminal.stderr)")
    }
}
