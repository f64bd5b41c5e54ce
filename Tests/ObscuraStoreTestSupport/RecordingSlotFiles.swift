import Foundation
import ObscuraCrypto
@testable import ObscuraStore

/// An in-memory directory that records every write the container makes and can build
/// the states a crash would leave (the crash harness's write recorder).
///
/// Model: each file has durable bytes and writes not yet synced. `sync` makes a file's
/// writes durable; `create` is durable at once (it fsyncs); renames and removals are
/// durable at `syncDirectory` and, before that, a crash keeps a prefix of them in order
/// (a journalling file system orders its metadata). A crash keeps any subset of a file's
/// unsynced writes, in any order, and may tear one of them at any byte.
package final class RecordingSlotFiles: SlotFiles {
    /// One unsynced write.
    package struct Write {
        package let file: String
        package let offset: Int
        package let bytes: [UInt8]
    }
    /// A metadata change not yet made durable.
    package enum NameChange {
        case rename(String, String)
        case remove(String)
    }

    /// What reads see.
    package private(set) var current: [String: [UInt8]]
    /// What survives a crash for sure.
    package private(set) var durable: [String: [UInt8]]
    /// Writes since each file's last sync, in order.
    package private(set) var unsynced: [Write] = []
    /// Renames and removals since the last directory sync.
    package private(set) var unsyncedNames: [NameChange] = []
    package private(set) var times: [String: UInt64] = [:]
    /// Called before each sync with the files being synced; used to take crash images.
    package var beforeSync: ((RecordingSlotFiles) throws -> Void)?
    /// Makes the n-th sync from now fail with this errno (EIO, ENOSPC).
    package var failSync: (countdown: Int, code: Int32)?
    /// Counts every write, for tests that want to see none.
    package private(set) var writeCount = 0

    package init(_ files: [String: [UInt8]] = [:]) {
        current = files
        durable = files
    }

    /// A directory whose page cache holds `current` while only `durable` is on disk: a
    /// process that opens it before writeback reads what a power cut would lose.
    package init(current: [String: [UInt8]], durable: [String: [UInt8]], unsynced: [Write]) {
        self.current = current
        self.durable = durable
        self.unsynced = unsynced
    }

    package func names() throws -> [String] { current.keys.sorted() }

    package func size(_ name: String) throws -> Int {
        guard let file = current[name] else { throw StorageError.io(name, ENOENT) }
        return file.count
    }

    package func read(_ name: String, at offset: Int, count: Int) throws -> [UInt8] {
        guard let file = current[name] else { throw StorageError.io(name, ENOENT) }
        guard offset < file.count else { return [] }
        return Array(file[offset..<min(file.count, offset + count)])
    }

    package func write(_ name: String, at offset: Int, _ bytes: [UInt8]) throws {
        guard current[name] != nil else { throw StorageError.io(name, ENOENT) }
        Self.apply(&current[name]!, offset: offset, bytes)
        unsynced.append(Write(file: name, offset: offset, bytes: bytes))
        writeCount += 1
    }

    package func sync(_ names: [String]) throws {
        try beforeSync?(self)
        if let fail = failSync {
            if fail.countdown == 0 {
                failSync = nil
                // A failed fsync may have written any part: keep half of the writes.
                for (i, write) in unsynced.enumerated() where names.contains(write.file) && i % 2 == 0 {
                    Self.apply(&durable[write.file, default: []], offset: write.offset, write.bytes)
                }
                unsynced.removeAll { names.contains($0.file) }
                throw StorageError.io(names[0], fail.code)
            }
            failSync = (fail.countdown - 1, fail.code)
        }
        for write in unsynced where names.contains(write.file) {
            Self.apply(&durable[write.file, default: []], offset: write.offset, write.bytes)
        }
        unsynced.removeAll { names.contains($0.file) }
    }

    package func truncate(_ name: String, to size: Int) throws {
        try beforeSync?(self)
        current[name] = Array(current[name]!.prefix(size))
        // ftruncate then fsync: the file's pending writes are durable too.
        for write in unsynced where write.file == name {
            Self.apply(&durable[name, default: []], offset: write.offset, write.bytes)
        }
        unsynced.removeAll { $0.file == name }
        durable[name] = Array(durable[name]!.prefix(size))
        writeCount += 1
    }

    package func create(_ name: String, _ bytes: [UInt8]) throws {
        guard current[name] == nil else { throw StorageError.io(name, EEXIST) }
        current[name] = bytes
        durable[name] = bytes
        writeCount += 1
    }

    package func rename(_ from: String, to: String) throws {
        guard current[to] == nil, let file = current.removeValue(forKey: from) else { throw StorageError.io(to, EEXIST) }
        current[to] = file
        unsyncedNames.append(.rename(from, to))
        moveUnsynced(from, to)
        writeCount += 1
    }

    package func remove(_ name: String) throws {
        current.removeValue(forKey: name)
        unsyncedNames.append(.remove(name))
        unsynced.removeAll { $0.file == name }
        writeCount += 1
    }

    package func syncDirectory() throws {
        try beforeSync?(self)
        durable = Self.applyNames(unsyncedNames, to: durable)
        unsyncedNames = []
    }

    package func modificationTime(_ name: String) throws -> UInt64 { times[name] ?? 0 }

    package func setTimes(_ name: String, to time: UInt64) throws {
        times[name] = time
        writeCount += 1
    }

    /// The files as they are now, all writes kept (a crash-free snapshot).
    package var snapshot: [String: [UInt8]] { current }

    /// Crash images at this instant: the durable state with `keep` of the unsynced writes
    /// (indices into ``unsynced``, applied in that order), the last one optionally torn
    /// after `tornAt` bytes, and the first `names` unsynced renames and removals.
    package func crashImage(keep: [Int], tornAt: Int? = nil, names: Int? = nil) -> [String: [UInt8]] {
        var image = Self.applyNames(Array(unsyncedNames.prefix(names ?? 0)), to: durable)
        for (n, i) in keep.enumerated() {
            let write = unsynced[i]
            var bytes = write.bytes
            if n == keep.count - 1, let tornAt { bytes = Array(bytes.prefix(tornAt)) }
            guard image[write.file] != nil else { continue }
            Self.apply(&image[write.file]!, offset: write.offset, bytes)
        }
        return image
    }

    private func moveUnsynced(_ from: String, _ to: String) {
        unsynced = unsynced.map { $0.file == from ? Write(file: to, offset: $0.offset, bytes: $0.bytes) : $0 }
    }

    private static func applyNames(_ changes: [NameChange], to files: [String: [UInt8]]) -> [String: [UInt8]] {
        var files = files
        for change in changes {
            switch change {
            case let .rename(from, to):
                if let file = files.removeValue(forKey: from) { files[to] = file }
            case let .remove(name):
                files.removeValue(forKey: name)
            }
        }
        return files
    }

    private static func apply(_ file: inout [UInt8], offset: Int, _ bytes: [UInt8]) {
        if file.count < offset + bytes.count { file += [UInt8](repeating: 0, count: offset + bytes.count - file.count) }
        file.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }
}
