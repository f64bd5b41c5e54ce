import Foundation
import ObscuraKeys
import ObscuraCrypto
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import ObscuraStore
#endif

extension VaultDirectory {
    /// Largest manifest and slot an import accepts, so a damaged length cannot make it
    /// allocate without bound before authentication catches the damage.
    static let maximumManifestSize: UInt32 = 256 << 20
    static let maximumSlotSize: UInt64 = 4 << 30

    /// Imports an `.obscura` export into a free decoy slot of this directory. The vault
    /// keeps its salt and wrapped MEK, so its original password opens it here.
    ///
    /// Every chunk of the payload is authenticated before anything becomes visible: media
    /// is written to temporary names in the pool and renamed, and the slot written, only
    /// once the last chunk has verified. On a failure the directory is left as it was; when
    /// the slot commit failed part-way, the container is recovered in place and what it
    /// holds decides: the vault imported (success), or not (its media removed). Only when
    /// even that cannot be read does the import end with ``ExportError/outcomeUnknown``,
    /// its media kept.
    ///
    /// - Returns: the number of items imported.
    @discardableResult
    public func importVault(
        from path: String, password: SecureBytes, progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws -> Int {
        // A version 3 directory is migrated before a vault is imported into it.
        try requireContainer()
        let file = try ExportFile(path: path)
        let payload = try file.open(password: password)
        let total = file.payload?.size ?? 0
        var temporaries = [(temporary: String, final: String)]()
        do {
            let manifestLength = try payload.integer(UInt32.self)
            guard manifestLength <= Self.maximumManifestSize, UInt64(manifestLength) <= payload.remaining else {
                throw ExportError.damaged("manifest length")
            }
            let manifest = try ExportManifest.decode(try payload.bytes(UInt64(manifestLength)))
            // The manifest's ids become pool paths: only the pool's own spelling (§7.4).
            for id in manifest.items.flatMap(\.fileIds) where !MediaPool.isCanonicalId(id) {
                throw ExportError.damaged("file id \(id.debugDescription) is not a canonical lower-case UUID")
            }
            let slotLength = try payload.integer(UInt64.self)
            guard slotLength >= UInt64(SlotFormat.headerSize), slotLength <= Self.maximumSlotSize,
                  slotLength <= payload.remaining else {
                throw ExportError.damaged("slot length")
            }
            let slot = try payload.bytes(slotLength)
            let header = try SlotHeader.decode(slot)
            // An export carries a version 3 slot (§7.3, §9.7); a paged header is refused.
            guard header.version == SlotFormat.version else { throw ExportError.damaged("slot version \(header.version)") }
            try manifest.check(against: header)
            // Every slot of a directory shares one KDF suite (§2): a vault of another
            // would single itself out among the decoys (a review's finding).
            if let shared = Self.sharedKDF(try readHeaders().headers), shared.suite != header.kdf.suite {
                throw ExportError.otherKDF(vault: header.kdf.description, directory: shared.description)
            }
            try refuseIfPresent(header: header, manifest: manifest)

            // Media records, each to a temporary file in the pool.
            let named = manifest.items.flatMap(\.fileIds)
            var expected = Set(named)
            // Two items sharing one pool file would lose it together: no writer names one twice.
            guard expected.count == named.count else { throw ExportError.damaged("the manifest names a file twice") }
            while true {
                let kind = try payload.integer(UInt8.self)
                guard let record = ExportFormat.RecordKind(rawValue: kind) else { throw ExportError.damaged("record kind") }
                if record == .end { break }
                let id = UUID(uuid: try payload.bytes(16).withUnsafeBytes { $0.load(as: uuid_t.self) }).uuidString.lowercased()
                guard expected.remove(id) != nil else { throw ExportError.damaged("unexpected file \(id)") }
                let length = try payload.integer(UInt64.self)
                // A length past the payload's end made the reader trap (scripts/fuzz,
                // fuzz/regressions/manifest); it is damage, and is refused as such.
                guard length <= payload.remaining else { throw ExportError.damaged("file record length") }
                let final = try record == .original ? pool.dataPath(id) : pool.thumbPath(id)
                let temporary = pool.temporaryPath()
                temporaries.append((temporary, final))
                try FileIO.createDurably(temporary) { fd in
                    try payload.read(length) { piece in
                        try piece.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: temporary) }
                        progress?(payload.consumed, total)
                    }
                }
            }
            guard expected.isEmpty else { throw ExportError.damaged("\(expected.count) files missing") }
            guard payload.atEnd else { throw ExportError.damaged("trailing payload") }

            // Everything verified: the final chunk (and its last-chunk mark) was read.
            let credential = DeviceSecretStore.credential(from: try deviceSecrets.load())
            // The decoy is chosen and replaced under the write lock: a vault created
            // meanwhile cannot take the same slot.
            try store.serialized {
                let (names, headers) = try readHeaders()
                let decoys = UnlockSweep.run(headers: headers, passwords: [credential])[0].keys.sorted()
                guard !decoys.isEmpty else { throw VaultError.noFreeSlot }
                let target = names[decoys[random.uniform(in: 0..<decoys.count)]]
                var renamed = [String]()
                do {
                    for entry in temporaries {
                        try pool.publish(entry.temporary, as: entry.final)
                        renamed.append(entry.final)
                    }
                    try pool.sync()
                    try store.commit(.init(replace: [target: slot]))
                } catch {
                    // A commit that failed after replacing the slot leaves the vault in place,
                    // and its media must stay with it. A commit cut short part-way leaves the
                    // container needing recovery, which decides: the torn commit finished or
                    // undone, as the next open would (review S3). Only a container that cannot
                    // be read even then keeps the files, since a stray file costs space where
                    // a removed one that the slot names would lose an item.
                    var landed = try? SlotHeader.decode(store.readHeader(target)) == header
                    if landed == nil, (try? store.recoverInPlace()) != nil {
                        landed = try? SlotHeader.decode(store.readHeader(target)) == header
                    }
                    switch landed {
                    case true?:
                        logger.warning("an import's commit failed after it landed; the vault is imported")
                    case false?:
                        for file in renamed { unlink(file) }
                        throw error
                    case nil:
                        throw ExportError.outcomeUnknown
                    }
                }
            }
            logger.debug("imported vault", metadata: ["items": "\(manifest.items.count)"])
            return manifest.items.count
        } catch {
            for entry in temporaries { unlink(entry.temporary) }
            switch error {
            // A pool file appeared under one of the names since the check: never replaced.
            case StorageError.io(_, EEXIST): throw ExportError.alreadyPresent
            case is ExportError, is VaultError, is StorageError, is ContainerError: throw error
            default: throw ExportError.damaged("\(error)")
            }
        }
    }

    /// Refuses an export of a vault this directory already holds: a slot with the same
    /// salt and wrapped MEK, or any of its pool files (originals or thumbnails) already in
    /// the pool. A crafted export can name another vault's files; those are never
    /// replaced (the pool's renames refuse to as well, ``MediaPool/publish(_:as:)``).
    private func refuseIfPresent(header: SlotHeader, manifest: ExportManifest) throws {
        let (_, headers) = try readHeaders()
        // The salt alone: a paged vault's header wraps the MEK under its own associated
        // data, and its exports carry the version 3 wrap of the same derivation (§9.7).
        if headers.contains(where: { $0?.salt == header.salt }) {
            throw ExportError.alreadyPresent
        }
        let files = try manifest.items.flatMap { item in
            [try pool.dataPath(item.mediaId)] + (try item.thumbId.map { [try pool.thumbPath($0)] } ?? [])
                + (try item.renditionId.map { [try pool.dataPath($0)] } ?? [])
                + (try item.companionId.map { [try pool.dataPath($0)] } ?? [])
        }
        var st = stat()
        if files.contains(where: { lstat($0, &st) == 0 || errno != ENOENT }) {
            throw ExportError.alreadyPresent
        }
    }
}
