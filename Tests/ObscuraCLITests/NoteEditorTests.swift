import Foundation
import Testing
@testable import ObscuraCLI

/// The editor of `obscura note` gets Vim's no-swap, no-viminfo, no-backup arguments
/// whatever EDITOR calls it: a review found `env vim` and Debian's `editor` (a link to
/// `vim.basic`) passed over, so that Vim wrote the note into a swap file in /var/tmp.
@Suite struct NoteEditorTests {
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
}
