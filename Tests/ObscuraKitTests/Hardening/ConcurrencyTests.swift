import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore

/// Issue #6 item 5, in process: imports, reads, deletes, a second vault's writes and a
/// lock, all racing on one vault directory. No crash, no wrong plaintext, and afterwards
/// the directory reopens consistent: every write that reported success is there, every
/// catalog item's media exists and decrypts, and the slots still look alike.
/// (The Thread Sanitizer build of the same races is part of the crash/fuzz work.)
@Suite struct ConcurrencyTests {
    static let suite = "concurrency"

    /// What the racing workers saw, shared under a lock.
    final class Ledger: @unchecked Sendable {
        // @unchecked: every field is guarded by `lock`.
        private let lock = NSLock()
        private(set) var contents: [String: [UInt8]] = [:]  // item name → plaintext
        private(set) var imported: Set<String> = []
        private(set) var deleted: Set<String> = []
        private(set) var otherWrites: [String] = []
        private(set) var operations = 0
        private(set) var refusedAfterLock = 0
        private(set) var unexpected: [String] = []

        func expect(_ name: String, _ bytes: [UInt8]) { lock.withLock { contents[name] = bytes } }
        func record(imported names: [String]) { lock.withLock { imported.formUnion(names); operations += 1 } }
        func record(deleted name: String) { lock.withLock { deleted.insert(name); operations += 1 } }
        func record(otherWrite key: String) { lock.withLock { otherWrites.append(key); operations += 1 } }
        func recordRead() { lock.withLock { operations += 1 } }

        /// Sorts an error: the vault being locked, or an item deleted under a reader, is
        /// expected in a race; anything else is a finding.
        func record(_ error: Error, during what: String) {
            lock.withLock {
                switch error {
                case VaultError.locked, CatalogError.closed: refusedAfterLock += 1
                case VaultError.noSuchItem: operations += 1
                case let error as StorageError where error.code == ENOENT: operations += 1
                default: unexpected.append("\(what): \(error)")
                }
            }
        }
    }

    /// One round: `workers` threads race, and the vault is locked after `lockAfter`.
    func race(round: Int, lockAfter: TimeInterval) throws -> Ledger {
        let root = try TestRoot()
        let ledger = Ledger()
        let sources = root.path + "/src"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        do {
            let directory = try root.initialized()
            let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
            let other = try directory.createVault(password: pw("other"), iterations: testIterations)
            var doomed = [ItemRecord]()
            for i in 0..<12 {
                let bytes = SeededRandom(seed: "pre \(round) \(i)").bytes(1000 + 5000 * i)
                ledger.expect("pre\(i)", bytes)
                doomed.append(try vault.addRaw(bytes, name: "pre\(i)", thumbnail: [UInt8(i)]))
            }
            let batches = (0..<4).map { b in
                (0..<3).map { f -> String in
                    let name = "new\(b)-\(f)"
                    let bytes = SeededRandom(seed: "new \(round) \(name)").bytes(2000 + 90_000 * f)
                    ledger.expect(name, bytes)
                    try! Data(bytes).write(to: URL(fileURLWithPath: sources + "/" + name))
                    return sources + "/" + name
                }
            }
            let workers: [() -> Void] = batches.map { files in {
                do { ledger.record(imported: try vault.importFiles(files).imported.map(\.name)) }
                catch { ledger.record(error, during: "import") }
            } } + (0..<3).map { r in {
                for n in 0..<40 {
                    do {
                        let views = try vault.items()
                        guard !views.isEmpty else { continue }
                        let item = views[(n * 7 + r) % views.count].record
                        var out = [UInt8]()
                        try vault.export(item) { out += $0 }
                        if out != ledger.contents[item.name] { ledger.record(VaultError.corrupt("wrong plaintext for \(item.name)"), during: "read") }
                        _ = try vault.thumbnail(item)
                        ledger.recordRead()
                    } catch { ledger.record(error, during: "read") }
                }
            } } + [{
                for item in doomed.prefix(6) {
                    do { try vault.deleteItems([item.id]); ledger.record(deleted: item.name) }
                    catch { ledger.record(error, during: "delete") }
                }
            }, {
                for n in 0..<8 {
                    do { try other.write("k\(n)", String(repeating: "o", count: 4000 * n)); ledger.record(otherWrite: "k\(n)") }
                    catch { ledger.record(error, during: "other vault write") }
                }
            }, {
                Thread.sleep(forTimeInterval: lockAfter)
                vault.lock()
            }]
            // One thread each, all at once (a dispatch pool would run them a core's worth
            // at a time). Each closure touches only thread-safe objects: vaults, ledger.
            let threads = workers.map { worker in
                nonisolated(unsafe) let work = worker
                return Thread { work() }
            }
            threads.forEach { $0.start() }
            // Finished, and released at the end of this scope with the vaults they hold.
            while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
            vault.lock()
            other.lock()
        }

        // A fresh open, as the next process would see the directory.
        let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: root.outerKey)
        let vault = try directory.unlock(password: pw("pw"))
        let names = Set(try vault.items().map(\.record.name))
        #expect(try vault.consistencyProblems().isEmpty, "round \(round)")
        for name in ledger.imported { #expect(names.contains(name), "round \(round): imported \(name) lost") }
        for name in ledger.deleted { #expect(!names.contains(name), "round \(round): deleted \(name) is back") }
        for view in try vault.items() {
            var out = [UInt8]()
            try vault.export(view.record) { out += $0 }
            #expect(out == ledger.contents[view.record.name], "round \(round): \(view.record.name)")
        }
        let other = try directory.unlock(password: pw("other"))
        for key in ledger.otherWrites { #expect(try other.setting(key) != nil, "round \(round): other vault lost \(key)") }
        let sizes = try root.slotNames().map { Int(root.fileStat($0).st_size) }
        #expect(sizes.count == 10 && Set(sizes.map(SlotSizing.tier(containing:))).count == 1, "round \(round): \(sizes)")
        #expect(try directory.decoyNames().count == 8)
        #expect(ledger.unexpected.isEmpty, "round \(round): \(ledger.unexpected)")
        return ledger
    }

    @Test func importsReadsDeletesAndLockRacing() throws {
        let rounds = Hardening.scale(4, full: 40)
        var operations = 0, refused = 0
        for round in 0..<rounds {
            // From a lock that lands before most work to one after all of it.
            let ledger = try race(round: round, lockAfter: Double(round % 4) * 0.15)
            operations += ledger.operations
            refused += ledger.refusedAfterLock
        }
        Hardening.report(Self.suite, "in-process", [
            "rounds": rounds, "workers-per-round": 10, "operations-ok": operations,
            "refused-after-lock": refused,
        ])
    }
}
