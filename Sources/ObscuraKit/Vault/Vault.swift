import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKeys
import ObscuraStore

/// An unlocked vault: its MEK, its catalog, and the slot the catalog commits to.
///
/// ``lock()`` zeroes the MEK and closes the catalog; every later operation throws
/// ``VaultError/locked``.
public final class Vault: @unchecked Sendable {
    // @unchecked: the catalog serialises its own access, `stateLock` guards the
    // session's mutable sets and the header, the directory's write lock
    // (`SlotStore.serialized`) every write of the slot, and `activity` the lock state; the
    // key is only written by `lock()`, once no operation is using it (Vault+Lock.swift).
    /// The directory the vault lives in.
    public let directory: VaultDirectory
    /// The catalog, readable and writable while unlocked.
    public let catalog: Catalog
    /// The name of the vault's slot file (docs/FORMAT.md §8.1).
    package let slotName: String
    /// Written by a password change, and by ``resynchronize()`` after a failed write,
    /// while an export may read it.
    var header: SlotHeader {
        get { stateLock.withLock { storedHeader } }
        set { stateLock.withLock { storedHeader = newValue } }
    }
    /// Guarded by `stateLock`.
    private var storedHeader: SlotHeader
    /// The MEK (docs/FORMAT.md §2), zeroed by ``lock()``; package access for the
    /// version 3 test fixtures, which seal it into version 3 slots.
    package let key: SecureBytes
    /// Whether ``lock()`` has finished.
    public var isLocked: Bool { activity.withLock { locked } }
    /// Set by ``lock()`` once the keys are zeroed; guarded by `activity`.
    var locked = false
    /// Keys of the protected folders unlocked in this session, by folder id.
    var folderKeys: [String: SecureBytes] = [:]
    /// Guards `folderKeys` during parallel imports, and the header.
    let stateLock = NSLock()
    /// Guards `activeOperations` and `isLocking`; `lock()` waits on it.
    let activity = NSCondition()
    /// Public operations in progress, which may be using the keys.
    var activeOperations = 0
    /// Set by `lock()` while it waits for those operations to finish.
    var isLocking = false
    /// Set by ``drain()`` ahead of a change that takes the slot away (a destroy): no
    /// operation may start until ``resume()`` or ``lock()``.
    var draining = false
    /// Set when a failed write leaves the session unable to match its slot: no operation
    /// may start, and a lock is on its way (`lockWhenIdle()`).
    var doomed = false
    /// Viewer previews of this session, cleared at lock.
    package let previews = PreviewCache()
    /// What the last ``runUnlockChores(now:)`` did, for the CLI and the gallery to tell
    /// the owner; set before the vault is handed out.
    public internal(set) var unlockChores = UnlockChores()
    /// Held while an operation reads item rows and writes them back whole (a move, a
    /// delete, an export's snapshot) and while a rendition is recorded: a rendition
    /// recorded in between would be written over and its file left unnamed.
    let rowsGate = OrderedLock(.rows)
    /// Held by ``takeDrops()`` for its whole run: two intakes of one vault at once (the
    /// gallery's unlock and its sweep) would each claim the same drop before either
    /// commits, and take it in twice. A second intake returns at once.
    let intakeGate = NSLock()
    /// Called at each point of a drop's intake where a lock may land (tests lock the
    /// vault there); guarded by `stateLock`.
    var intakeProbe: (@Sendable (DropIntakePoint) -> Void)?

    init(directory: VaultDirectory, slotName: String, header: SlotHeader, key: SecureBytes, catalog: Catalog) {
        self.directory = directory
        self.slotName = slotName
        self.storedHeader = header
        self.key = key
        self.catalog = catalog
        // A paged catalog that cannot be reopened after a failed commit: lock, as a
        // version 3 session does when its slot cannot be read back (resynchronize()).
        catalog.onLost = { [weak self] in self?.lockWhenIdle() }
    }

    deinit { lock() }

    /// The password KDF and cost of this vault's header (docs/FORMAT.md §2).
    public var kdf: KDFParameters { header.kdf }

    /// The KDF a new protected folder of this vault takes unless told otherwise:
    /// Argon2id in an Argon2id vault (whoever chose it keeps it throughout), else PBKDF2
    /// at the folder count (docs/FORMAT.md §2).
    public var folderKDF: KDFParameters { kdf.suite == KDFParameters.argon2idSuite ? .argon2id : .folder }

    /// As ``folderKDF``, for an export.
    public var exportKDF: KDFParameters { kdf.suite == KDFParameters.argon2idSuite ? .argon2id : .export }

    /// The cost word of this vault's header: a PBKDF2 vault's iteration count.
    public var iterations: Int { Int(header.iterations) }

    /// Re-wraps the MEK under `newPassword` with a new salt, in a credential commit
    /// (docs/FORMAT.md §9.7) that also records the time of the change and keeps the
    /// passkeys, or with `removingPasskeys` removes them all; no media is re-encrypted.
    ///
    /// - Throws: ``VaultError/passwordInUse`` when `newPassword` opens another vault here.
    /// The KDF and its cost stay as they are unless `kdf` is given (tests pass small
    /// counts); every slot of a directory shares them (docs/FORMAT.md §2).
    public func changePassword(to newPassword: SecureBytes, kdf: KDFParameters? = nil, removingPasskeys: Bool = false) throws {
        try operation {
            // From the sweep for the new password to its commit, no creation or other password
            // change may run (VaultDirectory.credentialLock).
            try directory.credentialLock.withLock {
                // The sweep runs before the commit under the credential lock only: a catalog
                // commit takes the write lock from inside the catalog's connection, so holding
                // the write lock around a catalog write could deadlock with a reader of this vault.
                try requireUnused(newPassword)
                // A credential commit (docs/FORMAT.md §9.7): the passkeys stay (the MEK they
                // seal is unchanged) unless the owner removes them all in the same commit.
                // Removing them all decodes nothing, so that a record a later check refuses
                // never stands between the owner and the remedy.
                let kept = removingPasskeys
                    ? Array(repeating: nil, count: PasskeyFormat.fieldCount)
                    : try VaultDirectory.passkeyRecords(catalog.passkeyRows())
                try commitCredentials(password: newPassword, kdf: kdf ?? self.kdf, records: kept, passwordChangedAt: Date())
            }
            directory.logger.debug("changed vault password")
        }
    }

    /// Throws ``VaultError/passwordInUse`` when `password` opens a slot other than this
    /// vault's: one sweep of every slot (docs/FORMAT.md §3.5).
    private func requireUnused(_ password: SecureBytes) throws {
        let (names, headers) = try directory.readHeaders()
        let others = UnlockSweep.run(headers: headers, passwords: [password])[0]
        guard others.keys.allSatisfy({ names[$0] == slotName }) else { throw VaultError.passwordInUse }
    }

    /// Whether `password` is this vault's password: one key derivation with the vault's
    /// own salt and rounds, and the MEK unwrapped and compared in constant time.
    public func checkPassword(_ password: SecureBytes) throws -> Bool {
        try operation { checkPasswordInOperation(password) }
    }

    /// ``checkPassword(_:)`` from inside an operation.
    func checkPasswordInOperation(_ password: SecureBytes) -> Bool {
        guard let unwrapped = try? SlotCodec.unwrapKey(header: header, password: password) else { return false }
        defer { unwrapped.zeroize() }
        return unwrapped == key
    }
}
