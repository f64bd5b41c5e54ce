import Foundation
import ObscuraCrypto
import ObscuraStore

/// The session's cache of viewer previews (docs/SECURITY.md, "Preview cache"): a memory tier,
/// and a disk tier in a private temporary directory whose entries are sealed under a
/// random key that exists only in this object. ``clear()`` (at lock) zeroes the key,
/// empties memory and deletes the directory; a crashed session's directory holds only
/// ciphertext under a lost key, and is swept by the next start.
package final class PreviewCache: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    /// Directory names start with this; ``sweepLeftovers(in:)`` looks for it.
    static let directoryPrefix = "obscura-cache-"

    private let lock = NSLock()
    private let memoryLimit: Int
    private let root: String
    private var key: SecureBytes
    private var memory: [String: [UInt8]] = [:]
    private var order: [String] = []
    private var memoryBytes = 0
    private var directory: String?
    private var directoryLock: Int32 = -1

    /// - Parameters:
    ///   - memoryLimit: bytes kept in memory; older entries move to the disk tier.
    ///   - root: where the private directory is made: `$XDG_RUNTIME_DIR` (a per-user
    ///     tmpfs) when set, else the system temporary directory.
    package init(memoryLimit: Int = 64 << 20, root: String = PreviewCache.defaultRoot()) {
        self.memoryLimit = memoryLimit
        self.root = root
        key = SecureBytes(randomCount: AESGCM.keySize)
    }

    deinit { clear() }

    /// `$XDG_RUNTIME_DIR` if set, else the temporary directory.
    package static func defaultRoot() -> String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime }
        return NSTemporaryDirectory()
    }

    /// The cached bytes for `id`, from memory or the disk tier.
    package func get(_ id: String) -> [UInt8]? {
        lock.withLock {
            if let hit = memory[id] {
                touch(id)
                return hit
            }
            guard let directory, let sealed = try? FileIO.read(directory + "/" + Self.fileName(id)) else { return nil }
            return try? SealedBlob.open(sealed, key: key, context: Array(id.utf8))
        }
    }

    /// Caches `bytes` for `id`; entries beyond the memory limit are sealed to disk.
    package func put(_ id: String, _ bytes: [UInt8]) {
        lock.withLock {
            if memory[id] == nil { memoryBytes += bytes.count }
            memory[id] = bytes
            touch(id)
            while memoryBytes > memoryLimit, let oldest = order.first, oldest != id {
                order.removeFirst()
                if let evicted = memory.removeValue(forKey: oldest) {
                    memoryBytes -= evicted.count
                    spill(oldest, evicted)
                }
            }
        }
    }

    /// Forgets the entries of `ids`, in memory and on disk: items deleted for good (an
    /// ended one among them) leave nothing behind before the lock clears the rest.
    package func remove(_ ids: [String]) {
        lock.withLock {
            for id in ids {
                if let gone = memory.removeValue(forKey: id) {
                    memoryBytes -= gone.count
                    order.removeAll { $0 == id }
                }
                if let directory { unlink(directory + "/" + Self.fileName(id)) }
            }
        }
    }

    /// Number of entries held in memory (tests check eviction).
    var memoryCount: Int { lock.withLock { memory.count } }

    /// Where the disk tier lives, once it exists.
    var directoryPath: String? { lock.withLock { directory } }

    /// Zeroes the key, forgets every entry and deletes the disk tier.
    package func clear() {
        lock.withLock {
            key.zeroize()
            key = SecureBytes(randomCount: AESGCM.keySize)
            memory.removeAll()
            order.removeAll()
            memoryBytes = 0
            if let directory {
                try? FileManager.default.removeItem(atPath: directory)
                self.directory = nil
            }
            if directoryLock >= 0 {
                close(directoryLock)
                directoryLock = -1
            }
        }
    }

    /// Deletes cache directories in `root` that no live process holds.
    package static func sweepLeftovers(in root: String = defaultRoot()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for name in names where name.hasPrefix(directoryPrefix) {
            let path = root + "/" + name
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { try? FileManager.default.removeItem(atPath: path) }
            close(fd)
        }
    }

    private func touch(_ id: String) {
        order.removeAll { $0 == id }
        order.append(id)
    }

    /// Seals an evicted entry into the disk tier; a failure only loses the cache entry.
    private func spill(_ id: String, _ bytes: [UInt8]) {
        guard let directory = makeDirectory(),
              let sealed = try? SealedBlob.seal(bytes, key: key, context: Array(id.utf8))
        else { return }
        let path = directory + "/" + Self.fileName(id)
        unlink(path)
        try? FileIO.createDurably(path, parts: [sealed])
    }

    private func makeDirectory() -> String? {
        if let directory { return directory }
        var template = Array((root + "/" + Self.directoryPrefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let path = String(cString: made)
        // Held for the session: the sweep of another process leaves this one alone.
        directoryLock = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryLock >= 0 { flock(directoryLock, LOCK_EX | LOCK_NB) }
        directory = path
        return path
    }

    /// Entry file names hide the item id: SHA-256 of it.
    private static func fileName(_ id: String) -> String {
        SHA256Digest.hash(Array(id.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
