import ObscuraCrypto

/// Why a slot container could not be opened, read or committed (docs/FORMAT.md §8).
/// No case carries key material or plaintext.
public enum ContainerError: ObscuraError, Equatable {
    /// No superblock of any slot opens under the outer key given.
    case outerKeyMismatch
    /// The slots hold no commit in common, or one is more than one commit ahead: a slot
    /// was rolled back or replaced on its own (§8.8).
    case rollback
    /// A block, map node or superblock failed authentication or holds out-of-range
    /// fields, or a slot file is missing, short or foreign (§8.8).
    case damaged(String)
    /// A previous commit failed part-way; the container must be reopened from disk.
    case needsRecovery
    /// The contents do not fit the largest container this version writes.
    case tooLarge
    /// Files that version 3 counts as slots but whose names a container cannot take
    /// (docs/FORMAT.md §8.10): migrating would leave them out, unwrapped.
    case unmigratableSlots([String])
    /// A write or key rotation was asked of version 3 slot files, which are only read now,
    /// to be migrated into a container (§8.10).
    case notAContainer

    public var description: String {
        switch self {
        case .outerKeyMismatch: return "this directory needs another outer key"
        case .rollback: return "the slot files are not from one commit: a slot file was rolled back or replaced"
        case let .damaged(why): return "the vault directory is damaged: \(why)"
        case .needsRecovery: return "an earlier write failed; reopen the vault directory"
        case .tooLarge: return "the vault contents exceed the largest slot container"
        case .notAContainer: return "the vault directory is version 3; run obscura migrate first"
        case let .unmigratableSlots(names):
            return "data/ holds slot files whose names are not {uuid}.db.enc (\(names.joined(separator: ", "))); "
                + "a sync conflict copy may hold a vault's latest state: move each out of data/, or rename it to a "
                + "new lowercase UUID followed by .db.enc, then migrate again"
        }
    }
}
