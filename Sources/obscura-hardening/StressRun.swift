import Foundation
import ObscuraCrashSupport
import ObscuraCrypto
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// Imports, reads, deletes, folder writes and a lock racing each other on one vault, for
/// a Thread Sanitizer build (scripts/tsan). Each round unlocks the vault, lets six
/// threads work on it while a seventh locks it at a random moment, and waits for all of
/// them; after the last round the directory is audited. Errors a racing lock or delete
/// explains (locked, closed, no such item, a file deleted under a reader) are expected;
/// any other error, a crash, or an audit problem fails the run.
final class StressRun: @unchecked Sendable {
    // @unchecked: the counters are guarded by `lock`; everything else is set in init.
    let root: String
    let seconds: Double
    let password = SecureBytes(copying: Array("stress pw".utf8))
    private let lock = NSLock()
    private var done: [String: Int] = [:]
    private var expected: [String: Int] = [:]
    private var unexpected: [String] = []

    init(root: String, seconds: Double) {
        self.root = root
        self.seconds = seconds
    }

    func run() throws -> Bool {
        try? FileManager.default.removeItem(atPath: root)
        let secrets = DeviceSecretStore(path: root + "/config/device-secret")
        // A version 4 container with paged catalogs, as `obscura init` makes; the key is
        // kept for the reopenings below.
        let outerKey = SecureBytes(randomCount: 32)
        var directory: VaultDirectory? = try VaultDirectory(
            path: root + "/vault", deviceSecrets: secrets, outerKey: outerKey, create: true)
        try directory!.initialize(iterations: 1000)
        _ = try directory!.createVault(password: password, iterations: 1000)
        let deadline = Date().addingTimeInterval(seconds)
        var rounds = 0
        while Date() < deadline {
            let vault = try directory!.unlock(password: password)
            round(vault)
            rounds += 1
        }
        directory = nil
        // The last workers' threads may still hold the vault (and so the directory's lock)
        // for a moment after they signalled.
        var audit: AuditReport?
        for _ in 0..<100 where audit == nil {
            do {
                audit = try VaultAudit.run(path: root + "/vault", secrets: secrets, vaults: [("stress", [password])], outerKey: outerKey)
            } catch VaultError.inUse {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        guard let audit else { throw StressError("the directory stayed in use after the last round") }
        let counts = done.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let kinds = expected.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key)" }.joined(separator: "; ")
        print("stress: \(rounds) rounds; \(counts); \(unexpected.count) unexpected errors")
        print("stress: expected errors: \(kinds)")
        print("stress: audit: \(audit.vaults["stress"]?.items.count ?? 0) items, \(audit.orphanMedia) orphan files, \(audit.problems.count) problems")
        for line in (unexpected + audit.problems).prefix(20) { print("stress: FAIL \(line)") }
        try? FileManager.default.removeItem(atPath: root)
        return unexpected.isEmpty && audit.problems.isEmpty
    }

    /// Six workers and one locker on `vault`, until all have stopped.
    private func round(_ vault: Vault) {
        let group = DispatchGroup()
        // Long enough for several commits to finish: a version 4 commit re-seals a bucket
        // in every slot, which under the Thread Sanitizer takes a good part of a second.
        let stopAt = Date().addingTimeInterval(Double.random(in: 0.8...2.4))
        for worker in 0..<6 {
            spawn(group) { [self] in
                var n = 0
                while Date() < stopAt {
                    n += 1
                    work(vault, worker: worker, n: n)
                }
            }
        }
        spawn(group) { [self] in
            Thread.sleep(forTimeInterval: Double.random(in: 0.3...1.8))
            vault.lock()
            count("lock")
        }
        group.wait()
    }

    private func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread { body(); group.leave() }.start()
    }

    /// One random operation; its error is sorted into expected or not.
    private func work(_ vault: Vault, worker: Int, n: Int) {
        let kind = ["import", "import", "read", "read", "list", "delete", "folder"].randomElement()!
        do {
            switch kind {
            case "import":
                let file = root + "/src-\(worker)-\(n)-\(UUID().uuidString.prefix(6)).txt"
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                try Data((0..<Int.random(in: 1...40_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } + Array(file.utf8))
                    .write(to: URL(fileURLWithPath: file))
                defer { unlink(file) }
                let report = try vault.importFiles([file])
                if let failure = report.failures.first { throw StressError(failure.message) }
            case "read":
                if let item = try vault.items().randomElement()?.record {
                    _ = try vault.read(item, range: 0..<UInt64(min(item.size, 100_000)))
                }
            case "list":
                _ = try vault.items()
                _ = try vault.folders()
            case "delete":
                if let item = try vault.items().randomElement()?.record { try vault.deleteItems([item.id]) }
            default:
                try vault.createFolder("f-\(worker)-\(n)-\(UUID().uuidString.prefix(6))")
            }
            count(kind)
        } catch {
            record(error, locked: vault.isLocked)
        }
    }

    private func count(_ kind: String) {
        lock.withLock { done[kind, default: 0] += 1 }
    }

    /// Errors that a racing lock or delete explains are expected; the rest are not. From
    /// the moment `lock()` begins, before `isLocked` turns true while it waits for the
    /// operations in progress, a new operation is refused with `VaultError.locked` (and
    /// one that needs another, an import's persist say, too); any error once the vault is
    /// locked is the lock's doing. Real damage would still show in the final audit.
    private func record(_ error: Error, locked: Bool) {
        let text = "\(error)"
        var explained = locked || (error as? StorageError)?.code == ENOENT
        switch error as? VaultError {
        case .noSuchItem, .locked: explained = true
        default: break
        }
        lock.withLock {
            if explained { expected[String(text.prefix(48)), default: 0] += 1 } else { unexpected.append(text) }
        }
    }
}

struct StressError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
