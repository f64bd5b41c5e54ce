import Foundation
import GRDB

/// The `noncePrefix` table: every chunked-file nonce prefix ever used under the vault's
/// keys (docs/FORMAT.md §6.2). Rows are only ever added.
extension Catalog {
    /// Whether `prefix` is in the registry. `EXISTS` always yields a row; were it not to,
    /// the prefix counts as used, so that the caller draws again rather than risk a repeat.
    func isNoncePrefixRecorded(_ prefix: [UInt8]) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM noncePrefix WHERE prefix = ?)", arguments: [Data(prefix)]) ?? true
        }
    }

    /// Adds `prefixes` to the registry; those already there are left as they are.
    func recordNoncePrefixes(_ prefixes: some Sequence<[UInt8]>) throws {
        try write { db in
            for prefix in prefixes {
                try db.execute(sql: "INSERT OR IGNORE INTO noncePrefix(prefix) VALUES (?)", arguments: [Data(prefix)])
            }
        }
    }
}
