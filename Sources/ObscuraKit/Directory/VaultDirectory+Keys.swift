import ObscuraCrypto
import ObscuraStore
import ObscuraKeys

extension VaultDirectory {
    /// Opens the directory at `path` like ``init(path:deviceSecrets:outerKey:create:random:)``,
    /// finding its outer key among the candidates `outerKeys` offers (docs/FORMAT.md §4.4).
    ///
    /// The keyring is asked only when the slots are a container (or a migration to
    /// one): a version 3 or new directory opens without a key. Candidates are tried most
    /// recently used first; the one that opens the directory is touched, so it comes
    /// first next time, and is kept as ``openedWith``. Opening never creates a key.
    ///
    /// - Throws: ``KeyError/outerKeyUnavailable(_:)`` when there is no key to try,
    ///   ``KeyError/outerKeyMismatch`` when none opens the directory, and the errors of
    ///   the initializer.
    public static func open(
        path: String, deviceSecrets: any DecoySecretSource, outerKeys: KeySource, create: Bool = false,
        random: RandomSource = SystemRandom()
    ) throws -> VaultDirectory {
        do {
            return try VaultDirectory(path: path, deviceSecrets: deviceSecrets, create: create, random: random)
        } catch VaultError.outerKeyRequired {
            // Fall through to the candidates; the lock was released with the first try.
        }
        let candidates = try outerKeys.load(.outer)
        // A rotation cut short (§8.11) leaves a directory that one key opens and the
        // other finds half-written: a key whose commit does not hold is not the end.
        var firstFailure: Error?
        for candidate in candidates.keys {
            let directory: VaultDirectory
            do {
                directory = try VaultDirectory(path: path, deviceSecrets: deviceSecrets, outerKey: candidate.key, random: random)
            } catch ContainerError.outerKeyMismatch {
                continue
            } catch let error as ContainerError {
                firstFailure = firstFailure ?? error
                continue
            }
            directory.openedWith = candidate
            directory.passedOver = firstFailure
            if case let .keyring(keyring) = outerKeys, let item = candidate.keyringItem {
                // Only the order of later tries depends on it.
                try? keyring.touch(item, kind: .outer)
            }
            return directory
        }
        throw firstFailure ?? KeyError.outerKeyMismatch
    }

    /// Re-seals every slot under `newKey` (docs/FORMAT.md §8.11), needing no password:
    /// from then on only `newKey` opens the directory (copies taken before still open
    /// with the old key). Keep the old key until this returns: a rotation cut short
    /// leaves a directory that the old key, or the new one, opens.
    public func rotateOuterKey(to newKey: SecureBytes) throws {
        let key = try OuterKey(newKey)
        try requireInitialized()
        // Only a container has an outer key to rotate.
        guard store.isContainer else { throw VaultError.outerKeyRequired }
        try store.rotate(to: key)
        outerKey = key
        logger.debug("rotated the outer key")
    }
}
