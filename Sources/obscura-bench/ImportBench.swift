import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// Photo import rate (the whole pipeline: hash, probe, thumbnail, seal, commit) beside
/// `vipsthumbnail` and ImageMagick `convert -thumbnail` on the same files.
enum ImportBench {
    static func run(photos directory: String?) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-import-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let photos = directory ?? work + "/photos"
        if directory == nil {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/make-photos.py").path
            try shell("/usr/bin/python3", [script, "20", photos])
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: photos).filter { $0.hasSuffix(".jpg") }.sorted()
        let paths = files.map { photos + "/" + $0 }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("photo import: \(files.count) JPEGs from \(photos), \(cores) cores, best of 2")

        // obscura: a fresh vault each run; a small PBKDF2 count, since unlocking is not measured here.
        var obscura = Double.infinity
        for run in 0..<2 {
            let root = work + "/vault\(run)"
            let directory = try VaultDirectory(
                path: root, deviceSecrets: DeviceSecretStore(path: work + "/secret\(run)"), outerKey: SecureBytes(randomCount: 32),
                create: true)
            try directory.initialize(iterations: 1000)
            let vault = try directory.createVault(password: SecureBytes(copying: Array("bench".utf8)), iterations: 1000)
            obscura = min(obscura, try seconds {
                let report = try vault.importFiles(paths)
                precondition(report.imported.count == files.count, "import failed: \(report.failures)")
            })
        }
        try FileManager.default.createDirectory(atPath: work + "/vips", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/magick", withIntermediateDirectories: true)
        let vips = try (0..<2).map { _ in
            try seconds { try shell("/usr/bin/vipsthumbnail", ["-s", "256"] + paths + ["-o", work + "/vips/%s_t.jpg"]) }
        }.min()!
        // Two vipsthumbnail processes on halves of the files: libvips on both cores too.
        let half = paths.count / 2
        let vipsParallel = try (0..<2).map { _ in
            try seconds {
                let script = "/usr/bin/vipsthumbnail -s 256 \"$@\" -o \(work)/vips/%s_p.jpg"
                let a = Process(), b = Process()
                for (p, part) in [(a, paths[..<half]), (b, paths[half...])] {
                    p.executableURL = URL(fileURLWithPath: "/bin/sh")
                    p.arguments = ["-c", script, "sh"] + part
                    try p.run()
                }
                a.waitUntilExit()
                b.waitUntilExit()
            }
        }.min()!
        // Two convert processes at a time, so ImageMagick uses both cores too.
        let magick = try (0..<2).map { _ in
            try seconds {
                try shell("/bin/sh", ["-c", "printf '%s\\n' \"$@\" | xargs -P \(cores) -I{} sh -c '/usr/bin/convert \"$0\" -thumbnail 256x256 \(work)/magick/$(basename \"$0\")' {}", "sh"] + paths)
            }
        }.min()!
        func line(_ name: String, _ t: Double) -> String {
            String(format: "  %-48@ %6.1f images/s   obscura is %.2fx", name as NSString, Double(files.count) / t, t / obscura)
        }
        print(String(format: "  %-48@ %6.1f images/s", "obscura import (hash, thumbnail, seal, commit)" as NSString, Double(files.count) / obscura))
        print(line("vipsthumbnail -s 256 (one process, all files)", vips))
        print(line("vipsthumbnail -s 256 (two processes, half each)", vipsParallel))
        print(line("convert -thumbnail 256x256 (\(cores) at a time)", magick))
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func shell(_ executable: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
    }
}
