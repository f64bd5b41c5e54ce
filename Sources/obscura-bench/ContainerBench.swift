import Foundation
import GRDB
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura-bench container [WORKDIR]`: what one commit costs in a version 4 container
/// (docs/FORMAT.md §8) beside the version 3 slot files it replaces, measured in the same
/// run on the same disk: a favourite toggle (the smallest change), an unlock, and the
/// migration of the version 3 directory into the container, for an empty vault and one
/// of 20,000 items. Bytes written are the process's `wchar` (write system calls) from
/// /proc/self/io; times are wall clock, median of a few runs.
enum ContainerBench {
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 5
    static let iterations = 1000
    static let password = SecureBytes(copying: Array("container bench".utf8))
    static let outerKey = SecureBytes(randomCount: 32)

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-container-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        let photo = work + "/photo.jpg"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try ImportBench.shell("/usr/bin/convert", ["-size", "64x48", "plasma:fractal", photo])
        print("container: 10 slots, PBKDF2 \(iterations) rounds (unlock here is the slot reading, not the key derivation), median of \(runs)")
        print("  items  layout         slot size   toggle time   bytes written   unlock")
        for items in [1, 20_000] {
            var v3Path = ""
            for layout in ["V3 files", "V4 container"] {
                let path = work + "/\(items)-\(layout.prefix(2))"
                if layout.hasPrefix("V3") { v3Path = path }
                let secrets = DeviceSecretStore(path: work + "/config/device-secret")
                let key = layout.hasPrefix("V4") ? outerKey : nil
                let id = try build(path: path, secrets: secrets, outerKey: key, items: items, photo: photo)
                let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: key)
                let vault = try directory.unlock(password: password)
                var times = [Double](), bytes = [UInt64]()
                for n in 0..<runs {
                    let before = writtenBytes()
                    times.append(try ImportBench.seconds { _ = try vault.setFavorite(id, n % 2 == 0) })
                    bytes.append(writtenBytes() - before)
                }
                vault.lock()
                let unlock = median(try (0..<runs).map { _ in try ImportBench.seconds { _ = try directory.unlock(password: password) } })
                let size = try FileManager.default.attributesOfItem(atPath: path + "/data/" + (try FileManager.default.contentsOfDirectory(atPath: path + "/data").first { $0.hasSuffix(".db.enc") }!))[.size] as! Int
                print(String(format: "  %5d  %-13@  %7.1f MiB   %8.1f ms   %9.1f MiB   %6.1f ms",
                             items, layout, Double(size) / 1_048_576, median(times) * 1000,
                             Double(bytes.sorted()[bytes.count / 2]) / 1_048_576, unlock * 1000))
            }
            let secrets = DeviceSecretStore(path: work + "/config/device-secret")
            let directory = try VaultDirectory(path: v3Path, deviceSecrets: secrets, outerKey: outerKey)
            let before = writtenBytes()
            let migration = try ImportBench.seconds { try directory.migrateToContainer() }
            print(String(format: "  %5d  migration of the V3 directory: %.2f s, %.1f MiB written", items, migration,
                         Double(writtenBytes() - before) / 1_048_576))
        }
    }

    /// A directory of ten slots with one vault of `items` items (one photo imported, its
    /// row cloned, as the gallery benchmark does); returns an item id.
    static func build(path: String, secrets: DeviceSecretStore, outerKey: SecureBytes?, items: Int, photo: String) throws -> String {
        let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: outerKey, create: true)
        try directory.initialize(iterations: iterations)
        let vault = try directory.createVault(password: password, iterations: iterations)
        defer { vault.lock() }
        guard let original = try vault.importFiles([photo]).imported.first else { throw BenchError("import failed") }
        if items > 1 {
            try vault.catalog.write { db in
                let insert = try db.makeStatement(sql: """
                    INSERT INTO item (id, kind, mediaId, thumbId, name, mimeType, size, width, height,
                        orientation, duration, takenAt, importedAt, folderId, favorite, contentHash, protectedMeta)
                    SELECT ?, kind, mediaId, thumbId, ?, mimeType, size, width, height,
                        orientation, duration, takenAt, importedAt, folderId, favorite, contentHash, protectedMeta
                    FROM item WHERE id = ?
                    """)
                for n in 1..<items {
                    try insert.execute(arguments: [UUID().uuidString.lowercased(), String(format: "IMG_%06d.jpg", n), original.id])
                }
            }
        }
        return original.id
    }

    /// Bytes this process has passed to write system calls so far.
    static func writtenBytes() -> UInt64 {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }),
              let value = UInt64(line.split(separator: " ").last ?? "")
        else { return 0 }
        return value
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
