import Foundation
import ObscuraCrypto
import ObscuraKit

/// `obscura-bench backup [WORKDIR]`: issue 18's figures for backups with restic
/// (docs/BENCHMARKS.md, "Backups with restic"), in one run:
///
/// - **Incremental cost**, in a vault of OBSCURA_BENCH_ITEMS items (default 10,000; built
///   as `vault-scale` builds its vaults: a ten-slot container at the production key
///   derivation, one photo imported and its row cloned): a full backup into a new local
///   repository, then OBSCURA_BENCH_ROUNDS rounds (default 3) of one favourite change
///   (`Vault.setFavorite`) and, apart, of ten new 4000×3000 photos imported in one batch
///   (`Vault.importFiles`), each followed by a backup through `VaultDirectory.backUp(path:engine:)`.
///   For each backup: restic's `data_added` and the growth of the repository directory
///   (`du -sb`), beside what the vault directory itself changed since the backup before
///   (a copy of `data/` taken before the change compared with the files after, 4096-byte
///   block by block, plus the sizes of new files in `media/`). The row also gives the
///   changed blocks, the distinct 1 MiB stretches of the slot files that hold one ("MiB
///   hit": roughly the chunks restic finds changed, its content-defined chunks being
///   512 KiB to 8 MiB, about 1 MiB on average), the new pool files, and restic's count of
///   changed and new files.
/// - **A no-change backup of a vault of OBSCURA_BENCH_GIB GiB** (default 10): an empty
///   vault into which `obscura add` (the binary beside this one, or OBSCURA_BIN) stores
///   one file of 1 GiB from /dev/urandom at a time; its first (full) backup, then
///   OBSCURA_BENCH_RUNS (default 11) no-change backups through the engine interleaved with
///   plain `restic backup` of the same directory (same repository, same cache, same
///   arguments) and `restic unlock` (what one restic start costs: opening the repository,
///   its key derivation), median and minimum of each.
///
/// The vaults are built once in WORKDIR and reused; the repositories are made anew in
/// each run. Set OBSCURA_BENCH_GIB=0 to skip the second part.
enum BackupBench {
    static let environment = ProcessInfo.processInfo.environment
    static let runs = Int(environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 11
    static let rounds = Int(environment["OBSCURA_BENCH_ROUNDS"] ?? "") ?? 3
    static let items = Int(environment["OBSCURA_BENCH_ITEMS"] ?? "") ?? 10_000
    static let gib = Int(environment["OBSCURA_BENCH_GIB"] ?? "") ?? 10
    static let block = 4096
    static let mib = 1_048_576.0

    /// Prints a line and flushes every stream: a long run is often logged to a file, and a
    /// crash must not take the lines printed before it.
    static func print(_ line: String) {
        Swift.print(line)
        fflush(nil)
    }

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-backup-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // restic's cache, shared by the engine's runs and the plain ones (the engine passes
        // the environment on, less restic's password and repository variables).
        setenv("RESTIC_CACHE_DIR", work + "/restic-cache", 1)
        let version = (try? ExportBench.capture("restic version").trimmingCharacters(in: .whitespacesAndNewlines)) ?? "restic ?"
        print("backup: \(version); \(ProcessInfo.processInfo.activeProcessorCount) cores; repositories and vaults in \(work)")
        if items > 0 { try incremental(work: work) }
        if gib > 0 { try noChange(work: work) }
    }

    // MARK: incremental cost

    static func incremental(work: String) throws {
        let base = try ScaleBench.makePhotos(work: work, count: 1)[0]
        let built = try ScaleBench.build(work: work, name: "backup-\(items)", items: items, photo: base)
        let repository = Repository(path: work + "/repo-\(items)")
        try repository.create()

        let total = try withVault(built) { try $0.itemListing(scope: .visible, limit: 1).total }
        let slots = try slotFiles(built.path)
        let slotBytes = try slots.reduce(0) { $0 + (try size(built.path + "/data/" + $1)) }
        print(String(format: "  %d-item vault: %d slot files, %.1f MiB in all; media %.1f MiB", total, slots.count,
                     Double(slotBytes) / mib, Double(try du(built.path + "/media")) / mib))
        let full = try repository.backUp(built.path)
        print(String(format: "  first (full) backup: %.1f s, data_added %.1f MiB, repository %.1f MiB on disk",
                     full.seconds, Double(full.summary.addedBytes) / mib, Double(full.repositoryAfter) / mib))
        print(row(["change", "vault changed", "data_added", "ratio", "repo growth", "ratio", "slot blocks changed",
                   "MiB hit", "new pool files", "restic chg/new", "backup"]))

        var favourites = [Row](), imports = [Row]()
        for round in 0..<rounds {
            favourites.append(try measureChange("favourite #\(round + 1)", built: built, repository: repository, work: work) { vault in
                let record = try vault.itemListing(scope: .visible, limit: 1).items[0].record
                _ = try vault.setFavorite(record.id, !record.favorite)
            })
            let photos = try ScaleBench.makePhotos(work: work, count: 10, tag: UUID().uuidString.lowercased())
            defer { for photo in photos { try? FileManager.default.removeItem(atPath: photo) } }
            imports.append(try measureChange("10 photos #\(round + 1)", built: built, repository: repository, work: work) { vault in
                let report = try vault.importFiles(photos)
                guard report.imported.count == photos.count else {
                    throw BenchError("imported \(report.imported.count) of \(photos.count): \(report.failures)")
                }
            })
        }
        for (name, rows) in [("favourite", favourites), ("10 photos", imports)] {
            let ratios = rows.map(\.ratio).sorted(), worst = ratios.last ?? 0
            print(String(format: "  %@: data_added / vault change %.1fx (median of %d), worst %.1fx; goal <= 2x: %@", name,
                         ratios[ratios.count / 2], rows.count, worst, worst <= 2 ? "met" : "NOT met"))
        }
        try? FileManager.default.removeItem(atPath: work + "/data-before")
    }

    struct Row { let ratio: Double }

    /// One line of the incremental table: the first column left-aligned, the others right.
    static func row(_ cells: [String]) -> String {
        let widths = [12, 14, 12, 7, 12, 7, 20, 8, 16, 15, 8]
        return "  " + zip(cells, widths).enumerated().map { n, cell in
            let pad = String(repeating: " ", count: max(0, cell.1 - cell.0.count))
            return n == 0 ? cell.0 + pad : pad + cell.0
        }.joined(separator: " ")
    }

    /// Copies `data/`, runs `change` on the unlocked vault, measures what changed on disk,
    /// backs up, and prints the row.
    static func measureChange(
        _ label: String, built: ScaleBench.Built, repository: Repository, work: String, change: (Vault) throws -> Void
    ) throws -> Row {
        let copy = work + "/data-before"
        try? FileManager.default.removeItem(atPath: copy)
        try ExportBench.shell("cp -a '\(built.path)/data' '\(copy)'")
        let mediaBefore = Set(try FileManager.default.contentsOfDirectory(atPath: built.path + "/media"))
        try withVault(built, change)

        let changed = try changedBlocks(before: copy, after: built.path + "/data")
        let newPool = try FileManager.default.contentsOfDirectory(atPath: built.path + "/media").filter { !mediaBefore.contains($0) }
        let poolBytes = try newPool.reduce(0) { $0 + (try size(built.path + "/media/" + $1)) }
        let reference = changed.bytes + poolBytes

        let backup = try repository.backUp(built.path)
        let added = Double(backup.summary.addedBytes), growth = Double(backup.repositoryAfter - backup.repositoryBefore)
        let ref = Double(reference)
        func f(_ format: String, _ values: CVarArg...) -> String { String(format: format, arguments: values) }
        print(row([label, f("%.2f MiB", ref / mib), f("%.2f MiB", added / mib), f("%.1fx", added / ref),
                   f("%.2f MiB", growth / mib), f("%.1fx", growth / ref), "\(changed.blocks) in \(changed.files) files",
                   "\(changed.regions)", f("%d, %.2f MiB", newPool.count, Double(poolBytes) / mib),
                   "\(backup.summary.filesChanged) / \(backup.summary.filesNew)", f("%.1f s", backup.seconds)]))
        return Row(ratio: max(added, growth) / ref)
    }

    /// What differs between the slot files in `before` and those in `after`: 4096-byte
    /// blocks that changed (a file only in `after` counts whole), and in how many distinct
    /// 1 MiB regions of the files they lie (what a chunker of ~1 MiB chunks sees).
    static func changedBlocks(before: String, after: String) throws -> (bytes: Int, blocks: Int, files: Int, regions: Int) {
        var bytes = 0, blocks = 0, files = 0, regions = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: after).sorted() {
            let new = try Data(contentsOf: URL(fileURLWithPath: after + "/" + name))
            guard let old = try? Data(contentsOf: URL(fileURLWithPath: before + "/" + name)) else {
                bytes += new.count
                blocks += (new.count + block - 1) / block
                files += 1
                continue
            }
            var changedHere = 0
            var touched = Set<Int>()
            new.withUnsafeBytes { n in
                old.withUnsafeBytes { o in
                    var offset = 0
                    while offset < n.count {
                        let length = min(block, n.count - offset)
                        let same = offset + length <= o.count && memcmp(n.baseAddress! + offset, o.baseAddress! + offset, length) == 0
                        if !same {
                            changedHere += 1
                            bytes += length
                            touched.insert(offset >> 20)
                        }
                        offset += length
                    }
                }
            }
            blocks += changedHere
            regions += touched.count
            if changedHere > 0 { files += 1 }
        }
        return (bytes, blocks, files, regions)
    }

    /// Runs `body` on the vault unlocked in a directory of its own, released on return
    /// (its lock too, which a backup of the path takes).
    static func withVault<T>(_ built: ScaleBench.Built, _ body: (Vault) throws -> T) throws -> T {
        let directory = try VaultDirectory(path: built.path, deviceSecrets: built.secrets, outerKey: built.key)
        let vault = try directory.unlock(password: ScaleBench.secret())
        defer { vault.lock() }
        return try body(vault)
    }

    // MARK: no-change backup of a large vault

    static func noChange(work: String) throws {
        let base = try ScaleBench.makePhotos(work: work, count: 1)[0]
        let built = try ScaleBench.build(work: work, name: "backup-\(gib)gib", items: 0, photo: base)
        let filled = work + "/backup-\(gib)gib/filled"
        if !FileManager.default.fileExists(atPath: filled) {
            let obscura = environment["OBSCURA_BIN"]
                ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("obscura").path
            guard FileManager.default.isExecutableFile(atPath: obscura) else { throw BenchError("no obscura binary at \(obscura)") }
            let source = work + "/random-1gib.bin"
            let start = DispatchTime.now().uptimeNanoseconds
            for n in 0..<gib {
                try ExportBench.shell("head -c 1073741824 /dev/urandom > '\(source)'")
                try ExportBench.shell("printf '%s\\n' '\(ScaleBench.password)' | XDG_CONFIG_HOME='\(built.config)' '\(obscura)' "
                    + "--vault '\(built.path)' --outer-key-file '\(built.keyFile)' add --password-stdin '\(source)' > /dev/null")
                try FileManager.default.removeItem(atPath: source)
                print("  obscura add: \(n + 1) of \(gib) files of 1 GiB")
            }
            print(String(format: "  filled %@ with %d files of 1 GiB (obscura add) in %.0f s", built.path, gib,
                         Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
            _ = FileManager.default.createFile(atPath: filled, contents: Data())
        }
        let items = try withVault(built) { try $0.itemListing(scope: .visible, limit: 1).total }
        print(String(format: "  %d GiB vault: %d items; media %.2f GiB, data %.1f MiB", gib, items,
                     Double(try du(built.path + "/media")) / 1_073_741_824, Double(try du(built.path + "/data")) / mib))

        let repository = Repository(path: work + "/repo-\(gib)gib")
        try repository.create()
        let full = try repository.backUp(built.path)
        print(String(format: "  first (full) backup (engine): %.1f s wall (restic %.1f s), data_added %.2f GiB, repository %.2f GiB on disk",
                     full.seconds, full.summary.seconds, Double(full.summary.addedBytes) / 1_073_741_824,
                     Double(full.repositoryAfter) / 1_073_741_824))

        var engine = [Double](), engineRestic = [Double](), plain = [Double](), plainRestic = [Double](), unlocks = [Double]()
        var added = [Int64]()
        for _ in 0..<runs {
            let e = try repository.backUp(built.path, measureDisk: false)
            engine.append(e.seconds)
            engineRestic.append(e.summary.seconds)
            added.append(e.summary.addedBytes)
            let p = try repository.plainBackup(built.path)
            plain.append(p.seconds)
            plainRestic.append(p.resticSeconds)
            added.append(p.added)
            unlocks.append(try repository.plain(["unlock"], in: built.path).seconds)
        }
        let median = ContainerBench.median
        print("  no-change backup, \(runs) runs interleaved          wall: median (min)   restic's total_duration: median")
        print(String(format: "    VaultDirectory.backUp(path:engine:)          %7.2f s (%.2f s)   %7.2f s", median(engine), engine.min() ?? 0,
                     median(engineRestic)))
        print(String(format: "    restic backup (plain, same arguments)        %7.2f s (%.2f s)   %7.2f s", median(plain), plain.min() ?? 0,
                     median(plainRestic)))
        print(String(format: "    restic unlock alone (one restic start)       %7.2f s (%.2f s)", median(unlocks), unlocks.min() ?? 0))
        print(String(format: "    engine / plain: %.2fx; data_added of these runs: at most %d bytes; repository now %.2f GiB",
                     median(engine) / median(plain), added.max() ?? 0, Double(try du(repository.path)) / 1_073_741_824))
    }

    // MARK: the repository

    /// A local restic repository under a generated password, reached through the engine
    /// (as `obscura backup` does) or by restic directly.
    struct Repository {
        let path: String
        let password = BackupPassword.canonical(BackupPassword.generate())
        var engine: BackupEngine { BackupEngine(repository: try! BackupRepository(path), password: password) }

        func create() throws {
            try? FileManager.default.removeItem(atPath: path)
            guard try engine.create() else { throw BenchError("a repository exists at \(path)") }
        }

        struct Backup {
            let summary: BackupSummary
            /// Wall time of the whole call: the directory lock, the slot listing, `restic backup`.
            let seconds: Double
            let repositoryBefore: Int
            let repositoryAfter: Int
        }

        /// One backup through the engine, as `obscura backup run` takes it.
        func backUp(_ vault: String, measureDisk: Bool = true) throws -> Backup {
            let before = measureDisk ? try du(path) : 0
            var summary: BackupSummary!
            let seconds = try ImportBench.seconds { summary = try VaultDirectory.backUp(path: vault, engine: { engine }) }
            return Backup(summary: summary, seconds: seconds, repositoryBefore: before, repositoryAfter: measureDisk ? try du(path) : 0)
        }

        /// `restic -r REPO backup --json --tag obscura .` run in `vault` with nothing around
        /// it: the reference. Returns the wall time, restic's own and its data_added.
        func plainBackup(_ vault: String) throws -> (seconds: Double, resticSeconds: Double, added: Int64) {
            let (seconds, data) = try plain(["backup", "--json", "--tag", BackupEngine.tag, "."], in: vault)
            let summary = String(decoding: data, as: UTF8.self).split(separator: "\n")
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["message_type"] as? String == "summary" }
            guard let summary else { throw BenchError("no summary from restic backup") }
            return (seconds, (summary["total_duration"] as? Double) ?? 0, (summary["data_added"] as? NSNumber)?.int64Value ?? 0)
        }

        /// `restic -r REPO ARGUMENTS` run in `directory`, the password in its environment:
        /// the wall time and standard output.
        func plain(_ arguments: [String], in directory: String) throws -> (seconds: Double, output: Data) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/restic")
            p.arguments = ["-r", path] + arguments
            p.currentDirectoryURL = URL(fileURLWithPath: directory)
            var env = environment
            env["RESTIC_PASSWORD"] = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            p.environment = env
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            var data = Data()
            let seconds = try ImportBench.seconds {
                try p.run()
                data = out.fileHandleForReading.readDataToEndOfFile()
                p.waitUntilExit()
            }
            guard p.terminationStatus == 0 else { throw BenchError("restic \(arguments.joined(separator: " ")) exited \(p.terminationStatus)") }
            return (seconds, data)
        }
    }

    // MARK: files

    static func slotFiles(_ vault: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault + "/data").filter { $0.hasSuffix(".db.enc") && !$0.hasPrefix(".") }
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// `du -sb`: the apparent size of everything under `path`, in bytes.
    static func du(_ path: String) throws -> Int {
        let text = try ExportBench.capture("du -sb '\(path)'")
        guard let bytes = Int(text.split(separator: "\t").first ?? "") else { throw BenchError("du -sb \(path): \(text)") }
        return bytes
    }
}
