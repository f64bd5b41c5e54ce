import Foundation

/// One durable step of a write to a vault directory outside the slot container: a pool
/// file made whole on disk, renamed into place or removed, the pool synced, an export
/// written or renamed. The write paths (import, delete, export, drops) report their
/// steps here, in order, so that tests can stop a write at any of them
/// (Tests/ObscuraKitTests/Crash, which also stops a commit at each change to the
/// container's slot files). A process killed between two steps leaves the disk as it was
/// at the earlier one.
package enum WriteStep: Equatable, Sendable {
    // The media pool (MediaPool, docs/FORMAT.md §4, §6).
    /// A pool file was written whole under a temporary name.
    case wroteMedia
    /// A pool file was renamed to its final name.
    case renamedMedia(String)
    /// A pool file was unlinked.
    case removedMedia(String)
    /// The pool's renames and unlinks were made durable.
    case syncedMedia

    // Export files (docs/FORMAT.md §7), written beside the vault, not in it.
    /// The export was written whole under its temporary name.
    case wroteExport
    /// The export was renamed to the name asked for, and its directory synced.
    case renamedExport
}

/// Where a vault directory's write paths report their ``WriteStep``s. In production no
/// hook is set and a report costs one lock; tests set one that throws, or copies the
/// directory as a crash at that instant would leave it.
package final class WriteSteps: @unchecked Sendable {
    // @unchecked: `hook` is only read and called under `lock`.
    private let lock = NSLock()
    private var hook: ((WriteStep) throws -> Void)?

    /// Steps with no hook: every write goes through.
    package init() {}

    /// The function called at every step; a throw from it fails the write there.
    /// Calls are serialised, so a hook needs no lock of its own even when parallel
    /// imports report at once.
    package var faultInjector: ((WriteStep) throws -> Void)? {
        get { lock.withLock { hook } }
        set { lock.withLock { hook = newValue } }
    }

    /// Reports `step`; rethrows what the hook throws.
    package func reached(_ step: WriteStep) throws {
        lock.lock()
        defer { lock.unlock() }
        try hook?(step)
    }
}

