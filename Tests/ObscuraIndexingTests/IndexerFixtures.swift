import Foundation
import ObscuraTestSupport
@testable import ObscuraIndexing

/// What the indexer's tests share: the built `obscura-indexer`, and pictures of known
/// text rendered at test time by libvips (`vips text`, DejaVu from fonts-dejavu-core).
enum IndexerFixtures {
    /// The indexer built beside the test bundle (`swift build` builds every executable).
    static var executable: String {
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (program as NSString).deletingLastPathComponent + "/obscura-indexer"
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
