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
    /// an operation that needs another one (an import's persist, say) fails cleanly
    /// rather than waiting, so `lock()` never waits on work that waits on it.
    private func enter() throws {
        activity.lock()
        defer { activity.unlock() }
        guard !locked && !isLocking && !doomed && !draining else { throw VaultError.locked }
        activeOperations += 1
    }

    /// Refuses new operations and waits for those in progress to finish, ahead of a
    /// change that takes the vault's slot away: a catalog commit that ran after it would
    /// write the vault's pages and header into the slot it became. ``lock()`` ends it, as
    /// does ``resume()`` when the change failed. Must not be called from inside an operation.
    func drain() throws {
        activity.lock()
        defer { activity.unlock() }
        guard !locked && !isLocking && !doomed && !draining else { throw VaultError.locked }
        draining = true
        while activeOperations > 0 { activity.wait() }
    }

    /// Lets operations start again after ``drain()``.
    func resume() {
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
        DispatchQueue.global().async { self.lock() }
    }
}
