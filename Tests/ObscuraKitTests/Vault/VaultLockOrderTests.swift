import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// The lock order of docs/ARCHITECTURE.md, held by the product's own locks: a session's
/// writes take them outermost first, and the inversion the version 3 write path made
/// (the catalog under the slot store's write lock) is reported.
@Suite struct VaultLockOrderTests {
    @Test(.enabled(if: LockOrder.isChecked, "the check runs in debug builds"))
    func aSessionsWritesTakeTheLocksInOrder() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let photo = root.path + "/unmistakable-order.jpg"
        try Data(TestImages.image("jpg", width: 200, height: 150)).write(to: URL(fileURLWithPath: photo))
        let violations = try LockOrder.recordingViolations {
            let vault = try directory.createVault(password: pw("order"), iterations: testIterations)
            let id = try #require(try vault.importFiles([photo]).imported.first).id
            _ = try vault.setFavorite(id, true)
            let folder = try vault.createFolder("unmistakable-folder", password: nil, iterations: testIterations)
            try vault.moveItems([id], to: folder)
            try vault.trashItems([id])
            try vault.restoreItems([id])
            _ = try vault.addNote(title: "a", body: "b")
            try vault.changePassword(to: pw("order-2"), kdf: .pbkdf2(iterations: testIterations))
            try vault.deleteItems([id])
            vault.lock()
        }
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test(.enabled(if: LockOrder.isChecked, "the check runs in debug builds"))
    func theCatalogUnderTheWriteLockIsReported() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("order"), iterations: testIterations)
        defer { vault.lock() }
        let violations = try LockOrder.recordingViolations {
            _ = try directory.store.serialized { try vault.catalog.counts() }
        }
        #expect(violations == [.init(taking: .catalog, holding: .slotWrites)])
    }
}
