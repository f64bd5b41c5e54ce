import Foundation
import ObscuraCrypto

/// The OS keyring that holds outer keys and decoy secrets (docs/FORMAT.md §4.4): the
/// Secret Service on Linux (``SecretServiceKeyring``), the Keychain on Apple systems.
///
/// An item holds one key and no path: the keyring does not say where directories live,
/// and a directory holds nothing that names its item. The opener finds its outer key by
/// trying ``candidates(_:)`` in turn. No method prompts the user; a locked keyring
/// throws ``KeyError/Unavailability/locked`` at once.
public protocol Keyring: Sendable {
    /// The keys of `kind`, most recently used first, at most
    /// ``KeyringItem/candidatesMax``. Empty when the keyring holds none.
    func candidates(_ kind: KeyKind) throws -> [KeyringItem]

    /// Stores `key` as a new item of `kind`, used now, and returns its id.
    @discardableResult
    func store(_ key: SecureBytes, kind: KeyKind, confirmed: Bool) throws -> KeyringItem.ID

    /// Deletes the item. Throws ``KeyError/keyringItemNotFound`` when there is none.
    func delete(_ id: KeyringItem.ID, kind: KeyKind) throws

    /// Records that the user typed the item's export back (``TypeBackCheck``).
    func markConfirmed(_ id: KeyringItem.ID, kind: KeyKind) throws

    /// Sets the item's last use to `time` (seconds since 1970), so that it is tried
    /// first next time.
    func touch(_ id: KeyringItem.ID, kind: KeyKind, at time: UInt64) throws
}

extension Keyring {
    /// Sets the item's last use to now.
    public func touch(_ id: KeyringItem.ID, kind: KeyKind) throws {
        try touch(id, kind: kind, at: KeyringItem.now())
    }
}

/// One key in the keyring, with what the keyring keeps beside it.
public struct KeyringItem: Sendable {
    /// The most candidates a listing returns (docs/FORMAT.md §4.4): an opener tries each,
    /// and one try costs microseconds, but a keyring that grew without bound must not
    /// turn opening into minutes.
    public static let candidatesMax = 256

    /// The name of an item: 32 random lower-case hex digits, meaningless outside the
    /// keyring.
    public struct ID: Hashable, Sendable, CustomStringConvertible {
        /// The 32 hex digits.
        public let rawValue: String

        /// An id with these digits.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A fresh random id.
        public static func random(using random: RandomSource = SystemRandom()) -> ID {
            ID(rawValue: random.bytes(16).map { String(format: "%02x", $0) }.joined())
        }

        /// The 32 hex digits.
        public var description: String { rawValue }
    }

    /// The item's id.
    public let id: ID
    /// The 32-byte key.
    public let key: SecureBytes
    /// Whether the user confirmed the key's export by typing it back.
    public let confirmed: Bool
    /// The last time the key opened something (or was stored), in seconds since 1970.
    public let lastUsed: UInt64

    /// An item as a keyring lists it.
    public init(id: ID, key: SecureBytes, confirmed: Bool, lastUsed: UInt64) {
        self.id = id
        self.key = key
        self.confirmed = confirmed
        self.lastUsed = lastUsed
    }

    /// `items` most recently used first (ties by id, so the order is stable), cut to
    /// ``candidatesMax``.
    static func ranked(_ items: [KeyringItem]) -> [KeyringItem] {
        Array(items.sorted { precedes(($0.lastUsed, $0.id), ($1.lastUsed, $1.id)) }.prefix(candidatesMax))
    }

    /// The candidate order: later last use first, then ids in ascending order.
    static func precedes(_ a: (lastUsed: UInt64, id: ID), _ b: (lastUsed: UInt64, id: ID)) -> Bool {
        a.lastUsed != b.lastUsed ? a.lastUsed > b.lastUsed : a.id.rawValue < b.id.rawValue
    }

    /// Seconds since 1970, now.
    public static func now() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970))
    }
}

extension KeyKind {
    /// The label of this kind's keyring items, as a keyring manager shows them.
    var keyringLabel: String {
        switch self {
        case .outer: return "Obscura outer key"
        case .decoy: return "Obscura decoy secret"
        }
    }
}
