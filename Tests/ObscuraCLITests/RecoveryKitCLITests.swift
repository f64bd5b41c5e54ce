import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing
import ObscuraKeys

/// Issue 19 item 5: `obscura recovery-kit` writes a one-page HTML sheet with the outer
/// key's words, the backup repository when one is set up, and the decoy secret only on
/// request; it never replaces a file and is the user's alone.
@Suite struct RecoveryKitCLITests {
    /// The words of the sheet's list labelled `label`, in order.
    static func words(_ html: String, _ label: String) -> [String]? {
        guard let start = html.range(of: "aria-label=\"\(label)\">"), let end = html[start.upperBound...].range(of: "</ol>") else { return nil }
        return html[start.upperBound..<end.lowerBound].components(separatedBy: "<li>").dropFirst().map { $0.replacingOccurrences(of: "</li>", with: "") }
    }

    @Test func theSheetHoldsTheOuterKeysWordsAndTheRepository() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        cli.environment = ["XDG_CACHE_HOME": cli.root + "/cache"]
        #expect(try cli.run(["backup", "init", cli.root + "/repo", "--backup-password-file", cli.root + "/bpw"]).code == 0)
        let kit = cli.root + "/kit.html"
        let made = try cli.run(["recovery-kit", "-o", kit])
        #expect(made.code == 0, "\(made.stderr)")
        var st = stat()
        #expect(stat(kit, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let html = try String(contentsOfFile: kit, encoding: .utf8)
        let outer = try KeyFile.read(cli.outerKeyFile, kind: .outer)
        let expected = KeyWords.encode(outer).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(separator: " ").map(String.init)
        #expect(Self.words(html, "The outer key's words") == expected)
        #expect(html.contains(KeyText.encode(outer, kind: .outer).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }))
        #expect(html.contains("Repository: <code>\(cli.root)/repo</code>"))
        #expect(Self.words(html, "The decoy secret's words") == nil, "the decoy secret only on request")
        #expect(!html.contains("<script") && !html.contains("http"), "nothing runs and nothing is fetched")
        // Never replaced.
        let again = try cli.run(["recovery-kit", "-o", kit, "--include-decoy-secret"])
        #expect(again.code == 1 && again.stderr.contains("never replaces a file"), "\(again.stderr)")
        #expect(try String(contentsOfFile: kit, encoding: .utf8) == html)
    }

    @Test func theDecoySecretOnlyOnRequest() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let kit = cli.root + "/kit.html"
        let made = try cli.run(["recovery-kit", "-o", kit, "--include-decoy-secret"])
        #expect(made.code == 0 && made.stderr.contains("can count the vaults"), "\(made.stderr)")
        let html = try String(contentsOfFile: kit, encoding: .utf8)
        let decoy = try KeyFile.read(cli.decoySecretFile, kind: .decoy)
        let expected = KeyWords.encode(decoy).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(separator: " ").map(String.init)
        #expect(Self.words(html, "The decoy secret's words") == expected)
        #expect(html.contains("No backup was set up"))
    }
}
