import Foundation
import ObscuraCrashSupport
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// One kill-loop workspace: a vault directory (a version 4 container) with its outer key
/// file and device secret, an export folder and the files the loop's writes read, all
/// under one root.
struct Workspace {
    let root: String

    var vault: String { root + "/vault" }
    var exportPath: String { root + "/out/vault.obscura" }
    var secrets: DeviceSecretStore { DeviceSecretStore(path: root + "/config/device-secret") }
    /// The outer key file of the directory.
    var outerKeyFile: String { root + "/config/outer.key" }

    /// The directory's outer key, made by the first call.
    func outerKey() throws -> SecureBytes {
        try KeyFile.createIfMissing(outerKeyFile, kind: .outer, using: SystemRandom()) ?? KeyFile.read(outerKeyFile, kind: .outer)
    }
    /// The state the last check found (the "old" state of the next write).
    var lastImage: String { root + "/last.json" }
    /// The states before and after the write in progress.
    var expected: String { root + "/expected.json" }

    /// PBKDF2 rounds of every slot and folder: small, so that a run takes a fraction of a second.
    static let iterations = 1000
    /// Real vaults by label, with their candidate passwords ("a" changes between two).
    static let labels: [(label: String, passwords: [SecureBytes])] = [
        ("a", [password("a pw"), password("a new pw")]), ("b", [password("b pw")]),
        ("imported", [password("imported pw")]), ("c", [password("c pw")]),
    ]
    static let folderPassword = password("folder pw")
    static let exportPassword = password("export pw")

    static func password(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

    /// Opens the directory (taking its lock, sweeping temporaries).
    func open() throws -> VaultDirectory { try VaultDirectory(path: vault, deviceSecrets: secrets, outerKey: outerKey()) }

    /// Audits the directory and the export.
    func audit() throws -> CrashImage {
        try CrashImage.audit(
            vault: vault, exportPath: exportPath, secrets: secrets, labels: Self.labels,
            folderPassword: Self.folderPassword, exportPassword: Self.exportPassword, outerKey: outerKey())
    }

    /// A copy of this workspace's vault directory and export folder at `path`, sharing
    /// the device secret and source files.
    func shadow(at path: String) throws -> Workspace {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for sub in ["vault", "out", "config", "src"] {
            try FileManager.default.copyItem(atPath: root + "/" + sub, toPath: path + "/" + sub)
        }
        return Workspace(root: path)
    }

    /// Vault "a", whichever of its passwords it has now.
    func vaultA(_ directory: VaultDirectory) throws -> Vault {
        do {
            return try directory.unlock(password: Self.labels[0].passwords[0])
        } catch VaultError.wrongPassword {
            return try directory.unlock(password: Self.labels[0].passwords[1])
        }
    }

    static func write<T: Encodable>(_ value: T, to path: String) throws {
        try JSONEncoder().encode(value).write(to: URL(fileURLWithPath: path))
    }

    static func read<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
