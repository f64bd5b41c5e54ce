import Foundation

/// The levels of the vault's lock order, outermost first (docs/ARCHITECTURE.md, "Locks,
/// outermost first"). A thread that holds a lock of one level may take only locks of a
/// deeper level than every lock it holds, or again a recursive lock it holds.
package enum LockLevel: Int, Sendable, CustomStringConvertible {
    /// `VaultDirectory.credentialLock`: a vault's creation, a password change.
    case credentials = 1
    /// `Vault.rowsGate`: a read of item rows written back whole.
    case rows = 2
    /// A vault catalog's database queue.
    case catalog = 3
    /// The slot store's write lock (`SlotStore.serialized`).
    case slotWrites = 4

    package var description: String {
        switch self {
        case .credentials: return "the credential lock"
        case .rows: return "a vault's rows gate"
        case .catalog: return "a catalog's queue"
        case .slotWrites: return "the slot store's write lock"
        }
    }
}

/// The debug-build check of the lock order. Each lock of a ``LockLevel`` is taken through
/// ``OrderedLock`` or ``LockOrder/holding(_:_:_:)``, which keep, per thread, the levels
/// held; taking a lock out of order stops a debug build there, before the lock is taken,
/// so the inversion is reported instead of deadlocking one run in many. Release builds
/// keep no record and check nothing.
package enum LockOrder {
    /// A lock of level `taking` asked for while the thread held one of level `holding`
    /// (the deepest it held), or, with `reentered`, a lock that is not recursive asked for
    /// again by the thread that holds it.
    package struct Violation: Equatable, Sendable, CustomStringConvertible {
        package let taking: LockLevel
        package let holding: LockLevel
        package var reentered = false

        package init(taking: LockLevel, holding: LockLevel, reentered: Bool = false) {
            self.taking = taking
            self.holding = holding
            self.reentered = reentered
        }

        package var description: String {
            reentered ? "took \(taking) again while holding it (it is not recursive)" : "took \(taking) while holding \(holding)"
        }
    }

    /// Whether the check runs in this build.
    package static var isChecked: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// Runs `body` as holding the lock `lock` of level `level` on this thread; the caller
    /// takes the lock itself inside `body`. `lock` tells a re-entry (the same lock again,
    /// allowed only when `recursive`) from a second lock of the same level.
    package static func holding<T>(
        _ level: LockLevel, _ lock: AnyObject, recursive: Bool = false, _ body: () throws -> T
    ) rethrows -> T {
        #if DEBUG
        let held = HeldLocks.current
        held.check(level, ObjectIdentifier(lock), recursive: recursive)
        held.stack.append((level, ObjectIdentifier(lock)))
        defer { held.stack.removeLast() }
        #endif
        return try body()
    }

    /// Runs `body`, recording on this thread the violations it commits instead of
    /// stopping at the first; for the test that shows the check can fail.
    package static func recordingViolations(_ body: () throws -> Void) rethrows -> [Violation] {
        #if DEBUG
        let held = HeldLocks.current
        let outer = held.recorded
        held.recorded = []
        defer { held.recorded = outer }
        try body()
        return held.recorded ?? []
        #else
        try body()
        return []
        #endif
    }
}

#if DEBUG
/// The locks one thread holds, innermost last.
private final class HeldLocks {
    private static let key = "org.obscura.heldLocks"

    var stack: [(level: LockLevel, lock: ObjectIdentifier)] = []
    /// Set by `recordingViolations`: violations are collected here instead of stopping.
    var recorded: [LockOrder.Violation]?

    static var current: HeldLocks {
        let dictionary = Thread.current.threadDictionary
        if let held = dictionary[key] as? HeldLocks { return held }
        let held = HeldLocks()
        dictionary[key] = held
        return held
    }

    func check(_ level: LockLevel, _ lock: ObjectIdentifier, recursive: Bool) {
        let violation: LockOrder.Violation
        if stack.contains(where: { $0.lock == lock }) {
            // Re-entering a recursive lock this thread holds cannot wait; any other lock
            // taken again by its holder waits forever.
            if recursive { return }
            violation = .init(taking: level, holding: level, reentered: true)
        } else {
            // Every lock held counts, not only the innermost: a recursive outer lock taken
            // again sits on top of deeper ones that are still held.
            guard let deepest = stack.max(by: { $0.level.rawValue < $1.level.rawValue }),
                  deepest.level.rawValue >= level.rawValue else { return }
            violation = .init(taking: level, holding: deepest.level)
        }
        if recorded != nil {
            recorded?.append(violation)
        } else {
            preconditionFailure("lock order (docs/ARCHITECTURE.md): \(violation)")
        }
    }
}
#endif

/// A lock with a place in the lock order (``LockLevel``), checked in debug builds.
package final class OrderedLock: @unchecked Sendable {
    // @unchecked: the lock itself is the only state.
    private let lock: NSLocking
    private let level: LockLevel
    private let recursive: Bool

    /// A lock of `level`; `recursive` lets the thread that holds it take it again.
    package init(_ level: LockLevel, recursive: Bool = false) {
        self.level = level
        self.recursive = recursive
        lock = recursive ? NSRecursiveLock() : NSLock()
    }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try LockOrder.holding(level, self, recursive: recursive) {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }
    }
}
