// obscura-bench: prints, from one run, the figures recorded in docs/BENCHMARKS.md.
// `obscura-bench` (unlock) is described below; `obscura-bench media` measures chunked
// sealing against `openssl speed` and photo import against vipsthumbnail and ImageMagick.
//
// One PBKDF2-HMAC-SHA256 derivation at the production 600,000 rounds (in process, and
// `openssl kdf` as the reference tool), then the full fixed sweep over a 10-slot vault
// directory with a wrong and with a right password, in process and through the `obscura`
// binary built beside this one, and the sweep's ratio to its floor: 10 derivations spread
// over every core. Run it with scripts/bench (release build).
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

// Modes: `unlock` (default), `media [PHOTO_DIR]` (seal throughput and photo import),
// `gallery [WORKDIR]` (item listing of a 100,000-item catalog, in process and over HTTP),
// `export [WORKDIR]` (export and import of an unlocked 2 GiB vault beside age),
// `container [WORKDIR]` (commit, unlock and migration costs of the V4 slot container),
// `container-ops [WORKDIR]` (time and bytes per vault operation, V4 beside V3),
// `keyring-unlock [WORKDIR]` (the outer key's keyring round trip; needs a Secret Service),
// `paged-catalog [WORKDIR]` (the paged catalog in a container: changes, unlock, first page),
// `vault-scale [WORKDIR]` (issue 15's figures at 100,000 and 1,000,000 items, production KDF),
// `backup [WORKDIR]` (issue 18: restic's incremental cost and a no-change backup of a 10 GiB vault),
// `argon2id [WORKDIR]` (issue 19: the unlock floor and peak memory of each password KDF suite),
// `index-ops [WORKDIR]` (issue 38: a user commit's need with and without a picture index row).
let mode = CommandLine.arguments.dropFirst().first ?? "unlock"
let modeArgument = CommandLine.arguments.dropFirst(2).first
if mode == "media" {
    print("-- chunked seal, default allocator settings")
    try SealBench.run()
    print("-- chunked seal after MemoryTuning.keepLargeBuffersOnHeap() (what obscura does): \(MemoryTuning.keepLargeBuffersOnHeap())")
    try SealBench.run()
    print("--")
    try ImportBench.run(photos: modeArgument)
    exit(0)
}
if mode == "export" {
    MemoryTuning.keepLargeBuffersOnHeap()  // as the obscura executable does at start
    try ExportBench.run(workdir: modeArgument)
    exit(0)
}
let workdirModes: [String: (String?) throws -> Void] = [
    "gallery": GalleryBench.run, "container": ContainerBench.run, "container-ops": ContainerOpsBench.run,
    "keyring-unlock": KeyringUnlockBench.run, "paged-catalog": PagedCatalogBench.run, "vault-scale": ScaleBench.run, "backup": BackupBench.run,
    "argon2id": Argon2idBench.run, "index-ops": IndexOpsBench.run,
]
if let run = workdirModes[mode] {
    try run(modeArgument)
    exit(0)
}

let rounds = PasswordKDF.vaultIterations
let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 5
let cores = ProcessInfo.processInfo.activeProcessorCount

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func ms(_ s: Double) -> String { String(format: "%8.1f ms", s * 1000) }

/// Runs `executable` with `arguments`, feeding `input` on standard input, output discarded.
func runProcess(_ executable: String, _ arguments: [String], input: String = "", environment: [String: String]? = nil) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let pipe = Pipe()
    p.standardInput = pipe
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try? p.run()
    pipe.fileHandleForWriting.write(Data(input.utf8))
    try? pipe.fileHandleForWriting.close()
    p.waitUntilExit()
}

let password = SecureBytes(copying: Array("correct horse battery staple".utf8))
let wrong = SecureBytes(copying: Array("not the password".utf8))
let salt = SystemRandom().bytes(PasswordKDF.saltSize)
let root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-\(UUID().uuidString)").path
let secrets = DeviceSecretStore(path: root + "/config/obscura/device-secret")
defer { try? FileManager.default.removeItem(atPath: root) }

let kdf = median(try (0..<runs).map { _ in
    try seconds { _ = try PasswordKDF.deriveKey(password: password, salt: salt, iterations: rounds) }
})

let opensslArgs = ["kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "pass:bench",
                   "-kdfopt", "hexsalt:" + salt.map { String(format: "%02x", $0) }.joined(),
                   "-kdfopt", "iter:\(rounds)", "PBKDF2"]
let openssl: Double? = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    ? median((0..<runs).map { _ in seconds { runProcess("/usr/bin/openssl", opensslArgs) } })
    : nil

/// In-process figures; the directory (and its lock) is released on return.
func inProcess() throws -> (initTime: Double, wrong: Double, right: Double, slots: Int) {
    let directory = try VaultDirectory(path: root + "/vault", deviceSecrets: secrets, outerKey: SecureBytes(randomCount: 32), create: true)
    let initTime = try seconds { try directory.initialize() }
    _ = try directory.createVault(password: password)
    var wrongTimes = [Double](), rightTimes = [Double]()
    for _ in 0..<runs {
        wrongTimes.append(seconds { _ = try? directory.unlock(password: wrong) })
        rightTimes.append(try seconds { _ = try directory.unlock(password: password) })
    }
    return (initTime, median(wrongTimes), median(rightTimes), try directory.slotCount())
}
let sweep = try inProcess()
let floor = Double(sweep.slots) * kdf / Double(cores)

let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("obscura").path
func cliStatus(_ pass: String) -> Double {
    median((0..<runs).map { _ in
        seconds {
            runProcess(cli, ["--vault", root + "/vault", "status", "--password-stdin"], input: pass + "\n",
                       environment: ["XDG_CONFIG_HOME": root + "/config"])
        }
    })
}
let hasCLI = FileManager.default.isExecutableFile(atPath: cli)

func ratio(_ t: Double) -> String { String(format: "%.2fx floor", t / floor) }
print("obscura-bench: PBKDF2-HMAC-SHA256 \(rounds) rounds, \(sweep.slots) slots, \(cores) cores, median of \(runs)")
print("  one derivation, obscura in process          \(ms(kdf))")
if let openssl { print("  one derivation, openssl kdf (process start)  \(ms(openssl))") }
print("  floor: \(sweep.slots) derivations / \(cores) cores              \(ms(floor))")
print("  init, \(sweep.slots) decoys                             \(ms(sweep.initTime))   \(ratio(sweep.initTime))")
print("  unlock sweep, wrong password, in process    \(ms(sweep.wrong))   \(ratio(sweep.wrong))")
print("  unlock sweep, right password, in process    \(ms(sweep.right))   \(ratio(sweep.right))")
if hasCLI {
    let cliWrong = cliStatus("not the password"), cliRight = cliStatus("correct horse battery staple")
    print("  obscura status, wrong password (process)    \(ms(cliWrong))   \(ratio(cliWrong))")
    print("  obscura status, right password (process)    \(ms(cliRight))   \(ratio(cliRight))")
}
