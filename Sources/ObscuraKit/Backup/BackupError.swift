import ObscuraCrypto

/// Errors setting up, making, checking or restoring a backup (docs/BACKUP.md). Messages
/// say what failed and what to do; they never hold the backup password.
public enum BackupError: ObscuraError, Equatable {
    /// This vault directory has no backup set up (`obscura backup init REPO`).
    case notConfigured(directory: String)
    /// This vault directory already backs up to a repository.
    case alreadyConfigured(repository: String)
    /// The repository string is empty or holds a character restic cannot take.
    case invalidRepository(String)
    /// The backup password does not open the repository.
    case wrongPassword
    /// No restic repository is at the location.
    case noRepository(String)
    /// restic is not installed.
    case resticMissing
    /// Another restic process holds an exclusive lock on the repository.
    case repositoryLocked(String)
    /// The repository's disk (or quota) is full.
    case repositoryFull(String)
    /// The repository did not answer; `detail` is restic's last word on it.
    case unreachable(repository: String, detail: String)
    /// restic failed; `detail` is the end of what it said.
    case resticFailed(command: String, detail: String)
    /// Some files could not be read; the snapshot restic made lacks them.
    case incomplete([String])
    /// The restore target exists and is not an empty directory.
    case targetNotEmpty(String)
    /// The restore target is a file or a symbolic link, not a directory.
    case targetNotADirectory(String, what: String)
    /// The restore target lies inside a vault directory, whose backups would then carry it.
    case targetInsideVault(target: String, vault: String)
    /// `latest` is ambiguous: the repository holds backups of several directories.
    case ambiguousLatest([String])
    /// A restored snapshot holds no vault directory (no `data/` with slot files).
    case notAVaultSnapshot(String)
    /// The snapshot name is not `latest` or a hexadecimal id.
    case invalidSnapshot(String)
    /// The repository has no snapshot by this name (or none at all, for `latest`).
    case noSnapshot(String)
    /// The backup password is kept nowhere this process can read it.
    case passwordUnavailable(String)
    /// The backup was stopped (the server shutting down, or the user).
    case cancelled

    public var description: String {
        switch self {
        case let .notConfigured(directory):
            return "no backup is set up for \(directory); run `obscura backup init REPO`"
        case let .alreadyConfigured(repository):
            return "this directory already backs up to \(repository); pass --replace to back up elsewhere from now on"
        case let .invalidRepository(why):
            return "invalid repository: \(why)"
        case .wrongPassword:
            return "wrong backup password: it does not open this repository"
        case let .noRepository(location):
            return "no restic repository at \(location); `obscura backup init` makes one"
        case .resticMissing:
            return "restic is not installed (Debian: apt-get install restic)"
        case let .repositoryLocked(detail):
            return "the backup repository is locked by another restic process (\(detail)); try again when it is done"
        case let .repositoryFull(detail):
            return "the backup repository has no space left (\(detail))"
        case let .unreachable(repository, detail):
            return "the backup repository \(repository) did not answer (\(detail))"
        case let .resticFailed(command, detail):
            return "restic \(command) failed: \(detail)"
        case let .incomplete(paths):
            let shown = paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? ", ..." : "")
            return "the backup is incomplete: \(paths.count) file(s) could not be read (\(shown))"
        case let .targetNotEmpty(path):
            return "\(path) exists and is not empty; a restore never writes over a directory, so name a new one"
        case let .targetNotADirectory(path, what):
            return "\(path) is \(what); a restore makes a new directory there, so name a path that does not exist (or an empty directory)"
        case let .targetInsideVault(target, vault):
            return "\(target) lies inside the vault directory \(vault); restore somewhere outside it"
        case let .ambiguousLatest(paths):
            return "the repository holds backups of several directories (\(paths.joined(separator: ", "))); name a snapshot id from `obscura backup list`"
        case let .notAVaultSnapshot(snapshot):
            return "snapshot \(snapshot) holds no vault directory (no data/ with slot files)"
        case let .invalidSnapshot(name):
            return "invalid snapshot \(name): give `latest` or a snapshot id from `obscura backup list`"
        case let .noSnapshot(name):
            return "the repository has no snapshot \(name); `obscura backup list` shows them"
        case let .passwordUnavailable(why):
            return "the backup password is unavailable: \(why)"
        case .cancelled:
            return "cancelled"
        }
    }
}
