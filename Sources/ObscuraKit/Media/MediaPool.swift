import Foundation
import ObscuraCrypto

/// The flat media pool: `<vault>/media/{uuid}.data.enc` (originals, chunked format) and
/// `{uuid}.thumb.enc` (thumbnails, single-shot), all sealed (docs/FORMAT.md §4, §6).
///
/// Files are written to a temporary name, fsynced and renamed, so a file under its
/// final name is always complete. Nothing links a file to its vault but that vault's
/// catalog; a file this vault does not name may belong to another and is never touched.
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

    func dataPath(_ id: String) -> String { path + "/" + id + Self.dataSuffix }
    func thumbPath(_ id: String) -> String { path + "/" + id + Self.thumbSuffix }

    /// A new temporary path in the pool.
    func temporaryPath() -> String { path + "/" + Self.temporaryPrefix + UUID().uuidString.lowercased() }

    /// Writes `bytes` durably to `target` through a temporary file.
    func writeAtomically(_ bytes: [UInt8], to target: String) throws {
        let temporary = temporaryPath()
        try FileIO.createDurably(temporary, parts: [bytes])
        try publish(temporary, as: target)
    }

    /// Renames `temporary`, a complete and fsynced pool file, to `target`; on failure
    /// the temporary is removed.
    func publish(_ temporary: String, as target: String) throws {
        do {
            try steps.reached(.wroteMedia)
            try FileIO.rename(temporary, target)
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
