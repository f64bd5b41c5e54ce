import Foundation
import ObscuraTestSupport
@testable import ObscuraIndexing

/// What the indexer's tests share: the built `obscura-indexer`, and pictures of known
/// text rendered at test time by libvips (`vips text`, DejaVu from fonts-dejavu-core).
enum IndexerFixtures {
    /// The indexer built beside the test bundle (`swift build` builds every executable).
    static var built: String {
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (program as NSString).deletingLastPathComponent + "/obscura-indexer"
    }

    /// A copy of the built indexer in a private folder under the temporary folder: the
    /// parent refuses an indexer below a folder others may write (IndexerExecutable), and
    /// where a checkout sits is the CI machine's business, not these tests'.
    static let executable: String = {
        let folder = NSTemporaryDirectory() + "obscura-indexer-bin-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        let copy = folder + "/obscura-indexer"
        try? FileManager.default.copyItem(atPath: built, toPath: copy)
        chmod(copy, 0o755)
        return copy
    }()

    /// Whether every folder above `path` is one the executable check accepts: owned by
    /// this user or root, and writable by others only when sticky.
    static func foldersAreSafe(above path: String) -> Bool {
        var folder = ((path as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
        while true {
            var status = stat()
            guard lstat(folder, &status) == 0 else { return false }
            let owner = status.st_uid == getuid() || status.st_uid == 0
            let writable = status.st_mode & (S_IWGRP | S_IWOTH) != 0
            if !owner || (writable && status.st_mode & S_ISVTX == 0) { return false }
            if folder == "/" { return true }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// A fresh folder, removed by the caller.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "obscura-indexer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `text` dark on white at 20 points with a margin, as a `format` file's bytes.
    static func page(_ text: String, format: String = "png", in directory: String) throws -> [UInt8] {
        let path = try TextPages.render(text, name: UUID().uuidString, in: directory, format: format)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Whether `pid` is gone: no such process, or a zombie nobody has reaped yet (a worker
    /// whose parent died is adopted, and reaping it is its adopter's business).
    static func isGone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "pid (comm) S …": the state follows the last parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).prefix(1)
        return state == "Z" || state == "X"
    }
}
