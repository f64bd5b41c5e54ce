import Foundation
import ObscuraCrypto

/// An unlocked vault: its MEK, its in-memory catalog, and the slot it persists to.
///
/// ``lock()`` zeroes the MEK and closes the catalog; every later operation throws
/// ``VaultError/locked``.
public final class Vault: @unchecked Sendable {
    // @unchecked: the catalog serialises its own access, `stateLock` guards the
    // session's mutable sets and `locked`, and `writeLock` orders everything that
    // writes the slot or the key (the key is only written by `lock()`).
    /// The directory the vault lives in.
    public let directory: VaultDirectory
    /// The catalog, readable and writable while unlocked.
    public let catalog: Catalog
    let slotName: String
    /// Written by a password change, and by ``resynchronize()`` after a failed write.
    var header: SlotHeader
    let key: SecureBytes
    /// Whether ``lock()`` was called.
    public var isLocked: Bool { stateLock.withLock { locked } }
    private var locked = false
    /// Held by persist, password change and lock, so that a lock never zeroes the MEK
    /// under a persist still sealing with it (found by scripts/tsan: the slot was left
    /// with an envelope sealed under a half-zeroed key, and the vault lost), and so that
    /// concurrent persists reach the disk in the order they read the catalog. Recursive:
    /// a failed persist may lock the vault (``resynchronize()``).
    let writeLock = NSRecursiveLock()
    /// Keys of the protected folders unlocked in this session, by folder id.
    var folderKeys: [String: SecureBytes] = [:]
    /// Nonce prefixes drawn this session and not yet in the catalog.
    var reservedPrefixes: Set<[UInt8]> = []
    /// Guards `folderKeys` and `reservedPrefixes` during parallel imports.
    let stateLock = NSLock()
    /// Viewer previews of this session, cleared at lock.
    public let previews = PreviewCache()

    init(directory: VaultDirectory, slotName: String, header: SlotHeader, key: SecureBytes, catalog: Catalog) {
        self.directory = directory
        self.slotName = slotName
        self.header = header
        self.key = key
        self.catalog = catalog
    }

    deinit { lock() }

    /// The PBKDF2 iteration count of this vault's header.
    public var iterations: Int { Int(header.iterations) }

    /// Seals the catalog into the slot. Every slot of the directory is rewritten so that
    /// the write does not single this one out (see ``SlotStore``).
    ///
    /// If the write fails, the session is set back to what the slot holds then (see
    /// ``resynchronize()``), so that a later persist never writes the failed change.
    public func persist() throws {
        try writeLock.withLock { try persistLocked() }
    }

    private func persistLocked() throws {
        try requireUnlocked()
        let recorded = try recordReservedPrefixes()
        do {
            var image = try catalog.image()
            defer { image.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            let contents = try SlotCodec.resealCatalog(header: header, key: key, catalog: image, using: directory.random)
            try directory.store.commit(.init(replace: [slotName: contents]))
        } catch {
            resynchronize()
            // Prefixes stay reserved: a file sealed with one may survive on disk.
            stateLock.withLock { reservedPrefixes.formUnion(recorded) }
            throw error
        }
    }

    /// Re-wraps the MEK under `newPassword` with a new salt; the sealed catalog bytes
    /// stay exactly as they were and no media is re-encrypted.
    ///
    /// - Throws: ``VaultError/passwordInUse`` when `newPassword` opens another vault here.
    public func changePassword(to newPassword: SecureBytes, iterations: Int? = nil) throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        try requireUnlocked()
        let (names, headers) = try directory.readHeaders()
        let others = UnlockSweep.run(headers: headers, passwords: [newPassword])[0]
        guard others.keys.allSatisfy({ names[$0] == slotName }) else { throw VaultError.passwordInUse }
        let contents = try SlotCodec.rewrap(
            contents: try directory.store.read(slotName), key: key, newPassword: newPassword,
            iterations: iterations ?? self.iterations, using: directory.random)
        do {
            try directory.store.commit(.init(replace: [slotName: contents]))
        } catch {
            // The commit may have replaced the slot before it failed: take its header as it is.
            resynchronize()
            throw error
        }
        header = try SlotHeader.decode(contents)
    }

    /// Zeroes the MEK, every folder key and the preview cache's key, empties the cache,
    /// and closes the catalog.
    public func lock() {
        writeLock.withLock {
            // Marked first, so that operations starting from here fail at once.
            let wasLocked = stateLock.withLock { defer { locked = true }; return locked }
            guard !wasLocked else { return }
            lockFolders()
            previews.clear()
            key.zeroize()
            catalog.close()
        }
    }

    func requireUnlocked() throws {
        guard !isLocked else { throw VaultError.locked }
    }
}
