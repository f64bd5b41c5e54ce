import Foundation
import Testing
@testable import ObscuraKit

/// The shared inbox holds only what the intake may open: a FIFO or a link planted there
/// under a blob's name is passed over (a review's finding: opening a FIFO blocked every
/// unlock of every vault, holding the directory lock).
@Suite struct DropInboxSafetyTests {
    @Test func aFIFOOrALinkInTheInboxIsPassedOver() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        try directory.createVault(password: pw("pw"), iterations: testIterations).lock()
        let inbox = root.vaultPath + "/" + DropFormat.inboxDirectory
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let fifo = "00000000-0000-4000-8000-000000000000" + MediaPool.dataSuffix
        let link = "00000000-0000-4000-8000-000000000001" + MediaPool.dataSuffix
        #expect(mkfifo(inbox + "/" + fifo, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: inbox + "/" + link, withDestinationPath: "/dev/zero")
        let names = DropInbox(vaultPath: root.vaultPath).blobNames()
        #expect(names == [])
        // Not unlocked otherwise: the unlock would block on the FIFO and hang the run.
        guard names.isEmpty else { return }
        // The unlock takes in nothing and returns (before the fix, it blocked on the FIFO).
        let vault = try directory.unlock(password: pw("pw"))
        defer { vault.lock() }
        #expect(try vault.catalog.allItems().isEmpty)
    }
}
