import Foundation
import ObscuraCrypto

/// A served directory's outer key, where it is kept, and whether a copy of it is
/// confirmed (docs/FORMAT.md §4.3): what the gallery needs to show the key once, take a
/// group of it back as `init` does, and say in Settings how the key is kept.
public final class OuterKeyCustody: @unchecked Sendable {
    // @unchecked: `confirmedNow` is guarded by `lock`; everything else is immutable.

    /// Where the key lives.
    public enum Place: Sendable, Equatable {
        /// An item of the platform keyring.
        case keyring
        /// A key file at this path: itself the copy, so never "unconfirmed".
        case keyFile(String)
    }

    /// Where the key lives.
    public let place: Place
    private let key: SecureBytes
    private let keyring: (any Keyring)?
    private let item: KeyringItem.ID?
    private let lock = NSLock()
    private var confirmedNow: Bool

    /// A key kept in `keyring` as `item`, its copy confirmed or not.
    public init(key: SecureBytes, keyring: any Keyring, item: KeyringItem.ID, confirmed: Bool) {
        self.key = key
        self.keyring = keyring
        self.item = item
        place = .keyring
        confirmedNow = confirmed
    }

    /// A key read from (or made into) the key file at `path`.
    public init(key: SecureBytes, keyFile path: String) {
        self.key = key
        keyring = nil
        item = nil
        place = .keyFile(path)
        confirmedNow = true
    }

    /// Whether a copy is confirmed: always for a key file, which is itself the copy.
    public var confirmed: Bool { lock.withLock { confirmedNow } }

    /// The key's text (§4.3) and its 24 words, each in a zeroing buffer, for `body`.
    public func withExport<T>(_ body: (_ text: SecureBytes, _ words: SecureBytes) throws -> T) rethrows -> T {
        try body(KeyText.encode(key, kind: .outer), KeyWords.encode(key))
    }

    /// Whether `typed` answers `check` for this key; a right answer marks the keyring
    /// item confirmed, as `obscura keys verify outer` does.
    ///
    /// - Throws: the keyring's error when the item cannot be marked; the answer then
    ///   counts for nothing, so that the gallery never says "confirmed" while `status`
    ///   would still warn.
    public func answer(_ typed: SecureBytes, to check: TypeBackCheck) throws -> Bool {
        guard check.matches(typed, key: key, kind: .outer) else { return false }
        if let keyring, let item, !confirmed {
            try keyring.markConfirmed(item, kind: .outer)
            lock.withLock { confirmedNow = true }
        }
        return true
    }
}
