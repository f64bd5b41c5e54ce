import Foundation
import ObscuraCrypto
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import ObscuraStore
#endif

/// A key kept in a plain file for a machine without a keyring (`--outer-key-file`,
/// `--decoy-secret-file`; docs/FORMAT.md §4.3): the key's text, or its 32 raw bytes.
///
/// The file must be a regular file of the user's own, reached without a symbolic link,
/// that no one else can read or write (mode 0600 or stricter); anything else is refused
/// rather than read, since reading it would already have used a key that others may hold
/// or have chosen.
public enum KeyFile {
    /// The most bytes a key file may hold: a text with generous spacing, not a document.
    static let sizeLimit = 4096

    /// Reads the key of `kind` from the file at `path`.
    public static func read(_ path: String, kind: KeyKind) throws -> SecureBytes {
        guard let contents = try readSecurely(path) else { throw KeyError.keyFileInvalid(path: path, wanted: kind, holds: nil) }
        let count = contents.count
        // 32 bytes are the raw key: no text is that short.
        if count == KeyKind.byteCount { return contents }
        do {
            return try KeyText.decode(contents, kind: kind)
        } catch KeyError.invalidKeyText {
            let other: KeyKind = kind == .outer ? .decoy : .outer
            let holds = (try? KeyText.decode(contents, kind: other)) != nil ? other : nil
            throw KeyError.keyFileInvalid(path: path, wanted: kind, holds: holds)
        }
    }

    /// The bytes of the file at `path`, or nil when it holds more than ``sizeLimit``,
    /// read only when the file passes the checks on the type (opened without following a
    /// link; a regular file of this user's, mode 0600 or stricter). The backup password
    /// file (docs/BACKUP.md) is read through it too.
    package static func readSecurely(_ path: String) throws -> SecureBytes? {
        // Not through a symbolic link: the link's target may be anyone's file.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link; name the file itself" : String(cString: strerror(errno))
            throw KeyError.keyFileUnreadable(path: path, reason: reason)
        }
        defer { close(fd) }
        // The mode of the file actually opened, not of whatever the path names later.
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw KeyError.keyFileUnreadable(path: path, reason: String(cString: strerror(errno))) }
        guard st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o077 == 0 else { throw KeyError.keyFilePermissions(path: path) }
        guard st.st_uid == geteuid() else { throw KeyError.keyFileOwner(path: path) }

        let buffer = SecureBytes(count: sizeLimit + 1)
        var count = 0
        try buffer.withUnsafeMutableBytes { bytes in
            while count < bytes.count {
                let n = systemRead(fd, bytes.baseAddress! + count, bytes.count - count)
                if n == 0 { break }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw KeyError.keyFileUnreadable(path: path, reason: String(cString: strerror(errno)))
                }
                count += n
            }
        }
        guard count <= sizeLimit else { return nil }
        return buffer.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Creates a key file at `path` holding a new random key's text, mode 0600, and
    /// returns the key; returns nil, touching nothing, when `path` already exists. The
    /// file is created exclusively and synced, so two callers never both succeed and a
    /// crash leaves no half-written key behind a name that says it is whole.
    public static func createIfMissing(_ path: String, kind: KeyKind, using random: RandomSource) throws -> SecureBytes? {
        let key = SecureBytes(randomCount: KeyKind.byteCount, using: random)
        do {
            try create(path, key: key, kind: kind)
        } catch StorageError.io(_, EEXIST) {
            return nil
        }
        return key
    }

    /// Writes `key`'s text to `path` (mode 0600), replacing any file there only once the
    /// new one is durable.
    public static func write(_ key: SecureBytes, kind: KeyKind, to path: String) throws {
        try FileIO.replaceDurably(path) { try writeText(key, kind: kind, to: $0, path: path) }
    }

    /// Creates `path` exclusively (mode 0600) holding `key`'s text and a newline, synced
    /// with its directory entry: `init` and `migrate` write slots under the key next,
    /// and a power cut must not keep the slots and lose the only key that opens them.
    private static func create(_ path: String, key: SecureBytes, kind: KeyKind) throws {
        try FileIO.createDurably(path) { try writeText(key, kind: kind, to: $0, path: path) }
        try FileIO.syncParentDirectory(of: path)
    }

    /// Writes `key`'s text and a newline to `fd`.
    private static func writeText(_ key: SecureBytes, kind: KeyKind, to fd: Int32, path: String) throws {
        try KeyText.encode(key, kind: kind).withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
        try FileIO.writeAll(fd, [UInt8(ascii: "\n")], path: path)
    }

    /// Where `keys rotate outer` keeps the new outer key until the rotation is complete
    /// (docs/FORMAT.md §8.11): beside the key file, read before it while it exists.
    public static func rotationPath(for path: String) -> String { path + ".new" }

    /// Writes `key`'s text to a new file at `path`, or at `path-2`, `path-3`, … when that
    /// exists (created exclusively, mode 0600, synced with its directory); returns the
    /// path used. Never replaces a file: each may hold a key something still needs.
    public static func createUnique(_ key: SecureBytes, kind: KeyKind, at path: String) throws -> String {
        for n in 1...1000 {
            let candidate = n == 1 ? path : path + "-\(n)"
            do {
                try create(candidate, key: key, kind: kind)
                return candidate
            } catch StorageError.io(_, EEXIST) {
                continue
            }
        }
        throw StorageError.io(path, EEXIST)
    }

    /// Ends a rotation: the new key's file replaces the key file, durably.
    public static func finishRotation(of path: String) throws {
        try FileIO.rename(rotationPath(for: path), path)
        try FileIO.syncParentDirectory(of: path)
    }

    /// The warning to print whenever a key was read from a file.
    public static func warning(path: String, kind: KeyKind) -> String {
        let consequence = switch kind {
        case .outer: "anyone who can read it, or a backup of it, can strip the outer layer of the directory's slots"
        case .decoy: "anyone who can read it, or a backup of it, can tell decoys from real vaults"
        }
        return "warning: the \(kind.name) lives in the plain file \(path); \(consequence). Prefer the OS keyring where there is one."
    }
}

#if canImport(Darwin)
private let systemRead = Darwin.read
#else
private let systemRead = Glibc.read
#endif
