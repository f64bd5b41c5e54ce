import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraStore

/// What one intake of the drop inbox did (``Vault/takeDrops()``).
public struct DropIntake: Sendable, Equatable {
    /// Drops imported (or joined to an item as its second original) and removed.
    public var taken = 0
    /// Of ``taken``, the notes.
    public var notes = 0
    /// Drops whose content the vault already held; removed.
    public var duplicates = 0
    /// Drops whose envelope is malformed (in a version this reader knows), whose later
    /// chunks fail their tags or are cut short, or that are empty: a sentence each;
    /// removed.
    public var failed: [String] = []
    /// Of ``taken``, drops the importer refused as what they claim to be (an image too
    /// large or unreadable, a note over 1 MiB or not UTF-8), kept as plain files with
    /// their original bytes (docs/FORMAT.md §10.6): a sentence each, naming the file and
    /// why.
    public var keptAsFiles: [String] = []
    /// Drops addressed to this vault that stay in the inbox for the next unlock: those
    /// whose import failed for a reason that may pass (a full disk, a missing tool), and
    /// those past the intake's budget (``Vault/intakeBudget``).
    public var waiting = 0
    /// Drops addressed to this vault whose envelope has a version or kind this Obscura does
    /// not know (a newer writer's, §10.4): they stay in the inbox for a newer reader.
    public var newer = 0

    /// A sentence for the owner, or nil when the intake found nothing addressed here:
    /// a drop that was refused must not vanish unannounced.
    public var summary: String? {
        var parts = [String]()
        let files = taken - notes
        let took = [files > 0 ? "\(files) dropped file\(files == 1 ? "" : "s")" : nil,
                    notes > 0 ? "\(notes) dropped note\(notes == 1 ? "" : "s")" : nil].compactMap { $0 }
        if !took.isEmpty { parts.append("Took in " + took.joined(separator: " and ") + ".") }
        if !keptAsFiles.isEmpty {
            parts.append("Kept as \(keptAsFiles.count == 1 ? "a file" : "files"), not opened as what \(keptAsFiles.count == 1 ? "it claims" : "they claim") to be: "
                         + keptAsFiles.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ") + ".")
        }
        if duplicates > 0 { parts.append("\(duplicates) dropped file\(duplicates == 1 ? " was" : "s were") already in the vault.") }
        if !failed.isEmpty {
            parts.append("\(failed.count) drop\(failed.count == 1 ? "" : "s") could not be taken in and \(failed.count == 1 ? "was" : "were") removed: "
                         + failed.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ") + ".")
        }
        if waiting > 0 { parts.append("\(waiting) drop\(waiting == 1 ? " waits" : "s wait") in the inbox for the next unlock.") }
        if newer > 0 {
            parts.append("\(newer) drop\(newer == 1 ? " was" : "s were") made by a newer version of Obscura and "
                         + "\(newer == 1 ? "stays" : "stay") in the inbox: update Obscura to take \(newer == 1 ? "it" : "them") in.")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// An intake of these counts.
    public init(
        taken: Int = 0, notes: Int = 0, duplicates: Int = 0, failed: [String] = [], waiting: Int = 0, newer: Int = 0,
        keptAsFiles: [String] = []
    ) {
        self.keptAsFiles = keptAsFiles
        self.taken = taken
        self.notes = notes
        self.duplicates = duplicates
        self.failed = failed
        self.waiting = waiting
        self.newer = newer
    }
}

/// The vault's drop key and the intake of its drops (docs/FORMAT.md §10).
extension Vault {
    /// The vault's drop code, the public half of its drop key pair. A vault made before
    /// drops gets its key pair now, committed with the catalog.
    public func dropCode() throws -> DropCode {
        return try operation {
            // The look-up and the first key's creation under one gate: two requests at once
            // would otherwise each make a key, and the code shown first would open nothing.
            return try rowsGate.withLock {
                if let pair = try dropKeyPair() { return DropCode(publicKey: pair.publicKey) }
                let pair = try HPKEExporter.KeyPair.generate(using: directory.random)
                try catalog.setSecretSetting(DropFormat.keySetting, to: pair.privateKey)
                return DropCode(publicKey: pair.publicKey)
            }
        }
    }

    /// The drop key pair kept in the catalog (§10.1), if the vault has one.
    func dropKeyPair() throws -> HPKEExporter.KeyPair? {
        return try operation {
            let key: SecureBytes?
            do {
                key = try catalog.secretSetting(DropFormat.keySetting, byteCount: HPKEExporter.keySize)
            } catch CatalogError.invalidImage {
                throw VaultError.corrupt("the catalog's drop key is not 32 bytes of hex")
            }
            return try key.map(HPKEExporter.KeyPair.init(privateKey:))
        }
    }

    /// Stores a new drop key pair in `catalog` (§10.1): every slot made, real vault or
    /// decoy, gets one, so that no catalog tells the two apart by it.
    static func addDropKey(to catalog: Catalog, using random: RandomSource) throws {
        let pair = try HPKEExporter.KeyPair.generate(using: random)
        try catalog.setSecretSetting(DropFormat.keySetting, to: pair.privateKey)
    }

    /// A new version 3 slot's catalog image: the schema, no rows, and a drop key pair of
    /// its own (§10.1), so that every slot made, vault or decoy, has one.
    package static func emptyCatalogImage(using random: RandomSource) throws -> [UInt8] {
        let catalog = try Catalog.empty()
        defer { catalog.close() }
        try addDropKey(to: catalog, using: random)
        return try catalog.image()
    }

    /// Takes in the drops addressed to this vault (§10.6): every blob in the inbox is
    /// tried alike, whatever the outcome (the decapsulation and the first chunk, with no
    /// early exit); then those that opened are imported (streamed from the blob, as
    /// ``importDrop(_:name:pixelLimit:)`` says), committed, and only
    /// then removed. A crash between the commit and the removal leaves a blob whose
    /// content the vault holds: the next intake finds it a duplicate and removes it. A blob
    /// addressed here whose later chunks fail is removed too, and reported (``DropIntake/failed``).
    ///
    /// A blob another vault's key opens is never touched.
    ///
    /// One intake of a vault runs at a time: a second, started meanwhile (the gallery's
    /// sweep beside an unlock), finds nothing to do. A lock stops an intake within a chunk
    /// (``importDrop(_:name:pixelLimit:)``): the drop being taken in and those after it
    /// wait in the inbox, and what was taken before is counted.
    @discardableResult
    public func takeDrops() throws -> DropIntake {
        guard intakeGate.try() else { return DropIntake() }
        defer { intakeGate.unlock() }
        let inbox = DropInbox(vaultPath: directory.path)
        inbox.sweepTemporaries()
        let names = inbox.blobNames()
        var intake = DropIntake()
        guard !names.isEmpty else { return intake }
        // A vault made before drops, which never showed a code, tries a throwaway key: the
        // work is the same as any vault's, and nothing opens.
        let keyPair = try dropKeyPair() ?? HPKEExporter.KeyPair.generate()
        // Every blob is tried before any is imported; a trial keeps no descriptor open, so
        // an inbox of thousands of blobs addressed here cannot exhaust the process's files.
        let addressed = names.filter { Self.trial(inbox.path + "/" + $0, keyPair: keyPair) != nil }
        var imported: Int64 = 0
        for (position, name) in addressed.enumerated() {
            let file = inbox.path + "/" + name
            // An unlock waits for its intake: past the budget, the rest waits for the next.
            guard imported < Self.intakeBudget else {
                intake.waiting += 1
                continue
            }
            var st = stat()
            let stated = lstat(file, &st) == 0
            if stated { imported += Int64(st.st_size) }
            do {
                guard let reader = Self.trial(file, keyPair: keyPair) else { continue }
                try takeIn(reader, into: &intake)
                inbox.leaveReceipt(for: name)
                unlink(file)
                try directory.pool.steps.reached(.removedMedia(name))
            } catch VaultError.locked {
                // Locked while this drop was taken in: what it wrote is gone, and it and
                // the rest stay for the next unlock.
                intake.waiting += addressed.count - position
                break
            } catch let error as DropDamage {
                // A later chunk that fails its tag, or a blob cut short: it will never read,
                // so it is removed rather than tried at every unlock. Its first chunk opened
                // under this vault's key, so it is this vault's and no other's.
                directory.logger.warning("a drop was damaged and is removed: \(error)")
                intake.failed.append("a drop that is damaged (\(error))")
                inbox.leaveReceipt(for: name)
                unlink(file)
            } catch is NewerDrop {
                // Not this reader's to refuse (§10.4): a newer one takes it in. Only chunk 0
                // was read, so it costs the budget nothing (review S2); and it stays for
                // ``newerDropKept`` at most, so that a code holder cannot fill the inbox
                // for good with blobs no intake of this version ever removes.
                #if canImport(Darwin)
                let modified = Double(st.st_mtimespec.tv_sec)
                #else
                let modified = Double(st.st_mtim.tv_sec)
                #endif
                if stated { imported -= Int64(st.st_size) }
                if stated && Date().timeIntervalSince1970 - modified > Self.newerDropKept {
                    directory.logger.warning("a drop of a newer envelope version was kept 30 days and is removed")
                    intake.failed.append("a drop made by a newer version of Obscura, kept 30 days untaken")
                    unlink(file)
                } else {
                    directory.logger.info("a drop of a newer envelope version stays in the inbox")
                    intake.newer += 1
                }
            } catch {
                directory.logger.warning("a drop stays in the inbox: \(error)")
                intake.waiting += 1
            }
        }
        if !addressed.isEmpty { try FileIO.syncDirectory(inbox.path) }
        return intake
    }

    /// How long a drop of an envelope version or kind this reader does not know stays in
    /// the inbox for a newer reader (§10.4): 30 days, after which it is removed and said.
    static let newerDropKept: TimeInterval = 30 * 86_400

    /// The most bytes of blobs one intake imports (§10.6): the unlock answers only after
    /// its intake, and a code holder may have filled the inbox. The first blob is always
    /// taken, whatever its size; the rest wait for the next unlock.
    static let intakeBudget: Int64 = 1 << 30

    /// An import that failed for a reason of the moment: the drop stays in the inbox.
    private struct DropDeferred: Error, CustomStringConvertible {
        let failure: ImportFailure
        var description: String { failure.detail }
    }

    /// A drop whose envelope has a version or kind this reader does not know: it stays.
    private struct NewerDrop: Error {}

    /// Opens `file`'s header and first chunk with `keyPair`: a reader when the blob is
    /// addressed to the key, nil otherwise (not ours, malformed or unreadable).
    static func trial(_ file: String, keyPair: HPKEExporter.KeyPair) -> ChunkedFileReader? {
        do {
            let reader = try ChunkedFileReader(path: file) { header in
                try DropBlob.check(header)
                return try DropBlob.cipher(for: header, keyPair: keyPair)
            }
            _ = try reader.chunk(0)
            return reader
        } catch {
            return nil
        }
    }

    /// Imports one opened drop: taken, a duplicate, or refused by the importer (counted in
    /// `intake`); its blob is then done with. Throws when the blob must stay (or is damaged).
    private func takeIn(_ reader: ChunkedFileReader, into intake: inout DropIntake) throws {
        var first = try DropContent(reader: reader, contentOffset: 0).chunk(0)
        defer { DropContent.zero(&first) }
        guard !DropBlob.isNewer(first) else { throw NewerDrop() }
        guard let envelope = DropBlob.envelope(first) else {
            intake.failed.append("a drop whose envelope is malformed")
            return
        }
        // The sender's name, reduced as an upload's is: an honest page or CLI did so
        // already, a hostile sender may not have (control characters reach a terminal).
        let name = Self.uploadName(envelope.name)
        let content = DropContent(reader: reader, contentOffset: envelope.contentOffset)
        if envelope.kind == .note { return try takeInNote(content, envelope: envelope, shown: name, into: &intake) }
        // Streamed from the blob (docs/PHONE.md §W3.2); a drop only adds (§10.6): it never
        // joins an item, nor takes one in.
        switch try importDrop(content, name: name) {
        case .imported, .joined: intake.taken += 1
        case .duplicate: intake.duplicates += 1
        case let .failed(failure) where failure.isRefusal:
            guard content.size > 0 else { return intake.failed.append("\(name): \(failure.message)") }
            try keepAsFile(content, name: name, why: failure.message, into: &intake)
        // A full disk, a permission, a missing tool: the drop waits for the next unlock.
        case let .failed(failure): throw DropDeferred(failure: failure)
        }
    }

    /// Keeps a drop the importer refused as what it claims to be as a plain file: its
    /// original bytes sealed to the pool, kind `file`, no thumbnail (docs/PHONE.md §W6.5,
    /// FORMAT.md §10.6). Only damage removes a blob that no item holds: a sender, or a
    /// watcher that removes its sources, must not lose a file because this vault cannot
    /// read it.
    private func keepAsFile(_ content: DropContent, name: String, why: String, into intake: inout DropIntake) throws {
        var prefix = try content.read(0..<UInt64(ContentSniffer.prefixLength))
        let mimeType = ContentSniffer.sniff(prefix).mimeType
        DropContent.zero(&prefix)
        switch try importStreamed(content, kind: .file, mimeType: mimeType, name: name) {
        case .imported, .joined:
            intake.taken += 1
            intake.keptAsFiles.append("\(name): \(why)")
        case .duplicate: intake.duplicates += 1
        case let .failed(failure): throw DropDeferred(failure: failure)
        }
    }

    /// A dropped note (kind 02) becomes a note at the top level, titled by the envelope's
    /// name (§10.6). Its keyed content hash finds a note taken in before a crash kept its
    /// blob, as an upload's does, so no note is taken twice.
    private func takeInNote(
        _ content: DropContent, envelope: (kind: DropFormat.Kind, name: String, contentOffset: Int),
        shown: String, into intake: inout DropIntake
    ) throws {
        guard content.size > 0 else { return intake.failed.append("\(shown): \(NoteError.notText)") }
        guard content.size <= UInt64(NoteFormat.maximumBodySize) else {
            return try keepAsFile(content, name: shown, why: NoteError.bodyTooLarge(Int(content.size)).description, into: &intake)
        }
        var bytes = try content.whole(check: {})
        defer { DropContent.zero(&bytes) }
        guard let body = String(validating: bytes, as: UTF8.self) else {
            return try keepAsFile(content, name: shown, why: NoteError.notText.description, into: &intake)
        }
        let hash = try contentHash(sha256: SHA256Digest.hash(bytes), folderId: nil)
        if try catalog.items(withContentHashes: [hash], notes: true).isEmpty {
            try addNote(title: envelope.name, body: body)
            intake.taken += 1
            intake.notes += 1
        } else {
            intake.duplicates += 1
        }
    }
}
