import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing
@testable import ObscuraServer

/// The gallery's unlock runs the vault's unlock chores, as the CLI's commands do (issue 35,
/// item 4): the same fixture, the same outcome as Kit's and CLI's `UnlockChores` tests.
@Suite struct UnlockChoresServerTests {
    @Test func theGallerysUnlockDoesWhatEveryUnlockDoes() async throws {
        // The wall clock: the fixture dates its trash and its end by it.
        let harness = try ServerHarness(clock: nil)
        let password = SecureBytes(copying: Array("correct horse".utf8))
        try harness.directory.createVault(password: password, iterations: testIterations).lock()
        let prepared: UnlockChoresFixture.Prepared = try {
            let vault = try harness.directory.unlock(password: password, runningChores: false)
            defer { vault.lock() }
            return try UnlockChoresFixture.prepare(vault)
        }()
        try await harness.test { browser in
            try await browser.start()
            let unlocked = try await browser.send(.post, "/api/unlock", json: ["password": "correct horse"])
            #expect(unlocked.status == .ok)
            #expect((try unlocked.json()["drops"] as? String)?.contains("Took in 1 dropped note") == true)
            _ = try await browser.send(.post, "/api/lock")
        }
        let vault = try harness.directory.unlock(password: password, runningChores: false)
        defer { vault.lock() }
        #expect(try UnlockChoresFixture.problems(in: vault, prepared) == [])
    }
}
