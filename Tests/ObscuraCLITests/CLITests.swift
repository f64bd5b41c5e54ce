import Foundation
import ObscuraKit
import Testing
@testable import ObscuraCLI

/// End-to-end runs of the `obscura` binary. These use the production 600,000 rounds.
@Suite struct CLITests {
    @Test func initMakesTenSlotsAndASecondInitChangesNothing() throws {
        let cli = try CLIRunner()
        let first = try cli.run(["init"])
        #expect(first.code == 0)
        #expect(first.stdout.hasPrefix("Initialised \(cli.vault) with 10 slots.\n"))
        #expect(try cli.files("data").count == 10)
        #expect(try cli.files("media").isEmpty)
        let before = try cli.files("data").map { try Data(contentsOf: URL(fileURLWithPath: cli.vault + "/data/" + $0)) }
        let second = try cli.run(["init"])
        #expect(second.code == 0)
        #expect(second.stdout == "Already initialised: \(cli.vault) has 10 slots; nothing changed.\n")
        #expect(try cli.files("data").map { try Data(contentsOf: URL(fileURLWithPath: cli.vault + "/data/" + $0)) } == before)
    }

    /// At the production KDF cost: the vault `create` makes takes the default 600,000.
    @Test func createStatusAndWrongPassword() throws {
        let cli = try CLIRunner()
        cli.productionKDF = true
        try cli.run(["init"])
        let create = try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")
        #expect(create.code == 0 && create.stdout == "Vault created.\n")
        let status = try cli.run(["status", "--json", "--password-stdin"], stdin: "pw\n")
        #expect(status.code == 0)
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(json?["state"] as? String == "unlocked")
        #expect(json?["items"] as? Int == 0)
        #expect(json?["iterations"] as? Int == 600_000)
        #expect(json?["slots"] as? Int == 10)
        let wrong = try cli.run(["status", "--json", "--password-stdin"], stdin: "px\n")
        #expect(wrong.code == 1)
        #expect(wrong.stdout.isEmpty)
        #expect(wrong.stderr == "obscura: error: wrong password\n")
    }

    @Test func anEmptyPasswordIsRefused() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        let create = try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "\n")
        #expect(create.code == 1)
        #expect(create.stderr == "obscura: error: the password is empty\n")
    }

    @Test func passwdTakesOldThenNew() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "old\n")
        let change = try cli.run(["passwd", "--password-stdin", "--allow-weak-password"], stdin: "old\nnew\n")
        #expect(change.code == 0 && change.stdout == "Password changed.\n")
        #expect(try cli.run(["status", "--password-stdin"], stdin: "old\n").code == 1)
        #expect(try cli.run(["status", "--password-stdin"], stdin: "new\n").code == 0)
    }

    @Test func destroyNeedsConfirmationWithoutATerminal() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")
        let refused = try cli.run(["destroy", "--password-stdin"], stdin: "pw\n")
        #expect(refused.code == 1)
        #expect(refused.stderr == "obscura: error: refusing to destroy without confirmation; pass --yes\n")
        let destroyed = try cli.run(["destroy", "--password-stdin", "--yes"], stdin: "pw\n")
        #expect(destroyed.code == 0)
        #expect(destroyed.stdout == "Vault destroyed; the directory has 10 slots.\n")
        #expect(try cli.files("data").count == 10)
        #expect(try cli.run(["status", "--password-stdin"], stdin: "pw\n").stderr == "obscura: error: wrong password\n")
    }

    @Test func secondProcessGetsAClearInUseError() throws {
        let cli = try CLIRunner()
        try cli.run(["init"])
        let holder = try cli.openDirectory()
        let blocked = try cli.run(["status"])
        #expect(blocked.code == 75)
        #expect(blocked.stderr == "obscura: error: vault directory \(cli.vault) is in use by another obscura process; if that is `obscura serve`, do this in its gallery, or stop it (Ctrl+C) and run the command again; any other command holding it ends by itself\n")
        _ = holder
    }

    @Test func usageErrorsAndHelp() throws {
        let cli = try CLIRunner()
        let unknown = try cli.run(["nosuch"])
        #expect(unknown.code == 64)
        let help = try cli.run(["--help"], vaultOption: false)
        #expect(help.code == 0)
        #expect(help.stdout.contains("USAGE: obscura [--vault <dir>] [--verbose] [--outer-key-file <file>] [--decoy-secret-file <file>] <subcommand>"))
        #expect(help.stdout.contains("  serve                   Open the web gallery on this vault directory"))
        let missing = try cli.run(["status"])
        #expect(missing.code == 1)
        #expect(missing.stderr == "obscura: error: no vault directory at \(cli.vault); run `obscura init` first\n")
        let noPassword = try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "")
        #expect(noPassword.code == 1)
    }

    @Test func vaultDirectoryDefaults() throws {
        let options = try GlobalOptions.parse([])
        #expect(options.vaultPath(environment: ["OBSCURA_VAULT": "/v", "XDG_DATA_HOME": "/d"]) == "/v")
        #expect(options.vaultPath(environment: ["XDG_DATA_HOME": "/d"]) == "/d/obscura")
        #expect(options.vaultPath(environment: ["HOME": "/h"]) == "/h/.local/share/obscura")
    }
}
