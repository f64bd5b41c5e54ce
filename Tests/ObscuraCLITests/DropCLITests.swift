import Foundation
import ObscuraTestSupport
import Testing

/// `obscura drop` (issue 19, item 3): a file dropped with a vault's code while it is locked
/// appears in that vault after its next unlock, and in no other.
@Suite struct DropCLITests {
    @Test func aDropAppearsInTheRightVaultOnly() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        for password in ["first", "second"] {
            let created = try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: password + "\n")
            #expect(created.code == 0, "\(created.stderr)")
        }
        let shown = try cli.run(["drop", "code", "--password-stdin"], stdin: "second\n")
        let code = shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(shown.code == 0 && code.hasPrefix("DROPS-") && code.count == 75, "\(shown.stdout)\(shown.stderr)")
        #expect(try cli.run(["drop", "code", "--password-stdin"], stdin: "second\n").stdout == shown.stdout, "the code stays")

        let file = cli.root + "/dropped.jpg"
        try Data(try TestImages.image("jpeg", width: 48, height: 32)).write(to: URL(fileURLWithPath: file))
        let dropped = try cli.run(["drop", "--code", code.lowercased(), file])
        #expect(dropped.code == 0 && dropped.stdout.contains("Dropped 1 file"), "\(dropped.stdout)\(dropped.stderr)")

        #expect(!(try cli.run(["ls", "--password-stdin"], stdin: "first\n").stdout.contains("dropped.jpg")))
        let listed = try cli.run(["ls", "--password-stdin"], stdin: "second\n")
        #expect(listed.stdout.contains("dropped.jpg"), "\(listed.stdout)\(listed.stderr)")
        #expect(listed.stderr.contains("Took in 1 dropped file."), "the unlock says what it took in: \(listed.stderr)")
        #expect(!listed.stdout.contains("Took in"), "on stderr, not in the listing")
        #expect(try cli.files("inbox").isEmpty)
        #expect(try cli.run(["verify", "--password-stdin"], stdin: "second\n").code == 0)
    }

    @Test func aMistypedCodeIsRefused() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        let file = cli.root + "/a.txt"
        try Data("a".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try cli.run(["drop", "--code", "DROPS-0000", file])
        #expect(refused.code != 0 && refused.stderr.contains("not a valid drop code"), "\(refused.stderr)")
    }
}
