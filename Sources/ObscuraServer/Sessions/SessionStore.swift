import Foundation
import Logging
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit

/// Every session of the server and every vault they unlocked, with the session rules of
/// docs/SECURITY.md ("Session lifecycle"): one `Vault` per slot however many sessions share
/// it, auto-lock after inactivity, folder keys dropped when the gallery is hidden, and
/// the progressive delay on every password check.
final class SessionStore: @unchecked Sendable {
    // @unchecked: `sessions` and `open` are guarded by `lock`; `unlockLock` serialises
    // unlock attempts so that the delay cannot be raced by parallel requests.
    /// The most sessions kept; the least recently used go first beyond it.
    static let maximumSessions = 1000

    let directory: VaultDirectory
    let throttle: UnlockThrottle
    /// Seconds in one auto-lock "minute" (60; tests shorten it).
    let minuteSeconds: Double
    /// PBKDF2 rounds for vaults made through the gallery (the production default).
    let iterations: Int
    let logger: Logger
    private let lock = NSLock()
    private let unlockLock = NSLock()
    private var sessions: [String: (session: Session, seen: Double)] = [:]
    private var open: [String: OpenVault] = [:]
    /// Whether the unlock page leads with creating a vault (GalleryServer.Configuration
    /// .newDirectory): true until the first vault is created through the gallery.
    private var creationSuggested: Bool

    /// A vault unlocked by one or more sessions, with its last activity.
    final class OpenVault: @unchecked Sendable {
        // @unchecked: mutable fields are guarded by the store's lock.
        let vault: Vault
        var lastActivity: Double
        /// Requests that use the vault and have not finished answering
        /// (``RequestActivity``): while any runs the vault is not idle.
        var requestsInFlight = 0
        var autoLockMinutes: Int
        /// When ``sweep()`` last enforced the vault's ends.
        var endsChecked: Double
        /// Makes the vault's pending video renditions in the background.
        let renditions: RenditionWorker
        /// When ``sweep()`` last looked at the drop inbox for this vault.
        var dropsChecked: Double
        /// The inbox's blob names after the last intake: the next intake runs only when
        /// they change, so that blobs other vaults' keys open are not tried every time.
        var inboxSeen: Set<String>?
        /// What the intakes made while the vault was open took in or refused, newest
        /// last, each with its serial: every session of the vault is told each once.
        var dropNews: [DropNews] = []

        init(vault: Vault, now: Double) {
            self.vault = vault
            renditions = RenditionWorker(vault: vault)
            lastActivity = now
            endsChecked = now
            dropsChecked = now
            autoLockMinutes = (try? vault.autoLockMinutes()) ?? Vault.defaultAutoLockMinutes
        }

        /// The serial of the newest news, 0 before any.
        var dropNewsSerial: Int { dropNews.last?.serial ?? 0 }
    }

    /// One intake's sentence for the owner (``DropIntake/summary``).
    struct DropNews {
        let serial: Int
        let text: String
        let refused: Int
    }

    init(
        directory: VaultDirectory, minuteSeconds: Double = 60, iterations: Int = PasswordKDF.vaultIterations,
        suggestCreating: Bool = false, logger: Logger = Logger(label: "obscura.server"),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.directory = directory
        now = clock
        throttle = UnlockThrottle(now: clock)
        self.logger = logger
        self.minuteSeconds = minuteSeconds
        self.iterations = iterations
        creationSuggested = suggestCreating
    }

    /// Whether the unlock page should lead with creating a vault.
    var suggestsCreating: Bool { lock.withLock { creationSuggested } }

    /// Seconds since 1970: the wall clock, or the tests' own.
    private let now: @Sendable () -> Double

    /// The store's time: what ends are measured against (the tests' clock in tests).
    var time: Date { Date(timeIntervalSince1970: now()) }

    // MARK: Sessions

    /// A new session, remembered.
    func newSession() -> Session {
        let session = Session()
        lock.withLock {
            if sessions.count >= Self.maximumSessions,
               let oldest = sessions.min(by: { $0.value.seen < $1.value.seen })?.key {
                sessions.removeValue(forKey: oldest)
            }
            sessions[session.id] = (session, now())
        }
        return session
    }

    /// The session whose cookie is `id`.
    func session(_ id: String?) -> Session? {
        guard let id else { return nil }
        return lock.withLock {
            guard let entry = sessions[id] else { return nil }
            sessions[id]?.seen = now()
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

    /// The unlocked vault of `session`, marking it active; nil when locked. With
    /// `activity`, the vault stays active until that request has finished answering.
    func vault(for session: Session, during activity: RequestActivity? = nil) -> Vault? {
        guard let binding = session.binding else { return nil }
        return lock.withLock {
            guard open[binding.vault.slotIdentifier] === binding, !binding.vault.isLocked else { return nil }
            binding.lastActivity = now()
            if let activity, activity.entry == nil {
                activity.entry = binding
                binding.requestsInFlight += 1
            }
            return binding.vault
        }
    }

    /// Requests using an open vault that have not finished answering, over all vaults.
    var requestsInFlight: Int { lock.withLock { open.values.reduce(0) { $0 + $1.requestsInFlight } } }

    /// The request of `activity` has finished answering: its end is activity too.
    func requestEnded(_ activity: RequestActivity) {
        lock.withLock {
            guard let entry = activity.entry else { return }
            activity.entry = nil
            entry.requestsInFlight -= 1
            entry.lastActivity = max(entry.lastActivity, now())
        }
    }

    /// Gives `session` a new id (at unlock and at lock: an id known before either is
    /// worth nothing after it); the caller sends the new cookie.
    func rotate(_ session: Session) {
        lock.withLock {
            let old = session.renew()
            if let entry = sessions.removeValue(forKey: old) { sessions[session.id] = entry }
        }
    }

    // MARK: Password checks (the progressive delay)

    /// Unlocks the vault `password` opens for `session`. Blocking (a full sweep).
    ///
    /// - Returns: what the unlock's intake of the drop inbox did (``DropIntake``).
    /// - Throws: ``APIError`` 429 during the progressive delay, 401 for a wrong password.
    @discardableResult
    func unlock(_ session: Session, password: SecureBytes) throws -> DropIntake {
        // Not taking drops yet: when another session has this vault open, this copy is
        // thrown away by attach(), and an intake committed through it would leave the open
        // one on a stale catalog (a review found the vault corrupt after the next commit).
        try unlock(session) { try directory.unlock(password: password, runningChores: false) }
    }

    /// Unlocks for `session` the vault `open` opens (a password's or a passkey's, neither
    /// running the unlock chores), under the progressive delay: ``VaultError/wrongPassword``
    /// from `open` is a failure, answered 401 "wrong password" whatever the unlock was.
    func unlock(_ session: Session, opening open: () throws -> Vault) throws -> DropIntake {
        let drops: DropIntake = try guarded {
            let vault: Vault
            do {
                vault = try open()
            } catch VaultError.wrongPassword {
                throttle.recordFailure()
                logger.info("failed unlock")
                throw APIError(.unauthorized, "wrong password").waiting(throttle.wait())
            }
            attach(vault, to: session)
            // The session's vault: when another session had it open already, `vault` is a
            // second copy that attach() has just locked.
            // The unlock chores every unlock runs, the CLI's too (Vault.runUnlockChores),
            // on the one shared instance. A failed one is logged there; the sweep retries
            // ends and drops while the vault stays open.
            var intake = DropIntake()
            if let open = session.binding {
                intake = open.vault.runUnlockChores(now: Date(timeIntervalSince1970: now())).drops
                // Renditions an upload left pending when the vault was locked.
                open.renditions.start()
            }
            return intake
        }
        rotate(session)
        return drops
    }

    /// Takes in the drops addressed to the session's vault (docs/FORMAT.md §10.6), through
    /// the one instance every session of it shares. A failure is logged and leaves the
    /// drops in the inbox for the next unlock; the unlock stands.
    static func takeDrops(into vault: Vault, logger: Logger) -> DropIntake {
        do {
            return try vault.takeDrops()
        } catch {
            logger.warning("could not take in the vault's drops; will try again at the next unlock")
            return DropIntake()
        }
    }

    /// Deletes for good the items whose end has come (issue 19), at unlock (those that
    /// passed while the vault was locked) and from ``sweep()`` while it is open. A failure
    /// is logged; the next sweep tries again.
    static func enforceEnds(of vault: Vault, now: Date, logger: Logger) {
        do {
            let ended = try vault.enforceEnds(now: now)
            if ended > 0 { logger.info("deleted items whose end came", metadata: ["items": "\(ended)"]) }
        } catch {
            logger.error("could not delete items whose end came", metadata: ["error": "\(error)"])
        }
    }

    /// Creates a vault for `password` (a decoy becomes it) and unlocks it for `session`.
    /// Counted as a failed guess whatever the outcome: "in use" and "created" tell
    /// whether the password opens a vault, as a failed unlock does.
    func create(_ session: Session, password: SecureBytes) throws {
        try guarded {
            // Recorded when the check ends (a create takes a sweep or more): the delay
            // runs from the answer, as for an unlock.
            defer { throttle.recordFailure() }
            let vault: Vault
            do {
                vault = try directory.createVault(password: password, iterations: iterations)
            } catch VaultError.passwordInUse {
                throw APIError(.conflict, VaultError.passwordInUse.description)
            } catch VaultError.noFreeSlot {
                throw APIError(.conflict, "no free slot is left in this vault directory; use the command line's `create --allow-extended-slots`")
            }
            attach(vault, to: session)
            lock.withLock { creationSuggested = false }
        }
        rotate(session)
    }

    /// Changes the password of `vault`, keeping its passkeys unless `removingPasskeys`: a
    /// wrong `current` is a failure, and so is every check of `new` (whether it opens
    /// another vault is the answer a guess wants).
    func changePassword(of vault: Vault, current: SecureBytes, new: SecureBytes, removingPasskeys: Bool = false) throws {
        try guarded {
            guard try vault.checkPassword(current) else {
                throttle.recordFailure()
                throw APIError(.unauthorized, "the current password is wrong").waiting(throttle.wait())
            }
            defer { throttle.recordFailure() }
            try vault.changePassword(to: new, removingPasskeys: removingPasskeys)
        }
    }

    /// Unlocks the protected `folder` of `vault`; a wrong password is a failure.
    func unlockFolder(_ folder: FolderRecord, of vault: Vault, password: SecureBytes) throws {
        try guarded {
            do {
                try vault.unlockFolder(folder, password: password)
            } catch VaultError.wrongFolderPassword {
                throttle.recordFailure()
                throw APIError(VaultError.wrongFolderPassword).waiting(throttle.wait())
            }
        }
    }

    /// Runs one password check: one at a time, so parallel requests cannot race past
    /// the delay, and only once the delay has run out.
    func guarded<T>(_ check: () throws -> T) throws -> T {
        try unlockLock.withLock {
            let wait = throttle.wait()
            guard wait <= 0 else { throw APIError.tooManyAttempts(seconds: Int(wait.rounded(.up))) }
            return try check()
        }
    }

    // MARK: Lock

    /// Binds `vault` to `session`, sharing an already open `Vault` of the same slot (two
    /// catalogs of one slot in memory would overwrite each other's changes).
    private func attach(_ vault: Vault, to session: Session) {
        let slot = vault.slotIdentifier
        let duplicate: Vault? = lock.withLock {
            if let existing = open[slot], !existing.vault.isLocked {
                existing.lastActivity = now()
                session.binding = existing
                // Its own unlock tells what it took in; what came before is not its news.
                session.dropNewsSeen = existing.dropNewsSerial
                return vault
            }
            let entry = OpenVault(vault: vault, now: now())
            open[slot] = entry
            session.binding = entry
            session.dropNewsSeen = 0
            return nil
        }
        duplicate?.lock()
    }

    /// Locks the vault of `session`: for every session that shares it. The session
    /// gets a new id.
    func lockVault(of session: Session) {
        rotate(session)
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
        let now = now()
        let idle: [OpenVault] = lock.withLock {
            let expired = open.filter { _, entry in
                entry.requestsInFlight == 0
                    && now - entry.lastActivity > Double(max(entry.autoLockMinutes, 1)) * minuteSeconds
            }
            for slot in expired.keys { open.removeValue(forKey: slot) }
            return Array(expired.values)
        }
        for entry in idle { entry.vault.lock() }
        // Debug only: a line per vault at the default level would count the open vaults.
        if !idle.isEmpty { logger.debug("auto-lock after inactivity") }
        // Ends, every few seconds: an item's time may come while its vault is open.
        let due: [OpenVault] = lock.withLock {
            let due = open.values.filter { now - $0.endsChecked >= Self.endsInterval }
            for entry in due { entry.endsChecked = now }
            return due
        }
        for entry in due { Self.enforceEnds(of: entry.vault, now: Date(timeIntervalSince1970: now), logger: logger) }
        takeDropsOfOpenVaults(now: now)
    }

    /// Seconds between two enforcements of an open vault's ends.
    static let endsInterval: Double = 2
    /// Seconds between two looks at the drop inbox for an open vault.
    static let dropsInterval: Double = 5

    /// Takes in the drops that came while a vault is open (issue 40, point 18: they
    /// waited for the next unlock), through the one instance its sessions share, when the
    /// inbox has changed since the last intake. What an intake did becomes news that
    /// each session of the vault is told once (``dropNews(for:)``).
    private func takeDropsOfOpenVaults(now: Double) {
        let due: [OpenVault] = lock.withLock {
            let due = open.values.filter { now - $0.dropsChecked >= Self.dropsInterval }
            for entry in due { entry.dropsChecked = now }
            return due
        }
        for entry in due {
            let inbox = DropInbox(vaultPath: directory.path)
            let names = Set(inbox.blobNames())
            guard names != lock.withLock({ entry.inboxSeen }) else { continue }
            let intake = entry.vault.isLocked ? DropIntake() : Self.takeDrops(into: entry.vault, logger: logger)
            let after = Set(inbox.blobNames())
            lock.withLock {
                entry.inboxSeen = after
                guard let text = intake.summary else { return }
                entry.dropNews.append(DropNews(serial: entry.dropNewsSerial + 1, text: text, refused: intake.failed.count + intake.keptAsFiles.count))
                entry.dropNews.removeFirst(max(0, entry.dropNews.count - Self.dropNewsKept))
            }
        }
    }

    /// The most intake news an open vault keeps for sessions that have not asked yet.
    static let dropNewsKept = 16

    /// The news of drop intakes made while the vault of `session` was open that the
    /// session has not been told, joined into one sentence, with the number of drops
    /// refused; nil when there is none. Telling marks it told.
    func dropNews(for session: Session) -> (text: String, refused: Int)? {
        guard let binding = session.binding else { return nil }
        return lock.withLock {
            let seen = session.dropNewsSeen
            let news = binding.dropNews.filter { $0.serial > seen }
            guard !news.isEmpty else { return nil }
            session.dropNewsSeen = binding.dropNewsSerial
            return (news.map(\.text).joined(separator: " "), news.reduce(0) { $0 + $1.refused })
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
