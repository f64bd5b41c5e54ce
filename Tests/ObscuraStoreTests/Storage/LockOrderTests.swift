import Testing
@testable import ObscuraStore

/// The debug-build check of the lock order (docs/ARCHITECTURE.md, "Locks, outermost
/// first"): each inversion is reported, re-entering a recursive lock is not one.
@Suite struct LockOrderTests {
    @Test func locksTakenOutermostFirstAreNoViolation() {
        let credentials = OrderedLock(.credentials, recursive: true)
        let rows = OrderedLock(.rows)
        let writes = OrderedLock(.slotWrites, recursive: true)
        let violations = LockOrder.recordingViolations {
            credentials.withLock { rows.withLock { writes.withLock { credentials.withLock {} } } }
            writes.withLock { writes.withLock {} }
        }
        #expect(violations.isEmpty)
    }

    @Test(.enabled(if: LockOrder.isChecked, "the check runs in debug builds"))
    func aLockTakenInsideADeeperOneIsReported() {
        let rows = OrderedLock(.rows)
        let writes = OrderedLock(.slotWrites, recursive: true)
        let catalog = NSObjectLike()
        let violations = LockOrder.recordingViolations {
            writes.withLock { rows.withLock {} }
            writes.withLock { LockOrder.holding(.catalog, catalog) {} }
        }
        #expect(violations == [
            .init(taking: .rows, holding: .slotWrites),
            .init(taking: .catalog, holding: .slotWrites),
        ])
    }

    @Test(.enabled(if: LockOrder.isChecked, "the check runs in debug builds"))
    func twoLocksOfOneLevelAreReported() {
        let first = OrderedLock(.rows)
        let second = OrderedLock(.rows)
        let violations = LockOrder.recordingViolations { first.withLock { second.withLock {} } }
        #expect(violations == [.init(taking: .rows, holding: .rows)])
    }

    /// Review of issue 35, M1: a recursive outer lock taken again does not hide the deeper
    /// locks still held under it.
    @Test(.enabled(if: LockOrder.isChecked, "the check runs in debug builds"))
    func aReenteredOuterLockHidesNoDeeperOne() {
        let credentials = OrderedLock(.credentials, recursive: true)
        let writes = OrderedLock(.slotWrites, recursive: true)
        let catalog = NSObjectLike()
        let violations = LockOrder.recordingViolations {
            credentials.withLock { writes.withLock { credentials.withLock { LockOrder.holding(.catalog, catalog) {} } } }
        }
        #expect(violations == [.init(taking: .catalog, holding: .slotWrites)])
    }

    /// Review of issue 35, M1b: a lock that is not recursive, taken again by its holder,
    /// would wait forever; it is reported (here without taking a real lock, which would).
    @Test(.enabled(if: LockOrder.isChecked, "the check runs in debug builds"))
    func aPlainLockTakenAgainIsReported() {
        let rows = NSObjectLike()
        let violations = LockOrder.recordingViolations {
            LockOrder.holding(.rows, rows) { LockOrder.holding(.rows, rows) {} }
        }
        #expect(violations == [.init(taking: .rows, holding: .rows, reentered: true)])
    }

    @Test func theRecordEndsWithTheLocks() {
        let rows = OrderedLock(.rows)
        let writes = OrderedLock(.slotWrites)
        // Once a lock is released its level no longer counts as held.
        let violations = LockOrder.recordingViolations {
            writes.withLock {}
            rows.withLock {}
        }
        #expect(violations.isEmpty)
    }
}

/// A stand-in for a catalog: only its identity counts.
private final class NSObjectLike {}
