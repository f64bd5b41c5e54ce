import Foundation
import ObscuraCrashSupport
import ObscuraCrypto
import ObscuraTestSupport
@testable import ObscuraKit

/// PBKDF2 rounds of every slot and folder here: one, since a write is replayed once per
/// step and each replay is audited twice.
let crashIterations = 1

/// A vault directory prepared for one write: two real vaults ("a", with a folder and two
/// items, and "b"), the passwords the audit may try, and where exports go.
final class CrashFixture {
    let root: TestRoot
    var directory: VaultDirectory!
    var a: Vault!
    var b: Vault!
    /// Labels and candidate passwords (index 0 before a password change, 1 after).
    var labels: [(label: String, passwords: [SecureBytes])] = [
        ("a", [pw("a pw"), pw("a new pw")]), ("b", [pw("b pw")]), ("imported", [pw("imported pw")]),
        ("c", [pw("c pw")]),
    ]
    static let folderPassword = "folder pw"
    static let exportPassword = "export pw"

    /// In memory where the system has /dev/shm: every write fsyncs a dozen files, and a
    /// write here is replayed once per step.
    static let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path

    /// Called at every step of a write: the pool's and the export's (``WriteStep``) and
    /// each change to the container's slot files (``SteppedSlotFiles``).
    private var stepHook: (() throws -> Void)?

    /// Sets the function called at every step; a throw from it fails the write there.
    func onStep(_ hook: @escaping () throws -> Void) {
        stepHook = hook
        directory.store.faultInjector = { _ in try hook() }
    }

    init() throws {
        // A version 4 container, as `obscura init` makes: a write is stopped at the pool's
        // and the export's steps and at every change to the slot files inside a commit.
        root = try TestRoot(parent: Self.base)
        try FileManager.default.createDirectory(atPath: root.path + "/out", withIntermediateDirectories: true)
        directory = try VaultDirectory(
            path: root.vaultPath, deviceSecrets: root.secrets, outerKey: root.outerKey, create: true, random: SystemRandom(),
            slotFiles: { [unowned self] path in SteppedSlotFiles(path: path) { try self.stepHook?() } })
        try directory.initialize(iterations: crashIterations)
        a = try directory.createVault(password: pw("a pw"), iterations: crashIterations)
        b = try directory.createVault(password: pw("b pw"), iterations: crashIterations)
        try a.createFolder("Albums")
        try a.addRaw(Array(repeating: 1, count: 300_000), name: "one.bin", thumbnail: [1, 2, 3])
        try a.addRaw(Array("two".utf8), name: "two.txt", folder: try a.folder(at: "Albums"))
        try b.addRaw(Array("b".utf8), name: "b.txt")
    }

    /// Where the write under test exports to.
    var exportPath: String { root.path + "/out/vault.obscura" }

    /// Lets go of the vaults and the directory, releasing its lock, so it can be audited.
    /// The vaults are locked first: a paged catalog's database is open until then.
    func close() {
        a?.lock()
        b?.lock()
        weak var released = directory
        // The hook refers to this fixture: kept, it would keep the fixture, and so its
        // root on /dev/shm, alive for ever.
        stepHook = nil
        a = nil
        b = nil
        directory = nil
        // A thread that worked for the vaults (a paged catalog's, a pool removal's) may
        // hold the directory for a moment after the lock returned.
        let deadline = Date().addingTimeInterval(30)
        while released != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// Copies the vault directory and the export folder as a crash would leave them.
    func snapshot(to path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root.vaultPath, toPath: path + "/vault")
        try FileManager.default.copyItem(atPath: root.path + "/out", toPath: path + "/out")
    }

    /// Audits the directory and the export found under `path` (the fixture's own root,
    /// or a snapshot).
    func audit(_ path: String) throws -> CrashImage {
        try CrashImage.audit(
            vault: path + "/vault", exportPath: path + "/out/vault.obscura", secrets: root.secrets, labels: labels,
            folderPassword: pw(Self.folderPassword), exportPassword: pw(Self.exportPassword), outerKey: root.outerKey)
    }
}

/// Thrown by the harness's fault injector where a write step fails.
struct InjectedFailure: Error {}

/// Runs a write once to count its steps and learn the state it leads to, then once per
/// step with the write stopped there. Each stop is checked twice: the directory copied at
/// that instant, which is what a killed process leaves (reopened, so temporaries are
/// swept), and the directory after the write path's own error handling ran, which is
/// what a failed write leaves a process that goes on. Both must hold every vault in its
/// old or its new state, with every slot valid and every named media file whole.
enum CrashHarness {
    /// Stops per write in CI: each costs a fresh fixture and two audits (about 0.5 s).
    static let ciStops = 8

    struct Outcome {
        /// Steps the write takes.
        var steps = 0
        /// The steps it was stopped at: all of them, or the CI size's sample.
        var stops: [Int] = []
        /// Stops after which the crash image held the old state, and the new.
        var sawOld = 0, sawNew = 0
        /// Every violation, with the step it followed.
        var failures: [String] = []
    }

    ///
    /// At full size (`OBSCURA_HARDEN_FULL=1`, scripts/harden) every step is a stop; in CI,
    /// ``ciStops`` of them: the first and last two, and others drawn from the run's seed
    /// (``Hardening/sample(_:count:edges:name:)``), printed so that a failure repeats.
    ///
    /// `stops`, when given, chooses the stops from the number of steps instead: a window a
    /// past failure was found in, run on every CI run.
    static func everyStep(
        name: String, setUp: (CrashFixture) throws -> Void = { _ in }, stops: ((Int) -> [Int])? = nil,
        write: @escaping (CrashFixture) throws -> Void
    ) throws -> Outcome {
        var outcome = Outcome()
        let (old, new) = try reference(setUp: setUp, write: write, steps: &outcome.steps)
        outcome.stops = stops?(outcome.steps) ?? Hardening.sample(outcome.steps, count: ciStops, edges: 2, name: "crash/" + name)
        print("crash harness: \(name): seed \(Hardening.seed) (OBSCURA_TEST_SEED), stops \(outcome.stops) of \(outcome.steps)")
        for stop in outcome.stops {
            let fixture = try CrashFixture()
            try setUp(fixture)
            let crash = fixture.root.path + "/crash"
            var step = 0
            fixture.onStep {
                defer { step += 1 }
                guard step == stop else { return }
                try fixture.snapshot(to: crash)
                throw InjectedFailure()
            }
            // The importer absorbs a failed file by design (it reports it and imports
            // the rest): then the write returns, and the directory need only be sound.
            let absorbed = (try? write(fixture)) != nil
            fixture.close()
            for sub in ["data", "media"] {
                let left = try FileManager.default.contentsOfDirectory(atPath: fixture.root.vaultPath + "/" + sub)
                    .filter { $0.hasPrefix(".") }
                if !left.isEmpty { outcome.failures.append("step \(stop), failed: \(sub)/ keeps \(left)") }
            }
            let killed = try fixture.audit(crash)
            let failed = try fixture.audit(fixture.root.path)
            outcome.failures += killed.violations(old: old, new: new).map { "step \(stop), killed: \($0)" }
            let wrong = absorbed ? failed.report.problems : failed.violations(old: old, new: new)
            outcome.failures += wrong.map { "step \(stop), failed: \($0)" }
            if failed.partialExports > 0 { outcome.failures.append("step \(stop), failed: export temporary left") }
            if killed.sameState(as: old) { outcome.sawOld += 1 }
            if killed.sameState(as: new) { outcome.sawNew += 1 }
        }
        return outcome
    }

    /// The states before and after an uninterrupted write, and the number of its steps.
    private static func reference(
        setUp: (CrashFixture) throws -> Void, write: (CrashFixture) throws -> Void, steps: inout Int
    ) throws -> (old: CrashImage, new: CrashImage) {
        let fixture = try CrashFixture()
        try setUp(fixture)
        let before = fixture.root.path + "/before"
        try fixture.snapshot(to: before)
        var count = 0
        fixture.onStep { count += 1 }
        try write(fixture)
        steps = count
        fixture.close()
        return (try fixture.audit(before), try fixture.audit(fixture.root.path))
    }
}
