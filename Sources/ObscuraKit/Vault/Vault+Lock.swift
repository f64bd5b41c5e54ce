import Foundation
import ObscuraCrypto

/// Locking a vault while other threads use it (the web gallery's auto-lock fires while
/// requests run). Every public operation registers itself for its duration; ``lock()``
/// first refuses new operations, then waits for the registered ones to finish, and only
/// then zeroes the keys, so that no operation ever seals or opens with a key being
/// zeroed under it (which would write media or a catalog under an all-zero key).
extension Vault {
    /// Runs `body` as one registered operation: the only way an operation starts, so no
    /// path can register without ending or end without registering. Throws
    /// ``VaultError/locked`` once ``lock()`` has begun, without running `body`.
    func operation<T>(_ body: () throws -> T) throws -> T {
        try enter()
        defer { leave() }
        return try body()
    }

    /// Registers an operation. Throws ``VaultError/locked`` once ``lock()`` has begun:
    /// an operation that needs another one (an export's slot read, say) fails cleanly
    /// rather than waiting, so `lock()` never waits on work that waits on it.
    private func enter() throws {
        activity.lock()
        defer { activity.unlock() }
        guard !locked && !isLocking && !doomed && !draining else { throw VaultError.locked }
        activeOperations += 1
    }

    /// Runs `body`, a change that takes `vault`'s slot away (a destroy), while `vault` and
    /// each of `others` not already locking are drained: no operation of theirs is in
    /// progress or may start, since a catalog commit that ran after the change would write
    /// the vault's pages and header into the slot it became. When `body` returns, every
    /// drained session is locked; when it throws, each resumes if `stillTheirs()` says the
    /// slot still holds the vault, and is locked otherwise. Must not be called from inside
    /// an operation.
    static func whileDrained<T>(
        _ vault: Vault, with others: [Vault], _ body: () throws -> T, stillTheirs: () -> Bool
    ) throws -> T {
        try vault.drain()
        let drained = [vault] + others.filter { other in other !== vault && (try? other.drain()) != nil }
        let result: T
        do {
            result = try body()
        } catch {
            let kept = stillTheirs()
            for session in drained { kept ? session.resume() : session.lock() }
            throw error
        }
        for session in drained { session.lock() }
        return result
    }

    /// Refuses new operations and waits for those in progress to finish (see
    /// ``whileDrained(_:with:_:stillTheirs:)``). ``lock()`` ends it, as does ``resume()``.
    private func drain() throws {
        activity.lock()
        defer { activity.unlock() }
        guard !locked && !isLocking && !doomed && !draining else { throw VaultError.locked }
        draining = true
        while activeOperations > 0 { activity.wait() }
    }

    /// Lets operations start again after ``drain()``.
    private func resume() {
        activity.withLock { draining = false }
    }

    /// Ends an operation registered by ``enter()``.
    private func leave() {
        activity.lock()
        activeOperations -= 1
        activity.broadcast()
        activity.unlock()
    }

    /// Zeroes the MEK, every folder key and the preview cache's key, empties the cache,
    /// and closes the catalog, after the operations in progress have finished; later
    /// operations throw ``VaultError/locked``. Must not be called from inside one.
    public func lock() {
        activity.lock()
        guard !locked && !isLocking else {
            // Another thread is locking: return once it is done.
            while !locked { activity.wait() }
            activity.unlock()
            return
        }
        isLocking = true
        while activeOperations > 0 { activity.wait() }
        activity.unlock()

        let folderKeys = stateLock.withLock { () -> [SecureBytes] in
            defer { self.folderKeys.removeAll() }
            return Array(self.folderKeys.values)
        }
        for folderKey in folderKeys { folderKey.zeroize() }
        previews.clear()
        key.zeroize()
        catalog.close()

        activity.lock()
        locked = true
        isLocking = false
        draining = false
        activity.broadcast()
        activity.unlock()
    }

    /// Throws ``VaultError/locked`` after ``lock()``.
    func requireUnlocked() throws {
        guard !activity.withLock({ locked || isLocking || doomed || draining }) else { throw VaultError.locked }
    }

    /// Locks the vault from inside an operation (a failed write whose slot cannot be read
    /// back): no operation may start from now on, and ``lock()`` runs on another thread,
    /// where it waits for this one to end.
    func lockWhenIdle() {
        activity.withLock { doomed = true }
        // Weak: a session its owner has let go locks in its deinit; holding it here would
        // keep the directory's flock until a busy global queue got round to this block,
        // and the same process reopening the directory would find it in use.
        DispatchQueue.global().async { [weak self] in self?.lock() }
    }
}
