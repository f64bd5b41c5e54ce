import Foundation
import ObscuraCrypto
import ObscuraStore
import ObscuraKeys

/// Conversion of version 3 catalogs inside a container to paged catalogs
/// (docs/FORMAT.md §9.7): a vault's the first time its password is given, every decoy's
/// with the first vault's, several vaults' at once through `obscura migrate`.
extension VaultDirectory {
    /// A slot an unlock sweep opened: its name, header and MEK, and the password that opened it.
    struct OpenedSlot {
        let name: String
        let header: SlotHeader
        let key: SecureBytes
        let password: SecureBytes
    }

    /// Converts the version 3 catalogs of the container that `passwords` open to paged
    /// catalogs, with every version 3 decoy, in one commit. A password may open a vault
    /// that is paged already; it is left as it is.
    ///
    /// - Returns: how many vaults were converted.
    /// - Throws: ``VaultError/wrongPassword`` when one of `passwords` opens no slot, and
    ///   ``VaultError/outerKeyRequired`` when the directory is not a container.
    @discardableResult
    public func convertVaults(passwords: [SecureBytes]) throws -> Int {
        try requireInitialized()
        guard store.isContainer else { throw VaultError.outerKeyRequired }
        return try store.serialized {
            let (names, headers) = try readHeaders()
            let sweep = UnlockSweep.run(headers: headers, passwords: passwords)
            var opened = [OpenedSlot]()
            for (matches, password) in zip(sweep, passwords) {
                guard let index = matches.keys.min(), let key = matches[index], let header = headers[index] else {
                    throw VaultError.wrongPassword
                }
                if !header.isPaged {
                    opened.append(.init(name: names[index], header: header, key: key, password: password))
                }
            }
            try convert(opened)
            return opened.count
        }
    }

    /// Converts each of `vaults` (version 3 catalogs the sweep opened) and every version 3
    /// decoy to a paged slot, in one whole commit that switches the container to inner
    /// format 2 (§8.12). A decoy becomes a new paged decoy: it holds nothing to keep.
    /// Without the decoy secret, decoys wait for a later conversion.
    func convert(_ vaults: [OpenedSlot]) throws {
        try store.serialized {
            var replace = [String: [UInt8]]()
            for vault in vaults {
                let contents = try store.read(vault.name)
                // Another session may have converted it since its sweep.
                guard let onDisk = try? SlotHeader.decode(contents), !onDisk.isPaged else { continue }
                var image: [UInt8]
                do {
                    image = try SlotCodec.openCatalog(contents: contents, header: onDisk, key: vault.key)
                } catch let error as SlotError {
                    throw VaultError.corrupt(error.description)
                }
                defer { image.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
                let slot = try PagedSlot.build(
                    password: vault.password, kdf: onDisk.kdf, key: vault.key, image: image, using: random)
                replace[vault.name] = slot.stream(using: random)
            }
            let (credential, decoys) = try versionThreeDecoys()
            replace.merge(try pagedDecoys(replacing: decoys.filter { replace[$0.name] == nil }, credential: credential)) { old, _ in old }
            guard !replace.isEmpty else { return }
            try store.commit(.init(replace: replace, innerFormat: .blocks))
            // Not the slot count: less the vaults, it would count the decoys.
            logger.debug("converted catalogs to paged", metadata: ["vaults": "\(vaults.count)"])
        }
    }

    /// New paged decoys for the version 3 decoys `decoys`, each keeping its KDF and cost,
    /// as streams for a whole commit by slot name (``buildSlots(count:password:kdf:key:)``
    /// per cost, its derivations in parallel).
    func pagedDecoys(replacing decoys: [(name: String, kdf: KDFParameters)], credential: SecureBytes) throws -> [String: [UInt8]] {
        var streams = [String: [UInt8]]()
        for (kdf, group) in Dictionary(grouping: decoys, by: \.kdf) {
            let built = try buildSlots(count: group.count, password: credential, kdf: kdf)
            for (decoy, slot) in zip(group, built) { streams[decoy.name] = slot.contents }
        }
        return streams
    }

    /// The version 3 slots that open with the decoy credential, with their KDFs and
    /// costs; none when the decoy secret cannot be loaded.
    private func versionThreeDecoys() throws -> (credential: SecureBytes, decoys: [(name: String, kdf: KDFParameters)]) {
        let (names, headers) = try readHeaders()
        let unconverted = headers.map { $0?.isPaged == false ? $0 : nil }
        guard unconverted.contains(where: { $0 != nil }), let secret = try? deviceSecrets.load() else {
            if unconverted.contains(where: { $0 != nil }) {
                logger.warning("decoy secret unavailable: decoys keep their version 3 catalogs until a later conversion")
            }
            return (SecureBytes(count: 0), [])
        }
        let credential = DeviceSecretStore.credential(from: secret)
        let decoys = UnlockSweep.run(headers: unconverted, passwords: [credential])[0].keys.sorted().map {
            (names[$0], unconverted[$0]!.kdf)
        }
        return (credential, decoys)
    }
}
