import Foundation

/// Per-vault settings, kept in the catalog's `setting` table (docs/FORMAT.md §3.3), so
/// they are sealed with the vault and travel with its exports.
extension Vault {
    /// Minutes of inactivity after which the gallery locks the vault; 0 locks it as soon
    /// as the gallery is hidden.
    public static let autoLockChoices = [0, 1, 5, 15]
    /// The auto-lock delay a new vault starts with.
    public static let defaultAutoLockMinutes = 5

    /// The auto-lock delay, in minutes (one of ``autoLockChoices``).
    public func autoLockMinutes() throws -> Int {
        let stored = try setting("autoLockMinutes").flatMap { Int($0) }
        return stored.flatMap { Self.autoLockChoices.contains($0) ? $0 : nil } ?? Self.defaultAutoLockMinutes
    }

    /// Sets the auto-lock delay and commits the catalog.
    ///
    /// - Throws: ``VaultError/invalidSetting(_:)`` for a value outside ``autoLockChoices``.
    public func setAutoLockMinutes(_ minutes: Int) throws {
        guard Self.autoLockChoices.contains(minutes) else { throw VaultError.invalidSetting("autoLockMinutes") }
        try setSetting("autoLockMinutes", String(minutes))
    }

    /// The slot file this vault lives in. It tells two unlocks of one vault apart from
    /// two vaults; it is never shown to anyone, since it would link a slot to a password.
    public var slotIdentifier: String { slotName }

    func setting(_ key: String) throws -> String? {
        return try operation {
            return try catalog.setting(key)
        }
    }

    func setSetting(_ key: String, _ value: String) throws {
        try operation {
            try catalog.setSetting(key, to: value)
        }
    }
}
