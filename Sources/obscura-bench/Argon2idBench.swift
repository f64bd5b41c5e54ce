import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura-bench argon2id`: the unlock sweep's floor for each password KDF suite
/// (docs/FORMAT.md §2), peak memory included (issue 19, item 4).
///
/// For each suite at its production cost: one derivation in process beside the
/// reference tool (`openssl kdf` for PBKDF2, the reference `argon2` command for
/// Argon2id; both include a process start), then init (ten decoys) and the unlock sweep
/// with a wrong and a right password over a ten-slot directory, each with the process's
/// resident high-water mark over that step. The floor is ten derivations spread over the
/// cores, where an Argon2id derivation already runs its 4 lanes in parallel: ten times
/// one derivation × min(lanes, cores) / cores.
enum Argon2idBench {
    static func run(workdir: String?) throws {
        let root = (workdir ?? FileManager.default.temporaryDirectory.path) + "/obscura-argon2id-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 3
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("obscura-bench argon2id: 10 slots, \(cores) cores, median of \(runs); peak = resident high-water mark of the step")
        print("  Argon2id memory budget: \(Argon2id.memoryBudgetKiB / 1024) MiB at once")
        for kdf in [KDFParameters.vault, .argon2id] {
            try suite(kdf, root: root + "/\(kdf.suite)", runs: runs, cores: cores)
        }
    }

    static func suite(_ kdf: KDFParameters, root: String, runs: Int, cores: Int) throws {
        let password = SecureBytes(copying: Array("correct horse battery staple".utf8))
        let wrong = SecureBytes(copying: Array("not the password".utf8))
        let salt = SystemRandom().bytes(PasswordKDF.saltSize)
        let one = median(try (0..<runs).map { _ in try seconds { _ = try kdf.deriveKey(password: password, salt: salt) } })
        let lanes: Int
        let reference: (String, Double?)
        switch kdf {
        case .pbkdf2(let iterations):
            lanes = 1
            reference = ("openssl kdf", tool("/usr/bin/openssl", [
                "kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "pass:bench",
                "-kdfopt", "hexsalt:" + salt.map { String(format: "%02x", $0) }.joined(),
                "-kdfopt", "iter:\(iterations)", "PBKDF2"], runs: runs))
        case .argon2id(let cost):
            lanes = cost.lanes
            reference = ("argon2 command", tool("/usr/bin/argon2", [
                "saltsaltsaltsalt", "-id", "-t", "\(cost.passes)", "-m", "\(cost.memoryExponent)",
                "-p", "\(cost.lanes)", "-l", "32", "-r"], input: "bench", runs: runs))
        }
        let floor = 10 * one * Double(min(lanes, cores)) / Double(cores)
        func ratio(_ t: Double) -> String { String(format: "%.2fx floor", t / floor) }
        func mib(_ kib: Int) -> String { String(format: "peak %6.1f MiB", Double(kib) / 1024) }

        let secrets = DeviceSecretStore(path: root + "/config/device-secret")
        let directory = try VaultDirectory(path: root + "/vault", deviceSecrets: secrets, outerKey: SecureBytes(randomCount: 32), create: true)
        ExportBench.resetPeak()
        let initTime = try seconds { try directory.initialize(kdf: kdf) }
        let initPeak = ExportBench.peakKiB()
        try directory.createVault(password: password).lock()
        var wrongTimes = [Double](), rightTimes = [Double]()
        ExportBench.resetPeak()
        for _ in 0..<runs { wrongTimes.append(seconds { _ = try? directory.unlock(password: wrong) }) }
        let wrongPeak = ExportBench.peakKiB()
        ExportBench.resetPeak()
        for _ in 0..<runs { rightTimes.append(try seconds { try directory.unlock(password: password).lock() }) }
        let rightPeak = ExportBench.peakKiB()

        print("-- \(kdf)")
        print("  one derivation, obscura in process           \(ms(one))")
        if let time = reference.1 {
            print("  one derivation, \(reference.0) (process start)".padding(toLength: 49, withPad: " ", startingAt: 0) + ms(time))
        }
        print("  floor: 10 derivations                        \(ms(floor))")
        print("  init, 10 decoys                              \(ms(initTime))   \(ratio(initTime))   \(mib(initPeak))")
        print("  unlock sweep, wrong password                 \(ms(median(wrongTimes)))   \(ratio(median(wrongTimes)))   \(mib(wrongPeak))")
        print("  unlock sweep, right password                 \(ms(median(rightTimes)))   \(ratio(median(rightTimes)))   \(mib(rightPeak))")
    }

    /// The median time of running a reference tool, or nil when it is not installed.
    static func tool(_ path: String, _ arguments: [String], input: String = "", runs: Int) -> Double? {
        guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return median((0..<runs).map { _ in seconds { runProcess(path, arguments, input: input) } })
    }
}
