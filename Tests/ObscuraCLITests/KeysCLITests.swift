import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing
@testable import ObscuraStore
import ObscuraKeys

/// `obscura keys`, `init` and `migrate` with the outer key and decoy secret in key files
/// and in a real Secret Service (docs/FORMAT.md §4.3, §4.4).
@Suite struct KeysCLITests {
    /// The lines of a run's standard output that are key texts of `word`.
    static func keyText(_ output: CLIRunner.Output, _ word: String) -> String? {
        output.stdout.split(separator: "\n").map(String.init).first { $0.hasPrefix(word + "-") }
    }

    @Test func theDecoySecretMovesBetweenMachines() throws {
        let a = try CLIRunner(), b = try CLIRunner()
        try a.run(["init"])
        let exported = try a.run(["keys", "export", "decoy"])
        #expect(exported.code == 0)
        let text = try #require(Self.keyText(exported, "DECOY"))
        #expect(text.count == KeyText.displayLength)
        // Typed back leniently: lower case, O for 0, L for 1.
        let typed = text.lowercased().replacingOccurrences(of: "0", with: "o").replacingOccurrences(of: "1", with: "l")
        let imported = try b.run(["keys", "import", "decoy"], stdin: typed + "\n")
        #expect(imported.code == 0, "\(imported.stderr)")
        #expect(try KeyFile.read(a.decoySecretFile, kind: .decoy) == KeyFile.read(b.decoySecretFile, kind: .decoy))
        // A different secret is not replaced without --force.
        let c = try CLIRunner()
        try c.run(["init"])
        let other = try c.run(["keys", "export", "decoy"])
        let refused = try b.run(["keys", "import", "decoy"], stdin: other.stdout)
        #expect(refused.code == 1 && refused.stderr.contains("--force"))
        let forced = try b.run(["keys", "import", "decoy", "--force"], stdin: other.stdout)
        #expect(forced.code == 0 && forced.stderr.contains("is gone"), "\(forced.stderr)")
        #expect(try KeyFile.read(b.decoySecretFile, kind: .decoy) == KeyFile.read(c.decoySecretFile, kind: .decoy))
        #expect(try b.run(["keys", "import", "decoy"], stdin: "not a secret\n").stderr == "obscura: error: not a valid key text\n")
        // A secret that cannot be read is not taken for an absent one.
        chmod(b.decoySecretFile, 0o644)
        let unreadable = try b.run(["keys", "import", "decoy"], stdin: exported.stdout)
        #expect(unreadable.code == 1 && unreadable.stderr.contains("readable by other users"))
        chmod(b.decoySecretFile, 0o600)
        // An outer key's text is not a decoy secret.
        let outer = try a.run(["keys", "export", "outer"])
        #expect(try b.run(["keys", "import", "decoy", "--force"], stdin: outer.stdout).code == 1)
    }

    @Test func anOuterKeyFileOpensTheDirectoryAndItsCopyVerifies() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let exported = try cli.run(["keys", "export", "outer"])
        let text = try #require(Self.keyText(exported, "OUTER"))
        #expect(try KeyText.decode(SecureBytes(copying: Array(text.utf8)), kind: .outer) == KeyFile.read(cli.outerKeyFile, kind: .outer))
        #expect(try cli.run(["keys", "verify", "outer"], stdin: text + "\n").stdout == "The copy matches the outer key.\n")
        let wrong = try cli.run(["keys", "verify", "outer"], stdin: Self.otherKeyText(.outer) + "\n")
        #expect(wrong.code == 1 && wrong.stderr == "obscura: error: the copy does not match the outer key\n")

        // Another machine: the directory copied, no key. Without one nothing opens; the
        // imported text is checked against the directory before it is kept.
        let elsewhere = try CLIRunner()
        try FileManager.default.copyItem(atPath: cli.vault, toPath: elsewhere.vault)
        let missing = try elsewhere.run(["status", "--password-stdin"], stdin: "pw\n")
        #expect(missing.code == 1 && missing.stderr.contains("cannot read key file \(elsewhere.outerKeyFile)"))
        let mismatched = try elsewhere.run(["keys", "import", "outer"], stdin: Self.otherKeyText(.outer) + "\n")
        #expect(mismatched.stderr == "obscura: error: this directory needs another outer key\n")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.outerKeyFile))
        #expect(try elsewhere.run(["keys", "import", "outer"], stdin: text + "\n").code == 0)
        #expect(try elsewhere.run(["status", "--password-stdin"], stdin: "pw\n").code == 0)
        var st = stat()
        #expect(stat(elsewhere.outerKeyFile, &st) == 0 && st.st_mode & 0o777 == 0o600)
        // A key file holding another key (another directory's, perhaps) is not replaced
        // unasked.
        let another = SecureBytes(copying: [UInt8](repeating: 0x42, count: 32))
        try KeyFile.write(another, kind: .outer, to: elsewhere.outerKeyFile)
        let kept = try elsewhere.run(["keys", "import", "outer"], stdin: text + "\n")
        #expect(kept.code == 1 && kept.stderr.contains("--force"))
        #expect(try KeyFile.read(elsewhere.outerKeyFile, kind: .outer) == another)
        #expect(try elsewhere.run(["keys", "import", "outer", "--force"], stdin: text + "\n").code == 0)
        #expect(try elsewhere.run(["status", "--password-stdin"], stdin: "pw\n").code == 0)

        // A key file others may read is refused before it is read.
        chmod(cli.outerKeyFile, 0o644)
        let loose = try cli.run(["status"])
        #expect(loose.code == 1 && loose.stderr.contains("readable by other users"))
    }

    @Test func initWithKeyFilesMakesAContainerAndSaysWhereTheKeysLive() throws {
        let cli = try CLIRunner()
        let made = try cli.run(["init"])
        #expect(made.code == 0)
        #expect(made.stderr.contains("Created the outer key file \(cli.outerKeyFile)."))
        #expect(made.stderr.contains("warning: the outer key lives in the plain file \(cli.outerKeyFile)"))
        #expect(try cli.files("data").allSatisfy { name in
            try !Data(contentsOf: URL(fileURLWithPath: cli.vault + "/data/" + name)).starts(with: SlotFormat.magic)
        })
        let status = try cli.run(["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["slot_format"] as? Int == 4)
        #expect(json["outer_key"] as? String == "file")
        #expect(json["outer_key_confirmed"] == nil)
        #expect(json["decoy_secret_location"] as? String == cli.decoySecretFile)
        #expect(json["decoy_secret"] as? Bool == true)
    }

    /// The whole keyring path against gnome-keyring-daemon: init without a terminal
    /// leaves the key unconfirmed and `status` warns; a verified copy silences it; two
    /// directories each find their own key among the candidates; a locked keyring and a
    /// missing key are different errors.
    @Test func theKeyringHoldsOneOuterKeyPerDirectory() throws {
        let service = try PrivateSecretService(exportAddress: false)
        defer { service.stop() }
        let env = ["DBUS_SESSION_BUS_ADDRESS": service.address, "OBSCURA_OUTER_KEY_FILE": "", "OBSCURA_DECOY_SECRET_FILE": ""]
        let a = try CLIRunner(), b = try CLIRunner()
        let first = try a.run(["init"], environment: env)
        #expect(first.code == 0 && first.stderr.contains("created a new decoy secret in the keyring"), "\(first.stderr)")
        // The second directory finds the decoy secret there and makes none.
        #expect(!(try b.run(["init"], environment: env).stderr.contains("created a new decoy secret")))
        let unconfirmed = try a.run(["status", "--json"], environment: env)
        #expect(unconfirmed.stderr.contains("no copy of it is confirmed"))
        var json = try #require(try JSONSerialization.jsonObject(with: Data(unconfirmed.stdout.utf8)) as? [String: Any])
        #expect(json["outer_key"] as? String == "keyring" && json["outer_key_confirmed"] as? Bool == false)
        #expect(json["decoy_secret_location"] as? String == "the keyring")

        let text = try #require(Self.keyText(try a.run(["keys", "export", "outer"], environment: env), "OUTER"))
        #expect(try a.run(["keys", "verify", "outer"], stdin: text + "\n", environment: env).code == 0)
        let confirmed = try a.run(["status", "--json"], environment: env)
        #expect(confirmed.stderr.isEmpty)
        json = try #require(try JSONSerialization.jsonObject(with: Data(confirmed.stdout.utf8)) as? [String: Any])
        #expect(json["outer_key_confirmed"] as? Bool == true)

        // A second directory: its own key; each directory still opens, and with its own.
        #expect(try b.run(["status"], environment: env).code == 0)
        #expect(try a.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw-a\n", environment: env).code == 0)
        #expect(try b.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw-b\n", environment: env).code == 0)
        #expect(try a.run(["status", "--password-stdin"], stdin: "pw-a\n", environment: env).code == 0)
        #expect(try b.run(["status", "--password-stdin"], stdin: "pw-b\n", environment: env).code == 0)
        let textB = try #require(Self.keyText(try b.run(["keys", "export", "outer"], environment: env), "OUTER"))
        #expect(textB != text)
        let listing = try service.secretToolSearch(schema: "org.obscura.OuterKey")
        #expect(listing.split(separator: "\n").filter { $0.hasPrefix("attribute.id = ") }.count == 2, "\(listing)")

        // Rotating a's key: a new item replaces the old one, unconfirmed; a still opens,
        // and the old key's text no longer does.
        // Without a terminal it needs to be told the copy will be confirmed later.
        let refusedRotation = try a.run(["keys", "rotate", "outer"], environment: env)
        #expect(refusedRotation.code == 1 && refusedRotation.stderr.contains("--confirm-key-later"))
        let rotated = try a.run(["keys", "rotate", "outer", "--confirm-key-later"], environment: env)
        #expect(rotated.code == 0 && rotated.stderr.contains("no copy of it is confirmed"), "\(rotated.stderr)")
        // Without a confirmed copy of the new key, the old one stays (copies taken before need it).
        #expect(rotated.stderr.contains("the old outer key stays in the keyring"))
        let relisted = try service.secretToolSearch(schema: "org.obscura.OuterKey")
        #expect(relisted.split(separator: "\n").filter { $0.hasPrefix("attribute.id = ") }.count == 3, "\(relisted)")
        #expect(try a.run(["status", "--password-stdin"], stdin: "pw-a\n", environment: env).code == 0)
        let newText = try #require(Self.keyText(try a.run(["keys", "export", "outer"], environment: env), "OUTER"))
        #expect(newText != text)
        let oldFile = a.root + "/old.key"
        try KeyFile.write(try KeyText.decode(SecureBytes(copying: Array(text.utf8)), kind: .outer), kind: .outer, to: oldFile)
        #expect(try a.run(["status"], environment: env.merging(["OBSCURA_OUTER_KEY_FILE": oldFile]) { $1 }).code == 1)

        // A directory whose key the keyring lacks, and a locked keyring.
        let c = try CLIRunner()
        try c.initializeQuickly()
        let foreign = try c.run(["status"], environment: env.merging(["OBSCURA_DECOY_SECRET_FILE": c.decoySecretFile]) { $1 })
        #expect(foreign.stderr.hasPrefix("obscura: error: this directory needs another outer key"))
        try service.lockLogin()
        let locked = try a.run(["status"], environment: env)
        #expect(locked.code == 1 && locked.stderr.hasPrefix("obscura: error: outer key unavailable: the keyring is locked"))
    }

    /// `migrate` wraps a version 3 directory under a new key in the keyring and moves the
    /// version 3 device-secret file there; vaults keep their passwords and contents.
    @Test func migrateWrapsAVersion3DirectoryAndMovesTheDecoySecret() throws {
        let service = try PrivateSecretService(exportAddress: false)
        defer { service.stop() }
        let env = ["DBUS_SESSION_BUS_ADDRESS": service.address, "OBSCURA_OUTER_KEY_FILE": "", "OBSCURA_DECOY_SECRET_FILE": ""]
        let cli = try CLIRunner()
        let legacy = DeviceSecretStore(path: cli.config + "/obscura/device-secret")
        try Version3Fixture.make(path: cli.vault, secrets: legacy, iterations: 1000, passwords: [SecureBytes(copying: Array("pw".utf8))])
        let before = try cli.run(["status"], environment: env)
        #expect(before.stderr.contains("run `obscura migrate`"))
        // Without a terminal to show the new key on, migrate refuses unless told the
        // copy will be confirmed later; the refused run keeps no key and changes nothing.
        let refused = try cli.run(["migrate"], environment: env)
        #expect(refused.code == 1 && refused.stderr.contains("--confirm-key-later"), "\(refused.stderr)")
        #expect(try cli.run(["keys", "export", "outer"], environment: env).stderr.contains("has no outer key yet"))
        #expect(legacy.exists)
        let migrated = try cli.run(["migrate", "--confirm-key-later"], environment: env)
        #expect(migrated.code == 0, "\(migrated.stderr)")
        #expect(migrated.stderr.contains("obscura keys verify outer"))
        #expect(migrated.stdout.contains("Moved the decoy secret from \(legacy.path) into the keyring."))
        #expect(!legacy.exists)
        let after = try cli.run(["status", "--json", "--password-stdin"], stdin: "pw\n", environment: env)
        #expect(after.code == 0, "\(after.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect(json["slot_format"] as? Int == 4 && json["state"] as? String == "unlocked")
        #expect(json["decoy_secret_location"] as? String == "the keyring" && json["decoy_secret"] as? Bool == true)
        // The decoys are still found: a new vault takes one of them.
        #expect(try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw2\n", environment: env).stdout == "Vault created.\n")
        #expect(try cli.run(["migrate"], environment: env).stdout.contains("already a version 4 container"))
        // `status` unlocked "pw" above, which converted its catalog; --convert says so.
        let converted = try cli.run(["migrate", "--convert", "1", "--password-stdin"], stdin: "pw\n", environment: env)
        #expect(converted.code == 0 && converted.stdout.contains("Converted 0 vaults to the paged catalog (1 already were)."),
                "\(converted.stdout)\(converted.stderr)")
        let wrong = try cli.run(["migrate", "--convert", "1", "--password-stdin"], stdin: "nope\n", environment: env)
        #expect(wrong.code == 1 && wrong.stderr.contains("wrong password"), "\(wrong.stderr)")
    }

    /// Security review L2–L6, L10, M4: key file mistakes are refused or explained, naming
    /// the file, and a key exported into a file others could read is made private.
    @Test func keyFileMistakesAreCaughtAndExplained() throws {
        let a = try CLIRunner()
        // One file named for both keys: refused, and nothing is left behind.
        let same = try a.run(["init"], environment: ["OBSCURA_DECOY_SECRET_FILE": a.outerKeyFile])
        #expect(same.code == 1)
        #expect(same.stderr.contains("key file \(a.outerKeyFile) holds an outer key, not the decoy secret asked for"), "\(same.stderr)")
        #expect(!FileManager.default.fileExists(atPath: a.vault) && !FileManager.default.fileExists(atPath: a.outerKeyFile))

        // Both files are announced when created, whatever standard error is.
        let made = try a.run(["init"])
        #expect(made.code == 0, "\(made.stderr)")
        #expect(made.stderr.contains("Created the outer key file \(a.outerKeyFile). Keep a copy of it"))
        #expect(made.stderr.contains("Created the decoy secret file \(a.decoySecretFile)."))

        // A second directory made with the same outer key file is told it shares the key.
        let b = try CLIRunner()
        let shared = try b.run(["init"], environment: ["OBSCURA_OUTER_KEY_FILE": a.outerKeyFile])
        #expect(shared.code == 0 && shared.stderr.contains("shares one outer key"), "\(shared.stderr)")

        // Another directory's key file: the message names it.
        let c = try CLIRunner()
        try c.run(["init"])
        let wrong = try a.run(["status"], environment: ["OBSCURA_OUTER_KEY_FILE": c.outerKeyFile])
        #expect(wrong.code == 1 && wrong.stderr.contains("the one in \(c.outerKeyFile) does not open"), "\(wrong.stderr)")

        // A decoy secret file others can read is reported as unusable, not missing.
        chmod(a.decoySecretFile, 0o644)
        let status = try a.run(["status"])
        #expect(status.stdout.contains("decoy secret:  unusable: key file \(a.decoySecretFile) is readable by other users"), "\(status.stdout)")
        chmod(a.decoySecretFile, 0o600)

        // `keys export outer > file`: the shell's 0644 file becomes 0600 before the key is in it.
        let exported = a.root + "/exported.txt"
        #expect(FileManager.default.createFile(atPath: exported, contents: nil, attributes: [.posixPermissions: 0o644]))
        let process = Process()
        process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("obscura")
        process.arguments = ["--vault", a.vault, "keys", "export", "outer"]
        process.environment = ["HOME": a.root, "OBSCURA_OUTER_KEY_FILE": a.outerKeyFile, "OBSCURA_DECOY_SECRET_FILE": a.decoySecretFile]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: exported))
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: exported)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOfFile: exported, encoding: .utf8).hasPrefix("OUTER-"))
    }

    /// `keys rotate outer` with a key file: the directory is re-sealed under a new key
    /// that waits in FILE.new until it replaces FILE; the old key then opens nothing, and
    /// a rotation whose new key file was left behind is finished by running it again.
    @Test func rotatingTheOuterKeyFile() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let oldCopy = cli.root + "/old-outer.key"
        try FileManager.default.copyItem(atPath: cli.outerKeyFile, toPath: oldCopy)

        // Cut short before any slot was written: the new key waits beside the file, and
        // the directory still opens with the old one.
        let pending = KeyFile.rotationPath(for: cli.outerKeyFile)
        try KeyFile.write(SecureBytes(copying: [UInt8](repeating: 0x33, count: 32)), kind: .outer, to: pending)
        let cut = try cli.run(["status", "--password-stdin"], stdin: "pw\n")
        #expect(cut.code == 0 && cut.stderr.contains("holds the key of an unfinished rotation"), "\(cut.stderr)")

        let rotated = try cli.run(["keys", "rotate", "outer"])
        #expect(rotated.code == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("Rotated the outer key"))
        #expect(!FileManager.default.fileExists(atPath: pending))
        #expect(try KeyFile.read(cli.outerKeyFile, kind: .outer) == SecureBytes(copying: [UInt8](repeating: 0x33, count: 32)))
        let after = try cli.run(["status", "--password-stdin"], stdin: "pw\n")
        #expect(after.code == 0 && after.stdout.contains("unlocked"), "\(after.stderr)")
        let old = try cli.run(["status"], environment: ["OBSCURA_OUTER_KEY_FILE": oldCopy])
        #expect(old.code == 1 && old.stderr.contains("the one in \(oldCopy) does not open"), "\(old.stderr)")
        // The old key is kept under a dated name: copies taken before need it.
        let retired = try FileManager.default.contentsOfDirectory(atPath: cli.root).filter { $0.hasPrefix("outer.key.replaced-") }
        #expect(retired.count == 1 && rotated.stderr.contains("the old outer key is kept in"))
        #expect(try KeyFile.read(cli.root + "/" + retired[0], kind: .outer) == KeyFile.read(oldCopy, kind: .outer))
        // A pending key file that cannot be read is passed over, not a reason to refuse.
        FileManager.default.createFile(atPath: pending, contents: Data(), attributes: [.posixPermissions: 0o600])
        let passed = try cli.run(["status"])
        #expect(passed.code == 0 && passed.stderr.contains("cannot be read as an outer key; it was passed over"), "\(passed.stderr)")
        try FileManager.default.removeItem(atPath: pending)

        // A second rotation draws a new key of its own; its retired file never replaces
        // the first one's, even within the same second.
        #expect(try cli.run(["keys", "rotate", "outer"]).code == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.root).filter { $0.hasPrefix("outer.key.replaced-") }.count == 2)
        #expect(try KeyFile.read(cli.outerKeyFile, kind: .outer) != SecureBytes(copying: [UInt8](repeating: 0x33, count: 32)))
        #expect(try cli.run(["status", "--password-stdin"], stdin: "pw\n").code == 0)
        #expect(try cli.run(["keys", "rotate", "decoy"]).stderr.contains("only the outer key can be rotated"))
    }

    /// A valid key text of `kind` for a fixed key no test directory uses.
    static func otherKeyText(_ kind: KeyKind) -> String {
        let text = KeyText.encode(SecureBytes(copying: [UInt8](repeating: 0x42, count: 32)), kind: kind)
        return text.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Issue 40, point 19: `init` at a terminal said the decoy secret's plain-file warning
    /// three times, once per read. Each warning is said once per command.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func aKeyFileWarningIsSaidOncePerCommand() throws {
        let cli = try CLIRunner()
        let made = try PasswordStrengthCLITests.atTerminal(
            cli, ["init", "--test-kdf-iterations", String(CLIRunner.testKDFIterations)], [])
        #expect(made.code == 0, "\(made.output)")
        for kind in ["decoy secret", "outer key"] {
            let warning = "warning: the \(kind) lives in the plain file"
            #expect(made.output.components(separatedBy: warning).count - 1 == 1, "\(kind): \(made.output)")
        }
    }
}
