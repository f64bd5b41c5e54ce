// Linux only: Package.swift links CObscuraSecret (and libsecret) on Linux alone; Apple
// systems use KeychainKeyring.
#if os(Linux)
import CObscuraSecret
import Foundation
import ObscuraCrypto
import ObscuraStore

/// The Secret Service keyring (gnome-keyring, KeePassXC, KWallet's bridge) through
/// libsecret, on the session bus of `DBUS_SESSION_BUS_ADDRESS` (docs/FORMAT.md §4.4).
///
/// Items live in the default collection under schema `org.obscura.OuterKey` or
/// `org.obscura.DecoySecret`, with string attributes `version` (`4`), `confirmed`
/// (`0`/`1`), `last-used` (decimal seconds since 1970) and `id`; the secret is the 32
/// raw bytes, content type `application/octet-stream`. Every call opens its own
/// connection, is bounded by ``timeoutMilliseconds``, and never asks the service to
/// unlock anything.
public struct SecretServiceKeyring: Keyring {
    /// The longest a call waits for the Secret Service, in milliseconds.
    public let timeoutMilliseconds: UInt32

    /// A keyring whose calls give up after `timeoutMilliseconds`. A reply normally takes
    /// milliseconds; the bound is for a daemon that hangs or is slow to start.
    public init(timeoutMilliseconds: UInt32 = 5000) {
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The attributes every item carries, in the order the shim's arrays use.
    static let attributes = ["version", "confirmed", "last-used", "id"]
    /// The `version` attribute of the items this code writes and reads.
    static let version = "4"

    /// Tests only: runs `hook` in every search between finding the items and loading
    /// their secrets (nil: nothing), so that a test can remove an item in that window.
    package static func setAfterSearchHook(_ hook: (@convention(c) () -> Void)?) {
        obscura_secret_set_after_search_hook(hook)
    }

    /// The unlocked items of the kind's schema with `version` 4 and a 32-byte secret,
    /// most recently used first, at most 256.
    public func candidates(_ kind: KeyKind) throws -> [KeyringItem] {
        let collector = Collector()
        try call(kind, match: [Self.version, nil, nil, nil]) { schema, match, error in
            obscura_secret_search(schema, match, { context, secret, length, values in
                Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue().add(secret, length, values)
            }, Unmanaged.passUnretained(collector).toOpaque(), timeoutMilliseconds, error, Self.errorCapacity)
        }
        return KeyringItem.ranked(collector.items)
    }

    /// Adds an item for `key` to the default collection under a fresh id; a locked
    /// collection is reported, never unlocked.
    @discardableResult
    public func store(_ key: SecureBytes, kind: KeyKind, confirmed: Bool) throws -> KeyringItem.ID {
        precondition(key.count == KeyKind.byteCount, "a key is 32 bytes")
        let id = KeyringItem.ID.random()
        let values = [Self.version, confirmed ? "1" : "0", String(KeyringItem.now()), id.rawValue]
        try withCStrings(values) { values in
            try call(kind, match: []) { schema, _, error in
                key.withUnsafeBytes { secret in
                    obscura_secret_store(schema, values, kind.keyringLabel, secret.baseAddress, secret.count,
                                         timeoutMilliseconds, error, Self.errorCapacity)
                }
            }
        }
        return id
    }

    /// Deletes the item whose `id` attribute is `id`.
    public func delete(_ id: KeyringItem.ID, kind: KeyKind) throws {
        var deleted = 0
        try call(kind, match: [Self.version, nil, nil, id.rawValue]) { schema, match, error in
            obscura_secret_delete(schema, match, &deleted, timeoutMilliseconds, error, Self.errorCapacity)
        }
        guard deleted > 0 else { throw KeyError.keyringItemNotFound }
    }

    /// Sets the item's `confirmed` attribute to `1`.
    public func markConfirmed(_ id: KeyringItem.ID, kind: KeyKind) throws {
        try update(id, kind: kind, [nil, "1", nil, nil])
    }

    /// Sets the item's `last-used` attribute to `time`.
    public func touch(_ id: KeyringItem.ID, kind: KeyKind, at time: UInt64) throws {
        try update(id, kind: kind, [nil, nil, String(time), nil])
    }

    func update(_ id: KeyringItem.ID, kind: KeyKind, _ changes: [String?]) throws {
        var changed = 0
        try withCStrings(changes) { changes in
            try call(kind, match: [Self.version, nil, nil, id.rawValue]) { schema, match, error in
                obscura_secret_update(schema, match, changes, &changed, timeoutMilliseconds, error, Self.errorCapacity)
            }
        }
        guard changed > 0 else { throw KeyError.keyringItemNotFound }
    }

    /// Room for the shim's error messages.
    package static let errorCapacity = 512

    /// Runs one shim call with `kind`'s schema and the C form of `match`, and turns its
    /// status into an error.
    private func call(
        _ kind: KeyKind, match: [String?],
        _ body: (UnsafePointer<obscura_secret_schema>, UnsafePointer<UnsafePointer<CChar>?>, UnsafeMutablePointer<CChar>) -> Int32
    ) throws {
        var message = [CChar](repeating: 0, count: Self.errorCapacity)
        let status = withCStrings(Self.attributes) { names in
            withCStrings(match) { match in
                kind.schemaName.withCString { name in
                    var schema = obscura_secret_schema(name: name, attributes: names, count: Self.attributes.count)
                    return body(&schema, match, &message)
                }
            }
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch obscura_secret_status(rawValue: UInt32(status)) {
        case OBSCURA_SECRET_OK: return
        case OBSCURA_SECRET_NO_SERVICE: throw KeyError.unavailable(kind, .noKeyring(text))
        case OBSCURA_SECRET_LOCKED: throw KeyError.unavailable(kind, .locked)
        case OBSCURA_SECRET_TIMED_OUT: throw KeyError.unavailable(kind, .timedOut)
        default: throw KeyError.keyringFailed(text)
        }
    }
}

extension KeyKind {
    /// The libsecret schema name of this kind's items.
    var schemaName: String {
        switch self {
        case .outer: return "org.obscura.OuterKey"
        case .decoy: return "org.obscura.DecoySecret"
        }
    }
}

/// Gathers the items a search visits, copying each secret out of libsecret's memory
/// into a ``SecureBytes`` during the visit.
private final class Collector {
    var items: [KeyringItem] = []

    func add(_ secret: UnsafePointer<UInt8>?, _ length: Int, _ values: UnsafePointer<UnsafePointer<CChar>?>?) {
        // An item of another length is not a key this code wrote: it is passed over
        // rather than failing every other candidate.
        guard let secret, let values, length == KeyKind.byteCount,
              let idText = values[3].map({ String(cString: $0) }), idText.count == 32
        else { return }
        let confirmed = values[1].map { String(cString: $0) } == "1"
        let lastUsed = values[2].flatMap { UInt64(String(cString: $0)) } ?? 0
        items.append(KeyringItem(
            id: KeyringItem.ID(rawValue: idText), key: SecureBytes(copying: UnsafeRawBufferPointer(start: secret, count: length)),
            confirmed: confirmed, lastUsed: lastUsed))
        // Bounded: a keyring of thousands of items costs 256 locked pages, not thousands.
        if items.count >= 2 * KeyringItem.candidatesMax { items = KeyringItem.ranked(items) }
    }
}

/// Calls `body` with a C array of `strings` (NULL where nil), valid during the call.
/// For attribute names and values only: the copies are not wiped. Shared with
/// ``BackupPasswordKeyring``.
package func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R) rethrows -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0)! } }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return try pointers.withUnsafeBufferPointer { try body($0.baseAddress!) }
}
#endif
