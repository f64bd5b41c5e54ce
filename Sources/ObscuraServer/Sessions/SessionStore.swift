import Foundation
import Logging
import ObscuraCrypto
import ObscuraKit

/// Every session of the server and every vault they unlocked, with the rules of
/// docs/SECURITY.md's session lifecycle: one `Vault` per slot however many share it,
/// auto-lock after inactivity, folder keys dropped when the gallery is hidden, and the
/// progressive delay on failed unlocks.
final class SessionStore: @unchecked Sendable {
    // @unchecked: `sessions` and `open` are guarded by `lock`; `unlockLock` serialises
    // unlock attempts so that the delay cannot be raced by parallel requests.
    /// The most sessions kept; the least recently used go first beyond it.
    static let maximumSessions = 1000

    let directory: VaultDirectory
    let throttle = UnlockThrottle()
    /// Seconds in one auto-lock "minute" (60; tests shorten it).
    let minuteSeconds: Double
    /// PBKDF2 rounds for vaults made through the gallery (the production default).
    let iterations: Int
    private let logger = Logger(label: "obscura.server")
    private let lock = NSLock()
    private let unlockLock = NSLock()
    private var sessions: [String: (session: Session, seen: Double)] = [:]
    private var open: [String: OpenVault] = [:]

    /// A vault unlocked by one or more sessions, with its last activity.
    final class OpenVault: @unchecked Sendable {
        // @unchecked: mutable fields are guarded by the store's lock.
        let vault: Vault
        var lastActivity: Double
        var autoLockMinutes: Int

        init(vault: Vault, now: Double) {
            self.vault = vault
            lastActivity = now
            autoLockMinutes = (try? vault.autoLockMinutes()) ?? Vault.defaultAutoLockMinutes
        }
    }

    init(directory: VaultDirectory, minuteSeconds: Double = 60, iterations: Int = PasswordKDF.vaultIterations) {
        self.directory = directory
        self.minuteSeconds = minuteSeconds
        self.iterations = iterations
    }

    private static func now() -> Double { Date().timeIntervalSince1970 }

    // MARK: Sessions

    /// A new session, remembered.
    func newSession() -> Session {
        let session = Session()
        lock.withLock {
            if sessions.count >= Self.maximumSessions,
               let oldest = sessions.min(by: { $0.value.seen < $1.value.seen })?.key {
                sessions.removeValue(forKey: oldest)
            }
            sessions[session.id] = (session, Self.now())
        }
        return session
    }

    /// The session whose cookie is `id`.
    func session(_ id: String?) -> Session? {
        guard let id else { return nil }
        return lock.withLock {
            guard let entry = sessions[id] else { return nil }
            sessions[id]?.seen = Self.now()
            return entry.session
        }
    }

    /// Whether `session` has an unlocked vault, without counting as activity: the page
    /// asks this to notice an auto-lock, and asking must not postpone it.
    func unlockedVault(of session: Session) -> Vault? {
        guard let binding = session.binding else { return nil }
        return lock.withLock {
            open[binding.vault.slotIdentifier] === binding && !binding.vault.isLocked ? binding.vault : nil
        }
    }

    /// The unlocked vault of `session`, marking it active; nil when locked.
    func vault(for session: Session) -> Vault? {
        guard let binding = session.binding else { return nil }
        return lock.withLock {
            guard open[binding.vault.slotIdentifier] === binding, !binding.vault.isLocked else { return nil }
            binding.lastActivity = Self.now()
            return binding.vault
        }
    }

    // MARK: Unlock, create, lock

    /// Unlocks the vault `password` opens for `session`. Blocking (a full sweep).
    ///
    /// - Throws: ``APIError`` 429 during the progressive delay, 401 for a wrong password.
    func unlock(_ session: Session, password: SecureBytes) throws {
        try unlockLock.withLock {
            try checkDelay()
            let vault: Vault
            do {
                vault = try directory.unlock(password: password)
            } catch VaultError.wrongPassword {
                throttle.record(success: false)
                logger.info("failed unlock")
                throw APIError(.unauthorized, "wrong password")
            }
            throttle.record(success: true)
            attach(vault, to: session)
        }
    }

    /// Creates a vault for `password` (a decoy becomes it) and unlocks it for `session`.
    func create(_ session: Session, password: SecureBytes) throws {
        try unlockLock.withLock {
            // Creating answers "in use" for a password that opens a vault: an oracle
            // the delay must cover too.
            try checkDelay()
            let vault: Vault
            do {
                vault = try directory.createVault(password: password, iterations: iterations)
            } catch VaultError.passwordInUse {
                throttle.record(success: false)
                throw APIError(.conflict, VaultError.passwordInUse.description)
            } catch VaultError.noFreeSlot {
                throw APIError(.conflict, "no free slot is left in this vault directory; use the command line's `create --allow-extended-slots`")
            }
            attach(vault, to: session)
        }
    }

    private func checkDelay() throws {
        let wait = throttle.wait()
        guard wait <= 0 else {
            let seconds = Int(wait.rounded(.up))
            throw APIError.tooManyAttempts(seconds: seconds)
        }
    }

    /// Binds `vault` to `session`, sharing an already open `Vault` of the same slot (two
    /// catalogs of one slot in memory would overwrite each other's changes).
    private func attach(_ vault: Vault, to session: Session) {
        let slot = vault.slotIdentifier
        let duplicate: Vault? = lock.withLock {
            if let existing = open[slot], !existing.vault.isLocked {
                existing.lastActivity = Self.now()
                session.binding = existing
                return vault
            }
            let entry = OpenVault(vault: vault, now: Self.now())
            open[slot] = entry
            session.binding = entry
            return nil
        }
        duplicate?.lock()
    }

    /// Locks the vault of `session`: for every session that shares it.
    func lockVault(of session: Session) {
        guard let binding = session.binding else { return }
        session.binding = nil
        lock.withLock {
            if open[binding.vault.slotIdentifier] === binding { open.removeValue(forKey: binding.vault.slotIdentifier) }
        }
        binding.vault.lock()
    }

    /// The gallery was hidden or shown: hiding drops every folder key (and locks at
    /// once when auto-lock is "immediately").
    func visibility(of session: Session, hidden: Bool) {
        guard hidden, let entry = session.binding, !entry.vault.isLocked else { return }
        if lock.withLock({ entry.autoLockMinutes }) == 0 {
            lockVault(of: session)
        } else {
            entry.vault.lockFolders()
        }
    }

    /// Records a new auto-lock delay for the vault of `session`.
    func autoLockChanged(for session: Session, minutes: Int) {
        guard let entry = session.binding else { return }
        lock.withLock { entry.autoLockMinutes = minutes }
    }

    /// Locks every vault idle for longer than its auto-lock delay ("immediately" waits
    /// one minute here: the hidden-tab signal is what locks it at once). Run about once
    /// a second.
    func sweep() {
        let now = Self.now()
        let idle: [OpenVault] = lock.withLock {
            let expired = open.filter { _, entry in
                now - entry.lastActivity > Double(max(entry.autoLockMinutes, 1)) * minuteSeconds
            }
            for slot in expired.keys { open.removeValue(forKey: slot) }
            return Array(expired.values)
        }
        for entry in idle {
            entry.vault.lock()
            logger.info("auto-locked a vault after inactivity")
        }
    }

    /// Locks every vault (at shutdown).
    func lockAll() {
        let all = lock.withLock { () -> [OpenVault] in
            defer { open.removeAll() }
            return Array(open.values)
        }
        for entry in all { entry.vault.lock() }
    }
}
