import Foundation
import ObscuraCrypto
import ObscuraStore
import ObscuraKeys

/// The password of a backup repository (docs/BACKUP.md, "The backup password"):
/// generated, 100 bits as 20 Crockford base32 symbols shown in groups of five (the
/// export password's generator, docs/FORMAT.md §7.2), and given to restic in its
/// canonical form: the 20 symbols in upper case, without dashes.
public enum BackupPassword {
    /// A new password, in the form shown to people: `8FD93-EYWZR-GB7HX-QAVNS`.
    public static func generate(using random: RandomSource = SystemRandom()) -> SecureBytes {
        ExportFormat.generatePassword(using: random)
    }

    /// The bytes restic gets for a typed or stored password: a generated one typed in
    /// any case, with or without dashes and spaces, O for 0 and I or L for 1, becomes its
    /// canonical form; anything else (a repository made by restic itself) stays as typed,
    /// less surrounding white space.
    public static func canonical(_ typed: SecureBytes) -> SecureBytes {
        let trimmed = typed.withUnsafeBytes { raw -> SecureBytes in
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            let start = raw.firstIndex { !isSpace($0) } ?? raw.endIndex
            let end = (raw.lastIndex { !isSpace($0) }).map { $0 + 1 } ?? start
            return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[start..<max(start, end)]))
        }
        return ExportFormat.canonicalPassword(trimmed)
    }

    /// Creates `path` exclusively (mode 0600, synced) holding `password` and a newline.
    ///
    /// - Throws: ``StorageError`` when the file exists (a password file is never
    ///   replaced: it may open another repository) or cannot be written.
    public static func createFile(_ path: String, password: SecureBytes) throws {
        try FileIO.createDurably(path) { fd in
            try password.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
            try FileIO.writeAll(fd, [UInt8(ascii: "\n")], path: path)
        }
        try FileIO.syncParentDirectory(of: path)
    }

    /// The password kept in the file at `path`, canonical. The file must pass the key
    /// files' checks (``KeyFile``: this user's, mode 0600 or stricter, no link).
    public static func read(_ path: String) throws -> SecureBytes {
        guard let contents = try KeyFile.readSecurely(path), contents.count > 0 else {
            throw BackupError.passwordUnavailable("\(path) holds no backup password")
        }
        let password = canonical(contents)
        guard password.count > 0 else { throw BackupError.passwordUnavailable("\(path) holds no backup password") }
        return password
    }

    /// The warning to print whenever the password was read from a file.
    public static func fileWarning(path: String) -> String {
        "warning: the backup password lives in the plain file \(path); anyone who can read it and reach the repository can take a copy of the vault directory (still sealed under the outer key and the vault passwords). Prefer the OS keyring where there is one."
    }
}
