import Foundation
import ObscuraCrypto

/// What one intake of the drop inbox did (``Vault/takeDrops()``).
public struct DropIntake: Sendable, Equatable {
    /// Drops imported (or joined to an item as its second original) and removed.
    public var taken = 0
    /// Drops whose content the vault already held; removed.
    public var duplicates = 0
    /// Drops the importer refused, or whose envelope is malformed: a sentence each; removed.
    public var failed: [String] = []
    /// Drops addressed to this vault that stay in the inbox: notes, until the vault takes
    /// notes in, and drops whose import failed for a reason that may pass (a full disk).
    public var waiting = 0

    /// An intake of these counts.
    public init(taken: Int = 0, duplicates: Int = 0, failed: [String] = [], waiting: Int = 0) {
        self.taken = taken
        self.duplicates = duplicates
        self.failed = failed
        self.waiting = waiting
    }
}

/// The vault's drop key and the intake of its drops (docs/FORMAT.md §10).
extension Vault {
    /// The vault's drop code, the public half of its drop key pair. A vault made before
    /// drops gets its key pair now, persisted with the catalog.
    public func dropCode() throws -> DropCode {
        if let pair = try dropKeyPair() { return DropCode(publicKey: pair.publicKey) }
        let pair = try HPKEExporter.KeyPair.generate(using: directory.random)
        try setSetting(DropFormat.keySetting, Self.hex(pair.privateKey))
        return DropCode(publicKey: pair.publicKey)
    }

    /// The drop key pair kept in the catalog (§10.1), if the vault has one.
    func dropKeyPair() throws -> HPKEExporter.KeyPair? {
        guard let text = try setting(DropFormat.keySetting) else { return nil }
        guard let bytes = Self.unhex(text), bytes.count == HPKEExporter.keySize else {
            throw VaultError.corrupt("the catalog's drop key is not 32 bytes of hex")
        }
        return try HPKEExporter.KeyPair(privateKey: SecureBytes(copying: bytes))
    }

    /// Stores a new drop key pair in `catalog` (§10.1): every slot made, real vault or
    /// decoy, gets one, so that no catalog tells the two apart by it.
    static func addDropKey(to catalog: Catalog, using random: RandomSource) throws {
        let pair = try HPKEExporter.KeyPair.generate(using: random)
        try catalog.setSetting(DropFormat.keySetting, to: hex(pair.privateKey))
    }

    /// A new version 3 slot's catalog image: the schema, no rows, and a drop key pair of
    /// its own (§10.1), so that every slot made, vault or decoy, has one.
    static func emptyCatalogImage(using random: RandomSource) throws -> [UInt8] {
        let catalog = try Catalog.empty()
        defer { catalog.close() }
        try addDropKey(to: catalog, using: random)
        return try catalog.image()
    }

    /// Takes in the drops addressed to this vault (§10.6): every blob in the inbox is
    /// tried alike, whatever the outcome (the decapsulation and the first chunk, with no
    /// early exit); then those that opened are imported as uploads, committed, and only
    /// then removed. A crash between the commit and the removal leaves a blob whose
    /// content the vault holds: the next intake finds it a duplicate and removes it.
    ///
    /// A blob another vault's key opens is never touched.
    @discardableResult
    public func takeDrops() throws -> DropIntake {
        let inbox = DropInbox(vaultPath: directory.path)
        inbox.sweepTemporaries()
        let names = inbox.blobNames()
        var intake = DropIntake()
        guard !names.isEmpty else { return intake }
        // A vault made before drops, which never showed a code, tries a throwaway key: the
        // work is the same as any vault's, and nothing opens.
        let keyPair = try dropKeyPair() ?? HPKEExporter.KeyPair.generate()
        let opened = names.compactMap { name in Self.trial(inbox.path + "/" + name, keyPair: keyPair).map { (name, $0) } }
        for (name, reader) in opened {
            do {
                if try takeIn(reader, into: &intake) {
                    unlink(inbox.path + "/" + name)
                    try directory.pool.steps.reached(.removedMedia(name))
                } else {
                    intake.waiting += 1
                }
            } catch {
                directory.logger.warning("a drop stays in the inbox: \(error)")
                intake.waiting += 1
            }
        }
        if !opened.isEmpty { try FileIO.syncDirectory(inbox.path) }
        return intake
    }

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

    /// Imports one opened drop; true when its blob is done with (taken, a duplicate or
    /// refused by the importer), false when it waits (a note).
    private func takeIn(_ reader: ChunkedFileReader, into intake: inout DropIntake) throws -> Bool {
        let first = try reader.chunk(0)
        guard let envelope = DropBlob.envelope(first) else {
            intake.failed.append("a drop whose envelope is malformed")
            return true
        }
        guard envelope.kind == .file else { return false }
        let buffer = try UploadBuffer(expectedSize: Int64(reader.size) - Int64(envelope.contentOffset))
        try first[envelope.contentOffset...].withUnsafeBytes { try buffer.append($0) }
        var index: UInt64 = 1
        while index < reader.header.chunkCount {
            try reader.chunk(index).withUnsafeBytes { try buffer.append($0) }
            index += 1
        }
        switch try importUpload(buffer, name: envelope.name) {
        case .imported, .joined: intake.taken += 1
        case .duplicate: intake.duplicates += 1
        case let .failed(failure): intake.failed.append("\(envelope.name): \(failure.message)")
        }
        return true
    }

    private static func hex(_ key: SecureBytes) -> String {
        key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    private static func unhex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
