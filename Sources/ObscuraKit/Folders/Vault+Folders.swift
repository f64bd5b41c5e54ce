import Foundation
import ObscuraCatalog
import ObscuraCrypto

/// Folders, nested by path ("Trips/2024"), optionally protected by a password
/// (docs/FORMAT.md §3.3, §6.4).
extension Vault {
    /// Every folder, ordered by path.
    public func folders() throws -> [FolderRecord] {
        return try operation {
            let all = try catalog.folders()
            return all.sorted { folderPath($0, in: all) < folderPath($1, in: all) }
        }
    }

    /// The folder at `path` ("Trips/2024"). Throws ``VaultError/noSuchFolder(_:)``.
    public func folder(at path: String) throws -> FolderRecord {
        let all = try catalog.folders()
        guard let folder = all.first(where: { folderPath($0, in: all) == Self.normalized(path) }) else {
            throw VaultError.noSuchFolder(path)
        }
        return folder
    }

    /// The path of `folder`, its ancestors' names joined with "/".
    public func folderPath(_ folder: FolderRecord) throws -> String {
        folderPath(folder, in: try catalog.folders())
    }

    func folderPath(_ folder: FolderRecord, in all: [FolderRecord]) -> String {
        var names = [folder.name]
        var parent = folder.parentId
        while let id = parent, let p = all.first(where: { $0.id == id }), names.count <= all.count {
            names.insert(p.name, at: 0)
            parent = p.parentId
        }
        return names.joined(separator: "/")
    }

    /// ``createFolder(_:password:kdf:)`` with PBKDF2 at `iterations` (tests pass small counts).
    @discardableResult
    public func createFolder(_ path: String, password: SecureBytes?, iterations: Int) throws -> FolderRecord {
        try createFolder(path, password: password, kdf: .pbkdf2(iterations: iterations))
    }

    /// Creates the folder `path` and, as `mkdir -p` does, the parents it lacks (issue 40,
    /// point 17: "Trips/2024" failed unless "Trips" existed). With `password`, the folder
    /// is protected: a random folder key is wrapped under `kdf`(password) and every item
    /// placed in it gets a second layer under that key; the parents made for it are not.
    /// A protected folder holds no folders, so no path goes through one. Persists the
    /// catalog once, with every folder made.
    @discardableResult
    public func createFolder(
        _ path: String, password: SecureBytes? = nil, kdf: KDFParameters = .folder
    ) throws -> FolderRecord {
        return try operation {
            let parts = try Self.normalized(path).split(separator: "/").map { try Self.folderName(String($0)) }
            guard let name = parts.last else { throw VaultError.invalidName("") }  // as folderName("") says
            let parentNames = Array(parts.dropLast())
            let parentPath = parentNames.joined(separator: "/")
            var record = FolderRecord(
                id: UUID().uuidString.lowercased(), parentId: nil, name: name, createdAt: Date().timeIntervalSince1970)
            var folderKey: SecureBytes?
            if let password {
                // The slow derivation runs before the write transaction, not inside it.
                let key = SecureBytes(randomCount: FolderProtection.keySize, using: directory.random)
                try FolderProtection.protect(&record, key: key, password: password, kdf: kdf, using: directory.random)
                folderKey = key
            }
            try catalog.changeFolders { all in
                var parent: FolderRecord?
                var made: [FolderRecord] = []
                for parentName in parentNames {
                    if let found = all.first(where: { $0.parentId == parent?.id && $0.name == parentName }) {
                        if found.isProtected { throw VaultError.nestedProtectedFolder }
                        parent = found
                    } else {
                        let missing = FolderRecord(id: UUID().uuidString.lowercased(), parentId: parent?.id,
                                                   name: parentName, createdAt: record.createdAt)
                        made.append(missing)
                        parent = missing
                    }
                }
                if all.contains(where: { $0.parentId == parent?.id && $0.name == name }) {
                    throw VaultError.folderExists(parentPath.isEmpty ? name : parentPath + "/" + name)
                }
                record.parentId = parent?.id
                return .insertAll(made + [record])
            }
            if let folderKey { stateLock.withLock { folderKeys[record.id] = folderKey } }
            return record
        }
    }

    /// A folder name as given, trimmed of surrounding spaces; refused when empty, "." or
    /// "..", with a "/" (paths nest by it), a control or bidirectional-override character
    /// (a name must read as what it is), or longer than 255 bytes.
    static func folderName(_ given: String) throws -> String {
        let name = given.trimmingCharacters(in: .whitespaces)
        let invisible = name.unicodeScalars.contains {
            CharacterSet.controlCharacters.contains($0) || (0x202A...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value) || $0.value == 0x200E || $0.value == 0x200F
        }
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !invisible, name.utf8.count <= 255 else {
            throw VaultError.invalidName(String(given.prefix(64)))
        }
        return name
    }

    /// Unlocks a protected folder for this session (docs/FORMAT.md §6.4): the record is
    /// checked, the verifier compared (one derivation, constant time), then the folder key
    /// unwrapped. An unprotected folder needs no unlocking; a protected record with a
    /// missing or damaged field throws ``VaultError/corrupt(_:)`` rather than leaving the
    /// folder silently locked.
    public func unlockFolder(_ folder: FolderRecord, password: SecureBytes) throws {
        try operation {
            guard folder.isProtected else { return }
            let key = try FolderProtection.unwrap(folder, password: password)
            stateLock.withLock { folderKeys[folder.id] = key }
            // docs/FORMAT.md §6.7: the folder's items may still hold plain SHA-256 hashes from
            // before keyed ones, readable with the MEK alone; with its key here they are keyed
            // now. A failure leaves them for the next unlock and does not undo this one.
            do {
                try convertContentHashes()
            } catch {
                directory.logger.warning("content hashes not converted", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Whether `folder` is unprotected or unlocked. Folder keys belong to the open vault,
    /// not to one gallery session: every session on this vault sees the folder unlocked
    /// until it is locked again (docs/SECURITY.md).
    public func isOpen(_ folder: FolderRecord) -> Bool {
        !folder.isProtected || stateLock.withLock { folderKeys[folder.id] != nil }
    }

    /// The folder key of an unlocked protected folder; nil for an unprotected folder.
    func folderKey(forFolder id: String?) throws -> SecureBytes? {
        guard let id else { return nil }
        guard let folder = try catalog.folder(id: id), folder.isProtected else { return nil }
        guard let key = stateLock.withLock({ folderKeys[id] }) else { throw VaultError.folderLocked(folder.name) }
        return key
    }

    /// Forgets the key of one protected folder; its items and previews are hidden again
    /// until it is unlocked. The key is zeroed once no operation in progress holds it.
    public func lockFolder(_ folder: FolderRecord) {
        previews.clear()
        _ = stateLock.withLock { folderKeys.removeValue(forKey: folder.id) }
    }

    /// Forgets every folder key (when the gallery tab is hidden; ``lock()`` does it too).
    /// Cached previews go too, since some may show protected items. Each key is zeroed
    /// as soon as no operation in progress still holds it (``SecureBytes`` zeroes itself
    /// when released), so a request being served is never handed a zeroed key.
    public func lockFolders() {
        previews.clear()
        stateLock.withLock { folderKeys.removeAll() }
    }

    /// How many items `folder` holds (counted even while it is locked; names stay hidden).
    public func itemCount(in folder: FolderRecord) throws -> Int {
        return try operation {
            return try catalog.itemCount(inFolder: folder.id)
        }
    }

    /// Renames `folder` where it is; its items, subfolders and (for a protected folder)
    /// wrapped key stay as they are, since the key is bound to the folder's id, not its
    /// name (§6.4). Persists the catalog.
    /// - Throws: ``VaultError/invalidName(_:)``, ``VaultError/folderExists(_:)``.
    @discardableResult
    public func renameFolder(_ folder: FolderRecord, to name: String) throws -> FolderRecord {
        return try operation {
            return try relocate(folder, name: name, parentId: folder.parentId)
        }
    }

    /// Moves `folder`, with everything inside it, into `parent` (nil: the top level).
    /// Persists the catalog.
    /// - Throws: ``VaultError/folderIntoItself(_:)`` for a move into its own subtree,
    ///   ``VaultError/nestedProtectedFolder`` into a protected folder,
    ///   ``VaultError/folderExists(_:)`` when the parent holds a folder of that name.
    @discardableResult
    public func moveFolder(_ folder: FolderRecord, into parent: FolderRecord?) throws -> FolderRecord {
        return try operation {
            return try relocate(folder, name: folder.name, parentId: parent?.id)
        }
    }

    private func relocate(_ folder: FolderRecord, name: String, parentId: String?) throws -> FolderRecord {
        let name = try Self.folderName(name)
        // Every check reads the rows inside the transaction that writes: two moves at once
        // cannot make a cycle, nor a move land in a folder a delete removes.
        let changed = try catalog.changeFolders { all in
            guard var record = all.first(where: { $0.id == folder.id }) else { throw VaultError.noSuchFolder(folder.name) }
            // A locked folder stays as it is until its password opens it.
            guard isOpen(record) else { throw VaultError.folderLocked(record.name) }
            if let parentId {
                guard let parent = all.first(where: { $0.id == parentId }) else { throw VaultError.noSuchFolder(parentId) }
                if parent.isProtected { throw VaultError.nestedProtectedFolder }
                // Walking up from the new parent must not meet the folder itself: that would
                // make a cycle no path could name. Bounded by the folder count for a damaged
                // catalog whose parents already loop.
                var ancestor: String? = parentId
                var steps = 0
                while let id = ancestor, steps <= all.count {
                    if id == record.id { throw VaultError.folderIntoItself(folderPath(record, in: all)) }
                    ancestor = all.first(where: { $0.id == id })?.parentId
                    steps += 1
                }
            }
            if all.contains(where: { $0.id != record.id && $0.parentId == parentId && $0.name == name }) {
                let parentPath = parentId.flatMap { id in all.first(where: { $0.id == id }) }.map { folderPath($0, in: all) + "/" } ?? ""
                throw VaultError.folderExists(parentPath + name)
            }
            guard record.name != name || record.parentId != parentId else { return .none }
            record.name = name
            record.parentId = parentId
            return .update(record)
        }
        guard let changed else { return try catalog.folder(id: folder.id) ?? folder }
        return changed
    }

    /// Removes an empty folder. Persists the catalog.
    public func removeFolder(_ path: String) throws {
        try operation {
            let target = try folder(at: path)
            // Checked and deleted in one transaction (see deleteFolderIfEmpty).
            guard try catalog.deleteFolderIfEmpty(target.id) else { throw VaultError.folderNotEmpty(path) }
            stateLock.withLock { folderKeys.removeValue(forKey: target.id)?.zeroize() }
        }
    }

    static func normalized(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }
}
