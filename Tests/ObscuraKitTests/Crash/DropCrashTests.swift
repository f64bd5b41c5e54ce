import Foundation
import Testing
@testable import ObscuraKit

/// A drop's intake (issue 19, item 3; FORMAT.md §10.6), stopped at every one of its
/// durable steps: the pool files sealed, the catalog committed, the blob removed. Every
/// stop leaves the vault without the drop or with it once (a blob left after the commit
/// is a duplicate at the next intake: DropTests).
@Suite struct DropCrashTests {
    @Test func takeADropIn() throws {
        try CrashAtEveryStepTests().expectOldOrNew(minimumSteps: 4, setUp: { fixture in
            let code = try fixture.a.dropCode()
            try DropInbox(vaultPath: fixture.root.vaultPath).drop(
                file: CrashAtEveryStepTests.fixtures + "/gradient.png", name: "dropped.png", to: code)
        }, write: { fixture in
            _ = try fixture.a.takeDrops()
        })
    }
}
