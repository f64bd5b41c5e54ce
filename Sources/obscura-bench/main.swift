// obscura-bench: prints, from one run, the unlock figures recorded in docs/BENCHMARKS.md.
//
// One PBKDF2-HMAC-SHA256 derivation at the production 600,000 rounds (in process, and
// `openssl kdf` as the reference tool), then the full fixed sweep over a 10-slot vault
// directory with a wrong and with a right password, and the sweep's ratio to its floor:
// 10 derivations spread over every core.
import Foundation
import ObscuraCrypto
import ObscuraKit

let rounds = PasswordKDF.vaultIterations
let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 5
let cores = ProcessInfo.processInfo.activeProcessorCount

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func ms(_ s: Double) -> String { String(format: "%8.1f ms", s * 1000) }

let password = SecureBytes(copying: Array("correct horse battery staple".utf8))
let salt = SystemRandom().bytes(PasswordKDF.saltSize)

let kdf = median(try (0..<runs).map { _ in
    try seconds { _ = try PasswordKDF.deriveKey(password: password, salt: salt, iterations: rounds) }
})

// The reference tool, started as a process; its figure includes process start-up.
func opensslKDF() -> Double? {
    let args = ["kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "pass:bench",
                "-kdfopt", "hexsalt:" + salt.map { String(format: "%02x", $0) }.joined(),
                "-kdfopt", "iter:\(rounds)", "PBKDF2"]
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return nil }
    return median((0..<runs).map { _ in
        seconds {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            p.arguments = args
            p.standardOutput = FileHandle.nullDevice
            try? p.run()
            p.waitUntilExit()
        }
    })
}
let openssl = opensslKDF()

let root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-\(UUID().uuidString)").path
defer { try? FileManager.default.removeItem(atPath: root) }
let secrets = DeviceSecretStore(path: root + "/config/device-secret")
let directory = try VaultDirectory(path: root + "/vault", deviceSecrets: secrets, create: true)
let initTime = try seconds { try directory.initialize() }
_ = try directory.createVault(password: password)
let wrong = SecureBytes(copying: Array("not the password".utf8))

var wrongTimes = [Double](), rightTimes = [Double]()
for _ in 0..<runs {
    wrongTimes.append(seconds { _ = try? directory.unlock(password: wrong) })
    rightTimes.append(try seconds { _ = try directory.unlock(password: password) })
}
let slots = try directory.slotCount()
let floor = Double(slots) * kdf / Double(cores)

print("obscura-bench: PBKDF2-HMAC-SHA256 \(rounds) rounds, \(slots) slots, \(cores) cores, median of \(runs)")
print("  one derivation, obscura (in process)   \(ms(kdf))")
if let openssl { print("  one derivation, openssl kdf (process)  \(ms(openssl))") }
print("  init: \(slots) decoys                   \(ms(initTime))")
print("  unlock sweep, wrong password           \(ms(median(wrongTimes)))   ratio to floor \(String(format: "%.2f", median(wrongTimes) / floor))")
print("  unlock sweep, right password           \(ms(median(rightTimes)))   ratio to floor \(String(format: "%.2f", median(rightTimes) / floor))")
print("  floor = \(slots) x one derivation / \(cores) cores  \(ms(floor))")
