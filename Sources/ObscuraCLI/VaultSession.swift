import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit

/// Opening a vault for one command: the directory, the vault password, and the passwords
/// of any protected folders the command names, read in that order.
struct VaultSession {
    let directory: VaultDirectory
    let vault: Vault
    let passwords: PasswordOptions

    init(global: GlobalOptions, passwords: PasswordOptions) throws {
        directory = try global.openLiveDirectory()
        vault = try directory.unlock(password: try passwords.existing())
        self.passwords = passwords
        try Self.tell(vault.unlockChores)
    }

    /// Says what the unlock's chores did (the gallery's unlock runs the same ones), on
    /// stderr so that a command's own output (a listing, a file's bytes) stays clean. An
    /// end that could not be enforced is the command's failure, before it shows or
    /// changes anything.
    static func tell(_ chores: UnlockChores) throws {
        if let drops = chores.drops.summary { FileHandle.standardError.write(Data((drops + "\n").utf8)) }
        if chores.expiredTrash > 0 {
            Terminal.note("\(chores.expiredTrash) item\(chores.expiredTrash == 1 ? "" : "s") had been in the trash for 30 days and \(chores.expiredTrash == 1 ? "was" : "were") deleted for good.")
        }
        if chores.ended > 0 {
            Terminal.note("\(chores.ended) item\(chores.ended == 1 ? "" : "s") reached \(chores.ended == 1 ? "its" : "their") end and \(chores.ended == 1 ? "was" : "were") deleted for good.")
        }
        if let why = chores.failed[.ends] { throw CLIError("could not delete the items whose end came: \(why)") }
    }

    /// After a password or passkey change: a warning when the cover commit after it
    /// failed, so the free space may still hold the old credentials (review PR6).
    static func tellCover(_ vault: Vault) {
        guard vault.credentialCoverOwed else { return }
        Terminal.note("""
            The change is saved, but overwriting the old copy of the vault's key block failed twice \
            (is the disk full or failing?). Until a whole rewrite succeeds, a copy of this directory \
            holds the old password's key block and any removed passkey's. Once the disk is fixed, \
            run `obscura passwd` again (the same password will do): it rewrites the free space.
            """)
    }

    /// The folder at `path`, unlocked with its password (read next) when protected.
    func folder(_ path: String?) throws -> FolderRecord? {
        guard let path else { return nil }
        let folder = try vault.folder(at: path)
        if folder.isProtected && !vault.isOpen(folder) {
            try vault.unlockFolder(folder, password: try passwords.existing("Password for folder \(path): "))
        }
        return folder
    }
}

/// Human-readable sizes.
enum Format {
    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func date(_ seconds: Double?) -> String? {
        guard let seconds else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}

/// A one-line progress bar on standard error, drawn only on a terminal.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: `update` is called under the importer's lock, one caller at a time.
    private let enabled = isatty(2) == 1
    private var last: UInt64 = 0

    func update(label: String, done: Int64, total: Int64, detail: String) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - last > 100_000_000 || done == total else { return }
        last = now
        let width = 24
        let filled = total > 0 ? Int(Double(width) * Double(done) / Double(total)) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(detail)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
