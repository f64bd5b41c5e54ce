import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// Version 3 directories (docs/FORMAT.md §3) for the tests of what reads them: the
/// migration into the container (§8.10), the conversion of version 3 catalogs (§9.7) and
/// the version 3 reader. The product opens and writes vaults in version 4 containers
/// only, so a version 3 directory is made the one way left: a container built with the
/// product's own calls is written back as version 3 slot files. Each vault keeps its MEK,
/// KDF and catalog (imaged whole), so its media, left in the pool as the container wrote
/// it, stays readable; every other slot becomes a fresh decoy under the decoy secret, as
/// version 3 made them (§3.3, §4.1).
package enum Version3Fixture {
    /// A new version 3 directory at `path` with a vault for each of `passwords` (PBKDF2 at
    /// `iterations`, as its decoys), each filled by `fill` first: made as a container,
    /// then written back by ``downgrade(path:secrets:outerKey:passwords:random:)``.
    package static func make(
        path: String, secrets: any DecoySecretSource, iterations: Int, passwords: [SecureBytes],
        fill: (Int, Vault) throws -> Void = { _, _ in }
    ) throws {
        let outerKey = SecureBytes(randomCount: AESGCM.keySize)
        do {
            let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: outerKey, create: true)
            try directory.initialize(iterations: iterations)
            for (n, password) in passwords.enumerated() {
                let vault = try directory.createVault(password: password, iterations: iterations)
                defer { vault.lock() }
                try fill(n, vault)
            }
        }
        try downgrade(path: path, secrets: secrets, outerKey: outerKey, passwords: passwords)
    }

    /// Rewrites the container at `path`, made under `outerKey`, as a version 3 directory
    /// holding the vaults `passwords` open and decoys in every other slot. The vaults'
    /// catalogs are imaged as they are: a test may change one first (an older schema, a
    /// plain content hash) to stand for what an older version wrote.
    package static func downgrade(
        path: String, secrets: any DecoySecretSource, outerKey: SecureBytes, passwords: [SecureBytes],
        random: RandomSource = SystemRandom()
    ) throws {
        var slots: [String: [UInt8]] = [:]
        do {
            let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: outerKey)
            let kdf = try directory.sharedKDF() ?? .vault
            for password in passwords {
                let vault = try directory.unlock(password: password, runningChores: false)
                defer { vault.lock() }
                slots[vault.slotName] = try SlotCodec.seal(
                    password: password, kdf: vault.kdf, key: vault.key, catalog: try vault.catalog.image(), using: random)
            }
            let credential = DeviceSecretStore.credential(from: try secrets.load())
            for name in try directory.slotNames() where slots[name] == nil {
                slots[name] = try SlotCodec.seal(
                    password: credential, kdf: kdf, key: SecureBytes(randomCount: AESGCM.keySize, using: random),
                    catalog: try Vault.emptyCatalogImage(using: random), using: random)
            }
        }
        // As a version 3 commit leaves them (§3.4): every slot in one size tier, padded
        // with random bytes; each vault keeps its slot's name.
        let data = path + "/data"
        for name in try FileManager.default.contentsOfDirectory(atPath: data) where slots[name] == nil {
            try FileManager.default.removeItem(atPath: data + "/" + name)
        }
        let tier = SlotSizing.tier(fitting: slots.values.map(\.count).max() ?? 0, atLeast: 0)
        for (name, bytes) in slots {
            let padding = random.bytes(SlotSizing.drawSize(inTier: tier, using: random) - bytes.count)
            let file = data + "/" + name
            try? FileManager.default.removeItem(atPath: file)
            guard FileManager.default.createFile(atPath: file, contents: Data(bytes + padding), attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
        }
    }
}
