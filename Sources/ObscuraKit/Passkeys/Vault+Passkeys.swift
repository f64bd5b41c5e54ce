import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKeys
import ObscuraStore

/// A passkey of a vault as its owner sees it in a list: never its keys or credential id.
public struct PasskeyInfo: Sendable, Equatable {
    /// The owner's label.
    public let name: String
    /// The random display tag the authenticator shows beside "Obscura ·".
    public let tag: String
    /// When it was enrolled, Unix milliseconds.
    public let createdAt: UInt64
    /// Whether the authenticator said at enrolment that the passkey is synced to other
    /// devices (flag BS of the verified enrolment): shown, never relied on.
    public let synced: Bool
    /// Whether it was enrolled after the vault's last password change.
    public let enrolledAfterPasswordChange: Bool
}

/// Enrolling, listing and removing a vault's passkeys (docs/FORMAT.md §9.7, §9.8). Each
/// change is a credential commit, the same commit a password change makes: the password
/// wraps the MEK again under a new salt, all four `passkey` rows are rewritten, block 0's
/// fields follow the rows, and a whole commit overwrites the free space after it.
extension Vault {
    /// The vault's passkeys, in field order.
    public func passkeys() throws -> [PasskeyInfo] {
        try operation {
            let changed = try catalog.passwordChangedAt()
            return try VaultDirectory.passkeyRecords(catalog.passkeyRows()).compactMap { record in
                record.map {
                    PasskeyInfo(name: $0.name, tag: $0.tag, createdAt: $0.createdAt, synced: $0.credential.backedUp,
                                enrolledAfterPasswordChange: $0.createdAt > changed)
                }
            }
        }
    }

    /// Enrols the passkey whose PRF output at this directory's input is `prf` and whose
    /// enrolment the caller has verified (docs/FORMAT.md §9.9), under `name`, in the
    /// lowest free field. `password` must be this vault's. `tag` is the display tag the
    /// page gave the authenticator at creation (`Obscura · TAG`); a new one without it.
    ///
    /// - Throws: ``VaultError/wrongPassword``; ``VaultError/invalidPasskeyName``,
    ///   ``VaultError/passkeyNameTaken(_:)`` or ``VaultError/passkeyLimit`` before any
    ///   sweep; ``VaultError/passkeyOpensAVault`` when `prf` already opens a field of any
    ///   slot here (one secret opens at most one slot, §3.5).
    @discardableResult
    public func enrolPasskey(
        name: String, password: SecureBytes, prf: SecureBytes, credential: PasskeyCredential,
        tag: String? = nil, now: Date = Date()
    ) throws -> PasskeyInfo {
        precondition(prf.count == 32, "a PRF output is 32 bytes")
        precondition(tag.map(PasskeyRecord.isTag) ?? true, "a display tag is 3 base32 symbols")
        return try operation {
            try directory.credentialLock.withLock {
                let (name, current, field) = try enrolmentPlace(name: name, password: password)
                var records = current
                // The same credential twice would be two rows with two PRF outputs where an
                // authenticator gives a different one without user verification (review PR11).
                guard !current.contains(where: { $0?.credential.id == credential.id }),
                      try directory.sweepPasskey(prf: prf) == nil else { throw VaultError.passkeyOpensAVault }
                guard let slotID = SlotID(fileName: slotName)?.bytes else { throw VaultError.corrupt("a slot name outside the container") }
                let record = PasskeyRecord(
                    name: name, tag: tag ?? PasskeyRecord.newTag(using: directory.random),
                    createdAt: UInt64(max(0, now.timeIntervalSince1970 * 1000)), credential: credential,
                    wrapKey: PasskeyFields.wrapKey(prf: prf, directoryID: try directory.store.directoryID(), slotID: slotID))
                records[field] = record
                try commitCredentials(password: password, kdf: kdf, records: records, passwordChangedAt: nil)
                directory.logger.debug("enrolled a passkey")
                return PasskeyInfo(name: name, tag: record.tag, createdAt: record.createdAt, synced: credential.backedUp,
                                   enrolledAfterPasswordChange: true)
            }
        }
    }

    /// Checks what an enrolment checks before its ceremony's answer matters: the password,
    /// the name and the room left, so that the page asks for them before the authenticator's
    /// prompts rather than after (review UX4). Writes nothing.
    ///
    /// - Throws: as ``enrolPasskey(name:password:prf:credential:tag:now:)`` does before its sweep.
    public func checkEnrolment(name: String, password: SecureBytes) throws {
        try operation { _ = try enrolmentPlace(name: name, password: password) }
    }

    /// The checked name, the records, and the field an enrolment of `name` takes.
    private func enrolmentPlace(name: String, password: SecureBytes) throws -> (String, [PasskeyRecord?], Int) {
        guard checkPasswordInOperation(password) else { throw VaultError.wrongPassword }
        guard let name = PasskeyRecord.validName(name) else { throw VaultError.invalidPasskeyName }
        let records = try VaultDirectory.passkeyRecords(catalog.passkeyRows())
        guard !records.contains(where: { $0?.name == name }) else { throw VaultError.passkeyNameTaken(name) }
        guard let field = records.firstIndex(where: { $0 == nil }) else { throw VaultError.passkeyLimit }
        return (name, records, field)
    }

    /// Removes the passkey named `name` (white space trimmed, as an enrolment stores it, and
    /// compared as names are: canonically equivalent texts are one name); `password` must
    /// be this vault's. Its field holds
    /// random bytes from this commit on, and the whole commit after it overwrites the
    /// block 0 that sealed the MEK for it. Returns its credential id, which the page
    /// hands to the authenticator as unknown (docs/PASSKEY.md §P4.3).
    @discardableResult
    public func removePasskey(named name: String, password: SecureBytes) throws -> [UInt8] {
        try operation {
            try directory.credentialLock.withLock {
                guard checkPasswordInOperation(password) else { throw VaultError.wrongPassword }
                var records = try VaultDirectory.passkeyRecords(catalog.passkeyRows())
                let wanted = name.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let field = records.firstIndex(where: { $0?.name == wanted }) else { throw VaultError.noSuchPasskey(wanted) }
                let id = records[field]?.credential.id ?? []
                records[field] = nil
                try commitCredentials(password: password, kdf: kdf, records: records, passwordChangedAt: nil)
                directory.logger.debug("removed a passkey")
                return id
            }
        }
    }

    /// The credential commit (docs/FORMAT.md §9.7): the MEK wrapped under `password` with a
    /// new salt, the export header of the same derivation, `records` encoded with fresh
    /// padding (free rows drawn anew), block 0's fields sealed for them from this commit
    /// on, and then a whole commit. Runs inside an operation, under the credential lock.
    func commitCredentials(password: SecureBytes, kdf: KDFParameters, records: [PasskeyRecord?], passwordChangedAt: Date?) throws {
        let random = directory.random
        let headers = try SlotCodec.wrap(
            key: key, password: password, kdf: kdf, versions: [SlotFormat.pagedVersion, SlotFormat.version], using: random)
        let rows = records.map { $0?.encoded(using: random) ?? PasskeyRecord.free(using: random) }
        defer { rows.forEach { $0.zeroize() } }
        let sealer = try directory.passkeyFieldProvider(slotName: slotName, mek: key, wrapKeys: records.map { $0?.wrapKey })
        do {
            try catalog.commitCredentials(
                prefix: headers[0].encoded(), exportHeader: headers[1], rows: rows,
                passwordChangedAt: passwordChangedAt.map { UInt64(max(0, $0.timeIntervalSince1970 * 1000)) },
                headerFields: sealer)
        } catch {
            resynchronize()
            throw error
        }
        // Under the write lock, as resynchronize() reads and sets it.
        directory.store.serialized { header = headers[0] }
        // The old block 0 (the MEK under the old salt, a removed passkey's field) stays in
        // the free half until a commit draws its position (§8.12): a whole cover commit
        // overwrites the free space now, as a destroy's does.
        do {
            try directory.store.cover()
        } catch {
            // The change stands; the caller says what remains (review PR6).
            directory.logger.warning("credentials changed; the free space still holds the old header until a later whole commit")
        }
    }

    /// Whether the directory's free space may still hold this vault's previous block 0
    /// (the MEK under the old salt, or a removed passkey's field): the whole commit after
    /// the last credential change failed twice, the second time after the container was
    /// recovered (a full or failing disk). The next credential change, or a destroy, makes
    /// one; nothing remembers the debt across a restart, so the owner must be told.
    public var credentialCoverOwed: Bool { directory.store.coverOwed }
}
