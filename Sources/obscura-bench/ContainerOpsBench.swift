import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura-bench container-ops [WORKDIR]`: time and bytes written per vault operation in
/// a version 4 container (docs/FORMAT.md §8.6), beside the version 3 slot files measured
/// in the same run on the same disk, for vaults of the sizes in OBSCURA_BENCH_ITEMS
/// (default 1 and 20,000 items). In the container the catalog is paged (§9): a change is
/// one block commit of inner format 2 (§8.12), a creation or destruction a whole commit.
/// Bytes are the process's `wchar`; "blocks per slot" is those bytes over slots × 4096,
/// the size of the set every slot has written.
enum ContainerOpsBench {
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 3
    static let password = ContainerBench.password
    static let iterations = ContainerBench.iterations

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-ops-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let photo = work + "/photo.jpg"
        try ImportBench.shell("/usr/bin/convert", ["-size", "64x48", "plasma:fractal", photo])
        print("container-ops: 10 slots, PBKDF2 \(iterations) rounds, median of \(runs); bytes = wchar of the operation")
        print("  items  operation         V3 time    V3 written   V4 time    V4 written   V4 blocks/slot of N")
        let sizes = (ProcessInfo.processInfo.environment["OBSCURA_BENCH_ITEMS"] ?? "1,20000")
            .split(separator: ",").compactMap { Int($0) }
        for items in sizes {
            var rows = [String: [String: (time: Double, bytes: UInt64, blocks: Int)]]()
            for layout in ["V3", "V4"] {
                let path = work + "/\(items)-\(layout)"
                let secrets = DeviceSecretStore(path: work + "/config-\(items)-\(layout)/device-secret")
                let key = layout == "V4" ? ContainerBench.outerKey : nil
                let id = try ContainerBench.build(path: path, secrets: secrets, outerKey: key, items: items, photo: photo)
                let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: key)
                let vault = try directory.unlock(password: password)
                let slotSize = try FileManager.default.attributesOfItem(
                    atPath: path + "/data/" + (try directory.slotNames()[0]))[.size] as! Int
                let blocks = slotSize / 4096
                var n = 0
                var imported = [String]()
                let folder = try vault.createFolder("moved")
                let operations: [(String, () throws -> Void)] = [
                    ("favourite", { _ = try vault.setFavorite(id, n % 2 == 0) }),
                    ("move", { try vault.moveItems([id], to: n % 2 == 0 ? folder : nil) }),
                    ("import 1 photo", {
                        let copy = work + "/photo-\(layout)-\(items)-\(n).jpg"
                        try ImportBench.shell("/usr/bin/convert", ["-size", "64x48", "plasma:fractal", copy])
                        imported += try vault.importFiles([copy]).imported.map(\.id)
                    }),
                    // The photos the runs above imported, one a run.
                    ("delete", { try vault.deleteItems([imported[n]]) }),
                    ("password change", {
                        try vault.changePassword(to: n % 2 == 0 ? SecureBytes(copying: Array("other".utf8)) : password, kdf: .pbkdf2(iterations: iterations))
                    }),
                    ("create + destroy", {
                        let other = try directory.createVault(password: SecureBytes(copying: Array("bench \(n)".utf8)), iterations: iterations)
                        try directory.destroy(other)
                    }),
                ]
                for (name, operation) in operations {
                    var times = [Double](), written = [UInt64]()
                    for run in 0..<runs {
                        n = run
                        let before = ContainerBench.writtenBytes()
                        times.append(try ImportBench.seconds(operation))
                        written.append(ContainerBench.writtenBytes() - before)
                    }
                    // A password change runs an even number of times: the vault ends on its own.
                    if name == "password change", runs % 2 == 1 {
                        try vault.changePassword(to: password, kdf: .pbkdf2(iterations: iterations))
                    }
                    rows[name, default: [:]][layout] = (ContainerBench.median(times), written.sorted()[written.count / 2], blocks)
                }
                vault.lock()
            }
            for name in ["favourite", "move", "import 1 photo", "delete", "password change", "create + destroy"] {
                let v3 = rows[name]!["V3"]!, v4 = rows[name]!["V4"]!
                let perSlot = Double(v4.bytes) / 10 / 4096
                print(String(format: "  %5d  ", items) + name.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(format: "  %7.1f ms  %8.1f MiB  %7.1f ms  %8.1f MiB   %8.0f of %d", v3.time * 1000, Double(v3.bytes) / 1_048_576,
                             v4.time * 1000, Double(v4.bytes) / 1_048_576, perSlot, v4.blocks))
            }
        }
    }
}
