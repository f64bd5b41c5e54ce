import Foundation
import Testing
@testable import ObscuraCLI

/// Issue #13 item 10: a name or path with control characters (a file named with an
/// escape sequence) reaches the terminal escaped, in `ls` and in every message, so it
/// cannot drive the terminal; `ls --json` stays valid JSON that decodes to the real name.
@Suite struct TerminalOutputCLITests {
    /// ESC (an OSC title change ended by BEL and a CSI colour), CR, and the C1 CSI U+009B.
    static let hostile = "a\u{1B}]0;owned\u{07}b\u{1B}[31mred\rc\u{9B}2Jd"

    /// Characters a terminal acts on: C0 controls but the newline, DEL, and C1 controls.
    static func controls(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { ($0 < 0x20 && $0 != 0x0A) || (0x7F...0x9F).contains($0) }
    }

    @Test func namesAndPathsAreEscapedInEveryMessage() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let src = cli.root + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        let file = src + "/" + Self.hostile + ".txt"
        try Data("notes".utf8).write(to: URL(fileURLWithPath: file))
        try Data().write(to: URL(fileURLWithPath: src + "/" + Self.hostile + ".empty"))

        var transcript = ""
        func run(_ args: [String], _ stdin: String = "pw\n") throws -> CLIRunner.Output {
            let out = try cli.run(args, stdin: stdin)
            transcript += out.stdout + out.stderr
            #expect(Self.controls(out.stdout + out.stderr).isEmpty, "\(args.first ?? ""): \((out.stdout + out.stderr).debugDescription)")
            return out
        }
        // The failed file's path is in a message, the duplicate's in another.
        let added = try run(["add", "--password-stdin", src])
        #expect(added.stderr.contains("\\u001b]0;owned\\u0007b\\u001b[31mred\\u000dc\\u009b2Jd.empty"), "\(added.stderr)")
        _ = try run(["add", "--password-stdin", file])
        let listed = try run(["ls", "--password-stdin"])
        #expect(listed.stdout.contains("a\\u001b]0;owned\\u0007b\\u001b[31mred\\u000dc\\u009b2Jd.txt"), "\(listed.stdout)")
        // JSON: still valid, and it decodes to the name as stored.
        let json = try run(["ls", "--json", "--password-stdin"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == [Self.hostile + ".txt"])
        let id = try #require(entries.first?["id"] as? String)

        _ = try run(["folder", "create", "--password-stdin", Self.hostile])
        _ = try run(["folder", "ls", "--password-stdin"])
        _ = try run(["mv", "--password-stdin", id, "--folder", Self.hostile])
        _ = try run(["get", "--password-stdin", id, "-o", cli.root + "/" + Self.hostile])
        _ = try run(["get", "--password-stdin", id, "-o", cli.root + "/" + Self.hostile])
        _ = try run(["get", "--password-stdin", "\u{1B}[2J" + id])
        _ = try run(["export", "--password-stdin", "--allow-weak-password", "-o", cli.root + "/no-such-dir/" + Self.hostile], "pw\ne\n")
        _ = try run(["import", "--password-stdin", cli.root + "/" + Self.hostile + ".obscura"], "e\n")
        _ = try run(["\u{1B}[2J"])
        _ = try run(["ls", "--password-stdin", "--\u{9B}2J"])
        _ = try run(["init", "--vault", cli.root + "/" + Self.hostile])
        #expect(transcript.contains("\\u001b"), "the escapes are shown, not dropped")
    }

    @Test func escapingIsJSONsOwnAndLeavesOtherTextAlone() throws {
        #expect(TerminalText.escaped(Self.hostile) == "a\\u001b]0;owned\\u0007b\\u001b[31mred\\u000dc\\u009b2Jd")
        #expect(TerminalText.escaped("a\nb\u{7F}\tc") == "a\\u000ab\\u007f\\u0009c")
        #expect(TerminalText.escaped("a\nb\u{85}", keepingNewlines: true) == "a\nb\\u0085")
        #expect(TerminalText.escaped("Bilder/Été 日本 🏔 \\u001b") == "Bilder/Été 日本 🏔 \\u001b")
        // Applied to JSON, the result is still JSON, for the same string.
        let json = TerminalText.escaped(String(decoding: try JSONEncoder().encode([Self.hostile]), as: UTF8.self))
        #expect(Self.controls(json).isEmpty)
        #expect(try JSONDecoder().decode([String].self, from: Data(json.utf8)) == [Self.hostile])
    }
}
