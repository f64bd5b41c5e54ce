import Foundation
import ObscuraCrypto
import ObscuraStore

/// Where a directory's decoy secret D lives (docs/FORMAT.md §4.1, §4.3, §4.4): the OS
/// keyring, a key file named on the command line, or the version 3 device-secret file.
///
/// Only `init`, `create`, `destroy` and importing an export read D; unlocking never
/// does, so D may live off the machine between those.
public protocol DecoySecretSource: Sendable {
    /// Where the secret lives, for messages: a path, or the keyring's name.
    var location: String { get }

    /// The secret. Throws when it cannot be had; never creates one.
    func load() throws -> SecureBytes

    /// The secret, or nil when none is kept here. Unlike ``load()``, an absent secret is
    /// not an error; one that is there but cannot be read (a locked keyring, a key file
    /// with loose modes) still is.
    func loadIfPresent() throws -> SecureBytes?

    /// The secret, after creating a random one here when there is none.
    func loadOrCreate(using random: RandomSource) throws -> SecureBytes

    /// Makes `secret` the one kept here, replacing any other (an import).
    func save(_ secret: SecureBytes) throws
}

extension DeviceSecretStore: DecoySecretSource {
    /// The file's path.
    public var location: String { path }

    public func loadIfPresent() throws -> SecureBytes? { exists ? try load() : nil }

    /// What ``moveToKeyring(_:)`` did.
    public enum Move: Sendable {
        /// The keyring holds the secret now and the file is gone.
        case moved
        /// The keyring already holds another decoy secret: nothing changed.
        case differentInKeyring
    }

    /// Moves the secret into `keyring` (§4.4), unless the keyring holds another: stores
    /// it, reads it back, then overwrites the file with random bytes and removes it.
    public func moveToKeyring(_ keyring: any Keyring, using random: RandomSource = SystemRandom()) throws -> Move {
        let secret = try load()
        let present = try keyring.candidates(.decoy)
        if !present.contains(where: { $0.key == secret }) {
            guard present.isEmpty else { return .differentInKeyring }
            try keyring.store(secret, kind: .decoy, confirmed: false)
            guard try keyring.candidates(.decoy).contains(where: { $0.key == secret }) else {
                throw KeyError.keyringFailed("the decoy secret did not read back after it was stored")
            }
        }
        try FileIO.overwriteInPlace(path, with: random.bytes(Self.size))
        guard unlink(path) == 0 else { throw StorageError.io(path, errno) }
        return .moved
    }
}

/// The decoy secret kept in the OS keyring: its most recently used item (§4.4).
public struct KeyringDecoySecret: DecoySecretSource {
    let keyring: any Keyring

    /// The decoy secret of `keyring`.
    public init(keyring: any Keyring) { self.keyring = keyring }

    public var location: String { "the keyring" }

    /// Throws ``KeyError/decoySecretUnavailable(_:)`` when the keyring is unreachable,
    /// locked, or holds no decoy secret.
    public func load() throws -> SecureBytes { try newest().key }

    public func loadIfPresent() throws -> SecureBytes? { try keyring.candidates(.decoy).first?.key }

    /// The most recently used decoy secret item. One user has one decoy secret; after
    /// an import (``save(_:)``) the newest is the only one.
    public func newest() throws -> KeyringItem {
        guard let item = try keyring.candidates(.decoy).first else { throw KeyError.unavailable(.decoy, .noKey) }
        return item
    }

    public func loadOrCreate(using random: RandomSource) throws -> SecureBytes {
        if let item = try keyring.candidates(.decoy).first { return item.key }
        let secret = SecureBytes(randomCount: KeyKind.byteCount, using: random)
        try keyring.store(secret, kind: .decoy, confirmed: false)
        return secret
    }

    /// Stores `secret` as the newest item, confirmed (it was typed or read from a copy),
    /// then deletes every other decoy secret: one user has one.
    public func save(_ secret: SecureBytes) throws {
        let others = try keyring.candidates(.decoy)
        let id = try keyring.store(secret, kind: .decoy, confirmed: true)
        for item in others where item.id != id { try keyring.delete(item.id, kind: .decoy) }
    }
}

/// The decoy secret kept in a key file (`--decoy-secret-file`, §4.3).
public struct DecoySecretFile: DecoySecretSource {
    /// The file's path.
    public let path: String

    /// The key file at `path`.
    public init(path: String) { self.path = path }

    public var location: String { path }

    public func load() throws -> SecureBytes { try KeyFile.read(path, kind: .decoy) }

    public func loadIfPresent() throws -> SecureBytes? {
        FileManager.default.fileExists(atPath: path) ? try load() : nil
    }

    /// Creates the file (mode 0600, never over an existing one) holding a new secret's
    /// key text when there is no file at `path`.
    public func loadOrCreate(using random: RandomSource) throws -> SecureBytes {
        if let secret = try KeyFile.createIfMissing(path, kind: .decoy, using: random) { return secret }
        return try load()
    }

    /// Replaces the file with one holding `secret`'s key text (mode 0600, through a
    /// synced temporary renamed over it).
    public func save(_ secret: SecureBytes) throws {
        try KeyFile.write(secret, kind: .decoy, to: path)
    }
}
