import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging

/// Renditions (issue 17; docs/FORMAT.md §3.3, §4): a browser-playable copy of each video
/// browsers cannot play, made after the import from the sealed original and sealed into
/// the pool like one, under the same keys. The original stays as it was, and is what
/// downloads and exports give.
extension Vault {
    /// The MIME type of every rendition: MP4 (H.264 and AAC).
    public static let renditionMimeType = Rendition.mimeType

    /// ffmpeg's arguments for a rendition, its input on standard input (`pipe:0`): what
    /// scripts/bench-rendition runs alone as the reference.
    public static var renditionArguments: [String] { Rendition.arguments() }

    /// The items of this session (locked folders' left out) whose rendition is still to
    /// be made.
    public func pendingRenditions() throws -> [String] {
        return try operation {
            return try catalog.pendingRenditions().filter { (try? item($0)) != nil }
        }
    }

    /// Makes the rendition of item `id` if it still waits for one, and records the outcome.
    ///
    /// The original is decrypted chunk by chunk into ffmpeg (``MovieLayout`` puts an index
    /// kept last first), ffmpeg's MP4 is sealed into a ``RenditionSpool`` as it comes, then
    /// into the pool once its size is known; the catalog names it in one commit. Nothing
    /// holds the vault meanwhile: between chunks the vault is checked, so that locking it
    /// stops the work (and kills ffmpeg) within a chunk.
    ///
    /// - Returns: the item's state after: `.ready`, `.failed` (ffmpeg could not read the
    ///   original), or nil when it needed none any more (deleted, moved, or made already).
    /// - Throws: ``VaultError/locked`` when the vault was locked meanwhile, and
    ///   ``ImagingError/toolMissing(_:)`` without ffmpeg; the item stays pending.
    @discardableResult
    public func makeRendition(_ id: String, progress: @escaping @Sendable (Double) -> Void = { _ in }) throws -> RenditionState? {
        let (item, reader) = try { () throws -> (ItemRecord, ChunkedFileReader?) in
            return try operation {
                // A Live Photo's rendition is of its motion.
                let stored = try self.item(id)
                let row = stored.motion ?? stored
                return (row, row.renditionState == .pending ? try originalReader(row) : nil)
            }
        }()
        guard let reader else { return nil }
        let spool = try RenditionSpool(path: directory.pool.temporaryPath(), random: directory.random)
        do {
            let window = ReadWindow(reader)
            let pieces = try MovieLayout.streamingOrder(size: reader.size) { range in
                try checkStillOpen(item)
                return try window.read(range)
            } ?? [.range(0..<reader.size)]
            try Rendition.make(feeding: { write in
                for piece in pieces {
                    switch piece {
                    case let .bytes(bytes):
                        try bytes.withUnsafeBytes(write)
                    case let .range(range):
                        var at = range.lowerBound
                        while at < range.upperBound {
                            try self.checkStillOpen(item)
                            let next = min(at + UInt64(RenditionSpool.pieceSize), range.upperBound)
                            var plain = try reader.read(at..<next)
                            defer { plain.withUnsafeMutableBytes { if let b = $0.baseAddress { secureZero(b, $0.count) } } }
                            try plain.withUnsafeBytes(write)
                            at = next
                        }
                    }
                }
            }, duration: item.duration, progress: progress) { bytes in
                try spool.append(bytes)
            }
            try spool.finish()
        } catch let error as ImagingError {
            switch error {
            case .toolMissing, .toolKilled:
                // Not a verdict on the video: it stays pending for the next run.
                throw error
            default:
                // What stopped ffmpeg would stop it again: recorded, not retried. The log
                // holds no description: nothing per vault reaches it (SECURITY.md).
                directory.logger.debug("rendition failed")
                return try settle(item, renditionId: nil, state: .failed) ? .failed : nil
            }
        } catch is CryptoError, is StreamError {
            // The original does not decrypt: damaged, and no rendition can come of it.
            directory.logger.debug("rendition failed: the original is damaged")
            return try settle(item, renditionId: nil, state: .failed) ? .failed : nil
        }

        return try operation {
            let renditionId = UUID().uuidString.lowercased()
            let file = try directory.pool.dataPath(renditionId)
            do {
                try sealOriginal(mediaId: renditionId, size: spool.size, folderId: item.folderId, hashing: false,
                                 source: spool.source())
                try directory.pool.sync()
                guard try settle(item, renditionId: renditionId, state: .ready) else {
                    try directory.pool.remove(file)
                    return nil
                }
            } catch {
                cleanUp(created: [file])
                throw error
            }
            return .ready
        }
    }

    /// Makes every pending rendition of this session, one at a time (each holds a decoder
    /// and an encoder: in parallel they would multiply the memory, docs/BENCHMARKS.md).
    /// `progress` gets the item, its place in the queue, the queue's length and the share
    /// of the item done.
    ///
    /// A video whose rendition cannot be made now for a reason of its own (ffmpeg killed,
    /// a file that cannot be read) is skipped and stays pending; the rest go on.
    ///
    /// - Returns: how many were made, how many failed for good, and how many were skipped.
    /// - Throws: ``VaultError/locked`` once the vault is locked, and
    ///   ``ImagingError/toolMissing(_:)``: then nothing more can be made.
    @discardableResult
    public func makeRenditions(
        progress: @escaping @Sendable (_ id: String, _ index: Int, _ count: Int, _ done: Double) -> Void = { _, _, _, _ in }
    ) throws -> (made: Int, failed: Int, skipped: Int) {
        let ids = try pendingRenditions()
        var outcome = (made: 0, failed: 0, skipped: 0)
        for (index, id) in ids.enumerated() {
            progress(id, index, ids.count, 0)
            do {
                switch try makeRendition(id, progress: { progress(id, index, ids.count, $0) }) {
                case .ready: outcome.made += 1
                case .failed: outcome.failed += 1
                case .pending, nil: break
                }
            } catch VaultError.locked {
                throw VaultError.locked
            } catch ImagingError.toolMissing(let tool) {
                throw ImagingError.toolMissing(tool)
            } catch {
                directory.logger.debug("rendition skipped")
                outcome.skipped += 1
            }
        }
        return outcome
    }

    /// Puts every rendition that failed back in the queue (a newer ffmpeg may manage);
    /// returns how many.
    public func retryFailedRenditions() throws -> Int {
        return try operation {
            let count = try catalog.retryFailedRenditions()
            return count
        }
    }

    /// A reader over the item's rendition, for range reads.
    ///
    /// - Throws: ``VaultError/noSuchItem(_:)`` when it has no rendition ready.
    public func openRendition(_ item: ItemRecord) throws -> OriginalReader {
        return try operation {
            guard item.renditionState == .ready, let renditionId = item.renditionId else { throw VaultError.noSuchItem(item.id) }
            var rendition = item
            rendition.mediaId = renditionId
            return OriginalReader(try originalReader(rendition))
        }
    }

    /// Records a rendition's outcome in the catalog and commits it; false when the item no
    /// longer waits for it.
    private func settle(_ item: ItemRecord, renditionId: String?, state: RenditionState) throws -> Bool {
        return try operation {
            return try rowsGate.withLock {
                guard try catalog.settleRendition(item.id, mediaId: item.mediaId, renditionId: renditionId, state: state) else {
                    return false
                }
                return true
            }
        }
    }

    /// Throws ``VaultError/locked`` once the vault is locked or locking, and
    /// ``VaultError/folderLocked(_:)`` once the item's folder is: no more of its original
    /// is decrypted after either.
    private func checkStillOpen(_ item: ItemRecord) throws {
        try operation {
            _ = try folderKey(forFolder: item.folderId)
        }
    }
}

/// Reads of a sealed original through a window of 1 MiB, so that reading many small
/// headers one after another (``MovieLayout``) decrypts each chunk once, not once a read.
private final class ReadWindow {
    private let reader: ChunkedFileReader
    private var start: UInt64 = 0
    private var bytes: [UInt8] = []

    init(_ reader: ChunkedFileReader) { self.reader = reader }

    deinit { bytes.withUnsafeMutableBytes { if let b = $0.baseAddress { secureZero(b, $0.count) } } }

    func read(_ range: Range<UInt64>) throws -> [UInt8] {
        let end = min(range.upperBound, reader.size)
        guard range.lowerBound < end else { return [] }
        if range.lowerBound < start || end > start + UInt64(bytes.count) {
            bytes.withUnsafeMutableBytes { if let b = $0.baseAddress { secureZero(b, $0.count) } }
            // Large reads (the index itself) go straight through.
            if end - range.lowerBound > UInt64(RenditionSpool.pieceSize) { return try reader.read(range.lowerBound..<end) }
            start = range.lowerBound
            bytes = try reader.read(start..<min(start + UInt64(RenditionSpool.pieceSize), reader.size))
        }
        return Array(bytes[Int(range.lowerBound - start)..<Int(end - start)])
    }
}
