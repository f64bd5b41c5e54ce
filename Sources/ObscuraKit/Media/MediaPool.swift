import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraStore

/// The flat media pool: `<vault>/media/{uuid}.data.enc` (originals, chunked format) and
/// `{uuid}.thumb.enc` (thumbnails, single-shot), all sealed (docs/FORMAT.md §4, §6).
///
/// Files are written to a temporary name, fsynced and renamed, so a file under its
/// final name is always complete. Nothing links a file to its vault but that vault's
/// catalog; a file this vault does not name may belong to another and is never touched.
/// So an id becomes a path only in its canonical form (a catalog or an export manifest
/// could hold "../x" or another spelling of a name), and a write never replaces a file
/// that exists (it could be another vault's).
final class MediaPool {
    /// Suffix of sealed originals.
    static let dataSuffix = ".data.enc"
    /// Suffix of sealed thumbnails.
    static let thumbSuffix = ".thumb.enc"
    /// Temporaries start with this; swept when a directory is opened.
    static let temporaryPrefix = ".pending-"

    let path: String
    /// Where writes report their steps (the directory's, shared with its slot store).
    let steps: WriteSteps

    init(path: String, steps: WriteSteps = WriteSteps()) {
        self.path = path
        self.steps = steps
    }

    /// The path of original `id`; refused unless `id` is canonical (``isCanonicalId(_:)``).
    func dataPath(_ id: String) throws -> String { path + "/" + (try Self.checked(id)) + Self.dataSuffix }
    /// The path of thumbnail `id`; refused unless `id` is canonical (``isCanonicalId(_:)``).
    func thumbPath(_ id: String) throws -> String { path + "/" + (try Self.checked(id)) + Self.thumbSuffix }

    /// The paths of `item`'s original, thumbnail, rendition and second original (a
    /// rendition and a Live Photo's motion are sealed files like an original, §4);
    /// refused unless every id is canonical.
    func files(of item: ItemRecord) throws -> [String] {
        [try dataPath(item.mediaId)] + (try item.thumbId.map { [try thumbPath($0)] } ?? [])
            + (try item.renditionId.map { [try dataPath($0)] } ?? [])
            + (try item.companionId.map { [try dataPath($0)] } ?? [])
    }

    /// docs/FORMAT.md §4: a pool file's id is a UUID as 36 characters of lower-case hex in
    /// groups of 8-4-4-4-12 separated by "-"; no other spelling names a pool file.
    static func isCanonicalId(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == 36 else { return false }
        for (i, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) else { return false }
            }
        }
        return true
    }

    /// Whether `name` is a pool file's name: a canonical id and one of the two suffixes.
    static func isPoolFileName(_ name: String) -> Bool {
        for suffix in [dataSuffix, thumbSuffix] where name.hasSuffix(suffix) {
            return isCanonicalId(String(name.dropLast(suffix.count)))
        }
        return false
    }

    /// `id` when it is canonical; a catalog that names anything else is damaged or crafted.
    private static func checked(_ id: String) throws -> String {
        guard isCanonicalId(id) else { throw VaultError.corrupt("pool file id \(id.debugDescription) is not a canonical lower-case UUID") }
        return id
    }

    /// A new temporary path in the pool.
    func temporaryPath() -> String { path + "/" + Self.temporaryPrefix + UUID().uuidString.lowercased() }

    /// Writes `bytes` durably to `target` through a temporary file.
    func writeAtomically(_ bytes: [UInt8], to target: String) throws {
        let temporary = temporaryPath()
        try FileIO.createDurably(temporary, parts: [bytes])
        try publish(temporary, as: target)
    }

    /// Renames `temporary`, a complete and fsynced pool file, to `target`, which must not
    /// exist (EEXIST otherwise: the file there may be another vault's); on failure the
    /// temporary is removed.
    func publish(_ temporary: String, as target: String) throws {
        do {
            try steps.reached(.wroteMedia)
            try FileIO.renameExclusive(temporary, target)
        } catch {
            unlink(temporary)
            throw error
        }
        try steps.reached(.renamedMedia((target as NSString).lastPathComponent))
    }

    /// Removes a file if it exists.
    func remove(_ file: String) throws {
        unlink(file)
        try steps.reached(.removedMedia((file as NSString).lastPathComponent))
    }

    /// Removes temporaries left by an interrupted write.
    func sweepTemporaries() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names where name.hasPrefix(Self.temporaryPrefix) { unlink(path + "/" + name) }
    }

    /// Flushes renames and unlinks to disk.
    func sync() throws {
        try FileIO.syncDirectory(path)
        try steps.reached(.syncedMedia)
    }
}
