import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura-bench vault-scale [WORKDIR]`: issue 15's figures for a vault whose catalog is
/// paged (docs/FORMAT.md §9), in a ten-slot container at the production PBKDF2 count, for
/// each size in OBSCURA_BENCH_ITEMS (default 100,000 and 1,000,000 items; rows cloned
/// from one imported photo, as the gallery benchmark does):
/// - unlock (opening the directory, its container's recovery, the sweep and the catalog's
///   root) beside the floor measured in the same run, ten derivations over every core;
/// - the first page of 200 items right after it;
/// - a favourite (one block commit);
/// - one 12-megapixel photo uploaded through `obscura serve` (curl's time_total), beside
///   the same upload into an empty vault of another container, interleaved;
/// - the server's peak RSS (VmHWM) with the vault unlocked and paged through, and after
///   the uploads;
/// - the disk the slot files take.
enum ScaleBench {
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 5
    static let password = "scale bench"
    static func secret() -> SecureBytes { SecureBytes(copying: Array(password.utf8)) }

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-scale-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let sizes = (ProcessInfo.processInfo.environment["OBSCURA_BENCH_ITEMS"] ?? "100000,1000000")
            .split(separator: ",").compactMap { Int($0) }
        let base = try makePhotos(work: work, count: 1)[0]
        let floor = try measureFloor()
        print(String(format: "vault-scale: 10 slots, PBKDF2 %d rounds, %d cores; floor (10 derivations over every core, median of 5) %.1f ms",
                     PasswordKDF.vaultIterations, ProcessInfo.processInfo.activeProcessorCount, floor * 1000))
        let empty = try build(work: work, name: "empty", items: 0, photo: base)
        for items in sizes {
            let vault = try build(work: work, name: "\(items)", items: items, photo: base)
            // Vaults are reused from run to run: uploads need photos none has seen.
            let photos = try makePhotos(work: work, count: 2 * runs, tag: UUID().uuidString.lowercased())
            try measure(work: work, vault: vault, empty: empty, items: items, floor: floor, photos: photos)
            for photo in photos { try? FileManager.default.removeItem(atPath: photo) }
        }
    }

    /// A built vault directory: its path and its outer key's file.
    struct Built {
        let path: String
        let keyFile: String
        let secrets: DeviceSecretStore
        let config: String
        var key: SecureBytes { (try? KeyFile.read(keyFile, kind: .outer)) ?? SecureBytes(count: 0) }
    }

    /// Photos of 4000×3000 pixels, each with its own bytes (so none is a duplicate); with
    /// `tag`, new ones named after it, each with a pixel drawn at a random place.
    static func makePhotos(work: String, count: Int, tag: String = "") throws -> [String] {
        let base = work + "/photo-base.jpg"
        if !FileManager.default.fileExists(atPath: base) {
            try ImportBench.shell("/usr/bin/convert", ["-size", "4000x3000", "plasma:fractal", "-quality", "85", base])
        }
        guard !tag.isEmpty else { return [base] }
        return try (0..<count).map { n in
            let path = work + "/photo-\(tag)-\(n).jpg"
            let (x, y) = (Int.random(in: 0..<4000), Int.random(in: 0..<3000))
            try ImportBench.shell("/usr/bin/convert", [base, "-fill", "white", "-draw", "point \(x),\(y)", "-quality", "85", path])
            return path
        }
    }

    /// Ten derivations at the production count spread over every core, as the sweep runs them.
    static func measureFloor() throws -> Double {
        let salt = SystemRandom().bytes(PasswordKDF.saltSize)
        let times = try (0..<5).map { _ in
            try ImportBench.seconds {
                DispatchQueue.concurrentPerform(iterations: 10) { _ in
                    _ = try? PasswordKDF.deriveKey(password: secret(), salt: salt, iterations: PasswordKDF.vaultIterations)
                }
            }
        }
        return ContainerBench.median(times)
    }

    /// A ten-slot container at the production count with one vault of `items` items, made
    /// once in `work/name` and reused.
    static func build(work: String, name: String, items: Int, photo: String) throws -> Built {
        let root = work + "/" + name
        let built = Built(path: root + "/vault", keyFile: root + "/outer.key",
                          secrets: DeviceSecretStore(path: root + "/config/obscura/device-secret"), config: root + "/config")
        if FileManager.default.fileExists(atPath: root + "/ready") {
            print("vault-scale: reusing \(built.path)")
            return built
        }
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let key = SecureBytes(randomCount: 32)
        try KeyFile.write(key, kind: .outer, to: built.keyFile)
        let start = DispatchTime.now().uptimeNanoseconds
        let directory = try VaultDirectory(path: built.path, deviceSecrets: built.secrets, outerKey: key, create: true)
        try directory.initialize()
        let vault = try directory.createVault(password: secret())
        defer { vault.lock() }
        if items > 0 {
            guard let original = try vault.importFiles([photo]).imported.first else { throw BenchError("import failed") }
            // Chunks of 100,000 rows, one transaction (one block commit) each.
            var made = 1
            while made < items {
                let chunk = min(100_000, items - made)
                try vault.catalog.write { db in
                    try GalleryBench.cloneRows(of: original.id, numbers: made..<(made + chunk), of: items, in: db)
                }
                made += chunk
            }
        }
        print(String(format: "vault-scale: built %@ (%d items) in %.1f s", built.path, items,
                     Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        _ = FileManager.default.createFile(atPath: root + "/ready", contents: Data())
        return built
    }

    static func measure(work: String, vault built: Built, empty: Built, items: Int, floor: Double, photos: [String]) throws {
        // Unlock, cold each time: a new directory object (container recovery, the maps), the
        // sweep, the catalog's root; then the first page.
        var opens = [Double](), unlocks = [Double](), firstPages = [Double](), warmPages = [Double](), favourites = [Double]()
        // Once untimed but reported: a vault built by an older build migrates its catalog here.
        let first = try ImportBench.seconds {
            let directory = try VaultDirectory(path: built.path, deviceSecrets: built.secrets, outerKey: built.key)
            try directory.unlock(password: secret()).lock()
        }
        for run in 0..<3 {
            var directory: VaultDirectory!
            var vault: Vault!
            let open = try ImportBench.seconds {
                directory = try VaultDirectory(path: built.path, deviceSecrets: built.secrets, outerKey: built.key)
            }
            let unlock = try ImportBench.seconds { vault = try directory.unlock(password: secret()) }
            opens.append(open)
            unlocks.append(open + unlock)
            firstPages.append(try ImportBench.seconds {
                let page = try vault.itemListing(scope: .visible, limit: 200)
                // Uploads of earlier runs add a few items to a reused vault.
                guard page.total >= items else { fatalError("the vault holds \(page.total) items, not \(items)") }
            })
            warmPages.append(try ImportBench.seconds { _ = try vault.itemListing(scope: .visible, limit: 200) })
            if run == 2 {
                let id = try vault.itemListing(scope: .visible, limit: 1).items[0].record.id
                favourites = try (0..<runs).map { n in try ImportBench.seconds { _ = try vault.setFavorite(id, n % 2 == 0) } }
            }
            vault.lock()
        }

        // The server: unlocked, paged through, a favourite; then uploads beside an empty vault's.
        let big = try Served(built, work: work, label: "\(items)")
        defer { big.stop() }
        let small = try Served(empty, work: work, label: "empty")
        defer { small.stop() }
        var cursor: String?
        for _ in 0..<10 {
            let page = try big.get("/api/items?limit=200" + (cursor.map { "&cursor=" + $0 } ?? ""))
            cursor = page["nextCursor"] as? String
        }
        let unlockedPeak = big.peakRSS()
        var bigUploads = [Double](), emptyUploads = [Double]()
        for n in 0..<runs {
            bigUploads.append(try big.upload(photos[2 * n]))
            emptyUploads.append(try small.upload(photos[2 * n + 1]))
        }
        let uploadPeak = big.peakRSS()

        let slots = try FileManager.default.contentsOfDirectory(atPath: built.path + "/data").filter { $0.hasSuffix(".db.enc") }
        let sizes = try slots.map { try FileManager.default.attributesOfItem(atPath: built.path + "/data/" + $0)[.size] as! Int }
        let median = ContainerBench.median
        print("  \(items) items, median of 3 (unlock, first page) or \(runs) (favourite, upload)")
        print(String(format: "    first unlock of this run (any migration) %8.1f ms", first * 1000))
        print(String(format: "    open directory (recovery, maps)          %8.1f ms", median(opens) * 1000))
        print(String(format: "    unlock: open + sweep + catalog root      %8.1f ms   floor + %.1f ms", median(unlocks) * 1000,
                     (median(unlocks) - floor) * 1000))
        print(String(format: "    first page of 200 after unlock (cold)    %8.1f ms   again (warm) %.1f ms",
                     median(firstPages) * 1000, median(warmPages) * 1000))
        print(String(format: "    favourite (one block commit)             %8.1f ms", median(favourites) * 1000))
        print(String(format: "    upload of a 12 MP photo (serve, curl)    %8.1f ms   empty vault %.1f ms   %.2fx",
                     median(bigUploads) * 1000, median(emptyUploads) * 1000, median(bigUploads) / median(emptyUploads)))
        print(String(format: "    serve peak RSS: unlocked, 10 pages       %8.1f MiB", Double(unlockedPeak) / 1024))
        print(String(format: "    serve peak RSS: after %d uploads          %8.1f MiB", runs, Double(uploadPeak) / 1024))
        print(String(format: "    disk: %d slot files of %.0f MiB, %.2f GiB in all", sizes.count,
                     Double(sizes.max() ?? 0) / 1_048_576, Double(sizes.reduce(0, +)) / 1_073_741_824))
    }

    /// `obscura serve` on a built directory, with a session unlocked over HTTP.
    final class Served {
        let server: Background
        let base: String
        let jar: String
        let csrf: String

        init(_ built: Built, work: String, label: String) throws {
            let obscura = ProcessInfo.processInfo.environment["OBSCURA_BIN"]
                ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("obscura").path
            server = try Background.start(
                obscura, ["--vault", built.path, "--outer-key-file", built.keyFile, "serve", "--port", "0"],
                environment: ["XDG_CONFIG_HOME": built.config], banner: "Obscura gallery: ", log: work + "/serve-\(label).log")
            let link = server.banner.trimmingCharacters(in: .whitespaces).split(separator: "#", maxSplits: 1)
            base = String(link[0]).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let token = link.count > 1 ? String(link[1].dropFirst("token=".count)) : ""
            jar = work + "/cookies-\(label)"
            try? FileManager.default.removeItem(atPath: jar)
            let session = try GalleryBench.curl(["-c", jar, "-X", "POST", "-H", "Content-Type: application/json",
                                                 "--data", "{\"token\": \"\(token)\"}", base + "/api/session"])
            guard let csrf = (try JSONSerialization.jsonObject(with: Data(session.utf8)) as? [String: Any])?["csrf"] as? String else {
                throw BenchError("no CSRF token in \(session)")
            }
            self.csrf = csrf
            let unlocked = try GalleryBench.curl(["-b", jar, "-c", jar, "-X", "POST", "-H", "X-CSRF-Token: " + csrf,
                                                  "-H", "Content-Type: application/json",
                                                  "--data", "{\"password\": \"\(password)\"}", base + "/api/unlock"])
            guard unlocked.contains("true") else { throw BenchError("unlock failed: \(unlocked)") }
        }

        func get(_ path: String) throws -> [String: Any] {
            let text = try GalleryBench.curl(["-b", jar, base + path])
            return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        }

        /// curl's time_total for one upload; throws unless the photo was imported.
        func upload(_ photo: String) throws -> Double {
            let out = try GalleryBench.curl([
                "-b", jar, "-X", "POST", "-H", "X-CSRF-Token: " + csrf, "-H", "Content-Type: application/octet-stream",
                "--data-binary", "@" + photo, "-w", "\n%{time_total}",
                base + "/api/upload?name=" + (photo as NSString).lastPathComponent,
            ])
            let lines = out.split(separator: "\n")
            guard lines.first?.contains("\"item\"") == true, let time = lines.last.flatMap({ Double($0) }) else {
                throw BenchError("upload of \(photo): \(out)")
            }
            return time
        }

        /// The server's peak resident set so far, in KiB (VmHWM).
        func peakRSS() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        func stop() { server.stop() }
    }
}
