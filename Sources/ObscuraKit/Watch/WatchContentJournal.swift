import Foundation
import ObscuraStore

extension Watcher {
    /// The content records of a state directory, one set for every folder watched from it
    /// (docs/PHONE.md §W2.5), so that a file moved from one watched folder to another is
    /// known and not sealed again.
    ///
    /// Any watcher appends under `flock(content.lock, LOCK_SH)`, reading first what
    /// others appended; compaction (records past `--forget-after` days dropped) runs at
    /// start under `LOCK_EX`, so that no append goes to a file a compaction has replaced.
    final class ContentJournal {
        private let journal: WatchJournal
        private let lock: Int32
        private let key: WatchKey
        /// The content keys recorded, with the day each was (last) sealed.
        private var days: [[UInt8]: UInt16] = [:]

        /// Opens (or makes) the content journal of `state`, compacting it: records older
        /// than `forgetAfterDays` go, and every record with `forget`.
        init(state: String, key: WatchKey, forgetAfterDays: Int, forget: Bool) throws {
            self.key = key
            self.forgetAfterDays = forgetAfterDays
            lock = try FileIO.openOrThrow(state + "/content.lock", O_RDWR | O_CREAT, 0o600)
            journal = try WatchJournal(path: state + "/content.journal")
            try compact(forget: forget)
        }

        private let forgetAfterDays: Int

        /// Drops the records older than `--forget-after` days (all of them with `forget`),
        /// under the exclusive lock, so that no append goes to the file it replaces.
        func compact(forget: Bool = false) throws {
            try locked(LOCK_EX) {
                let records = try journal.allRecords()
                let today = Int(Watcher.today())
                var kept: [WatchJournal.Record] = []
                days = [:]
                for record in records {
                    if record.type == WatchJournal.Kind.content.rawValue {
                        guard !forget, let day = day(of: record), today - Int(day) <= forgetAfterDays else { continue }
                        days[Array(record.body.prefix(32))] = day
                    }
                    // A record of a type this version does not know is kept.
                    kept.append(record)
                }
                if kept.count != records.count { try journal.rewrite(keeping: kept) }
                // What is read from here on is what others append after this.
                _ = try journal.newRecords(repair: true)
            }
        }

        deinit { close(lock) }

        /// Whether `contentKey` was sealed by any watcher of this state directory within
        /// the retention.
        func contains(_ contentKey: [UInt8]) throws -> Bool {
            try locked(LOCK_SH) { try readAppended() }
            return days[contentKey] != nil
        }

        /// Records `contentKey` as sealed on `day`, durably.
        func add(_ contentKey: [UInt8], day: UInt16) throws {
            try locked(LOCK_SH) {
                try readAppended()
                try journal.append(.content, contentKey + key.maskedDay(day, contentKey: contentKey))
                try journal.sync()
            }
            days[contentKey] = day
        }

        private func readAppended() throws {
            let (records, reopened) = try journal.newRecords()
            if reopened { days = [:] }
            for record in records where record.type == WatchJournal.Kind.content.rawValue {
                if let day = day(of: record) { days[Array(record.body.prefix(32))] = day }
            }
        }

        /// The day a content record was written, unmasked; nil for a malformed record.
        private func day(of record: WatchJournal.Record) -> UInt16? {
            guard record.body.count == 34 else { return nil }
            let contentKey = Array(record.body.prefix(32))
            let unmasked = key.maskedDay(0, contentKey: contentKey)
            return UInt16(record.body[32] ^ unmasked[0]) << 8 | UInt16(record.body[33] ^ unmasked[1])
        }

        private func locked<T>(_ operation: Int32, _ body: () throws -> T) throws -> T {
            while flock(lock, operation) != 0 {
                guard errno == EINTR else { throw StorageError.io("content.lock", errno) }
            }
            defer { flock(lock, LOCK_UN) }
            return try body()
        }
    }
}
