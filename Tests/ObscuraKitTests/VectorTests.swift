import Foundation
import ObscuraCrypto
import ObscuraVectors
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore
@testable import ObscuraKeys

/// Runs every file under testdata/ through the readers (docs/FORMAT.md §5).
@Suite struct VectorTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testdata").path

    struct Vector {
        var name: String
        var fields: [String: String]
        var body: [UInt8]
        var expect: String { fields["expect"] ?? "" }
    }

    static func load(_ kind: String) throws -> [Vector] {
        let dir = root + "/" + kind
        return try FileManager.default.contentsOfDirectory(atPath: dir).sorted().map { name in
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            guard let split = bytes.indices.first(where: { i in i > 0 && bytes[i] == 0x0A && bytes[i - 1] == 0x0A }) else {
                Issue.record("\(kind)/\(name) has no blank line after its fields")
                return Vector(name: name, fields: [:], body: [])
            }
            return Vector(name: name, fields: fields(String(decoding: bytes[0..<split], as: UTF8.self)),
                          body: Array(bytes[(split + 1)...]))
        }
    }

    /// The `key: value` lines of a vector file's head (docs/FORMAT.md §5).
    static func fields(_ head: String) -> [String: String] {
        var fields = [String: String]()
        for line in head.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    static func unhex(_ s: String?) -> [UInt8] {
        guard let s else { return [] }
        var out = [UInt8](), i = s.startIndex
        while i < s.endIndex { let j = s.index(i, offsetBy: 2); out.append(UInt8(s[i..<j], radix: 16)!); i = j }
        return out
    }

    @Test func committedVectorsAreWhatTheGeneratorWrites() throws {
        let generated = try VectorSet.all()
        var committed = [String: [UInt8]]()
        for kind in VectorSet.directories {
            // recovery/ holds a directory per case.
            for name in try FileManager.default.subpathsOfDirectory(atPath: Self.root + "/" + kind) {
                var isDirectory: ObjCBool = false
                let path = Self.root + "/" + kind + "/" + name
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                committed[kind + "/" + name] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        #expect(committed.count >= 60)
        #expect(Set(committed.keys) == Set(generated.keys))
        for (name, bytes) in generated { #expect(committed[name] == bytes, "\(name) differs from the generator") }
    }

    /// The slot reader's outcome for one vector, in the vocabulary of its `expect` line.
    static func slotOutcome(_ v: Vector) -> String {
        do {
            let header = try SlotHeader.decode(v.body)
            // A decoy's password bytes are the credential of its device secret (§4.1).
            let password = v.fields["device_secret"].map { DeviceSecretStore.credential(from: SecureBytes(copying: unhex($0))) }
                ?? SecureBytes(copying: Array(v.fields["password"]!.utf8))
            let key = try SlotCodec.unwrapKey(header: header, password: password)
            let catalog = try SlotCodec.openCatalog(contents: v.body, header: header, key: key)
            return VectorSet.hex(SHA256Digest.hash(catalog)) == v.fields["catalog_sha256"] ? "success" : "wrong catalog"
        } catch SlotError.truncated {
            return "truncated"
        } catch SlotError.unsupported {
            return "unsupported"
        } catch SlotError.wrongKey {
            return "wrong password"
        } catch let SlotError.corrupt(why) {
            return why.hasPrefix("header") || why.hasPrefix("iteration") ? "header failure" : "corrupt"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func slotVectors() throws {
        let vectors = try Self.load("slot")
        #expect(vectors.count >= 15)
        for v in vectors { #expect(Self.slotOutcome(v) == v.expect, "slot/\(v.name)") }
    }

    static func chunkedOutcome(_ v: Vector) -> String {
        let mek = SecureBytes(copying: unhex(v.fields["mek"]))
        let folderKey = v.fields["folder_key"].map { SecureBytes(copying: unhex($0)) }
        let context = unhex(v.fields["context"])
        do {
            let plain: [UInt8]
            if SealedBlob.isChunked(v.body) {
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("vector-\(UUID().uuidString)").path
                try Data(v.body).write(to: URL(fileURLWithPath: path))
                defer { try? FileManager.default.removeItem(atPath: path) }
                let reader = try ChunkedFileReader(path: path) {
                    try ChunkCipher(header: $0, key: mek, folderKey: folderKey, context: context)
                }
                var all = [UInt8]()
                try reader.forEachChunk { all += $0 }
                plain = all
            } else {
                plain = try SealedBlob.open(v.body, key: mek, folderKey: folderKey, context: context)
            }
            return VectorSet.hex(SHA256Digest.hash(plain)) == v.fields["plaintext_sha256"] ? "success" : "wrong plaintext"
        } catch StreamError.truncated {
            return "truncated"
        } catch StreamError.trailingData {
            return "trailing data"
        } catch StreamError.chunkFailed {
            return "chunk failure"
        } catch {
            return "failure"
        }
    }

    @Test func chunkedVectors() throws {
        let vectors = try Self.load("chunked")
        #expect(vectors.count >= 12)
        for v in vectors { #expect(Self.chunkedOutcome(v) == v.expect, "chunked/\(v.name)") }
    }

    /// The Swift export reader's outcome: password check, payload parse, then the photo
    /// decrypted with the MEK that the vault password unwraps from the carried slot.
    static func exportOutcome(_ v: Vector) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vector-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try Data(v.body).write(to: URL(fileURLWithPath: path))
            let payload = try ExportFile(path: path).open(password: SecureBytes(copying: Array(v.fields["password"]!.utf8)))
            let manifestLength = try payload.integer(UInt32.self)
            let manifest = try ExportManifest.decode(try payload.bytes(UInt64(manifestLength)))
            let slot = try payload.bytes(try payload.integer(UInt64.self))
            let header = try SlotHeader.decode(slot)
            try manifest.check(against: header)
            let mek = try SlotCodec.unwrapKey(header: header, password: SecureBytes(copying: Array(v.fields["vault_password"]!.utf8)))
            // Every record, then exactly the files the manifest names (§7.3).
            var files = [String: (kind: UInt8, body: [UInt8])]()
            while true {
                let kind = try payload.integer(UInt8.self)
                if kind == 0 { break }
                guard kind == 1 || kind == 2 else { return "damaged" }
                let id = UUID(uuid: try payload.bytes(16).withUnsafeBytes { $0.load(as: uuid_t.self) }).uuidString.lowercased()
                guard files[id] == nil else { return "damaged" }
                files[id] = (kind, try payload.bytes(try payload.integer(UInt64.self)))
            }
            // Exactly the files the manifest names, each named once (§7.3).
            let named = manifest.items.flatMap(\.fileIds)
            guard payload.atEnd, Set(named).count == named.count, Set(files.keys) == Set(named) else { return "damaged" }
            func open(_ id: String) throws -> [UInt8] {
                guard let (kind, media) = files[id], kind == 1 else { throw ExportError.damaged("not an original record") }
                let chunked = try ChunkedHeader.decode(media)
                let cipher = try ChunkCipher(header: chunked, key: mek, folderKey: nil, context: Vault.context(id))
                var plain = [UInt8]()
                for i in 0..<chunked.chunkCount {
                    let start = Int(chunked.fileOffset(ofChunk: i))
                    plain += try cipher.open(media[start..<(start + chunked.plaintextLength(ofChunk: i) + 16)], index: i)
                }
                return plain
            }
            let item = manifest.items[0]
            let photo = try open(item.mediaId)
            let rendition = try item.renditionId.map { VectorSet.hex(SHA256Digest.hash(try open($0))) }
            let companion = try item.companionId.map { VectorSet.hex(SHA256Digest.hash(try open($0))) }
            return "\(manifest.items.count)" == v.fields["items"] && VectorSet.hex(SHA256Digest.hash(photo)) == v.fields["photo_sha256"]
                && rendition == v.fields["rendition_sha256"] && companion == v.fields["companion_sha256"]
                ? "success" : "wrong plaintext"
        } catch ExportError.notAnExport {
            return "unsupported"
        } catch ExportError.wrongPassword {
            return "wrong password"
        } catch {
            return "damaged"
        }
    }

    @Test func exportVectors() throws {
        let vectors = try Self.load("export")
        #expect(vectors.count >= 8)
        for v in vectors { #expect(Self.exportOutcome(v) == v.expect, "export/\(v.name)") }
    }

    /// The folder-key unwrap of §6.4, in the vocabulary of the folder vectors.
    static func folderOutcome(_ v: Vector) -> String {
        let record = FolderRecord(
            id: v.fields["folder_id"]!, parentId: nil, name: "vector", createdAt: 0,
            kdfSalt: Data(unhex(v.fields["kdf_salt"])), kdfIterations: Int(v.fields["kdf_iterations"]!)!,
            // Absent before Argon2id: suite 1, stored as null (§6.4).
            kdfSuite: v.fields["kdf_suite"].flatMap { Int($0) == 1 ? nil : Int($0) },
            wrappedKey: Data(v.body), keyVerifier: Data(unhex(v.fields["key_verifier"])))
        do {
            let key = try FolderProtection.unwrap(record, password: SecureBytes(copying: Array(v.fields["password"]!.utf8)))
            return key.withUnsafeBytes { VectorSet.hex($0) } == v.fields["folder_key"] ? "success" : "wrong key"
        } catch VaultError.wrongFolderPassword {
            return "wrong password"
        } catch VaultError.corrupt {
            return "corrupt"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func folderVectors() throws {
        let vectors = try Self.load("folder")
        #expect(vectors.count >= 8)
        for v in vectors { #expect(Self.folderOutcome(v) == v.expect, "folder/\(v.name)") }
    }

    /// An item's `protectedMeta` opened under the folder key (§6.4); on success every
    /// field must equal the vector's, whose values are JSON text.
    static func metaOutcome(_ v: Vector) -> String {
        let meta: ProtectedMeta
        do {
            meta = try ProtectedMeta.open(v.body, folderKey: SecureBytes(copying: unhex(v.fields["folder_key"])),
                                          itemId: v.fields["item_id"]!)
        } catch {
            return "failure"
        }
        func json(_ key: String) -> Any? {
            let value = try? JSONSerialization.jsonObject(with: Data(v.fields[key]!.utf8), options: .fragmentsAllowed)
            return value is NSNull ? nil : value
        }
        let same = json("name") as? String == meta.name && json("mimeType") as? String == meta.mimeType
            && (json("takenAt") as? Double) == meta.takenAt && (json("width") as? Int) == meta.width
            && (json("height") as? Int) == meta.height && (json("latitude") as? Double) == meta.latitude
            && (json("longitude") as? Double) == meta.longitude && json("place") as? String == meta.place
        return same ? "success" : "wrong fields"
    }

    @Test func metaVectors() throws {
        let vectors = try Self.load("meta")
        #expect(vectors.count >= 5)
        for v in vectors { #expect(Self.metaOutcome(v) == v.expect, "meta/\(v.name)") }
    }

    /// An index box opened as the catalog's reader opens it (§6.4, "The index box"), then
    /// its fields compared.
    static func indexOutcome(_ v: Vector) -> String {
        let box: IndexBox
        do {
            box = try IndexBox.open(v.body, folderKey: SecureBytes(copying: unhex(v.fields["folder_key"])), itemId: v.fields["item_id"]!)
        } catch {
            return "failure"
        }
        let same = v.fields["flags"] == "\(box.state.rawValue)" && v.fields["text"] == box.text
            && v.fields["text_profile"] == "\(box.textProfile)" && v.fields["vector_profile"] == "\(box.vectorProfile)"
            && v.fields["vector"] == VectorSet.hex(box.vector?.stored ?? [])
        return same ? "success" : "wrong fields"
    }

    @Test func indexVectors() throws {
        let vectors = try Self.load("index")
        #expect(vectors.count >= 7)
        #expect(vectors.allSatisfy { $0.body.count == 4636 })
        for v in vectors { #expect(Self.indexOutcome(v) == v.expect, "index/\(v.name)") }
    }

    /// A device-secret file loaded as the vault loads it, then its credential and
    /// Crockford form (§4.1, §4.2).
    static func deviceOutcome(_ v: Vector) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vector-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try Data(v.body).write(to: URL(fileURLWithPath: path))
            let secret = try DeviceSecretStore(path: path).load()
            let credential = DeviceSecretStore.credential(from: secret).withUnsafeBytes { VectorSet.hex($0) }
            let text = String(decoding: Crockford32.encode(secret).withUnsafeBytes { Array($0) }, as: UTF8.self)
            return credential == v.fields["credential"] && text == v.fields["crockford"] ? "success" : "wrong credential"
        } catch {
            return "failure"
        }
    }

    @Test func deviceVectors() throws {
        let vectors = try Self.load("device")
        #expect(vectors.count >= 3)
        for v in vectors { #expect(Self.deviceOutcome(v) == v.expect, "device/\(v.name)") }
    }

    /// The container vector (§8): the committed slot files opened by the container's own
    /// reader with the outer key alone, each inner stream checked against its hash, and
    /// the version 3 contents inside opened with the vault password or the decoy
    /// credential (§8.9).
    @Test func containerVector() throws {
        let dir = Self.root + "/container"
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/container.json")))
        let vector = try #require(json as? [String: Any])
        let fields = try #require(vector["container"] as? [String: Any])
        let slots = try #require(fields["slots"] as? [[String: Any]])
        #expect(slots.count == 2)

        // A copy: opening may set the files' times.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("vector-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        for slot in slots {
            let name = try #require(slot["file"] as? String)
            try FileManager.default.copyItem(atPath: dir + "/" + name, toPath: copy + "/" + name)
        }
        let key = try OuterKey(SecureBytes(copying: Self.unhex(vector["outer_key"] as? String)))
        let container = try SlotContainer.open(files: DiskSlotFiles(path: copy), key: key)
        #expect(container.slots.map(\.fileName) == slots.compactMap { $0["file"] as? String })
        #expect(container.state.commitTime == VectorSet.containerCommitTime)
        #expect(Int(container.state.logicalCount) == fields["logical_blocks"] as? Int)

        for (slot, expected) in zip(container.slots, slots) {
            let stream = try container.readStream(slot)
            #expect(VectorSet.hex(SHA256Digest.hash(stream)) == expected["stream_sha256"] as? String)
            let length = try #require(expected["contents_length"] as? Int)
            #expect(VectorSet.hex(SHA256Digest.hash(stream.prefix(length))) == expected["contents_sha256"] as? String)
            let header = try SlotHeader.decode(stream)
            let password: SecureBytes
            if let secret = expected["device_secret"] as? String {
                password = DeviceSecretStore.credential(from: SecureBytes(copying: Self.unhex(secret)))
            } else {
                password = SecureBytes(copying: Array(try #require(expected["password"] as? String).utf8))
            }
            let mek = try SlotCodec.unwrapKey(header: header, password: password)
            let catalog = try SlotCodec.openCatalog(contents: stream, header: header, key: mek)
            #expect(VectorSet.hex(SHA256Digest.hash(catalog)) == expected["catalog_sha256"] as? String)
        }
    }
}
