import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// The watcher's state (docs/PHONE.md §W2.5): its journals' format, a torn append, a
/// record of a later version, the content records' retention, the key made once, and
/// what the state directory holds: keyed hashes only, never a code, a path, a name or a
/// blob's name.
@Suite struct WatchJournalTests {
    @Test func recordsAreTypeLengthBodyAfterAHeader() throws {
        let root = try TestRoot()
        let path = root.path + "/j.journal"
        let journal = try WatchJournal(path: path)
        try journal.append(.seen, [UInt8](repeating: 7, count: 32))
        try journal.append(.baseline, [UInt8](repeating: 8, count: 32))
        try journal.sync()
        let bytes = try FileIO.read(path)
        #expect(bytes.count == 16 + 2 * 34)
        #expect(Array(bytes.prefix(8)) == Array("OBSW".utf8) + [0, 1, 0, 0])
        #expect(Array(bytes[16..<18]) == [0x53, 32] && Array(bytes[50..<52]) == [0x42, 32])
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let again = try WatchJournal(path: path)
        #expect(try again.newRecords().records.map(\.type) == [0x53, 0x42])
    }

    /// A crash mid-append leaves a record cut short: it is cut when the journal's writer
    /// opens it, and the next record follows the last whole one. A record of a type this
    /// version does not know is skipped by its length and kept.
    @Test func aTornTailIsCutAndAnUnknownRecordKept() throws {
        let root = try TestRoot()
        let path = root.path + "/j.journal"
        let journal = try WatchJournal(path: path)
        try journal.append(.seen, [UInt8](repeating: 1, count: 32))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0x5A, 3, 9, 9, 9]))
        handle.write(Data([0x53, 32, 1, 2, 3]))
        handle.closeFile()
        let reopened = try WatchJournal(path: path)
        let records = try reopened.newRecords(repair: true).records
        #expect(records.map(\.type) == [0x53, 0x5A])
        #expect(try FileIO.read(path).count == 16 + 34 + 5, "the torn record is cut")
        try reopened.append(.seen, [UInt8](repeating: 2, count: 32))
        let last = try WatchJournal(path: path).newRecords().records
        #expect(last.map(\.type) == [0x53, 0x5A, 0x53] && last[2].body == [UInt8](repeating: 2, count: 32))
    }

    /// Content records older than `--forget-after` days are dropped at start; younger
    /// ones keep a copy of a file from being sealed again.
    @Test func contentRecordsAreForgottenAfterTheirDays() throws {
        let root = try TestRoot()
        let state = root.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let key = try WatchKey.loadOrCreate(state: state)
        let old = key.contentKey(sha256: SHA256Digest.hash([1]))
        let recent = key.contentKey(sha256: SHA256Digest.hash([2]))
        do {
            let content = try Watcher.ContentJournal(state: state, key: key, forgetAfterDays: 30, forget: false)
            try content.add(old, day: Watcher.today() - 31)
            try content.add(recent, day: Watcher.today() - 29)
            #expect(try content.contains(old) && content.contains(recent))
        }
        let size = try FileIO.read(state + "/content.journal").count
        let content = try Watcher.ContentJournal(state: state, key: key, forgetAfterDays: 30, forget: false)
        #expect(try !content.contains(old) && content.contains(recent))
        #expect(try FileIO.read(state + "/content.journal").count == size - 36, "the old record is gone from the file")
        let forgotten = try Watcher.ContentJournal(state: state, key: key, forgetAfterDays: 30, forget: true)
        #expect(try !forgotten.contains(recent))
    }

    /// Two watchers of two folders share the content records: what one sealed, the other
    /// sees as known at once (a file moved between the folders is not sealed twice).
    @Test func contentRecordsAreSharedBetweenWatchers() throws {
        let root = try TestRoot()
        let state = root.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let key = try WatchKey.loadOrCreate(state: state)
        let first = try Watcher.ContentJournal(state: state, key: key, forgetAfterDays: 30, forget: false)
        let second = try Watcher.ContentJournal(state: state, key: key, forgetAfterDays: 30, forget: false)
        let sealed = key.contentKey(sha256: SHA256Digest.hash([3]))
        #expect(try !second.contains(sealed))
        try first.add(sealed, day: Watcher.today())
        #expect(try second.contains(sealed))
    }

    /// First starts at once agree on one key; the key file is the owner's only.
    @Test func firstStartsAtOnceAgreeOnOneKey() throws {
        let root = try TestRoot()
        let state = root.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let names = ConcurrentNames()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let key = try? WatchKey.loadOrCreate(state: state) {
                names.add(key.sourceName(realPath: Array("/photos".utf8)))
            }
        }
        #expect(names.all.count == 8 && Set(names.all).count == 1)
        var st = stat()
        #expect(stat(state + "/key", &st) == 0 && st.st_mode & 0o777 == 0o600 && st.st_size == 38)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == ["key"], "no temporary left")
    }

    /// After a watcher sealed files, nothing in its state directory names the code, the
    /// folder, a file or a blob: the bytes of each are searched for.
    @Test func theStateDirectoryHoldsNoNameCodeOrPath() throws {
        let setup = try WatcherTests.Setup()
        try setup.write("Holiday IMG_4242.jpg", try WatcherTests.photo(40))
        let watcher = try setup.watcher(setup.options(existing: true))
        try watcher.pass(now: 0)
        try watcher.pass(now: 10)
        let blobs = setup.inbox.blobNames()
        #expect(blobs.count == 1)
        var state: [UInt8] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: setup.state) {
            state += Array(name.utf8) + (try FileIO.read(setup.state + "/" + name))
        }
        let secrets = [setup.code.text, "Holiday", "IMG_4242", "Camera", setup.source, String(blobs[0].prefix(36))]
            + [String(blobs[0].prefix(36)).replacingOccurrences(of: "-", with: "")]
        for secret in secrets {
            #expect(!Self.contains(state, Array(secret.utf8)), "\(secret) in the state directory")
            #expect(!Self.contains(state, Array(secret.lowercased().utf8)))
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    final class ConcurrentNames: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        func add(_ name: String) { lock.withLock { names.append(name) } }
        var all: [String] { lock.withLock { names } }
    }
}
