import Foundation

/// What every unlock does once the vault is open, whoever unlocked it: the CLI's
/// commands and the gallery run the same chores, in the same order (issue 35, item 4;
/// docs/SECURITY.md, "Ends"). Drops come first, so that what the inbox brings is in the
/// catalog before anything is listed; then the trash loses what it kept past its time;
/// then items whose end came are deleted, ahead of anything that would show them.
public struct UnlockChores: Sendable {
    /// One chore.
    public enum Chore: String, Sendable, CaseIterable {
        case drops = "take in the drops"
        case expiredTrash = "delete what the trash kept past its time"
        case ends = "delete the items whose end came"
    }

    /// What the intake of the drop inbox did (docs/FORMAT.md §10.6).
    public var drops = DropIntake()
    /// Items deleted for good because they were in the trash past ``Vault/trashRetention``.
    public var expiredTrash = 0
    /// Items deleted for good because their end came (docs/FORMAT.md §3.3 "Ends").
    public var ended = 0
    /// The chores that failed, with why. The unlock stands; the next unlock tries again.
    /// A caller that must not show an ended item refuses to go on when ``Chore/ends``
    /// failed (the CLI); the gallery's sweep retries it every few seconds.
    public var failed: [Chore: String] = [:]

    /// Nothing done yet.
    public init() {}
}

extension Vault {
    /// Runs the unlock chores on this (the one shared) instance of the vault. Each failure
    /// is logged and recorded in ``UnlockChores/failed``; none stops the others.
    @discardableResult
    public func runUnlockChores(now: Date = Date()) -> UnlockChores {
        var chores = UnlockChores()
        func attempt(_ chore: UnlockChores.Chore, _ work: () throws -> Void) {
            do {
                try work()
            } catch {
                directory.logger.warning("could not \(chore.rawValue) at unlock; the next unlock tries again")
                chores.failed[chore] = "\(error)"
            }
        }
        attempt(.drops) { chores.drops = try takeDrops() }
        attempt(.expiredTrash) { chores.expiredTrash = try purgeExpiredTrash(now: now) }
        attempt(.ends) { chores.ended = try enforceEnds(now: now) }
        unlockChores = chores
        return chores
    }

    /// What the unlock's intake of the drop inbox did.
    package var dropIntake: DropIntake { unlockChores.drops }
}
