import Foundation
import ObscuraCrypto
import ObscuraStore

/// A vault directory's backup set-up (docs/BACKUP.md, "Configuration"): where its
/// backups go, where the backup password is kept, and how long after the last change
/// `obscura serve` backs up.
///
/// It lives outside the vault directory, which holds nothing but slots and the pool
/// (docs/FORMAT.md §4): in ``BackupConfigurationStore``, one JSON file per directory.
public struct BackupConfiguration: Codable, Equatable, Sendable {
    /// The version of this file's layout.
    public static let currentVersion = 1
    /// The default wait after the last change before `obscura serve` backs up: 10 minutes.
    public static let defaultAfterSeconds = 600

    /// Where the backup password is kept.
    public enum PasswordLocation: Codable, Equatable, Sendable {
        /// The OS keyring's item with this id (``BackupPasswordKeyring``).
        case keyring(String)
        /// A file of mode 0600 holding the password's text (a machine without a keyring).
        case file(String)

        private enum CodingKeys: String, CodingKey { case keyring, file }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let id = try container.decodeIfPresent(String.self, forKey: .keyring) {
                self = .keyring(id)
            } else {
                self = .file(try container.decode(String.self, forKey: .file))
            }
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case let .keyring(id): try container.encode(id, forKey: .keyring)
            case let .file(path): try container.encode(path, forKey: .file)
            }
        }

        /// Where it is, for messages.
        public var shown: String {
            switch self {
            case .keyring: return "the keyring"
            case let .file(path): return path
            }
        }
    }

    /// The layout version, ``currentVersion``.
    public var version = Self.currentVersion
    /// The vault directory, as an absolute path with links resolved.
    public var directory: String
    /// Where its backups go.
    public var repository: BackupRepository
    /// Where the backup password is kept.
    public var password: PasswordLocation
    /// Seconds after the last change before `obscura serve` backs up; 0 turns that off.
    public var afterSeconds: Int

    /// A set-up of `directory` (made absolute, links resolved).
    public init(directory: String, repository: BackupRepository, password: PasswordLocation, afterSeconds: Int = Self.defaultAfterSeconds) {
        self.directory = BackupConfigurationStore.canonical(directory)
        self.repository = repository
        self.password = password
        self.afterSeconds = afterSeconds
    }

    private enum CodingKeys: String, CodingKey {
        case version, directory, repository, password
        case afterSeconds = "after_seconds"
    }

    /// Reads the backup password from where it is kept.
    public func loadPassword(keyring: BackupPasswordKeyring = .platform()) throws -> SecureBytes {
        switch password {
        case let .keyring(id): return try keyring.load(id: id)
        case let .file(path): return try BackupPassword.read(path)
        }
    }
}

/// Where backup set-ups and the record of each directory's last backup live:
/// `$XDG_CONFIG_HOME/obscura/backup/` (`~/.config/obscura/backup/`), mode 0700, one
/// `{name}.json` and one `{name}.last.json` per vault directory, where `{name}` is the
/// first 16 bytes of SHA-256 of the directory's canonical path in hex.
public struct BackupConfigurationStore: Sendable {
    /// The folder holding the files.
    public let path: String

    /// The store under `path`.
    public init(path: String) { self.path = path }

    /// The store under `$XDG_CONFIG_HOME/obscura/backup` (or `~/.config/...`).
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> BackupConfigurationStore {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return BackupConfigurationStore(path: config + "/obscura/backup")
    }

    /// `directory` made absolute with links resolved (as far as it exists).
    public static func canonical(_ directory: String) -> String {
        let absolute = directory.hasPrefix("/") ? directory
            : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(directory)
        guard let resolved = realpath(absolute, nil) else { return (absolute as NSString).standardizingPath }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The file name stem for `directory`.
    func stem(for directory: String) -> String {
        let digest = SHA256Digest.hash(Array(Self.canonical(directory).utf8))
        return path + "/" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The set-up of `directory`, or nil when it has none.
    public func load(directory: String) throws -> BackupConfiguration? {
        try read(BackupConfiguration.self, stem(for: directory) + ".json")
    }

    /// Writes the set-up (replacing any), durably, mode 0600.
    public func save(_ configuration: BackupConfiguration) throws {
        try write(configuration, to: stem(for: configuration.directory) + ".json")
    }

    /// Removes the set-up of `directory` and its record.
    public func remove(directory: String) {
        unlink(stem(for: directory) + ".json")
        unlink(stem(for: directory) + ".last.json")
    }

    /// The record of the last backup of `directory`, or nil.
    public func lastBackup(directory: String) -> BackupRecord? {
        (try? read(BackupRecord.self, stem(for: directory) + ".last.json")) ?? nil
    }

    /// Keeps `record` as the last backup of `directory`.
    public func saveLastBackup(_ record: BackupRecord, directory: String) throws {
        try write(record, to: stem(for: directory) + ".last.json")
    }

    private func read<T: Decodable>(_ type: T.Type, _ file: String) throws -> T? {
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        let bytes = try FileIO.read(file, limit: 1 << 20)
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw BackupError.invalidRepository("the backup set-up \(file) cannot be read (\(error)); remove it and run `obscura backup init` again")
        }
    }

    private func write<T: Encodable>(_ value: T, to file: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let bytes = Array(try encoder.encode(value)) + [0x0A]
        try FileIO.replaceDurably(file) { fd in try FileIO.writeAll(fd, bytes, path: file) }
    }
}

/// What the last backup of a directory did, for `backup status` and the gallery.
public struct BackupRecord: Codable, Equatable, Sendable {
    /// When it ended, in seconds since 1970.
    public var finished: Double
    /// Whether it made a complete snapshot.
    public var succeeded: Bool
    /// The snapshot's id, when it made one.
    public var snapshot: String?
    /// Bytes it added to the repository (restic's `data_added`).
    public var addedBytes: Int64?
    /// Seconds it took.
    public var seconds: Double?
    /// Why it failed, when it did.
    public var message: String?

    /// A record.
    public init(finished: Double, succeeded: Bool, snapshot: String? = nil, addedBytes: Int64? = nil, seconds: Double? = nil, message: String? = nil) {
        self.finished = finished
        self.succeeded = succeeded
        self.snapshot = snapshot
        self.addedBytes = addedBytes
        self.seconds = seconds
        self.message = message
    }

    private enum CodingKeys: String, CodingKey {
        case finished, succeeded, snapshot, seconds, message
        case addedBytes = "added_bytes"
    }
}
