import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// What an interrupted export left at the name it was asked to write.
public enum ExportState: Codable, Equatable, Sendable {
    /// Nothing at that name.
    case absent
    /// A whole export that imports, with this many items.
    case complete(items: Int)
    /// Something that is not a whole export: an interrupted write must never leave one.
    case broken(String)
}

extension VaultAudit {
    /// The state of the export at `path`, checked by importing it into a scratch vault
    /// directory (which reads and authenticates every chunk), and the number of
    /// temporaries (`NAME.partial-*`) beside it.
    public static func export(at path: String, password: SecureBytes) throws -> (state: ExportState, partials: Int) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let partials = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(name + ".partial-") }.count
        guard FileManager.default.fileExists(atPath: path) else { return (.absent, partials) }
        // In memory where possible: the scratch import fsyncs every file it writes.
        let temporary = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        let scratch = temporary + "obscura-audit-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            let directory = try VaultDirectory(
                path: scratch + "/vault", deviceSecrets: DeviceSecretStore(path: scratch + "/secret"),
                outerKey: SecureBytes(randomCount: 32), create: true)
            try directory.initialize(iterations: 1)
            return (.complete(items: try directory.importVault(from: path, password: password)), partials)
        } catch {
            return (.broken("\(error)"), partials)
        }
    }
}
