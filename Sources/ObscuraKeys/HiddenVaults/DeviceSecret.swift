import Foundation
import ObscuraCrypto
import ObscuraStore

/// The 32-byte device secret that keys every decoy slot (docs/FORMAT.md §4.1).
///
/// It is kept outside the vault directory, at `$XDG_CONFIG_HOME/obscura/device-secret`
/// (mode 0600, in a 0700 directory). Anyone with it can tell decoys from real vaults,
/// which is why it never sits beside the slots.
public struct DeviceSecretStore: Sendable {
    /// Size of the secret in bytes.
    public static let size = 32
    /// The HKDF label that turns the secret into the decoy credential.
    static let credentialLabel = "obscura device credential v1"

    /// Where the secret file lives.
    public let path: String

    /// A store at an explicit path (tests, or a second machine's layout).
    public init(path: String) { self.path = path }

    /// The default location: `$XDG_CONFIG_HOME/obscura/device-secret`, or
    /// `~/.config/obscura/device-secret` when XDG_CONFIG_HOME is unset.
    public static func defaultStore(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceSecretStore {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return DeviceSecretStore(path: config + "/obscura/device-secret")
    }

    /// Whether a secret exists.
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Loads the secret. Throws ``KeyError/deviceSecretMissing(_:)`` when absent and
    /// ``KeyError/deviceSecretInvalid(_:)`` when the file is not 32 bytes.
    public func load() throws -> SecureBytes {
        guard exists else { throw KeyError.deviceSecretMissing(path) }
        var bytes = try FileIO.read(path)
        defer { bytes.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
        guard bytes.count == Self.size else { throw KeyError.deviceSecretInvalid(path) }
        return SecureBytes(copying: bytes)
    }

    /// Loads the secret, creating a random one first if there is none.
    public func loadOrCreate(using random: RandomSource = SystemRandom()) throws -> SecureBytes {
        if exists { return try load() }
        let secret = SecureBytes(randomCount: Self.size, using: random)
        try save(secret)
        return secret
    }

    /// Writes `secret` atomically with mode 0600, replacing any previous one.
    public func save(_ secret: SecureBytes) throws {
        precondition(secret.count == Self.size, "device secret must be 32 bytes")
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileIO.replaceDurably(path) { fd in
            try secret.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
        }
    }

    /// The decoy credential: HKDF-SHA256(secret, info "obscura device credential v1"),
    /// 32 bytes, used in place of a password for every decoy slot.
    package static func credential(from secret: SecureBytes) -> SecureBytes {
        HKDFSHA256.derive(from: secret, info: credentialLabel)
    }
}
