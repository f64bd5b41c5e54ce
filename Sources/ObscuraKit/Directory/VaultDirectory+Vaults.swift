import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraPages
import ObscuraStore
import ObscuraKeys

extension VaultDirectory {
    /// Opens the vault `password` unlocks, with the fixed sweep: every slot is tried,
    /// in parallel, with no early return.
    ///
    /// - Throws: ``VaultError/wrongPassword`` when no slot opens; the error and the time
    ///   taken are the same whichever slots exist.
    ///
    /// The vault then runs its unlock chores (``Vault/runUnlockChores(now:)``: drops,
    /// expired trash, ends) unless `runningChores` is false: the gallery runs them on its
    /// one shared instance, and an audit must only observe the directory.
    public func unlock(password: SecureBytes, runningChores: Bool = true) throws -> Vault {
        let vault = try openUnlocked(password: password)
        if runningChores { vault.runUnlockChores() }
        return vault
    }

    private func openUnlocked(password: SecureBytes) throws -> Vault {
        try requireContainer()
        let (names, headers) = try readHeaders()
        let matches = UnlockSweep.run(headers: headers, passwords: [password])[0]
        guard let index = matches.keys.min(), let key = matches[index], let header = headers[index] else {
            logger.debug("unlock sweep opened no slot", metadata: ["slots": "\(names.count)"])
            throw VaultError.wrongPassword
        }
        logger.debug("unlock sweep opened a vault", metadata: ["slots": "\(names.count)"])
        if !header.isPaged {
            // A version 3 catalog in a container becomes paged before its vault opens
            // (§9.7): a vault is only ever open with a paged catalog. A conversion that
            // fails leaves the slot as it was, fails the unlock, and is tried again by the
            // next one.
            try convert([.init(name: names[index], header: header, key: key, password: password)])
            return try openVault(name: names[index], header: try SlotHeader.decode(store.readHeader(names[index])), key: key)
        }
        return try openVault(name: names[index], header: header, key: key)
    }

    /// Throws unless the directory is an initialised version 4 container: vaults are
    /// opened and made in containers only (a version 3 directory is migrated first).
    func requireContainer() throws {
        try requireInitialized()
        guard store.isContainer else { throw VaultError.version3Directory }
    }

    /// Turns a decoy into a new vault for `password`.
    ///
    /// Decoys are found by sweeping every slot with the device credential; a slot that
    /// does not open with it is a real vault (or damaged) and is never touched.
    ///
    /// The new vault takes the KDF suite and cost of the decoy it replaces (an added slot,
    /// those the others share): every slot of a directory has one, so a vault made after
    /// the default was raised is not told apart by its header.
    ///
    /// - Parameters:
    ///   - kdf: the KDF and cost, used only when no slot header can be read to take them
    ///     from; the CLI and server pass the default.
    ///   - allowExtendedSlots: add a slot when no decoy is free (an 11th vault and
    ///     beyond), which makes the number of vaults visible.
    public func createVault(
        password: SecureBytes, kdf: KDFParameters = .vault, allowExtendedSlots: Bool = false
    ) throws -> Vault {
        try requireInitialized()
        // Two creations at once must not pick the same decoy, nor a creation and a password
        // change take the same password.
        return try credentialLock.withLock {
            try store.serialized { try createVaultLocked(password: password, kdf: kdf, allowExtendedSlots: allowExtendedSlots) }
        }
    }

    /// ``createVault(password:kdf:allowExtendedSlots:)`` with PBKDF2 at `iterations` as the
    /// fallback (tests pass small counts).
    public func createVault(password: SecureBytes, iterations: Int, allowExtendedSlots: Bool = false) throws -> Vault {
        try createVault(password: password, kdf: .pbkdf2(iterations: iterations), allowExtendedSlots: allowExtendedSlots)
    }

    /// The KDF and cost most slots share (all of them, in a directory this code made), or
    /// nil when no header can be read: what a new vault here will take.
    public func sharedKDF() throws -> KDFParameters? {
        try requireInitialized()
        return Self.sharedKDF(try readHeaders().headers)
    }

    private func createVaultLocked(password: SecureBytes, kdf: KDFParameters, allowExtendedSlots: Bool) throws -> Vault {
        try requireContainer()
        let credential = DeviceSecretStore.credential(from: try deviceSecrets.load())
        let (names, headers) = try readHeaders()
        let sweep = UnlockSweep.run(headers: headers, passwords: [credential, password])
        guard sweep[1].isEmpty else { throw VaultError.passwordInUse }
        let decoys = sweep[0].keys.sorted()
        let chosen = decoys.isEmpty ? nil : decoys[random.uniform(in: 0..<decoys.count)]
        let cost = chosen.flatMap { headers[$0] }.map(\.kdf) ?? Self.sharedKDF(headers) ?? kdf

        let name: String
        let key = SecureBytes(randomCount: AESGCM.keySize, using: random)
        if let index = chosen {
            name = names[index]
            let slot = try PagedSlot.build(password: password, kdf: cost, key: key, using: random)
            // Version 3 decoys left beside the new vault become paged in the same commit
            // (§9.7), so that a version 3 slot never marks this vault's age.
            var replace = try pagedDecoys(replacing: decoys.filter { $0 != index && headers[$0]?.isPaged == false }
                .map { (names[$0], headers[$0]!.kdf) }, credential: credential)
            if replace.isEmpty, headers[index]?.isPaged == true, store.holdsBlocks {
                // A paged decoy becomes the vault in one block commit, which writes the same
                // bucket in every slot as any change does (§8.12): the slot's other blocks
                // hold the decoy's pages, under a key nobody has.
                try store.commitBlocks(name, slot.blocks, logicalCount: slot.logicalCount)
            } else {
                replace[name] = slot.stream(using: random)
                try store.commit(.init(replace: replace, innerFormat: .blocks))
            }
        } else {
            guard allowExtendedSlots else { throw VaultError.noFreeSlot }
            let contents = try buildSlots(count: 1, password: password, kdf: cost, key: key)[0].contents
            try store.commit(.init(add: [contents], innerFormat: .blocks))
            guard let added = try store.names().first(where: { !names.contains($0) }) else {
                throw VaultError.corrupt("new slot missing after write")
            }
            name = added
        }
        logger.debug("created vault")
        // Opened from the file just written, with the MEK it was sealed with: no second derivation.
        return try openVault(name: name, header: try SlotHeader.decode(store.readHeader(name)), key: key)
    }

    /// The KDF and cost most slots have (all of them, in a directory this code made); a
    /// tie goes to the higher suite, then the higher cost word.
    static func sharedKDF(_ headers: [SlotHeader?]) -> KDFParameters? {
        let counts = Dictionary(grouping: headers.compactMap { $0?.kdf }, by: { $0 }).mapValues(\.count)
        return counts.max { ($0.value, $0.key.suite, $0.key.word) < ($1.value, $1.key.suite, $1.key.word) }?.key
    }

    /// Erases `vault`: its slot becomes a fresh decoy, a cover commit overwrites the free
    /// space that held its blocks, and the media its catalog names (in every folder,
    /// locked or not) is deleted. The vault is locked. When the cover failed (also after
    /// recovery), ``coverOwed`` says so.
    ///
    /// Waits for the vault's operations in progress, and those of every other session of
    /// the same slot, to finish first; it must not be called from inside one of them.
    public func destroy(_ vault: Vault) throws {
        // No operation of the vault, in this session or another of its slot, may commit
        // after the slot became a decoy. Others already locking or locked are skipped.
        let files = try Vault.whileDrained(vault, with: sessions.sessions(of: vault.slotName)) {
            try destroyDrained(vault)
        } stillTheirs: {
            // The commit may have replaced the slot before it failed: the sessions go on
            // only while the slot still holds the vault's header.
            (try? SlotHeader.decode(store.readHeader(vault.slotName))) == vault.header
        }
        // After the slot is gone: a crash before this leaves only unnamed files.
        for file in files { try pool.remove(file) }
        try pool.sync()
    }

    /// Whether the last cover commit failed, also after recovery: the free space may still
    /// hold a destroyed vault's blocks or a changed credential's old block 0 until the next
    /// whole commit (a password or passkey change, a destroy).
    public var coverOwed: Bool { store.coverOwed }

    /// Makes a drained vault's slot a decoy (or removes it); returns the pool files its
    /// catalog named.
    private func destroyDrained(_ vault: Vault) throws -> [String] {
        let files = try vault.catalog.allItems().flatMap { try pool.files(of: $0) }
        let credential = DeviceSecretStore.credential(from: try deviceSecrets.load())
        let kdf = vault.header.kdf
        try store.serialized {
            // Slot files stay: the slot becomes a fresh decoy, and a cover commit then
            // overwrites the free space that still holds the vault's blocks (§8.6).
            let decoy = try buildSlots(count: 1, password: credential, kdf: kdf)[0].contents
            try store.commit(.init(replace: [vault.slotName: decoy], innerFormat: .blocks))
            do {
                try store.cover()
            } catch {
                // The vault is gone already; the caller reports the owed cover
                // (``coverOwed``), as after a credential change.
                logger.warning("vault destroyed; the free space still holds its blocks until a later whole commit")
            }
        }
        return files
    }

    /// Opens the slot `name` after its MEK was unwrapped.
    func openVault(name: String, header: SlotHeader, key: SecureBytes) throws -> Vault {
        let vault = Vault(directory: self, slotName: name, header: header, key: key, catalog: try catalog(of: name, header: header, key: key))
        sessions.add(vault)
        return vault
    }

    /// The catalog of slot `name` under its MEK: paged (its root only is read, and it can
    /// reopen itself from the slot), or the version 3 image, opened whole. Damage in
    /// either is ``VaultError/corrupt(_:)``.
    private func catalog(of name: String, header: SlotHeader, key: SecureBytes) throws -> Catalog {
        do {
            if header.isPaged {
                let paged = try openPaged(name, key: key)
                return try Catalog.paged(
                    paged, reopen: { [store, random] in try Self.openPaged(name, key: key, store: store, random: random) },
                    headerFields: passkeyFields(slotName: name, mek: key))
            }
            return try Catalog.restore(image: try SlotCodec.openCatalog(contents: try store.read(name), header: header, key: key))
        } catch let error as PagesError {
            throw VaultError.corrupt(error.description)
        } catch let error as SlotError {
            throw VaultError.corrupt(error.description)
        }
    }

    /// The item and folder counts of slot `name` if `password` opens it, nil if it does
    /// not; throws when the password opens it but its catalog does not (audits: a crash
    /// image must leave every slot whole). Either slot version; nothing is converted.
    package func slotCounts(_ name: String, password: SecureBytes) throws -> (items: Int, folders: Int)? {
        let header = try SlotHeader.decode(store.readHeader(name))
        guard let key = try? SlotCodec.unwrapKey(header: header, password: password) else { return nil }
        let catalog = try catalog(of: name, header: header, key: key)
        defer { catalog.close() }
        return try catalog.counts()
    }

    /// The paged catalog of slot `name`: its root only is read here (docs/FORMAT.md §9.6).
    func openPaged(_ name: String, key: SecureBytes) throws -> PagedCatalog {
        try Self.openPaged(name, key: key, store: store, random: random)
    }

    private static func openPaged(_ name: String, key: SecureBytes, store: SlotStore, random: RandomSource) throws -> PagedCatalog {
        try PagedCatalog.open(store: store.pageStore(name), mek: key, headerBlock: try store.readBlock(name, 0), random: random)
    }
}
