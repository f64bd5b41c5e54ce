#if canImport(Security)
import Foundation
import LocalAuthentication
import ObscuraCrypto
import Security

/// The Keychain on Apple systems (docs/FORMAT.md §4.4): one generic-password item per
/// key, service `org.obscura.outer-key` or `org.obscura.decoy-secret`, account = the
/// item's id, data = the 32 raw bytes, never synchronised, this device only.
///
/// The attributes the Secret Service keeps as item attributes (`version`, `confirmed`,
/// `last-used`) live here in the item's generic attribute as `version=4;confirmed=0;
/// last-used=N`. No call shows a prompt: a Keychain that would need one (locked, or
/// asking whether this binary may read the item) reports ``KeyError/Unavailability/locked``.
///
/// The data-protection Keychain is preferred, since only it honours "this device only";
/// a binary without the Keychain entitlement it needs (an unsigned command-line build)
/// falls back to the login Keychain, which is not synchronised either.
public struct KeychainKeyring: Keyring {
    /// The Keychain of the user running the process.
    public init() {}

    static let version = "4"

    /// The kind's items of version 4 with 32-byte data, most recently used first, at
    /// most 256; only those are read.
    public func candidates(_ kind: KeyKind) throws -> [KeyringItem] {
        // Attributes first and data one item at a time: the login Keychain refuses
        // kSecReturnData together with kSecMatchLimitAll.
        var result: CFTypeRef?
        let status = perform { dataProtection in
            var query = base(kind, dataProtection: dataProtection)
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            query[kSecReturnAttributes as String] = true
            return SecItemCopyMatching(query as CFDictionary, &result)
        }
        if status == errSecItemNotFound { return [] }
        try check(status, kind)
        let rows = result as? [[String: Any]] ?? []
        let listed = rows.compactMap { row -> (id: KeyringItem.ID, meta: Meta)? in
            guard let account = row[kSecAttrAccount as String] as? String,
                  let meta = Meta(row[kSecAttrGeneric as String] as? Data), meta.version == Self.version
            else { return nil }
            return (KeyringItem.ID(rawValue: account), meta)
        }
        // Ranked before any data is read, so that at most candidatesMax secrets are.
        let chosen = listed.sorted { KeyringItem.precedes(($0.meta.lastUsed, $0.id), ($1.meta.lastUsed, $1.id)) }
            .prefix(KeyringItem.candidatesMax)
        return try chosen.compactMap { entry in
            guard let key = try readKey(entry.id, kind: kind) else { return nil }
            return KeyringItem(id: entry.id, key: key, confirmed: entry.meta.confirmed, lastUsed: entry.meta.lastUsed)
        }
    }

    /// Adds a generic-password item for `key` under a fresh id.
    @discardableResult
    public func store(_ key: SecureBytes, kind: KeyKind, confirmed: Bool) throws -> KeyringItem.ID {
        precondition(key.count == KeyKind.byteCount, "a key is 32 bytes")
        let id = KeyringItem.ID.random()
        let meta = Meta(version: Self.version, confirmed: confirmed, lastUsed: KeyringItem.now())
        let status = key.withUnsafeBytes { bytes in
            // No copy on this side: the Data borrows the SecureBytes for the call.
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count,
                            deallocator: .none)
            return perform { dataProtection in
                var item = base(kind, dataProtection: dataProtection, id: id)
                item[kSecAttrLabel as String] = kind.keyringLabel
                item[kSecAttrGeneric as String] = meta.encoded
                item[kSecValueData as String] = data
                if dataProtection {
                    // Honoured by the data-protection Keychain only; never restored
                    // to another device from a backup.
                    item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
                }
                return SecItemAdd(item as CFDictionary, nil)
            }
        }
        try check(status, kind)
        return id
    }

    /// Deletes the item whose account is `id`.
    public func delete(_ id: KeyringItem.ID, kind: KeyKind) throws {
        let status = perform { SecItemDelete(base(kind, dataProtection: $0, id: id) as CFDictionary) }
        if status == errSecItemNotFound { throw KeyError.keyringItemNotFound }
        try check(status, kind)
    }

    /// Sets `confirmed=1` in the item's generic attribute.
    public func markConfirmed(_ id: KeyringItem.ID, kind: KeyKind) throws {
        try update(id, kind: kind) { $0.confirmed = true }
    }

    /// Sets `last-used` in the item's generic attribute.
    public func touch(_ id: KeyringItem.ID, kind: KeyKind, at time: UInt64) throws {
        try update(id, kind: kind) { $0.lastUsed = time }
    }

    /// Rewrites the item's generic attribute with `change` applied.
    func update(_ id: KeyringItem.ID, kind: KeyKind, _ change: (inout Meta) -> Void) throws {
        let row = try copyItem(id, kind: kind, returning: kSecReturnAttributes) as? [String: Any]
        guard let row, var meta = Meta(row[kSecAttrGeneric as String] as? Data) else { throw KeyError.keyringItemNotFound }
        change(&meta)
        let status = perform {
            SecItemUpdate(base(kind, dataProtection: $0, id: id) as CFDictionary,
                          [kSecAttrGeneric as String: meta.encoded] as CFDictionary)
        }
        if status == errSecItemNotFound { throw KeyError.keyringItemNotFound }
        try check(status, kind)
    }

    /// The item's key, or nil when it is not 32 bytes (not a key this code wrote).
    func readKey(_ id: KeyringItem.ID, kind: KeyKind) throws -> SecureBytes? {
        // The CFData the Keychain returns is immutable and cannot be wiped; it is
        // copied into locked memory at once and released when this scope ends.
        guard let data = try copyItem(id, kind: kind, returning: kSecReturnData) as? Data,
              data.count == KeyKind.byteCount
        else { return nil }
        return data.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// One item's attributes or data (`what` is kSecReturnAttributes or kSecReturnData),
    /// or nil when there is no such item.
    func copyItem(_ id: KeyringItem.ID, kind: KeyKind, returning what: CFString) throws -> CFTypeRef? {
        var result: CFTypeRef?
        let status = perform { dataProtection in
            var query = base(kind, dataProtection: dataProtection, id: id)
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            query[what as String] = true
            return SecItemCopyMatching(query as CFDictionary, &result)
        }
        if status == errSecItemNotFound { return nil }
        try check(status, kind)
        return result
    }

    /// The query every call starts from: the kind's service (and the item, when `id` is
    /// given), generic passwords, not synchronised, and no user interaction.
    func base(_ kind: KeyKind, dataProtection: Bool, id: KeyringItem.ID? = nil) -> [String: Any] {
        let context = LAContext()
        context.interactionNotAllowed = true
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: kind.keychainService,
            kSecAttrSynchronizable as String: false,
            kSecUseDataProtectionKeychain as String: dataProtection,
            kSecUseAuthenticationContext as String: context,
        ]
        if let id { query[kSecAttrAccount as String] = id.rawValue }
        return query
    }

    /// Runs `operation` against the data-protection Keychain, and against the login
    /// Keychain when this binary lacks the entitlement for the first.
    func perform(_ operation: (Bool) -> OSStatus) -> OSStatus {
        let status = operation(true)
        return status == errSecMissingEntitlement ? operation(false) : status
    }

    /// Throws the error `status` stands for.
    func check(_ status: OSStatus, _ kind: KeyKind) throws {
        switch status {
        case errSecSuccess:
            return
        case errSecInteractionNotAllowed, errSecAuthFailed, errSecUserCanceled:
            throw KeyError.unavailable(kind, .locked)
        case errSecNotAvailable, errSecNoSuchKeychain:
            throw KeyError.unavailable(kind, .noKeyring(message(status)))
        default:
            throw KeyError.keyringFailed(message(status))
        }
    }

    func message(_ status: OSStatus) -> String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "Keychain error \(status)"
    }

    /// What an item's generic attribute holds besides the key.
    struct Meta {
        var version: String
        var confirmed: Bool
        var lastUsed: UInt64

        init(version: String, confirmed: Bool, lastUsed: UInt64) {
            self.version = version
            self.confirmed = confirmed
            self.lastUsed = lastUsed
        }

        /// Parses `version=4;confirmed=0;last-used=N`; nil when absent or malformed.
        init?(_ data: Data?) {
            guard let data else { return nil }
            var fields = [String: String]()
            for pair in String(decoding: data, as: UTF8.self).split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            guard let version = fields["version"] else { return nil }
            self.init(version: version, confirmed: fields["confirmed"] == "1",
                      lastUsed: fields["last-used"].flatMap { UInt64($0) } ?? 0)
        }

        var encoded: Data {
            Data("version=\(version);confirmed=\(confirmed ? "1" : "0");last-used=\(lastUsed)".utf8)
        }
    }
}

extension KeyKind {
    /// The Keychain service of this kind's items.
    var keychainService: String {
        switch self {
        case .outer: return "org.obscura.outer-key"
        case .decoy: return "org.obscura.decoy-secret"
        }
    }
}
#endif
