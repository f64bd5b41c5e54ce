import Foundation
import ObscuraCrypto
import ObscuraStore
import ObscuraKeys

/// The `.obscura` export file (docs/FORMAT.md §7): a 64-byte plaintext header, then a
/// chunked payload (§6) sealed under the export KEK.
public enum ExportFormat {
    /// §7.1: "OBSX".
    public static let magic: [UInt8] = [0x4F, 0x42, 0x53, 0x58]
    /// §7.1: format version.
    public static let version: UInt16 = 1
    /// §7.1: header size; the chunked payload header starts here.
    public static let headerSize = 64
    /// §7.1: offset of the 16-byte verification tag.
    public static let tagOffset = 44
    /// §7.1: offset of the 4-byte nonce prefix.
    public static let prefixOffset = 60
    /// §7.2: the text whose seal under the export KEK proves the password.
    public static let verificationText = Array("OBSCURA_EXPORT_V1".utf8)
    /// §7.2: the verification seal's nonce; payload prefixes are never all zero, so the
    /// KEK never sees this nonce twice.
    public static let verificationNonce = [UInt8](repeating: 0, count: AESGCM.nonceSize)
    /// §7.3: payload chunk size, 1 MiB.
    public static let chunkSize = 1 << 20
    /// §7.4: the manifest's `format` value when no item carries a rendition.
    package static let manifestFormat = 1
    /// §7.4: the `format` of a manifest some item of which carries a rendition: readers
    /// that know only format 1 refuse it whole, rather than as an "unexpected file".
    package static let manifestFormatWithRenditions = 2
    /// §7.4: the `format` of a manifest some item of which carries a second original (a
    /// Live Photo's motion), renditions or not.
    package static let manifestFormatWithCompanions = 3
    /// §7.4: every `format` this version reads.
    static let manifestFormats = manifestFormat...manifestFormatWithCompanions

    /// §7.4: the `format` a manifest of `items` is written with: the lowest whose readers
    /// know every field it carries.
    static func manifestFormat(for items: [ExportManifest.Item]) -> Int {
        if items.contains(where: { $0.companionId != nil }) { return manifestFormatWithCompanions }
        return items.contains { $0.renditionId != nil } ? manifestFormatWithRenditions : manifestFormat
    }
    /// §7.3: record kinds in the payload's file section.
    package enum RecordKind: UInt8 { case end = 0, original = 1, thumbnail = 2 }
    /// §7.2: characters of a generated export password (100 bits).
    public static let generatedPasswordLength = 20

    /// The payload plaintext of §7.3 assembled in memory: the manifest, the slot, then
    /// each record (kind, 16-byte id, length, bytes) and the end mark. For vectors and
    /// crafted test exports; the exporter streams the same layout (``PayloadSource``).
    package static func payloadPlaintext(
        manifest: ExportManifest, slot: [UInt8], records: [(kind: RecordKind, id: [UInt8], bytes: [UInt8])]
    ) throws -> [UInt8] {
        let json = try manifest.encoded()
        var payload = [UInt8]()
        payload.appendBigEndian(UInt32(json.count))
        payload += json
        payload.appendBigEndian(UInt64(slot.count))
        payload += slot
        for record in records {
            payload += [record.kind.rawValue] + record.id
            payload.appendBigEndian(UInt64(record.bytes.count))
            payload += record.bytes
        }
        return payload + [RecordKind.end.rawValue]
    }

    /// The export KEK's verification tag over header bytes [0, 44).
    package static func verificationTag(kek: SecureBytes, headerPrefix: [UInt8]) throws -> [UInt8] {
        let sealed = try AESGCM.seal(
            verificationText, key: kek, nonce: verificationNonce, authenticating: headerPrefix)
        return Array(sealed.suffix(AESGCM.tagSize))
    }

    /// Header bytes [0, 44): magic, version, KDF, cost word, salt.
    package static func headerPrefix(kdf: KDFParameters, salt: [UInt8]) -> [UInt8] {
        var out = magic
        out.appendBigEndian(version)
        out.appendBigEndian(kdfField(kdf))
        out.appendBigEndian(kdf.word)
        return out + salt
    }

    /// §7.1: the KDF field at bytes [6, 8). PBKDF2 is 0, the value of the field that
    /// held reserved flags before Argon2id, so earlier exports read unchanged; Argon2id
    /// is its suite id, 2.
    static func kdfField(_ kdf: KDFParameters) -> UInt16 {
        kdf.suite == KDFParameters.pbkdf2Suite ? pbkdf2Field : kdf.suite
    }

    /// §7.1: the KDF field's value for PBKDF2-HMAC-SHA256.
    static let pbkdf2Field: UInt16 = 0

    /// Reads the KDF field and cost word, or nil for an unknown KDF or a cost outside
    /// the bounds of §2.
    static func kdf(field: UInt16, word: UInt32) -> KDFParameters? {
        switch field {
        case pbkdf2Field: KDFParameters(suite: KDFParameters.pbkdf2Suite, word: word)
        case KDFParameters.argon2idSuite: KDFParameters(suite: field, word: word)
        default: nil
        }
    }

    /// Derives the export KEK of `password` under a fresh salt and draws a nonce prefix:
    /// the 64-byte header (§7.1-7.2) and the cipher that seals `totalSize` payload bytes
    /// after it (§7.3). Every export is made through it.
    static func prepare(
        password: SecureBytes, kdf: KDFParameters, totalSize: UInt64, using random: RandomSource
    ) throws -> (header: [UInt8], cipher: ChunkCipher) {
        let salt = random.bytes(PasswordKDF.saltSize)
        let kek = try kdf.deriveKey(password: canonicalPassword(password), salt: salt)
        var prefix = [UInt8](repeating: 0, count: ChunkedFormat.noncePrefixSize)
        while prefix.allSatisfy({ $0 == 0 }) { prefix = random.bytes(ChunkedFormat.noncePrefixSize) }
        let headerPrefix = headerPrefix(kdf: kdf, salt: salt)
        let header = headerPrefix + (try verificationTag(kek: kek, headerPrefix: headerPrefix)) + prefix
        let cipher = try ChunkCipher(
            header: ChunkedHeader(flags: 0, noncePrefix: prefix, chunkSize: chunkSize, totalSize: totalSize),
            key: kek, folderKey: nil, context: header)
        return (header, cipher)
    }

    /// Writes an export file at `path` (created exclusively, fsynced) whose payload is
    /// `totalSize` bytes from `source`: the fuzz target and tests seal their own payloads
    /// with it, in the layout `Vault.exportVault` writes.
    static func write(
        to path: String, password: SecureBytes, kdf: KDFParameters, totalSize: UInt64,
        source: @escaping ChunkedFileWriter.Source, using random: RandomSource, progress: ((Int) -> Void)? = nil
    ) throws {
        let (header, cipher) = try prepare(password: password, kdf: kdf, totalSize: totalSize, using: random)
        try ChunkedFileWriter.write(to: path, prefix: header, cipher: cipher, hashing: false, source: source, progress: progress)
    }

    /// A random export password: 20 Crockford base32 symbols (100 bits), shown in groups
    /// of five: 8FD93-EYWZR-GB7HX-QAVNS.
    public static func generatePassword(using random: RandomSource = SystemRandom()) -> SecureBytes {
        let out = SecureBytes(count: generatedPasswordLength + 3)
        out.withUnsafeMutableBytes { bytes in
            var n = 0
            for i in 0..<generatedPasswordLength {
                if i > 0 && i % 5 == 0 { bytes[n] = UInt8(ascii: "-"); n += 1 }
                bytes[n] = Crockford32.alphabet[random.uniform(in: 0..<32)]
                n += 1
            }
        }
        return out
    }

    /// The bytes the KDF sees for a typed export password: a password that looks like a
    /// generated one (20 Crockford symbols once dashes and spaces are dropped, read
    /// leniently) becomes its canonical form, upper case without dashes; anything else is
    /// used exactly as typed.
    package static func canonicalPassword(_ typed: SecureBytes) -> SecureBytes {
        typed.withUnsafeBytes { raw in
            let symbols = raw.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
            guard symbols.count == generatedPasswordLength else { return typed }
            var canonical = [UInt8]()
            for symbol in symbols {
                guard let value = Crockford32.value(of: symbol) else { return typed }
                canonical.append(Crockford32.alphabet[value])
            }
            defer { canonical.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            return SecureBytes(copying: canonical)
        }
    }
}

/// The JSON manifest at the start of an export's payload (docs/FORMAT.md §7.4).
///
/// Optional fields that are nil are left out of the JSON (the synthesised `Codable`
/// conformance encodes them with `encodeIfPresent`); reading, an absent key and `null`
/// are the same. `Data` fields are standard base64 with padding (RFC 4648 §4).
package struct ExportManifest: Codable {
    package struct Vault: Codable {
        /// The carried slot header's cost word (§2): a PBKDF2 vault's iteration count.
        package var iterations: Int
        var salt: Data
        var wrappedKey: Data
        /// The carried slot header's suite; absent for suite 1, as in exports made before
        /// Argon2id (§7.4).
        var suite: Int? = nil

        package init(iterations: Int, salt: Data, wrappedKey: Data, suite: Int? = nil) {
            self.iterations = iterations
            self.salt = salt
            self.wrappedKey = wrappedKey
            self.suite = suite
        }

        /// The fields of `header`, the slot header the export carries.
        package init(header: SlotHeader) {
            self.init(iterations: Int(header.kdf.word), salt: Data(header.salt), wrappedKey: Data(header.wrappedKey),
                      suite: header.kdf.suite == KDFParameters.pbkdf2Suite ? nil : Int(header.kdf.suite))
        }
    }
    package struct Folder: Codable {
        var id: String
        var parentId: String?
        var name: String
        var protected: Bool
    }
    package struct Item: Codable {
        package var id: String
        package var kind: String
        package var name: String
        package var mimeType: String
        var size: Int64
        var takenAt: Double?
        var folderId: String?
        var mediaId: String
        var thumbId: String?
        /// The rendition's pool id (§3.3), carried as an original record (§7.3).
        package var renditionId: String? = nil
        /// The second original's pool id (§3.3, a Live Photo's motion), carried as an
        /// original record (§7.3); format 3.
        package var companionId: String? = nil

        /// One item's entry; the rendition and second original are absent unless given.
        package init(
            id: String, kind: String, name: String, mimeType: String, size: Int64, takenAt: Double?, folderId: String?,
            mediaId: String, thumbId: String?, renditionId: String? = nil, companionId: String? = nil
        ) {
            self.id = id
            self.kind = kind
            self.name = name
            self.mimeType = mimeType
            self.size = size
            self.takenAt = takenAt
            self.folderId = folderId
            self.mediaId = mediaId
            self.thumbId = thumbId
            self.renditionId = renditionId
            self.companionId = companionId
        }

        /// The ids of the item's pool files: original, thumbnail, rendition, second original.
        var fileIds: [String] {
            [mediaId] + (thumbId.map { [$0] } ?? []) + (renditionId.map { [$0] } ?? []) + (companionId.map { [$0] } ?? [])
        }
    }
    package var format: Int
    var createdAt: Double
    package var vault: Vault
    var folders: [Folder]
    package var items: [Item]

    /// A manifest of these fields, as the export writes it.
    package init(format: Int, createdAt: Double, vault: Vault, folders: [Folder], items: [Item]) {
        self.format = format
        self.createdAt = createdAt
        self.vault = vault
        self.folders = folders
        self.items = items
    }

    /// The manifest's bytes (§7.4): snake_case keys, sorted, so one manifest always
    /// encodes the same way.
    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        return [UInt8](try encoder.encode(self))
    }

    /// Refuses a manifest of another `format`, or whose `vault` does not repeat the
    /// carried slot's header: iteration count, salt and wrapped MEK (§7.4).
    func check(against header: SlotHeader) throws {
        guard ExportFormat.manifestFormats.contains(format) else {
            throw ExportError.damaged("manifest format")
        }
        guard format == ExportFormat.manifestFormat(for: items) else { throw ExportError.damaged("manifest format \(format) for its items") }
        guard header.salt == Array(vault.salt), header.wrappedKey == Array(vault.wrappedKey),
              vault.iterations == Int(header.kdf.word),
              (vault.suite ?? Int(KDFParameters.pbkdf2Suite)) == Int(header.kdf.suite) else {
            throw ExportError.damaged("manifest and slot disagree")
        }
    }

    /// Reads a manifest's bytes.
    static func decode(_ bytes: [UInt8]) throws -> ExportManifest {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ExportManifest.self, from: Data(bytes))
    }
}

/// Errors of export and import.
public enum ExportError: ObscuraError, Equatable {
    /// The export password does not match the file.
    case wrongPassword
    /// The file is not an Obscura export this version reads.
    case notAnExport(String)
    /// The payload is damaged, truncated or altered.
    case damaged(String)
    /// The target directory already holds this vault.
    case alreadyPresent
    /// The slot commit failed part-way and the container could not be read back: whether
    /// the vault was imported is unknown until the directory is opened again.
    case outcomeUnknown
    /// The output file exists.
    case outputExists(String)
    /// The export's vault is keyed with another password KDF than the directory's slots:
    /// among them it would be told apart (docs/FORMAT.md §7.5).
    case otherKDF(vault: String, directory: String)

    public var description: String {
        switch self {
        case .wrongPassword: return "wrong export password"
        case let .notAnExport(why): return "not an Obscura export: \(why)"
        case let .damaged(why): return "the export is damaged or was altered (\(why)); nothing was imported"
        case .alreadyPresent: return "this vault is already in the target directory (same keys or media); nothing was imported"
        case .outcomeUnknown:
            return "the import's last write failed and the directory could not be read back: keep the export file, "
                + "open the directory again (any obscura command), and import again if the vault is not there"
        case let .outputExists(path): return "\(path) already exists; not overwritten"
        case let .otherKDF(vault, directory):
            return "this export's vault is keyed with \(vault) and this directory's vaults with \(directory): "
                + "among them it would stand out; nothing was imported (import it into a directory made with the same KDF)"
        }
    }
}
