import Foundation
import ObscuraCrypto
import ObscuraStore

/// The watch key `K_w` of a state directory and what it keys (docs/PHONE.md §W2.5):
/// every record of a watcher's journals is a keyed hash under it, so that the journals,
/// read without it, say how many files the watcher dealt with and nothing else.
///
/// It is random, not derived from the drop code (public: anyone holding it could test
/// the journal), nor from any vault key (the watcher needs none, and a link would say
/// which directory it serves).
package struct WatchKey: Sendable {
    /// `STATE/key` (§W2.5): "OBSK" ‖ UInt16BE(1) ‖ the 32-byte key.
    static let fileMagic = Array("OBSK".utf8)
    /// The key file's format version.
    static let fileVersion: UInt16 = 1
    /// The key file's name in the state directory.
    static let fileName = "key"

    /// `K_mac = HKDF-SHA256(K_w, "obscura watch mac v1")`: for every keyed hash.
    let mac: SecureBytes
    /// `K_rec = HKDF-SHA256(K_w, "obscura watch removal v1")`: seals removal records.
    let removal: SecureBytes

    /// The key whose subkeys are derived from `key` (32 bytes).
    init(key: SecureBytes) {
        mac = HKDFSHA256.derive(from: key, info: "obscura watch mac v1")
        removal = HKDFSHA256.derive(from: key, info: "obscura watch removal v1")
    }

    /// The key of the state directory `state`, made at its first start. Two first starts
    /// at once agree on one key: each writes its own to a synced temporary and `link()`s
    /// it to `key`; the one that finds the name taken reads the winner's.
    ///
    /// The key is kept in a file of mode 0600 in the 0700 state directory; the keyring
    /// place of §W2.5 is not built yet.
    package static func loadOrCreate(state: String, random: RandomSource = SystemRandom()) throws -> WatchKey {
        let path = state + "/" + fileName
        if let key = try read(path) { return key }
        let fresh = SecureBytes(count: 32)
        fresh.withUnsafeMutableBytes { random.fill($0) }
        let temporary = state + "/.key-" + UUID().uuidString.lowercased()
        try FileIO.createDurably(temporary) { fd in
            try FileIO.writeAll(fd, fileMagic + [UInt8(fileVersion >> 8), UInt8(fileVersion & 0xFF)], path: temporary)
            try fresh.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: temporary) }
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST else { throw StorageError.io(path, errno) }
            guard let key = try read(path) else { throw StorageError.io(path, ENOENT) }
            return key
        }
        try FileIO.syncDirectory(state)
        return WatchKey(key: fresh)
    }

    /// The key in the key file at `path`, or nil when there is none.
    static func read(_ path: String) throws -> WatchKey? {
        guard access(path, F_OK) == 0 else { return nil }
        var bytes = try FileIO.read(path, limit: 64)
        defer { secureZero(&bytes, bytes.count) }
        guard bytes.count == 38, bytes.starts(with: fileMagic),
              UInt16(bytes[4]) << 8 | UInt16(bytes[5]) == fileVersion
        else { throw WatchError.damagedState("\(path) is not a watch key file") }
        let key = SecureBytes(count: 32)
        key.withUnsafeMutableBytes { $0.copyBytes(from: bytes[6..<38]) }
        return WatchKey(key: key)
    }

    /// The name that stands for a SOURCE in the state directory (§W2.5): the first 16
    /// bytes, in hex, of HMAC(K_mac, "obscura watch dir v1" ‖ 00 ‖ its real path), so that
    /// the state directory does not list the watched paths.
    func sourceName(realPath: [UInt8]) -> String {
        let code = keyed("obscura watch dir v1", realPath)
        return code.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// A file's stat key (§W2.5): its metadata and path under SOURCE, keyed. `inode` is
    /// left out where the file system makes inode numbers up at each mount.
    func statKey(inode: UInt64?, size: UInt64, modified: Int64, path: [UInt8]) -> [UInt8] {
        var message: [UInt8] = [inode == nil ? 0 : 1]
        if let inode { message += bigEndian(inode) }
        message += bigEndian(size) + bigEndian(UInt64(bitPattern: modified))
        message += [UInt8(path.count >> 8 & 0xFF), UInt8(path.count & 0xFF)] + path
        return keyed("obscura watch stat v1", message)
    }

    /// A content key (§W2.5): the SHA-256 of a file's bytes, keyed.
    func contentKey(sha256: [UInt8]) -> [UInt8] {
        keyed("obscura watch content v1", sha256)
    }

    /// The day a content record was written, masked so that the journal read without
    /// the key does not date each record (§W2.5).
    func maskedDay(_ day: UInt16, contentKey: [UInt8]) -> [UInt8] {
        let mask = keyed("obscura watch day v1", contentKey)
        return [UInt8(day >> 8) ^ mask[0], UInt8(day & 0xFF) ^ mask[1]]
    }

    private func keyed(_ label: String, _ message: [UInt8]) -> [UInt8] {
        HMACSHA256.code(for: Array(label.utf8) + [0] + message, key: mac)
    }

    private func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(value >> (56 - 8 * $0) & 0xFF) }
    }
}

/// Errors of `obscura watch` that are not the file system's own.
package enum WatchError: Error, Equatable, CustomStringConvertible {
    /// The state directory holds something this version cannot read.
    case damagedState(String)
    /// Another watcher holds this SOURCE (§W2.1).
    case sourceInUse(String)
    /// `--remove-after` in a folder that syncs deletions back (§W2.7 rule 6).
    case syncedFolder(String)

    package var description: String {
        switch self {
        case let .damagedState(why): return why
        case let .sourceInUse(path): return "another watcher has \(path)"
        case let .syncedFolder(why): return why
        }
    }
}
