import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing
import ObscuraKeys

/// Issue 19 item 5: `keys export --words` prints a key as 24 BIP39 words, and `keys
/// import` and `keys verify` take the words back (docs/FORMAT.md §4.3, "Words").
@Suite struct KeyWordsCLITests {
    static func words(_ output: CLIRunner.Output) -> String? {
        output.stdout.split(separator: "\n").map(String.init).first { $0.split(separator: " ").count == KeyWords.count }
    }

    @Test func bothKeysRoundTripAsWords() throws {
        let a = try CLIRunner(), b = try CLIRunner()
        try a.initializeQuickly()
        let outer = try a.run(["keys", "export", "outer", "--words"])
        #expect(outer.code == 0, "\(outer.stderr)")
        let outerWords = try #require(Self.words(outer), "\(outer.stdout)")
        #expect(outerWords.allSatisfy { $0.isLowercase || $0 == " " })
        #expect(try KeyWords.decode(SecureBytes(copying: Array(outerWords.utf8))) == KeyFile.read(a.outerKeyFile, kind: .outer))
        #expect(try a.run(["keys", "verify", "outer"], stdin: outerWords.uppercased() + "\n").code == 0)
        // The words back, into a new key file: an outer key must open the directory.
        unlink(a.outerKeyFile)
        let imported = try a.run(["keys", "import", "outer"], stdin: outerWords + "\n")
        #expect(imported.code == 0, "\(imported.stderr)")
        #expect(try KeyWords.encode(KeyFile.read(a.outerKeyFile, kind: .outer)) == SecureBytes(copying: Array(outerWords.utf8)))

        let decoy = try a.run(["keys", "export", "decoy", "--words"])
        let decoyWords = try #require(Self.words(decoy))
        #expect(decoyWords != outerWords)
        #expect(try b.run(["keys", "import", "decoy"], stdin: decoyWords + "\n").code == 0)
        #expect(try KeyFile.read(b.decoySecretFile, kind: .decoy) == KeyFile.read(a.decoySecretFile, kind: .decoy))
    }

    @Test func wrongWordsAreRefusedAndChangeNothing() throws {
        let a = try CLIRunner()
        try a.initializeQuickly()
        let words = try #require(Self.words(try a.run(["keys", "export", "outer", "--words"]))).split(separator: " ").map(String.init)
        var swapped = words
        swapped.swapAt(3, 4)
        let refused = try a.run(["keys", "verify", "outer"], stdin: swapped.joined(separator: " ") + "\n")
        #expect(refused.code == 1 && refused.stderr.contains("does not match"), "\(refused.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: a.decoySecretFile))
        let bad = try a.run(["keys", "import", "decoy", "--force"], stdin: swapped.joined(separator: " ") + "\n")
        #expect(bad.code == 1 && bad.stderr.contains("not 24 valid recovery words"), "\(bad.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: a.decoySecretFile)) == before)
    }
}
