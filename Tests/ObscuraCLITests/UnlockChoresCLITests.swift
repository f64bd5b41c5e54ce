import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing

/// Every command's unlock runs the vault's unlock chores, as the gallery's does (issue 35,
/// item 4): before, the CLI enforced ends but left the expired trash to `trash` commands.
@Suite struct UnlockChoresCLITests {
    @Test func aListingsUnlockDoesWhatEveryUnlockDoes() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let password = SecureBytes(copying: Array("pw".utf8))
        let prepared: UnlockChoresFixture.Prepared = try {
            let vault = try cli.openDirectory().unlock(password: password, runningChores: false)
            defer { vault.lock() }
            return try UnlockChoresFixture.prepare(vault)
        }()
        let listed = try cli.run(["ls", "--password-stdin"], stdin: "pw\n")
        #expect(listed.code == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("Took in 1 dropped note"), "\(listed.stderr)")
        #expect(listed.stderr.contains("1 item had been in the trash for 30 days and was deleted for good."), "\(listed.stderr)")
        #expect(listed.stderr.contains("1 item reached its end and was deleted for good."), "\(listed.stderr)")
        #expect(listed.stdout.contains(UnlockChoresFixture.dropTitle), "\(listed.stdout)")
        let vault = try cli.openDirectory().unlock(password: password, runningChores: false)
        defer { vault.lock() }
        #expect(try UnlockChoresFixture.problems(in: vault, prepared) == [])
    }
}
