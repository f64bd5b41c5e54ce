import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Issue #6 item 2: a vault directory that cannot be written (a read-only mount, a
/// read-only backup copy). Everything that only reads works; every write fails with a
/// clear error and changes nothing.
@Suite struct ReadOnlyVaultTests {
    static let suite = "read-only"

    /// A read-only view of `root`'s vault directory: a read-only bind mount as root (root
    /// ignores file modes), else the modes themselves. Nil when neither is possible.
    static func readOnlyView(of root: TestRoot) throws -> (path: String, mount: ScratchMount?)? {
        if getuid() != 0 {
            for sub in ["/data", "/media", ""] { chmod(root.vaultPath + sub, 0o500) }
            return (root.vaultPath, nil)
        }
        guard ScratchMount.available else { return nil }
        let mount = try ScratchMount(readOnlyViewOf: root.vaultPath, parent: root.path)
        return (mount.path, mount)
    }

    @Test func readsWorkAndWritesFailClearly() throws {
        let root = try TestRoot()
        let photo = root.path + "/photo.jpg"
        try Data(TestImages.image("jpg", width: 320, height: 200)).write(to: URL(fileURLWithPath: photo))
        let content = SeededRandom(seed: "ro").bytes(600_000)
        do {
            let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
            try vault.addRaw(content, name: "raw", thumbnail: [7, 7, 7])
            _ = try vault.importFiles([photo])
            try vault.write("state", "old")
        }
        let before = try root.listing()
        guard var (path, mount) = try Self.readOnlyView(of: root) else {
            Hardening.skip(Self.suite, "reads-and-writes", ScratchMount.unavailableReason)
            return
        }
        defer { if mount == nil { for sub in ["", "/data", "/media"] { chmod(root.vaultPath + sub, 0o700) } } }
        var reads = 0, writes = 0

        // Reads: open (the lock needs no write), unlock, list, decrypt, thumbnails, verify, export.
        let directory = try VaultDirectory(path: path, deviceSecrets: root.secrets, outerKey: root.outerKey)
        let vault = try directory.unlock(password: pw("pw"))
        #expect(try vault.items().count == 2); reads += 1
        let raw = try #require(try vault.items().first { $0.record.name == "raw" }?.record)
        var decrypted = [UInt8]()
        try vault.export(raw) { decrypted += $0 }
        #expect(decrypted == content); reads += 1
        #expect(try vault.thumbnail(raw) == [7, 7, 7]); reads += 1
        #expect(try vault.verify().problems.isEmpty); reads += 1
        #expect(try vault.setting("state") == "old"); reads += 1
        try vault.exportVault(to: root.path + "/copy.obscura", password: pw("e"), iterations: testIterations); reads += 1
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("nope")) }; reads += 1

        // Writes: each one a clear error naming the read-only file system.
        func expectRefused(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) succeeded on a read-only directory")
            } catch let error as StorageError {
                #expect([EROFS, EACCES].contains(error.code), "\(what): \(error)")
                #expect(error.description.hasPrefix("permission denied: "), "\(what): \(error)")
            } catch {
                Issue.record("\(what): unexpected \(error)")
            }
            writes += 1
        }
        expectRefused("persist") { try vault.writeThroughCatalog("state", "new") }
        expectRefused("password change") { try vault.changePassword(to: pw("new pw")) }
        expectRefused("delete") { try vault.deleteItems([raw.id]) }
        expectRefused("folder") { try vault.createFolder("F") }
        expectRefused("create") { _ = try directory.createVault(password: pw("second"), iterations: testIterations) }
        expectRefused("import") {
            let report = try vault.importFiles([root.path + "/copy.obscura"])
            #expect(report.imported.isEmpty && report.failures.count == 1)
            for failure in report.failures { #expect(failure.message.hasPrefix("permission denied: "), "\(failure)") }
            throw StorageError.io(report.failures.first?.message ?? "", EROFS)
        }
        expectRefused("destroy") { try directory.destroy(vault) }
        #expect(try root.listing() == before, "nothing in the directory changed")
        Hardening.report(Self.suite, "reads-and-writes", [
            "view": mount == nil ? "chmod" : "ro-bind-mount", "reads-ok": reads, "writes-refused": writes,
        ])
        // Unmounted before `root` removes its files, which it could not do through the view.
        mount = nil
        path = ""
    }
}
