import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// The one unlock policy (issue 35, item 4): an unlock takes the drops in, deletes what the
/// trash kept past its time and the items whose end came. ServerTests' and CLITests'
/// `UnlockChores` suites show the gallery and the commands doing the same on the same fixture.
@Suite struct UnlockChoresTests {
    @Test func anUnlockRunsEveryChoreAndSaysWhatItDid() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        let prepared = try UnlockChoresFixture.prepare(vault)
        vault.lock()

        let observed = try directory.unlock(password: pw("pw"), runningChores: false)
        #expect(try !UnlockChoresFixture.problems(in: observed, prepared).isEmpty, "without its chores an unlock changes nothing")
        observed.lock()

        let unlocked = try directory.unlock(password: pw("pw"))
        defer { unlocked.lock() }
        let chores = unlocked.unlockChores
        #expect(chores.drops.taken == 1 && chores.expiredTrash == 1 && chores.ended == 1 && chores.failed.isEmpty, "\(chores)")
        #expect(try UnlockChoresFixture.problems(in: unlocked, prepared) == [])
        #expect(unlocked.dropIntake == chores.drops)
    }
}
