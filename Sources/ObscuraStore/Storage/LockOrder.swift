import Foundation

/// The levels of the vault's lock order, outermost first (docs/ARCHITECTURE.md, "Locks,
/// outermost first"). A thread that holds a lock of one level may take only locks of a
/// deeper level, or again the very lock it holds (the recursive ones).
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
    /// A lock of level `taking` asked for while the thread held one of level `holding`.
    package struct Violation: Equatable, Sendable, CustomStringConvertible {
        package let taking: LockLevel
        package let holding: LockLevel

        package var description: String { "took \(taking) while holding \(holding)" }
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
    /// takes the lock itself inside `body`. `lock` tells a recursive re-entry (the same
    /// lock again) from a second lock of the same level.
    package static func holding<T>(_ level: LockLevel, _ lock: AnyObject, _ body: () throws -> T) rethrows -> T {
        #if DEBUG
        let held = HeldLocks.current
        held.check(level, ObjectIdentifier(lock))
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

    func check(_ level: LockLevel, _ lock: ObjectIdentifier) {
        guard let innermost = stack.last else { return }
        if innermost.level.rawValue < level.rawValue { return }
        // Re-entering a lock this thread already holds is no inversion: it cannot wait.
        if stack.contains(where: { $0.lock == lock }) { return }
        let violation = LockOrder.Violation(taking: level, holding: innermost.level)
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

    /// A lock of `level`; `recursive` lets the thread that holds it take it again.
    package init(_ level: LockLevel, recursive: Bool = false) {
        self.level = level
        lock = recursive ? NSRecursiveLock() : NSLock()
    }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try LockOrder.holding(level, self) {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }
    }
}
