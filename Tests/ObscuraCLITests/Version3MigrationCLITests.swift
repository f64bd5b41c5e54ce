import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing
@testable import ObscuraStore
import ObscuraKeys

/// Issue 35, one live storage generation: a version 3 directory is opened by a command
/// that opens a vault, `status --unlock` or `serve` only to be migrated into the version 4
/// container first, and where that cannot be done the command is refused with nothing
/// changed (Sources/ObscuraCLI/Version3Migration.swift).
@Suite struct Version3MigrationCLITests {
    /// A version 3 directory holding vault "pw" with one item, its decoy secret in the
    /// version 3 device-secret file; returns that file.
    @discardableResult
    static func makeVersion3(_ cli: CLIRunner) throws -> DeviceSecretStore {
        let legacy = DeviceSecretStore(path: cli.config + "/obscura/device-secret")
        let kept = cli.root + "/kept.txt"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: kept))
        try Version3Fixture.make(path: cli.vault, secrets: legacy, iterations: 1000, passwords: [SecureBytes(copying: Array("pw".utf8))]) { _, vault in
            let report = try vault.importFiles([kept])
            #expect(report.failures.isEmpty)
        }
        #expect(try !VaultDirectory(path: cli.vault, deviceSecrets: legacy).isContainer)
        return legacy
    }

    /// The environment of a user whose keys live in the Secret Service `service` only:
    /// no key files, the decoy secret in its version 3 file until migrated.
    static func keyringOnly(_ service: PrivateSecretService) -> [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": service.address, "OBSCURA_OUTER_KEY_FILE": "", "OBSCURA_DECOY_SECRET_FILE": ""]
    }

    /// Every file under data/ with its bytes.
    static func data(_ cli: CLIRunner) throws -> [String: Data] {
        var out = [String: Data]()
        for name in try cli.files("data") { out[name] = try Data(contentsOf: URL(fileURLWithPath: cli.vault + "/data/" + name)) }
        return out
    }

    /// With the outer key in a file (the user's copy already), `ls` migrates and lists;
    /// the vault's catalog is then paged, and `status` shows the container.
    @Test func aCommandThatOpensAVaultMigratesItFirst() throws {
        let cli = try CLIRunner()
        try Self.makeVersion3(cli)
        // Environment of the version 3 directory: the decoy secret in its device-secret file.
        let env = ["OBSCURA_DECOY_SECRET_FILE": ""]
        let listed = try cli.run(["ls", "--json", "--password-stdin"], stdin: "pw\n", environment: env)
        #expect(listed.code == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("This directory's slots are version 3"), "\(listed.stderr)")
        #expect(listed.stderr.contains("Migrated \(cli.vault) to the version 4 slot container."), "\(listed.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(items.map { $0["name"] as? String } == ["kept.txt"])
        #expect(FileManager.default.fileExists(atPath: cli.outerKeyFile))

        let status = try cli.run(["status", "--json"], environment: env)
        #expect(status.code == 0, "\(status.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["slot_format"] as? Int == 4)
        #expect(!status.stderr.contains("run `obscura migrate`"))
        let directory = try VaultDirectory.open(
            path: cli.vault, deviceSecrets: DeviceSecretStore(path: cli.config + "/obscura/device-secret"), outerKeys: .file(cli.outerKeyFile))
        let vault = try directory.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        defer { vault.lock() }
        #expect(vault.catalog.isPaged)
    }

    /// With the new key only in the keyring and no terminal to show it on, a command
    /// that opens a vault is refused: no key is made, no file changes.
    @Test func withoutATerminalAKeyringOnlyMigrationIsRefused() throws {
        let service = try PrivateSecretService(exportAddress: false)
        defer { service.stop() }
        let env = Self.keyringOnly(service)
        let cli = try CLIRunner()
        let legacy = try Self.makeVersion3(cli)
        let before = try Self.data(cli)
        let photo = cli.root + "/photo.txt"
        try Data("new".utf8).write(to: URL(fileURLWithPath: photo))
        for args in [["add", "--password-stdin", photo], ["status", "--unlock", "--password-stdin"]] {
            let refused = try cli.run(args, stdin: "pw\n", environment: env)
            #expect(refused.code == 1, "\(args)")
            #expect(refused.stderr.contains("obscura: error: this command needs a terminal to show the new outer key"), "\(refused.stderr)")
            #expect(refused.stderr.contains("Nothing was changed."), "\(refused.stderr)")
        }
        #expect(try Self.data(cli) == before)
        #expect(legacy.exists)
        #expect(try cli.run(["keys", "export", "outer"], environment: env).stderr.contains("has no outer key yet"))
        // A locked status still reads the directory as it is, and says what to run.
        let status = try cli.run(["status"], environment: env)
        #expect(status.code == 0 && status.stderr.contains("run `obscura migrate`"), "\(status.stderr)")
    }

    /// `serve` never prompts: it migrates with the new key in the keyring, not yet
    /// confirmed, for the gallery to show, and then serves.
    @Test func serveMigratesBeforeItServes() throws {
        let service = try PrivateSecretService(exportAddress: false)
        defer { service.stop() }
        let env = Self.keyringOnly(service)
        let cli = try CLIRunner()
        let legacy = try Self.makeVersion3(cli)
        let serving = try cli.start(["serve", "--port", "0"], environment: env)
        let served = serving.waitForOutput("Obscura gallery: ")
        serving.process.terminate()
        let output = serving.finish()
        #expect(served, "\(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains("Migrated \(cli.vault) to the version 4 slot container."), "\(output.stderr)")
        #expect(output.stderr.contains("The gallery shows it when you unlock a vault."), "\(output.stderr)")
        #expect(!legacy.exists)
        let status = try cli.run(["status", "--json", "--password-stdin"], stdin: "pw\n", environment: env)
        #expect(status.code == 0, "\(status.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["slot_format"] as? Int == 4 && json["items"] as? Int == 1)
        #expect(json["outer_key"] as? String == "keyring" && json["outer_key_confirmed"] as? Bool == false)
    }

    /// A version 3 directory that cannot be written here (a read-only bind mount as
    /// root, which ignores file modes; the modes otherwise) cannot be migrated: it is
    /// refused before a key is made.
    @Test func aReadOnlyVersion3DirectoryIsRefusedBeforeAKeyIsMade() throws {
        let cli = try CLIRunner()
        try Self.makeVersion3(cli)
        guard let readOnly = try ReadOnlyView(of: cli.vault, parent: cli.root, suite: "read-only-v3", name: "cli") else { return }
        // Kept until the command has run: the view goes with the object.
        let refused = try withExtendedLifetime(readOnly) {
            try cli.run(["--vault", readOnly.path, "ls", "--password-stdin"], stdin: "pw\n", vaultOption: false,
                        environment: ["OBSCURA_DECOY_SECRET_FILE": ""])
        }
        #expect(refused.code == 1)
        #expect(refused.stderr.contains("cannot be written here"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Nothing was changed."), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.outerKeyFile))
    }
}
