import Foundation
import ObscuraStore

/// The exclusive advisory lock a process holds on a vault directory for as long as it
/// works on it (docs/FORMAT.md §4): `flock(LOCK_EX | LOCK_NB)` on the directory itself,
/// no lock file. Released when the object goes.
public final class DirectoryLock {
    private let descriptor: Int32

    /// Takes the lock on the directory at `path`.
    ///
    /// - Throws: ``VaultError/notInitialized(_:)`` when `path` is not a directory, and
    ///   ``VaultError/inUse(_:)`` at once, without waiting, when another process holds it.
    public init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VaultError.notInitialized(path)
        }
        descriptor = try FileIO.openOrThrow(path, O_RDONLY | O_DIRECTORY)
        // Non-blocking: a second process gets a clear error at once, never a hang.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw VaultError.inUse(path)
        }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
