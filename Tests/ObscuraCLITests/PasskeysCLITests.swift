import Foundation
import ObscuraCrypto
import ObscuraKeys
import ObscuraKit
import ObscuraTestSupport
import Testing

/// `obscura passkeys list|remove` and `passwd --remove-passkeys` (issue 37, item 5): the
/// owner sees and removes a vault's passkeys with the vault password. The passkeys are
/// enrolled through the library, as the gallery's route does after its checks.
@Suite struct PasskeysCLITests {
    /// A credential whose key is a valid Ed25519 point (random 32 bytes usually are).
    static func credential() throws -> PasskeyCredential {
        var key: SignatureKey?
        while key == nil {
            var raw = SystemRandom().bytes(32)
            raw[31] &= 0x7f
            key = SignatureKey.ed25519(publicKey: raw)
        }
        return PasskeyCredential(id: SystemRandom().bytes(20), userHandle: SystemRandom().bytes(16), key: try #require(key),
                                 backupEligible: true, backedUp: true)
    }

    @Test func passkeysAreListedRemovedAndDroppedByAPasswordChange() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let none = try cli.run(["passkeys", "list", "--password-stdin"], stdin: "pw\n")
        #expect(none.code == 0 && none.stdout.contains("no passkeys"), "\(none.stdout)\(none.stderr)")

        let prfs = [SecureBytes(randomCount: 32), SecureBytes(randomCount: 32)]
        do {
            let directory = try cli.openDirectory()
            let vault = try directory.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            defer { vault.lock() }
            for (name, prf) in zip(["Laptop", "Phone"], prfs) {
                try vault.enrolPasskey(name: name, password: SecureBytes(copying: Array("pw".utf8)), prf: prf, credential: Self.credential())
            }
        }
        let listed = try cli.run(["passkeys", "ls", "--password-stdin"], stdin: "pw\n")
        #expect(listed.code == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("Laptop  Obscura · ") && lines[0].hasSuffix("(synced)"), "\(listed.stdout)")

        let wrong = try cli.run(["passkeys", "remove", "--password-stdin", "Laptop"], stdin: "not it\n")
        #expect(wrong.code != 0 && wrong.stderr.contains("wrong password"), "\(wrong.stderr)")
        let missing = try cli.run(["passkeys", "remove", "--password-stdin", "Tablet"], stdin: "pw\n")
        #expect(missing.code != 0 && missing.stderr.contains("no passkey named \"Tablet\"") && missing.stderr.contains("passkeys list"), "\(missing.stderr)")
        let removed = try cli.run(["passkeys", "rm", "--password-stdin", "Laptop"], stdin: "pw\n")
        #expect(removed.code == 0 && removed.stdout.contains("Removed passkey Laptop."), "\(removed.stderr)")
        #expect(try cli.openDirectory().sweepPasskey(prf: prfs[0]) == nil)
        #expect(try cli.openDirectory().sweepPasskey(prf: prfs[1]) != nil)

        let kept = try cli.run(["passwd", "--password-stdin", "--allow-weak-password"], stdin: "pw\nnew pw\n")
        #expect(kept.code == 0 && kept.stdout.contains("The vault's passkey still unlocks it (`obscura passkeys remove NAME` removes it)"), "\(kept.stdout)\(kept.stderr)")
        #expect(try cli.openDirectory().sweepPasskey(prf: prfs[1]) != nil)
        let dropped = try cli.run(["passwd", "--password-stdin", "--allow-weak-password", "--remove-passkeys"],
                                  stdin: "new pw\nthird pw\n")
        #expect(dropped.code == 0 && dropped.stdout.contains("removed 1 passkey: ") && dropped.stdout.contains("(Obscura · "), "\(dropped.stdout)\(dropped.stderr)")
        #expect(try cli.openDirectory().sweepPasskey(prf: prfs[1]) == nil)
        #expect(try cli.run(["passkeys", "list", "--password-stdin"], stdin: "third pw\n").stdout.contains("no passkeys"))
    }

    /// Refusals write nothing (review PR8 h): `passkeys list` with a wrong password shows
    /// no name, and a `passkeys remove` refused for its password or its name leaves every
    /// file of the directory as it was. A name given with white space at its ends is
    /// found, as the enrolment stored it trimmed.
    @Test func aRefusedListOrRemovalChangesNothing() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        do {
            let vault = try cli.openDirectory().unlock(password: SecureBytes(copying: Array("pw".utf8)))
            defer { vault.lock() }
            try vault.enrolPasskey(name: "Laptop", password: SecureBytes(copying: Array("pw".utf8)), prf: SecureBytes(randomCount: 32),
                                   credential: Self.credential())
        }
        func files() throws -> [String: [UInt8]] {
            var out = [String: [UInt8]]()
            let base = URL(fileURLWithPath: cli.vault)
            for case let url as URL in FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) ?? .init()
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                out[url.path] = Array(try Data(contentsOf: url))
            }
            return out
        }
        let before = try files()
        #expect(before.count > 1)
        let list = try cli.run(["passkeys", "list", "--password-stdin"], stdin: "not it\n")
        #expect(list.code != 0 && list.stderr.contains("wrong password") && !list.stdout.contains("Laptop"), "\(list.stdout)\(list.stderr)")
        for (password, name) in [("not it", "Laptop"), ("pw", "Tablet"), ("pw", "Lap top")] {
            let refused = try cli.run(["passkeys", "remove", "--password-stdin", name], stdin: password + "\n")
            #expect(refused.code != 0, "\(password) \(name): \(refused.stdout)")
        }
        #expect(try files() == before)

        let removed = try cli.run(["passkeys", "remove", "--password-stdin", " Laptop\t"], stdin: "pw\n")
        #expect(removed.code == 0 && removed.stdout.contains("Removed passkey Laptop."), "\(removed.stdout)\(removed.stderr)")
        #expect(try cli.run(["passkeys", "list", "--password-stdin"], stdin: "pw\n").stdout.contains("no passkeys"))
    }
}
