import Foundation
import ObscuraTestSupport
import Testing

/// `obscura end` (issue 19, item 2): ends given, listed, counted by `get` and `cat`, and
/// enforced at the next unlock.
@Suite struct EndCLITests {
    func vaultWithTwoFiles(_ cli: CLIRunner) throws -> (once: String, soon: String) {
        let src = cli.root + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        try Data("read me once".utf8).write(to: URL(fileURLWithPath: src + "/once.txt"))
        try Data("gone soon".utf8).write(to: URL(fileURLWithPath: src + "/soon.txt"))
        try cli.run(["init"])
        try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")
        #expect(try cli.run(["add", "--password-stdin", src], stdin: "pw\n").code == 0)
        let listed = try JSONSerialization.jsonObject(with: Data(try cli.run(["ls", "--json", "--password-stdin"], stdin: "pw\n").stdout.utf8))
        let ids = Dictionary(uniqueKeysWithValues: ((listed as? [[String: Any]]) ?? []).map { ($0["name"] as! String, $0["id"] as! String) })
        return (try #require(ids["once.txt"]), try #require(ids["soon.txt"]))
    }

    @Test func anItemOfTwoViewsIsGoneAfterTheSecondGet() throws {
        let cli = try CLIRunner()
        let (once, soon) = try vaultWithTwoFiles(cli)
        let set = try cli.run(["end", "--password-stdin", "--views", "2", once], stdin: "pw\n")
        #expect(set.code == 0 && set.stdout.contains("will be deleted for good after 2 views"), "\(set.stdout)\(set.stderr)")
        #expect(try cli.run(["ls", "--password-stdin"], stdin: "pw\n").stdout.contains("once.txt  (2 views left)"))

        let first = try cli.run(["cat", "--password-stdin", once], stdin: "pw\n")
        #expect(first.stdout == "read me once" && first.stderr.contains("1 view left"), "\(first.stderr)")
        let out = cli.root + "/out.txt"
        let last = try cli.run(["get", "--password-stdin", once, "-o", out], stdin: "pw\n")
        #expect(last.code == 0 && last.stderr.contains("That was its last view"), "\(last.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "read me once")
        let after = try cli.run(["cat", "--password-stdin", once], stdin: "pw\n")
        #expect(after.code != 0 && after.stderr.contains("no item matches"), "\(after.stderr)")
        #expect(try cli.run(["trash", "ls", "--password-stdin"], stdin: "pw\n").stdout.contains("once.txt") == false)
        #expect(try cli.run(["cat", "--password-stdin", soon], stdin: "pw\n").stdout == "gone soon")
    }

    @Test func anEndInTimeIsEnforcedAtTheNextUnlock() throws {
        let cli = try CLIRunner()
        let (once, soon) = try vaultWithTwoFiles(cli)
        #expect(try cli.run(["end", "--password-stdin", "--in", "0s", soon], stdin: "pw\n").code != 0, "no end of zero")
        #expect(try cli.run(["end", "--password-stdin", soon], stdin: "pw\n").code != 0, "an end needs --in, --views or --never")
        // A day away: listed with its time.
        #expect(try cli.run(["end", "--password-stdin", "--in", "1d", once], stdin: "pw\n").code == 0)
        let listed = try cli.run(["ls", "--json", "--password-stdin"], stdin: "pw\n").stdout
        #expect(listed.contains("\"ends_at\":\"20"), "\(listed)")
        let set = try cli.run(["end", "--password-stdin", "--in", "1s", soon], stdin: "pw\n")
        #expect(set.code == 0, "\(set.stderr)")
        Thread.sleep(forTimeInterval: 1.5)
        let next = try cli.run(["ls", "--password-stdin"], stdin: "pw\n")
        #expect(next.stderr.contains("1 item reached its end and was deleted for good."), "\(next.stderr)")
        #expect(!next.stdout.contains("soon.txt") && next.stdout.contains("once.txt"))
        #expect(try cli.run(["verify", "--password-stdin"], stdin: "pw\n").code == 0)

        // --never takes an end away.
        #expect(try cli.run(["end", "--password-stdin", "--views", "1", once], stdin: "pw\n").code == 0)
        #expect(try cli.run(["end", "--password-stdin", "--never", once], stdin: "pw\n").stdout.contains("Took the end away"))
        #expect(try cli.run(["cat", "--password-stdin", once], stdin: "pw\n").stdout == "read me once")
        #expect(try cli.run(["cat", "--password-stdin", once], stdin: "pw\n").stdout == "read me once")
    }
}
