import Foundation

/// One durable step of a write to a vault directory: a file made whole on disk, renamed
/// into place, removed, or a directory synced. Every write path (catalog persist, import,
/// delete, folder protection, password change, export, import of an export, destroy)
/// reports its steps here, in order, so that tests can stop a write at any of them
/// (Tests/ObscuraKitTests/Crash). A process killed between two steps leaves the disk as
/// it was at the earlier one.
package enum WriteStep: Equatable, Sendable {
    // Slot commits (SlotStore, docs/FORMAT.md §3.4).
    /// Temporary number `n` of a commit was written and fsynced.
    case wroteTemporary(Int)
    /// Temporary number `n` replaced its slot.
    case renamed(Int)
    /// The renames of a commit were made durable.
    case syncedDirectory
    /// A removed slot was renamed out of the slot names, to be overwritten and unlinked.
    case erased(String)
    /// A removed slot was unlinked.
    case unlinked(String)
    /// Every slot got the commit's timestamp.
    case setTimes

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

