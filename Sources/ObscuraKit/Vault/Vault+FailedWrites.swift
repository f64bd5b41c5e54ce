import Foundation
import ObscuraCrypto
import ObscuraStore

/// What a session does after a write fails part-way (Tests/ObscuraKitTests/Crash).
///
/// A slot commit can fail before or after it replaced the vault's slot (an fsync or a
/// timestamp after the renames), so the caller cannot know from the error alone whether
/// the catalog on disk is the old one or the new one. Both questions are answered from
/// the disk instead: the session reloads what its slot holds, and pool files are removed
/// only when that catalog does not name them.
extension Vault {
    /// Makes the in-memory catalog and header what the slot holds now: the state before
    /// the failed write, or after it if the commit got that far. When the slot cannot be
    /// read back, the vault locks, so that no stale catalog is ever persisted. Runs inside
    /// an operation (``operation(_:)``).
    func resynchronize() {
        do {
            // The catalog reopened itself from the slot when its commit failed
            // (Catalog.write); only the header is read back, and set under the write
            // lock, as a password change sets it, so an older read never lands last.
            try directory.store.serialized {
                header = try SlotHeader.decode(directory.store.readHeader(slotName))
            }
        } catch {
            directory.logger.error("could not reload the vault after a failed write; locking it")
            // Called from inside an operation, which lock() would wait for: refuse every
            // new operation now, and lock once this one has ended.
            lockWhenIdle()
        }
    }

    /// Paths of every pool file the catalog names (originals and thumbnails, every folder).
    func namedFiles() throws -> Set<String> {
        let pool = directory.pool
        return Set(try catalog.allItems().flatMap { try pool.files(of: $0) })
    }

    /// After a failed write, removes the files it `created` that the catalog on disk does
    /// not name, and the files it `replaced` once that catalog no longer names them.
    /// When the catalog cannot be read (the vault locked since), nothing is removed, even
    /// for a failure before any commit: another thread's commit may have written this
    /// write's rows already (the catalog is shared), and a stray file costs
    /// space where a removed one that the slot names would lose an item (scripts/tsan
    /// caught exactly that when locked failures removed their files).
    func cleanUp(created: [String], replaced: [String] = []) {
        guard let named = try? namedFiles() else { return }
        for file in created + replaced where !named.contains(file) { unlink(file) }
    }
}
