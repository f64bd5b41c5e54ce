import Foundation
import Testing

/// Issue #13 item 12: `verify` counts the pool files its vault's catalog does not name,
/// says that other vaults' files are among them, and deletes none.
@Suite struct VerifyCLITests {
    @Test func verifyCountsUnnamedPoolFilesAndDeletesNone() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let notes = cli.root + "/notes.txt"
        try Data("notes".utf8).write(to: URL(fileURLWithPath: notes))
        // Another vault's item (a file: one original, no thumbnail), and a leftover.
        #expect(try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "other\n").code == 0)
        #expect(try cli.run(["add", "--password-stdin", notes], stdin: "other\n").code == 0)
        try Data([1]).write(to: URL(fileURLWithPath: cli.vault + "/media/\(UUID().uuidString.lowercased()).thumb.enc"))
        #expect(try cli.run(["add", "--password-stdin", notes], stdin: "pw\n").code == 0)
        let before = try cli.files("media")
        #expect(before.count == 3)

        let verified = try cli.run(["verify", "--password-stdin"], stdin: "pw\n")
        #expect(verified.code == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("Verified 1 item; 0 problems."))
        #expect(verified.stdout.contains("2 files in the media pool are not named by this vault."), "\(verified.stdout)")
        #expect(verified.stdout.contains("other vaults"), "the count comes with its caveat: \(verified.stdout)")
        #expect(try cli.files("media") == before, "nothing is deleted")
    }
}
