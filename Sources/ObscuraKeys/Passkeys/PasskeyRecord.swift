import Foundation
import ObscuraCrypto

/// One row of the vault's `passkey` table: a fixed 448-byte record (docs/PASSKEY.md
/// §P4.1; it moves into docs/FORMAT.md §3.3 with the migration that makes the table).
///
/// Every row is always exactly this size, enrolled or free, and every byte an enrolled
/// record does not use is drawn from the CSPRNG again at each credential commit, so that
/// the table's one page changes at every such commit whatever changed (PK22). A free
/// record is state 0 and 447 random bytes. The record holds the wrap key K_pk, so it is
/// built and read in zeroing memory.
public struct PasskeyRecord {
    /// The record's size in bytes.
    public static let size = 448
    /// The longest name, in UTF-8 bytes.
    public static let maximumNameSize = 64
    /// Symbols of the display tag shown beside "Obscura ·" (RFC 4648 base32).
    public static let tagSize = 3

    // Offsets of §P4.1's table.
    static let stateOffset = 0, algorithmOffset = 1, flagsOffset = 2, nameLengthOffset = 3, idLengthOffset = 4
    static let tagOffset = 5, createdOffset = 8, wrapKeyOffset = 16, userHandleOffset = 48, keyOffset = 64
    static let nameOffset = 129, idOffset = 193
    static let keyFieldSize = 65
    static let base32 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The user's label: 1 … 64 bytes of UTF-8 after trimming, no control characters.
    public let name: String
    /// The random display tag, 3 base32 symbols.
    public let tag: String
    /// When it was enrolled, Unix milliseconds.
    public let createdAt: UInt64
    /// The credential checked at every unlock through this field.
    public let credential: PasskeyCredential
    /// K_pk for this slot and field (docs/FORMAT.md §9.8): re-seals the field at every commit.
    public let wrapKey: SecureBytes

    /// An enrolled record.
    public init(name: String, tag: String, createdAt: UInt64, credential: PasskeyCredential, wrapKey: SecureBytes) {
        self.name = name
        self.tag = tag
        self.createdAt = createdAt
        self.credential = credential
        self.wrapKey = wrapKey
    }

    /// The name as stored, or nil when it is not a valid name: white space trimmed, then
    /// 1 … 64 bytes of UTF-8 with no control or format characters and no line or
    /// paragraph separator (Unicode Cc, Cf, Zl, Zp: a bidi override or a zero-width
    /// character would make two names look alike, a separator would break a listing's
    /// line; review PR11).
    public static func validName(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = trimmed.utf8.count
        let refused: [Unicode.GeneralCategory] = [.control, .format, .lineSeparator, .paragraphSeparator]
        guard bytes >= 1, bytes <= maximumNameSize,
              !trimmed.unicodeScalars.contains(where: { refused.contains($0.properties.generalCategory) }) else {
            return nil
        }
        return trimmed
    }

    /// A new display tag: 3 symbols of RFC 4648 base32 (15 bits).
    public static func newTag(using random: RandomSource = SystemRandom()) -> String {
        String(decoding: random.bytes(tagSize).map { base32[Int($0 & 31)] }, as: UTF8.self)
    }

    /// Whether `text` is a display tag: 3 symbols of RFC 4648 base32.
    public static func isTag(_ text: String) -> Bool {
        text.utf8.count == tagSize && text.utf8.allSatisfy(base32.contains)
    }

    /// The record's 448 bytes, padding drawn from `random`. The name, tag and credential
    /// must be valid (``validName(_:)``, ``newTag(using:)``, a checked credential).
    public func encoded(using random: RandomSource = SystemRandom()) -> SecureBytes {
        precondition(Self.validName(name) == name && Self.isTag(tag),
                     "passkey record: name or tag")
        precondition((1...PasskeyCredential.maximumIDSize).contains(credential.id.count)
                     && credential.userHandle.count == PasskeyCredential.userHandleSize && wrapKey.count == 32,
                     "passkey record: credential")
        let out = SecureBytes(randomCount: Self.size, using: random)
        out.withUnsafeMutableBytes { record in
            let name = Array(self.name.utf8), id = credential.id, tag = Array(self.tag.utf8)
            record[Self.stateOffset] = 1
            record[Self.algorithmOffset] = UInt8(credential.key.algorithm)
            record[Self.flagsOffset] = (credential.backupEligible ? 1 : 0) | (credential.backedUp ? 2 : 0)
            record[Self.nameLengthOffset] = UInt8(name.count)
            record[Self.idLengthOffset] = UInt8(id.count)
            for (i, byte) in tag.enumerated() { record[Self.tagOffset + i] = byte }
            var created = [UInt8]()
            created.appendBigEndian(createdAt)
            for (i, byte) in created.enumerated() { record[Self.createdOffset + i] = byte }
            wrapKey.withUnsafeBytes { key in
                UnsafeMutableRawBufferPointer(rebasing: record[Self.wrapKeyOffset..<(Self.wrapKeyOffset + 32)]).copyMemory(from: key)
            }
            for (i, byte) in credential.userHandle.enumerated() { record[Self.userHandleOffset + i] = byte }
            for (i, byte) in credential.key.bytes.enumerated() { record[Self.keyOffset + i] = byte }
            for (i, byte) in name.enumerated() { record[Self.nameOffset + i] = byte }
            for (i, byte) in id.enumerated() { record[Self.idOffset + i] = byte }
        }
        return out
    }

    /// A free record: state 0, the rest from `random`.
    public static func free(using random: RandomSource = SystemRandom()) -> SecureBytes {
        let out = SecureBytes(randomCount: size, using: random)
        out.withUnsafeMutableBytes { $0[stateOffset] = 0 }
        return out
    }

    /// The wrap key of the record in `bytes`, nil for a free one: only the state byte and
    /// K_pk are read, so that what every open of the vault needs (its fields) never
    /// depends on the checks of a name, a tag or a key, which a later release may tighten.
    ///
    /// - Throws: ``PasskeyRecordError/damaged(_:)`` for another size or state.
    public static func wrapKey(_ bytes: UnsafeRawBufferPointer) throws -> SecureBytes? {
        guard bytes.count == size else { throw PasskeyRecordError.damaged("a record of \(bytes.count) bytes") }
        switch bytes[stateOffset] {
        case 0: return nil
        case 1: return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[wrapKeyOffset..<(wrapKeyOffset + 32)]))
        default: throw PasskeyRecordError.damaged("unknown state")
        }
    }

    /// The enrolled record in `bytes`, nil for a free one.
    ///
    /// - Throws: ``PasskeyRecordError/damaged(_:)`` for a record no writer makes: another
    ///   size or state, an unknown algorithm or flag, BS without BE, a length out of range,
    ///   a tag outside base32, a key the checks refuse, or a name that is not valid.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws -> PasskeyRecord? {
        func damaged(_ reason: String) -> PasskeyRecordError { .damaged(reason) }
        guard bytes.count == size else { throw damaged("a record of \(bytes.count) bytes") }
        switch bytes[stateOffset] {
        case 0: return nil
        case 1: break
        default: throw damaged("unknown state")
        }
        let flags = bytes[flagsOffset]
        guard flags & ~3 == 0, flags != 2 else { throw damaged("unknown flags, or BS without BE") }
        let nameLength = Int(bytes[nameLengthOffset]), idLength = Int(bytes[idLengthOffset])
        guard (1...maximumNameSize).contains(nameLength), (1...PasskeyCredential.maximumIDSize).contains(idLength) else {
            throw damaged("a length out of range")
        }
        let tagBytes = Array(bytes[tagOffset..<(tagOffset + tagSize)])
        guard tagBytes.allSatisfy(base32.contains) else { throw damaged("a tag outside base32") }
        let keyBytes = Array(bytes[keyOffset..<(keyOffset + keyFieldSize)])
        let key: SignatureKey?
        switch bytes[algorithmOffset] {
        case 1: key = SignatureKey.p256(point: keyBytes)
        case 2: key = SignatureKey.ed25519(publicKey: Array(keyBytes.prefix(SignatureKey.ed25519KeySize)))
        default: throw damaged("unknown algorithm")
        }
        guard let key else { throw damaged("a key the checks refuse") }
        let nameBytes = Array(bytes[nameOffset..<(nameOffset + nameLength)])
        guard let name = String(validating: nameBytes, as: UTF8.self), validName(name) == name else {
            throw damaged("a name that is not valid")
        }
        let created = Array(bytes[createdOffset..<(createdOffset + 8)]).readBigEndian(UInt64.self, at: 0)
        let credential = PasskeyCredential(
            id: Array(bytes[idOffset..<(idOffset + idLength)]),
            userHandle: Array(bytes[userHandleOffset..<(userHandleOffset + PasskeyCredential.userHandleSize)]),
            key: key, backupEligible: flags & 1 != 0, backedUp: flags & 2 != 0)
        let wrapKey = SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[wrapKeyOffset..<(wrapKeyOffset + 32)]))
        return PasskeyRecord(name: name, tag: String(decoding: tagBytes, as: UTF8.self), createdAt: created,
                             credential: credential, wrapKey: wrapKey)
    }
}

/// A `passkey` row that no writer makes.
public enum PasskeyRecordError: ObscuraError, Equatable {
    /// The record is damaged; the reason names the field, never its bytes.
    case damaged(String)

    public var description: String {
        switch self {
        case .damaged(let reason): return "a passkey record is damaged: \(reason)"
        }
    }
}
