import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKeys
@testable import ObscuraKit
@testable import ObscuraStore

/// The passkey sweep over a real container (docs/FORMAT.md §9.8): fixed work per slot and
/// the PRF input's stability. A vault with passkeys is VaultPasskeysTests'.
@Suite struct PasskeySweepVaultTests {
    @Test func aDirectoryWithoutPasskeysOpensNothingWithFixedWork() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vaults = try [pw("sweep one"), pw("sweep two")].map { try directory.createVault(password: $0, iterations: testIterations) }
        defer { vaults.forEach { $0.lock() } }
        let slots = try root.slotNames().count
        let tally = PasskeySweep.Tally()
        #expect(try directory.sweepPasskey(prf: SecureBytes(randomCount: 32), tally: tally) == nil)
        #expect(tally.derivations == slots && tally.trials == 4 * slots)
    }

    @Test func thePRFInputSurvivesAnOuterKeyRotation() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let before = try directory.passkeyPRFInput()
        #expect(before.count == 32)
        try directory.rotateOuterKey(to: SecureBytes(randomCount: 32))
        #expect(try directory.passkeyPRFInput() == before)
        // Another directory, another input.
        #expect(try TestRoot().initialized().passkeyPRFInput() != before)
    }
}
