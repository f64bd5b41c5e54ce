import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Issue #6 item 2: a small file system that fills up during import, persist and export.
/// Each write must fail with a clear "no space" error (or succeed whole), leave no stray
/// file, lose nothing, and leave a session that can go on once space is freed.
///
/// The vault lives on a tmpfs mounted by the test; every case fills that file system
/// until a chosen number of bytes is left, so that the failure lands at a different
/// write step (a media file, a thumbnail, the n-th slot temporary, the export).
@Suite(.serialized) struct DiskFullTests {
    static let suite = "disk-full"

    /// Bytes left free before the write: from nothing to more than one commit needs
    /// (ten slots of 256-512 KiB rewritten through temporaries).
    static let freeLevels: [Int] = Hardening.full
        ? Array(stride(from: 0, through: 6 << 20, by: 96 << 10))
        : [0, 16 << 10, 600 << 10, 2 << 20, 3 << 20, 8 << 20]

    struct Outcome { var failedCleanly = 0, succeeded = 0, inconsistent = 0 }

    /// A vault on a fresh 24 MiB tmpfs with one setting and two items, and the state to
    /// compare against after a failed write.
    func fixture(_ mount: ScratchMount) throws -> (TestRoot, VaultDirectory, Vault) {
        let root = try TestRoot(parent: mount.path)
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        try vault.write("state", "old")
        try vault.addRaw(SeededRandom(seed: "a").bytes(300_000), name: "a", thumbnail: [1, 2, 3])
        try vault.addRaw(SeededRandom(seed: "b").bytes(5), name: "b")
        return (root, directory, vault)
    }

    /// Runs `write` at every free-space level and checks the rules above, in a version 4
    /// directory. Some level must run out of space unless `needsNoSpace` (a write that the
    /// container makes in place).
    func run(
        _ name: String, needsNoSpace: Bool = false,
        write: (TestRoot, Vault) throws -> Void, succeeded: (Vault) throws -> Bool
    ) throws {
        guard ScratchMount.available else {
            Hardening.skip(Self.suite, name, ScratchMount.unavailableReason)
            return
        }
        var outcome = Outcome()
        let scratch = try TestRoot()
        for free in Self.freeLevels {
            let mount = try ScratchMount(megabytes: 24, parent: scratch.path)
            let root: TestRoot
            let problems: [String]
            do {
                let (fixtureRoot, _, vault) = try fixture(mount)
                root = fixtureRoot
                let before = try root.listing(filesOnly: true)
                let filler = try mount.fill(leaving: free)
                do {
                    try write(root, vault)
                    #expect(try succeeded(vault), "\(name) with \(free) bytes free reported success")
                    outcome.succeeded += 1
                } catch let error as StorageError {
                    #expect(error.code == ENOSPC, "\(name), \(free) bytes free: \(error)")
                    #expect(error.description.hasPrefix("no space left on device"))
                    // Nothing was added, removed or rewritten: no stray temporary either.
                    #expect(try root.listing(filesOnly: true) == before, "\(name), \(free) bytes free: files changed")
                    outcome.failedCleanly += 1
                }
                problems = try vault.consistencyProblems()
                #expect(problems.isEmpty, "\(name), \(free) bytes free: \(problems)")
                // The session goes on once space is back, and what it writes next is whole.
                try FileManager.default.removeItem(atPath: filler)
                try vault.write("after", "\(free)")
                vault.lock()
            }
            // A new process: the old directory object (and its lock) is gone.
            let reopened = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: root.outerKey)
            let again = try reopened.unlock(password: pw("pw"))
            #expect(try again.setting("state") == "old" || again.setting("state") == "new")
            #expect(try again.setting("after") == "\(free)")
            let reopenedProblems = try again.consistencyProblems()
            #expect(reopenedProblems.isEmpty, "\(name), \(free) bytes free, reopened: \(reopenedProblems)")
            if !(problems.isEmpty && reopenedProblems.isEmpty) { outcome.inconsistent += 1 }
            #expect(try reopened.decoyNames().count == 9)
        }
        if needsNoSpace {
            #expect(outcome.failedCleanly == 0 && outcome.succeeded == Self.freeLevels.count, "\(name) needed space")
        } else {
            #expect(outcome.failedCleanly > 0, "some level must run out of space")
        }
        Hardening.report(Self.suite, name, [
            "cases": Self.freeLevels.count, "failed-cleanly": outcome.failedCleanly,
            "succeeded": outcome.succeeded, "inconsistent-after": outcome.inconsistent,
        ])
    }

    /// A version 4 container commits a small change in place (FORMAT.md §8.6): a persist
    /// succeeds with no byte free.
    @Test func persistInAContainerNeedsNoSpace() throws {
        try run("persist-container", needsNoSpace: true, write: { _, vault in try vault.write("state", "new") },
                succeeded: { try $0.setting("state") == "new" })
    }

    @Test func importOnAFullDisk() throws {
        let sources = try TestRoot()
        let files = try (0..<3).map { i -> String in
            let path = sources.path + "/photo\(i).jpg"
            try Data(TestImages.image("jpg", width: 400 + i, height: 300)).write(to: URL(fileURLWithPath: path))
            return path
        } + [sources.path + "/big.bin"]
        try Data(SeededRandom(seed: "big").bytes(1 << 20)).write(to: URL(fileURLWithPath: files.last!))
        try run("import", write: { _, vault in
            let report = try vault.importFiles(files)
            // Files that did not fit fail one by one, each saying why.
            for failure in report.failures { #expect(failure.message.hasPrefix("no space left on device"), "\(failure)") }
            if report.imported.isEmpty { throw StorageError.io("(every file failed)", ENOSPC) }
        }, succeeded: { try $0.items().count > 2 })
    }

    @Test func exportOnAFullDisk() throws {
        try run("export", write: { root, vault in
            let file = root.path + "/vault.obscura"
            do {
                try vault.exportVault(to: file, password: pw("e"), iterations: testIterations)
            } catch {
                let strays = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.contains("obscura") }
                #expect(strays.isEmpty, "no partial export left: \(strays)")
                throw error
            }
            try FileManager.default.removeItem(atPath: file)
        }, succeeded: { _ in true })
    }
}
