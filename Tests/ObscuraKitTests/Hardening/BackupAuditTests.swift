import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit

/// Issue 18: the indistinguishability audit's backup case. A container directory of three
/// real vaults and seven decoys is backed up with restic, one real vault is written, and
/// it is backed up again. Whoever holds the repository without its password sees only
/// restic's sealed files: no name or byte of the directory appears in them. The audit
/// then takes a stronger position than that holder: with the password it attributes the
/// data the second backup added to the slot files it belongs to, and asks whether those
/// figures tell the real slots (or the written one) from the decoys (``SeparationTest``).
/// They must not: a commit writes the same block positions of every slot.
@Suite struct BackupAuditTests {
    static let suite = "indistinguishability-backup"

    struct Trial {
        /// Per slot: blobs (restic's content-defined chunks) the second snapshot added,
        /// blobs it holds, and blobs it shares with the first.
        var added: [String: Double], total: [String: Double], shared: [String: Double]
        var real: Set<String>
        var written: String
    }

    func buildTrial(_ t: Int) throws -> Trial {
        let root = try TestRoot()
        let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: ContainerFixtures.outerKey, create: true)
        try directory.initialize(iterations: testIterations)
        let big = try directory.createVault(password: pw("big \(t)"), iterations: testIterations)
        let mid = try directory.createVault(password: pw("mid \(t)"), iterations: testIterations)
        let tiny = try directory.createVault(password: pw("tiny \(t)"), iterations: testIterations)
        for i in 0..<4 { _ = try big.addRaw(SeededRandom(seed: "b\(t)-\(i)").bytes(4000 * (i + 1)), name: "b\(i)", thumbnail: [1]) }
        _ = try mid.addRaw([1, 2, 3], name: "m")

        let engine = BackupEngine(repository: try BackupRepository(root.path + "/repo"), password: pw("backup \(t)"))
        #expect(try engine.create())
        let first = try directory.backUp(to: engine)
        _ = try mid.addRaw(SeededRandom(seed: "m\(t)").bytes(2000), name: "after")
        let second = try directory.backUp(to: engine)
        #expect(first.snapshot != second.snapshot)

        try expectNothingInTheClear(repository: root.path + "/repo", slots: try root.slotNames())

        let before = try engine.slotBlobs(snapshot: first.snapshot)
        let after = try engine.slotBlobs(snapshot: second.snapshot)
        let known = Set(before.values.flatMap { $0 })
        var added = [String: Double](), total = [String: Double](), shared = [String: Double]()
        for (name, blobs) in after {
            added[name] = Double(blobs.filter { !known.contains($0) }.count)
            total[name] = Double(blobs.count)
            shared[name] = Double(Set(blobs).intersection(Set(before[name] ?? [])).count)
        }
        return Trial(added: added, total: total, shared: shared, real: [big.slotName, mid.slotName, tiny.slotName], written: mid.slotName)
    }

    /// The repository's files hold no slot or pool name and none of the directory's words.
    func expectNothingInTheClear(repository: String, slots: [String]) throws {
        let needles = (slots.map { String($0.prefix(36)) } + ["db.enc", "data.enc", "thumb.enc", "media"]).map { Array($0.utf8) }
        let walk = FileManager.default.enumerator(atPath: repository)
        while let name = walk?.nextObject() as? String {
            guard walk?.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: repository + "/" + name)))
            for needle in needles {
                #expect(!Self.contains(bytes, needle), "\(name) holds \(String(decoding: needle, as: UTF8.self)) in the clear")
            }
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return true }
        }
        return false
    }

    @Test func theBackupOfAWriteSeparatesNothing() throws {
        let trials = try (0..<Hardening.scale(3, full: 24)).map { try buildTrial($0) }
        let measures: [(String, (Trial, String) -> Double)] = [
            ("backup: blobs the second snapshot added", { $0.added[$1] ?? .nan }),
            ("backup: blobs in the slot", { $0.total[$1] ?? .nan }),
            ("backup: blobs shared with the first snapshot", { $0.shared[$1] ?? .nan }),
        ]
        let alpha = 0.05 / Double(measures.count * 2)
        for (name, value) in measures {
            for (label, isReal) in [("real", { (t: Trial, s: String) in t.real.contains(s) }), ("written", { (t: Trial, s: String) in t.written == s })] {
                let samples = trials.map { trial in
                    let names = trial.added.keys.sorted()
                    return SeparationTest.Trial(values: names.map { value(trial, $0) }, isReal: names.map { isReal(trial, $0) })
                }
                #expect(samples.allSatisfy { $0.values.count == 10 && !$0.values.contains(where: \.isNaN) }, "\(name)")
                let result = SeparationTest.evaluate(samples)
                Hardening.report(Self.suite, "\(name) (\(label))", [
                    "trials": result.trials, "z": String(format: "%.2f", result.z), "p-rank-sum": String(format: "%.3g", result.pRankSum),
                    "separates": result.separates(alpha: alpha) ? "YES" : "no",
                ])
                #expect(!result.separates(alpha: alpha), "\(name) tells \(label) slots from decoys: \(result)")
            }
        }
    }
}

extension BackupEngine {
    /// Per slot file of `snapshot`, the ids of its content blobs in order: read from
    /// restic's sealed trees with the password (what the audit knows, not the holder).
    func slotBlobs(snapshot: String) throws -> [String: [String]] {
        struct Snapshot: Decodable { let tree: String }
        struct Tree: Decodable { let nodes: [Node] }
        struct Node: Decodable { let name: String; let content: [String]?; let subtree: String? }
        func cat(_ args: [String]) throws -> Data {
            let output = try restic.run(["cat"] + args)
            try restic.check(output, "cat")
            return Data(output.stdout)
        }
        let root = try JSONDecoder().decode(Snapshot.self, from: try cat(["snapshot", snapshot])).tree
        let top = try JSONDecoder().decode(Tree.self, from: try cat(["blob", root]))
        guard let data = top.nodes.first(where: { $0.name == "data" })?.subtree else { throw BackupError.notAVaultSnapshot(snapshot) }
        let slots = try JSONDecoder().decode(Tree.self, from: try cat(["blob", data]))
        return Dictionary(uniqueKeysWithValues: slots.nodes.map { ($0.name, $0.content ?? []) })
    }
}
