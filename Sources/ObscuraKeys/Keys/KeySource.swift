import Foundation
import ObscuraCrypto

/// Where a directory's outer key (or the decoy secret) comes from: the OS keyring, or a
/// key file named on the command line (docs/FORMAT.md §4.3, §4.4).
public enum KeySource: Sendable {
    /// The keyring's items of the kind, most recently used first.
    case keyring(any Keyring)
    /// One key read from a file (``KeyFile``), with a warning to print.
    case file(String)

    /// The key file if one is given, else this platform's keyring.
    public static func choose(keyFile: String?) -> KeySource {
        keyFile.map { .file($0) } ?? .keyring(platformKeyring())
    }

    /// The keyring of this platform: the Secret Service on Linux, the Keychain on Apple
    /// systems.
    public static func platformKeyring() -> any Keyring {
        #if canImport(Security)
        return KeychainKeyring()
        #elseif os(Linux)
        return SecretServiceKeyring()
        #else
        return NoKeyring()
        #endif
    }

    /// The keys of `kind` to try, in order. Throws ``KeyError/outerKeyUnavailable(_:)``
    /// (or the decoy form) when there is none to try, and the key file's errors.
    public func load(_ kind: KeyKind) throws -> KeyCandidates {
        switch self {
        case let .keyring(keyring):
            let items = try keyring.candidates(kind)
            guard !items.isEmpty else { throw KeyError.unavailable(kind, .noKey) }
            return KeyCandidates(keys: items.map { KeyCandidate(key: $0.key, keyringItem: $0.id, confirmed: $0.confirmed) }, warning: nil)
        case let .file(path):
            // A rotation cut short (§8.11) left the new key beside the file: tried first.
            var keys = [KeyCandidate]()
            let pending = KeyFile.rotationPath(for: path)
            // One that cannot be read (empty, damaged) is no key: the file's own is tried.
            if kind == .outer, let key = try? KeyFile.read(pending, kind: kind) {
                keys.append(KeyCandidate(key: key, keyringItem: nil, confirmed: nil))
            }
            keys.append(KeyCandidate(key: try KeyFile.read(path, kind: kind), keyringItem: nil, confirmed: nil))
            return KeyCandidates(keys: keys, warning: KeyFile.warning(path: path, kind: kind))
        }
    }
}

/// The keys a ``KeySource`` offers, and what the CLI must tell the user about them.
public struct KeyCandidates: Sendable {
    /// The keys, in the order to try them.
    public let keys: [KeyCandidate]
    /// A warning to print (the key lives in a plain file), or nil.
    public let warning: String?
}

/// One key to try.
public struct KeyCandidate: Sendable {
    /// The 32-byte key.
    public let key: SecureBytes
    /// The keyring item it came from, to ``Keyring/touch(_:kind:)`` once it opened the
    /// directory; nil for a key file.
    public let keyringItem: KeyringItem.ID?
    /// Whether the user confirmed the key's export (§4.3); nil for a key file, which is
    /// itself the copy.
    public let confirmed: Bool?
}

#if !canImport(Security) && !os(Linux)
/// The keyring of a system with neither the Secret Service nor the Keychain: always
/// unavailable, so that only key files work there.
struct NoKeyring: Keyring {
    func candidates(_ kind: KeyKind) throws -> [KeyringItem] { throw unavailable(kind) }
    func store(_ key: SecureBytes, kind: KeyKind, confirmed: Bool) throws -> KeyringItem.ID { throw unavailable(kind) }
    func delete(_ id: KeyringItem.ID, kind: KeyKind) throws { throw unavailable(kind) }
    func markConfirmed(_ id: KeyringItem.ID, kind: KeyKind) throws { throw unavailable(kind) }
    func touch(_ id: KeyringItem.ID, kind: KeyKind, at time: UInt64) throws { throw unavailable(kind) }

    private func unavailable(_ kind: KeyKind) -> KeyError {
        KeyError.unavailable(kind, .noKeyring("this system has no supported keyring"))
    }
}
#endif
