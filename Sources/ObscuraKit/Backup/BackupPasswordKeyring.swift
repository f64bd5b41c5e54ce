import Foundation
import ObscuraKeys
import ObscuraCrypto
#if os(Linux)
import CObscuraSecret
#elseif canImport(Security)
import Security
#endif

/// Backup passwords in the OS keyring (docs/BACKUP.md, "The backup password"), one item
/// per set-up, named by a random id that the set-up records.
///
/// - Secret Service (Linux): schema `org.obscura.BackupPassword`, attributes `version`
///   (`1`) and `id` (32 lower-case hex digits), label `Obscura backup password`, the
///   secret the password's canonical text. Calls are bounded and never prompt, as the
///   key items' are (``SecretServiceKeyring``).
/// - Keychain (Apple systems): a generic password, service `org.obscura.backup-password`,
///   account the id, never synchronised.
public struct BackupPasswordKeyring: Sendable {
    /// The longest a call waits for the keyring, in milliseconds.
    let timeoutMilliseconds: UInt32

    /// This platform's keyring.
    public static func platform() -> BackupPasswordKeyring { BackupPasswordKeyring(timeoutMilliseconds: 5000) }

    static let label = "Obscura backup password"
    static let schema = "org.obscura.BackupPassword"
    static let service = "org.obscura.backup-password"
    static let attributes = ["version", "id"]
    static let version = "1"

    /// Keeps `password` under a new id and returns the id.
    public func store(_ password: SecureBytes) throws -> String {
        let id = KeyringItem.ID.random().rawValue
        #if os(Linux)
        try withCStrings([Self.version, id]) { values in
            try call { schema, error in
                password.withUnsafeBytes { secret in
                    obscura_secret_store(schema, values, Self.label, secret.baseAddress, secret.count,
                                         timeoutMilliseconds, error, SecretServiceKeyring.errorCapacity)
                }
            }
        }
        #elseif canImport(Security)
        let status = password.withUnsafeBytes { bytes in
            var item = query(id)
            item[kSecAttrLabel as String] = Self.label
            item[kSecValueData as String] = Data(bytes)
            return SecItemAdd(item as CFDictionary, nil)
        }
        try check(status)
        #else
        throw BackupError.passwordUnavailable("this system has no supported keyring; pass --backup-password-file")
        #endif
        return id
    }

    /// The password kept under `id`.
    public func load(id: String) throws -> SecureBytes {
        #if os(Linux)
        let box = Found()
        try withCStrings([Self.version, id]) { match in
            try call { schema, error in
                obscura_secret_search(schema, match, { context, secret, length, _ in
                    guard let secret else { return }
                    Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue().password =
                        SecureBytes(copying: UnsafeRawBufferPointer(start: secret, count: length))
                }, Unmanaged.passUnretained(box).toOpaque(), timeoutMilliseconds, error, SecretServiceKeyring.errorCapacity)
            }
        }
        guard let password = box.password else { throw BackupError.passwordUnavailable("the keyring holds no backup password with this set-up's id") }
        return password
        #elseif canImport(Security)
        var result: CFTypeRef?
        var item = query(id)
        item[kSecMatchLimit as String] = kSecMatchLimitOne
        item[kSecReturnData as String] = true
        let status = SecItemCopyMatching(item as CFDictionary, &result)
        if status == errSecItemNotFound { throw BackupError.passwordUnavailable("the keyring holds no backup password with this set-up's id") }
        try check(status)
        guard let data = result as? Data else { throw BackupError.passwordUnavailable("the keyring returned no data") }
        return data.withUnsafeBytes { SecureBytes(copying: $0) }
        #else
        throw BackupError.passwordUnavailable("this system has no supported keyring; pass --backup-password-file")
        #endif
    }

    /// Deletes the item under `id`, if there is one.
    public func delete(id: String) throws {
        #if os(Linux)
        var deleted = 0
        try withCStrings([Self.version, id]) { match in
            try call { schema, error in
                obscura_secret_delete(schema, match, &deleted, timeoutMilliseconds, error, SecretServiceKeyring.errorCapacity)
            }
        }
        #elseif canImport(Security)
        let status = SecItemDelete(query(id) as CFDictionary)
        if status != errSecItemNotFound { try check(status) }
        #endif
    }

    #if os(Linux)
    /// Runs one shim call with the schema, and turns its status into an error.
    private func call(_ body: (UnsafePointer<obscura_secret_schema>, UnsafeMutablePointer<CChar>) -> Int32) throws {
        var message = [CChar](repeating: 0, count: SecretServiceKeyring.errorCapacity)
        let status = withCStrings(Self.attributes) { names in
            Self.schema.withCString { name in
                var schema = obscura_secret_schema(name: name, attributes: names, count: Self.attributes.count)
                return body(&schema, &message)
            }
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch obscura_secret_status(rawValue: UInt32(status)) {
        case OBSCURA_SECRET_OK: return
        case OBSCURA_SECRET_NO_SERVICE:
            throw BackupError.passwordUnavailable("no keyring (\(text)); pass --backup-password-file on a machine without one")
        case OBSCURA_SECRET_LOCKED: throw BackupError.passwordUnavailable("the keyring is locked; unlock it and try again")
        case OBSCURA_SECRET_TIMED_OUT: throw BackupError.passwordUnavailable("the keyring did not answer in time")
        default: throw BackupError.passwordUnavailable("the keyring refused: \(text)")
        }
    }

    /// The secret a search found, copied out of libsecret's memory during the visit.
    private final class Found {
        var password: SecureBytes?
    }
    #elseif canImport(Security)
    private func query(_ id: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
         kSecAttrAccount as String: id, kSecAttrSynchronizable as String: false]
    }

    private func check(_ status: OSStatus) throws {
        guard status == errSecSuccess else {
            let text = SecCopyErrorMessageString(status, nil) as String? ?? "status \(status)"
            throw BackupError.passwordUnavailable("the Keychain refused: \(text)")
        }
    }
    #endif
}
