import Foundation

/// Where backups go: a restic repository string and restic's extended options for it
/// (docs/BACKUP.md, "Repositories").
///
/// Any location restic takes is accepted: a local path, `sftp:host:/path`, `rest:URL`,
/// `rclone:remote:path`, `s3:...`, `b2:...`. Credentials belong in the tool's own
/// configuration (ssh's, rclone's) or restic's environment variables, not here: the
/// repository string is shown in messages and kept in a plain configuration file.
public struct BackupRepository: Codable, Equatable, Sendable {
    /// The repository as restic takes it with `-r`.
    public let location: String
    /// restic's `-o key=value` options for it, in order (`sftp.command=...`).
    public let options: [String]

    /// A repository at `location`, a local path made absolute against `workingDirectory`.
    ///
    /// - Throws: ``BackupError/invalidRepository(_:)`` for an empty string, a control
    ///   character, or an option that is not `key=value`.
    public init(_ location: String, options: [String] = [], workingDirectory: String = FileManager.default.currentDirectoryPath) throws {
        guard !location.isEmpty else { throw BackupError.invalidRepository("the repository is empty") }
        for text in [location] + options where text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw BackupError.invalidRepository("it holds a control character")
        }
        for option in options where !option.contains("=") || option.hasPrefix("=") {
            throw BackupError.invalidRepository("option \(option) is not key=value")
        }
        self.location = Self.isLocalPath(location) && !location.hasPrefix("/")
            ? (workingDirectory as NSString).appendingPathComponent(location)
            : location
        self.options = options
    }

    /// Whether restic reads `location` as a local path: no known backend prefix.
    static func isLocalPath(_ location: String) -> Bool {
        let backends = ["local:", "sftp:", "rest:", "rclone:", "s3:", "b2:", "azure:", "gs:", "swift:"]
        return !backends.contains { location.hasPrefix($0) }
    }

    /// The location for messages: a password in a URL's user part (up to the last `@`)
    /// is replaced by `***`.
    public var shown: String { Self.masked(location) }

    /// `location` with a password in its URL's user part replaced by `***`.
    static func masked(_ location: String) -> String {
        guard let scheme = location.range(of: "://"), let at = location[scheme.upperBound...].lastIndex(of: "@"),
              let colon = location[scheme.upperBound..<at].firstIndex(of: ":")
        else { return location }
        return String(location[..<location.index(after: colon)]) + "***" + String(location[at...])
    }

    /// The location without its backend prefix (`rest:`, `s3:`, ...), as restic writes it
    /// in some messages.
    var withoutBackend: String? {
        guard !Self.isLocalPath(location), let colon = location.firstIndex(of: ":") else { return nil }
        return String(location[location.index(after: colon)...])
    }

    /// restic's arguments naming this repository: `-r LOCATION` and each `-o OPTION`.
    var arguments: [String] {
        ["-r", location] + options.flatMap { ["-o", $0] }
    }
}
