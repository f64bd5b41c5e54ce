import Foundation
import ObscuraCrypto

/// The outer key O of a vault directory and the per-slot subkeys derived from it
/// (docs/FORMAT.md §8.3).
///
/// Superblocks have one subkey per slot; blocks have one per slot and key generation, so
/// that a rekey (growth, or the nonce budget, §8.7) starts fresh keys without touching O.
package final class OuterKey: Sendable {
    /// §8.3: the HKDF-Extract salt.
    static let extractSalt: [UInt8] = Array("obscura v4 outer".utf8)
    /// §8.3: the HKDF-Expand label of a slot's superblock subkey.
    static let superblockLabel: [UInt8] = Array("obscura v4 superblock".utf8)
    /// §8.3: the HKDF-Expand label of a slot's block subkey.
    static let blockLabel: [UInt8] = Array("obscura v4 block".utf8)

    private let key: SecureBytes

    /// Wraps the 32-byte outer key (the container keeps its own copy).
    package init(_ key: SecureBytes) throws {
        guard key.count == AESGCM.keySize else {
            throw CryptoError.invalidLength(what: "outer key", expected: AESGCM.keySize, actual: key.count)
        }
        self.key = key.copy()
    }

    /// The subkey that seals both superblocks of slot `slot`.
    package func superblockKey(slot: SlotID) -> SecureBytes {
        HKDFSHA256.derive(from: key, salt: Self.extractSalt, info: Self.superblockLabel + slot.bytes)
    }

    /// The subkey that seals the data blocks and map nodes of slot `slot` in key
    /// generation `generation`.
    package func blockKey(slot: SlotID, generation: UInt32) -> SecureBytes {
        var info = Self.blockLabel + slot.bytes
        info.appendBigEndian(generation)
        return HKDFSHA256.derive(from: key, salt: Self.extractSalt, info: info)
    }
}

/// A slot's identity: the 16 bytes of the UUID in its file name `{uuid}.db.enc`
/// (RFC 4122 byte order). Names never change after creation, so neither does the id;
/// a renamed or swapped slot file fails every tag.
package struct SlotID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The file name suffix of every slot.
    static let suffix = ".db.enc"

    /// The 16 id bytes.
    package let bytes: [UInt8]

    /// The id of the slot file `name`, or nil when the name is not `{uuid}.db.enc`.
    package init?(fileName name: String) {
        guard name.hasSuffix(Self.suffix), let uuid = UUID(uuidString: String(name.dropLast(Self.suffix.count))),
              uuid.uuidString.lowercased() + Self.suffix == name else { return nil }
        bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// An id from its 16 bytes.
    init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "a slot id is 16 bytes")
        self.bytes = bytes
    }

    /// A new random id.
    package static func random(using random: RandomSource) -> SlotID {
        var bytes = random.bytes(16)
        // RFC 4122 version 4, variant 1: what UUID() makes, so the name parses back.
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return SlotID(bytes: bytes)
    }

    /// The slot's file name.
    package var fileName: String {
        let uuid = bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        return UUID(uuid: uuid).uuidString.lowercased() + Self.suffix
    }

    package var description: String { fileName }

    package static func < (a: SlotID, b: SlotID) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
