import Foundation
import ObscuraCrypto
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Settings and reporting shared by the hardening suites (issue #6).
///
/// Each suite runs a small version by default, to keep `swift test` cheap, and a larger
/// one when `OBSCURA_HARDEN_FULL=1` (what `scripts/harden` sets). Suites report their
/// figures as `HARDEN-FIGURE` lines on standard output, which `scripts/harden` collects
/// into its summary table and docs/HARDENING.md quotes.
public enum Hardening {
    /// Whether the full-size runs were asked for.
    public static let full = ProcessInfo.processInfo.environment["OBSCURA_HARDEN_FULL"] == "1"

    /// `small` normally, `large` with `OBSCURA_HARDEN_FULL=1`.
    public static func scale(_ small: Int, full large: Int) -> Int { full ? large : small }

    /// The seed of this run's samples: `OBSCURA_TEST_SEED` when set, to repeat a run's
    /// cases, else drawn at start. Every sampled suite prints it beside what it picked.
    public static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["OBSCURA_TEST_SEED"], let value = UInt64(text) { return value }
        return UInt64.random(in: 0..<(1 << 48))
    }()

    /// Which of `total` cases (`0..<total`) a sampled suite runs for `name`: all of them at
    /// full size (`OBSCURA_HARDEN_FULL=1`) or when `total <= count`; otherwise the first
    /// and the last `edges` (the boundaries, where a write's old and new states are) and
    /// `count - 2 * edges` others drawn from ``seed`` and `name`, so that one seed repeats
    /// every suite's sample and successive runs cover every case in time. Sorted.
    public static func sample(_ total: Int, count: Int, edges: Int = 1, name: String) -> [Int] {
        guard !full, total > count, count > 2 * edges else { return Array(0..<total) }
        let fixed = Set(Array(0..<edges) + Array((total - edges)..<total))
        let random = SeededRandom(seed: "\(seed)/\(name)")
        let drawn = random.shuffled((0..<total).filter { !fixed.contains($0) }).prefix(count - fixed.count)
        return (fixed.union(drawn)).sorted()
    }

    /// Prints one figure line: `HARDEN-FIGURE | suite | case | key=value ...`.
    public static func report(_ suite: String, _ name: String, _ figures: KeyValuePairs<String, Any>) {
        let fields = figures.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("HARDEN-FIGURE | \(suite) | \(name) | \(fields)")
    }

    /// Prints why a test did not run, in the same place the figures go.
    public static func skip(_ suite: String, _ name: String, _ reason: String) {
        print("HARDEN-SKIP | \(suite) | \(name) | \(reason)")
    }
}

/// A file system mounted for one test, unmounted (and its mount point removed) on release.
/// Needs root (or CAP_SYS_ADMIN); ``available`` says whether this machine allows it.
public final class ScratchMount {
    /// Where it is mounted.
    public let path: String

    /// A tmpfs of `megabytes` MiB at a new directory under `parent`.
    public init(megabytes: Int, parent: String) throws {
        path = parent + "/mnt-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.mount(["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", path]) else {
            rmdir(path)
            throw MountRefused()
        }
    }

    /// A read-only bind mount of `source` at a new directory under `parent`: the same
    /// files, and every write fails with EROFS even for root, which ignores file modes.
    public init(readOnlyViewOf source: String, parent: String) throws {
        path = parent + "/ro-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.mount(["--bind", source, path]) else { rmdir(path); throw MountRefused() }
        guard Self.mount(["-o", "remount,bind,ro", path]) else {
            _ = Self.run("/bin/umount", [path])
            rmdir(path)
            throw MountRefused()
        }
    }

    deinit {
        _ = Self.run("/bin/umount", ["-l", path])
        rmdir(path)
    }

    /// Free bytes on the mounted file system.
    public var freeBytes: Int {
        var st = statvfs()
        guard statvfs(path, &st) == 0 else { return 0 }
        return Int(st.f_bavail) * Int(st.f_frsize)
    }

    /// Fills the file system with a file `name` until `leave` bytes remain free (to
    /// within a page), and returns the filler's path.
    @discardableResult
    public func fill(leaving leave: Int, name: String = "filler") throws -> String {
        let filler = path + "/" + name
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        let page = [UInt8](repeating: 0xA5, count: 4096)
        while freeBytes > leave + page.count {
            guard write(fd, page, page.count) == page.count else { break }
        }
        return filler
    }

    /// The mount(8) call failed.
    public struct MountRefused: Error {}

    /// Whether this process may mount: tried once, with a 1 MiB tmpfs.
    public static let available: Bool = {
        let probe = NSTemporaryDirectory() + "obscura-mount-probe-\(getpid())"
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else {
            return false
        }
        defer { rmdir(probe) }
        guard mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]) else { return false }
        _ = run("/bin/umount", [probe])
        return true
    }()

    /// The reason printed when mounting is not permitted.
    public static let unavailableReason =
        "mounting a scratch file system needs root (or CAP_SYS_ADMIN); this process may not mount (uid \(getuid()))"

    private static func mount(_ arguments: [String]) -> Bool { run("/bin/mount", arguments) }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
