import Foundation
import ObscuraTestSupport
import Testing

/// Issue #6 item 2, through the binary: on a read-only vault directory (a read-only bind
/// mount as root, which ignores file modes; the modes otherwise) the read commands work
/// and every write command fails with exit code 1 and a message saying why.
@Suite struct ReadOnlyCLITests {
    @Test func readCommandsWorkAndWritesFailClearly() throws {
        let cli = try CLIRunner()
        let photo = cli.root + "/photo.jpg"
        try Data(TestImages.image("jpg", width: 300, height: 200)).write(to: URL(fileURLWithPath: photo))
        try cli.initializeQuickly(password: "pw")
        #expect(try cli.run(["add", "--password-stdin", photo], stdin: "pw\n").code == 0)

        guard let readOnly = try ReadOnlyView(of: cli.vault, parent: cli.root, suite: "read-only", name: "cli") else { return }
        let view = readOnly.path
        func run(_ args: [String], _ stdin: String = "pw\n") throws -> CLIRunner.Output {
            try cli.run(["--vault", view] + args, stdin: stdin, vaultOption: false)
        }
        let list = try run(["ls", "--json", "--password-stdin"])
        #expect(list.code == 0, "\(list.stderr)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        let get = try run(["get", "--password-stdin", id, "-o", cli.root + "/out.jpg"])
        #expect(get.code == 0, "\(get.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.root + "/out.jpg")) == Data(contentsOf: URL(fileURLWithPath: photo)))
        #expect(try run(["status", "--password-stdin"]).code == 0)
        #expect(try run(["verify", "--password-stdin"]).code == 0)
        #expect(try run(["export", "--password-stdin", "--allow-weak-password", "-o", cli.root + "/copy.obscura"], "pw\ne\n").code == 0)
        #expect(try run(["status", "--password-stdin"], "wrong\n").stderr == "obscura: error: wrong password\n")

        var refused = 0
        for (args, stdin) in [(["passwd", "--password-stdin", "--allow-weak-password"], "pw\nnew\n"), (["rm", "--password-stdin", id], "pw\n"),
                              (["folder", "create", "--password-stdin", "F"], "pw\n"), (["create", "--password-stdin", "--allow-weak-password"], "second\n"),
                              (["destroy", "--yes", "--password-stdin"], "pw\n")] {
            let out = try run(args, stdin)
            #expect(out.code == 1, "\(args)")
            // A new password's strength estimate comes first (issue 19 item 6).
            let error = out.stderr.split(separator: "\n").drop { $0.hasPrefix("Password strength: ") }.joined(separator: "\n")
            #expect(error.hasPrefix("obscura: error: permission denied: ") && error.contains("\(view)/"), "\(args): \(out.stderr)")
            refused += 1
        }
        let add = try run(["add", "--password-stdin", cli.root + "/copy.obscura"])
        #expect(add.code == 1 && add.stderr.contains(": permission denied: "), "\(add.stderr)")
        refused += 1
        // Compared as parsed JSON: key order may differ between runs.
        func items(_ out: CLIRunner.Output) -> NSArray? { try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? NSArray }
        #expect(items(try run(["ls", "--json", "--password-stdin"])) == items(list), "nothing changed")
        Hardening.report("read-only", "cli", ["view": readOnly.kind, "reads-ok": 6, "writes-refused": refused])
    }
}
