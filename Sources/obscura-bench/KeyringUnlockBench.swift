import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura-bench keyring-unlock [WORKDIR]`: what the outer key's keyring round trip adds
/// to opening a version 4 directory and unlocking a vault, at the production PBKDF2 count
/// (docs/FORMAT.md §4.4). Needs a Secret Service on the session bus (scripts/bench-keyring
/// starts gnome-keyring under dbus-run-session). Reference, in the same run: libsecret's
/// own `secret-tool lookup` of the same item, a process per lookup.
enum KeyringUnlockBench {
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 5

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-keyring-\(UUID())").path
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: work) } }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let keyring = SecretServiceKeyring()
        let key = SecureBytes(randomCount: KeyKind.byteCount)
        let item = try keyring.store(key, kind: .outer, confirmed: true)
        defer { try? keyring.delete(item, kind: .outer) }
        let secrets = DeviceSecretStore(path: work + "/config/device-secret")
        let path = work + "/vault"
        let password = SecureBytes(copying: Array("keyring bench".utf8))
        do {
            let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: key, create: true)
            try directory.initialize(outerKey: key)
            try directory.createVault(password: password).lock()
        }
        func time(_ body: () throws -> Void) throws -> Double {
            ContainerBench.median(try (0..<runs).map { _ in try ImportBench.seconds(body) })
        }
        let lookup = try time { _ = try keyring.candidates(.outer) }
        let reference = try time {
            try ImportBench.shell("/usr/bin/secret-tool", ["lookup", "id", item.rawValue])
        }
        let openGiven = try time { _ = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: key) }
        let openKeyring = try time {
            _ = try VaultDirectory.open(path: path, deviceSecrets: secrets, outerKeys: .keyring(keyring))
        }
        let unlockGiven = try time {
            try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: key).unlock(password: password).lock()
        }
        let unlockKeyring = try time {
            try VaultDirectory.open(path: path, deviceSecrets: secrets, outerKeys: .keyring(keyring)).unlock(password: password).lock()
        }
        print("keyring-unlock: 10 slots, PBKDF2 \(PasswordKDF.vaultIterations) rounds, median of \(runs)")
        print(String(format: "  keyring lookup, in process (libsecret)            %8.1f ms", lookup * 1000))
        print(String(format: "  reference: secret-tool lookup (a process each)    %8.1f ms", reference * 1000))
        print(String(format: "  open directory, key given                         %8.1f ms", openGiven * 1000))
        print(String(format: "  open directory, key from the keyring              %8.1f ms", openKeyring * 1000))
        print(String(format: "  open + unlock, key given                          %8.1f ms", unlockGiven * 1000))
        print(String(format: "  open + unlock, key from the keyring               %8.1f ms", unlockKeyring * 1000))
    }
}
