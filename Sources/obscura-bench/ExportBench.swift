import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// Export and import of an unlocked vault, in process, beside `age` encrypting and
/// decrypting the same bytes in the same run (docs/BENCHMARKS.md, "Export and import").
///
/// What is timed is the operation the web gallery runs on a vault that is already open:
/// `exportVault` (export KDF, read, seal, write, fsync, rename) and `importVault` (export
/// KDF, verify, write, fsync, decoy sweep, commit). Unlocking is done once, untimed: it is
/// a fixed cost of the command line, measured by `scripts/bench-export`.
enum ExportBench {
    static let runs = 3

    /// `workdir` keeps the 2 GiB sources (src/, shared with scripts/bench-export) between
    /// runs; without one, everything goes under a new temporary directory and is removed.
    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("obscura-bench-export-\(UUID().uuidString)").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try makeSources(in: work + "/src")
        let secrets = DeviceSecretStore(path: work + "/bench-config/device-secret")
        let vaultPath = work + "/bench-vault"
        // A version 4 container, as `obscura init` makes; its key is kept beside it for a
        // kept vault's next run.
        let keyFile = work + "/bench-config/outer.key"
        let outerKey = try KeyFile.createIfMissing(keyFile, kind: .outer, using: SystemRandom()) ?? KeyFile.read(keyFile, kind: .outer)
        // OBSCURA_BENCH_KEEP=1 keeps the vault for the next run (for profiling); it is
        // reused only when kept that way.
        let keep = ProcessInfo.processInfo.environment["OBSCURA_BENCH_KEEP"] == "1"
        if !(keep && FileManager.default.fileExists(atPath: vaultPath + "/media")) {
            try? FileManager.default.removeItem(atPath: vaultPath)
            let directory = try VaultDirectory(path: vaultPath, deviceSecrets: secrets, outerKey: outerKey, create: true)
            try directory.initialize()
            let vault = try directory.createVault(password: vaultPassword)
            let sources = try FileManager.default.contentsOfDirectory(atPath: work + "/src").sorted().map { work + "/src/" + $0 }
            let report = try vault.importFiles(sources)
            precondition(report.imported.count == sources.count, "vault import failed: \(report.failures)")
        }
        defer { if !keep { try? FileManager.default.removeItem(atPath: vaultPath) } }
        let pool = try FileManager.default.contentsOfDirectory(atPath: vaultPath + "/media").sorted()
            .map { vaultPath + "/media/" + $0 }
        let bytes = try pool.reduce(0.0) { $0 + Double(try FileManager.default.attributesOfItem(atPath: $1)[.size] as! UInt64) }
        let key = work + "/bench-age.key"
        try? FileManager.default.removeItem(atPath: key)
        try shell("age-keygen -o '\(key)' 2> /dev/null")
        let recipient = try capture("age-keygen -y '\(key)'").trimmingCharacters(in: .whitespacesAndNewlines)

        print(String(format: "export benchmark, in process: vault media %.2f GiB; unlocked once, untimed; best of %d,", bytes / 1_073_741_824, runs))
        print("obscura and age alternating; rates are media bytes / wall time; peak = resident high-water mark")
        // tmpfs first: its copies are gone before the disk runs fill the page cache.
        let only = ProcessInfo.processInfo.environment["OBSCURA_BENCH_ONLY"]  // "tmpfs" or "disk"
        for (label, base) in [("tmpfs", "/dev/shm/obscura-bench-export-\(getpid())"), ("disk", work + "/bench-disk")]
        where only == nil || only == label {
            try? FileManager.default.removeItem(atPath: base)
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: base) }
            print("-- \(label): \(base)")
            try measure(at: base, vaultPath: vaultPath, secrets: secrets, outerKey: outerKey, pool: pool, bytes: bytes, key: key,
                        recipient: recipient)
        }
    }

    static let vaultPassword = SecureBytes(copying: Array("bench vault password".utf8))
    static let exportPassword = SecureBytes(copying: Array("bench export password".utf8))

    /// One place: the vault is copied there (so that reads and writes share the medium),
    /// then export/age -e and import/age -d alternate, best of ``runs`` each.
    static func measure(
        at base: String, vaultPath: String, secrets: DeviceSecretStore, outerKey: SecureBytes, pool: [String], bytes: Double,
        key: String, recipient: String
    ) throws {
        // On the disk the vault is used where it is; tmpfs gets a copy.
        let vaultCopy = base.hasPrefix("/dev/shm/") ? base + "/vault" : vaultPath
        if vaultCopy != vaultPath { try shell("cp -r '\(vaultPath)' '\(vaultCopy)'") }
        let poolCopy = pool.map { vaultCopy + "/media/" + ($0 as NSString).lastPathComponent }
        let exportPath = base + "/v.obscura", agePath = base + "/age.out", ageDecrypted = base + "/age.dec"
        var export = Sample(), ageEncrypt = Sample(), importSample = Sample(), ageDecrypt = Sample()
        // obscura fsyncs what it writes; age does not. The "+ fsync" references pay the same
        // durability, so that a disk's write speed is not counted against obscura alone.
        var ageEncryptSync = Sample(), ageDecryptSync = Sample()
        // The medium's own cost: the same size written and fsynced, no crypto at all.
        var plainWrite = Sample()
        let mebibytes = Int((bytes / 1_048_576).rounded(.up))
        do {
            let vault = try VaultDirectory(path: vaultCopy, deviceSecrets: secrets, outerKey: outerKey).unlock(password: vaultPassword)
            let files = poolCopy.map { "'\($0)'" }.joined(separator: " ")
            let encrypt = "cat \(files) | age -e -r \(recipient) -o '\(agePath)'"
            // Every timed run starts with neither output present, so both write with the
            // same memory in use: here writing into memory the machine has not touched
            // lately costs 2-4x more (docs/BENCHMARKS.md, "Export and import").
            let clear = { for path in [exportPath, agePath] { try? FileManager.default.removeItem(atPath: path) } }
            for _ in 0..<runs {
                clear()
                export.add(try timed { try vault.exportVault(to: exportPath, password: exportPassword) })
                clear()
                ageEncrypt.add(try timedProcess(encrypt, work: base))
                clear()
                ageEncryptSync.add(try timedProcess(encrypt + " && sync '\(agePath)'", work: base))
                clear()
                plainWrite.add(try timedProcess("dd if=/dev/zero of='\(agePath)' bs=1M count=\(mebibytes) conv=fsync status=none", work: base))
            }
            // The files the import runs read, made again untimed.
            clear()
            try vault.exportVault(to: exportPath, password: exportPassword)
            try shell(encrypt)
        }
        if vaultCopy != vaultPath { try? FileManager.default.removeItem(atPath: vaultCopy) }
        let targetPath = base + "/target"
        for _ in 0..<runs {
            do {
                let target = try VaultDirectory(path: targetPath, deviceSecrets: secrets, outerKey: outerKey, create: true)
                try target.initialize()
                importSample.add(try timed { try target.importVault(from: exportPath, password: exportPassword) })
            }
            try? FileManager.default.removeItem(atPath: targetPath)
            let decrypt = "age -d -i '\(key)' -o '\(ageDecrypted)' '\(agePath)'"
            ageDecrypt.add(try timedProcess(decrypt, work: base))
            try? FileManager.default.removeItem(atPath: ageDecrypted)
            ageDecryptSync.add(try timedProcess(decrypt + " && sync '\(ageDecrypted)'", work: base))
            try? FileManager.default.removeItem(atPath: ageDecrypted)
        }
        for path in [exportPath, agePath] { try? FileManager.default.removeItem(atPath: path) }
        print(export.line("obscura export (KDF, seal, fsync, rename)", bytes: bytes, against: ageEncrypt, "age -e"))
        print(ageEncrypt.line("age -e, the same bytes, to a file", bytes: bytes))
        print(ageEncryptSync.line("age -e, then fsync of its output", bytes: bytes, versus: export, "obscura export"))
        print(plainWrite.line("dd of zeros, same size, conv=fsync", bytes: bytes, versus: export, "obscura export"))
        print(importSample.line("obscura import (KDF, verify, fsync, sweep)", bytes: bytes, against: ageDecrypt, "age -d"))
        print(ageDecrypt.line("age -d, to a file", bytes: bytes))
        print(ageDecryptSync.line("age -d, then fsync of its output", bytes: bytes, versus: importSample, "obscura import"))
    }

    /// Best time of a series, with the peak memory of that run.
    struct Sample {
        var seconds = Double.infinity
        var peakKiB = 0
        /// Every run's seconds, in order: the spread shows how noisy the machine was.
        var all: [Double] = []
        mutating func add(_ run: (Double, Int)) {
            all.append(run.0)
            if run.0 < seconds { (seconds, peakKiB) = run }
        }
        /// `against`: this run's speed-up over `other`; `versus`: `other`'s speed-up over this.
        func line(_ label: String, bytes: Double, against other: Sample? = nil, versus: Sample? = nil, _ name: String = "") -> String {
            // %-44@ does not pad on Linux's Foundation; pad the label first.
            var text = "  " + label.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(format: " %6.2f s  %5.2f GB/s  peak %6.1f MiB", seconds, bytes / seconds / 1e9, Double(peakKiB) / 1024)
            text += "  (" + all.map { String(format: "%.2f", $0) }.joined(separator: " ") + ")"
            if let other { text += String(format: "   %.2fx %@", other.seconds / seconds, name) }
            if let versus { text += String(format: "   %@ %.2fx this", name, seconds / versus.seconds) }
            return text
        }
    }

    /// Wall time of `body` after sync and a pause (writeback of earlier runs must not land
    /// in this one), and this process's resident high-water mark during it.
    static func timed(_ body: () throws -> Void) throws -> (Double, Int) {
        settle()
        resetPeak()
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (elapsed, peakKiB())
    }

    /// Wall time and peak RSS of a shell command, through /usr/bin/time.
    static func timedProcess(_ command: String, work: String) throws -> (Double, Int) {
        settle()
        let out = work + "/time"
        try shell("/usr/bin/time -f '%e %M' -o '\(out)' sh -c \"\(command)\" > /dev/null")
        let fields = try String(contentsOfFile: out, encoding: .utf8).split(whereSeparator: \.isWhitespace)
        // The pipeline's peak is its largest process (age), not the shell's.
        return (Double(fields[0])!, Int(fields[1])!)
    }

    static func settle() {
        sync()
        Thread.sleep(forTimeInterval: 2)
    }

    /// Writing 5 to clear_refs resets VmHWM (Linux 4.0+), so each run's peak is its own.
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    static func peakKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(whereSeparator: \.isWhitespace)[1]) ?? 0
    }

    /// The same 2 GiB as scripts/bench-export: a 1 GiB lossless 1080p video and 1 GiB of
    /// random bytes, made once.
    static func makeSources(in src: String) throws {
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: src + "/video.mp4") {
            try shell("ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30 -t 255 -c:v libx264 -preset ultrafast -qp 0 -pix_fmt yuv420p -y '\(src)/video.mp4'")
        }
        if !FileManager.default.fileExists(atPath: src + "/random.bin") {
            try shell("head -c 1073741824 /dev/urandom > '\(src)/random.bin'")
        }
    }

    static func shell(_ command: String) throws {
        _ = try capture(command)
    }

    static func capture(_ command: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: ["command": command]) }
        return String(decoding: data, as: UTF8.self)
    }
}
