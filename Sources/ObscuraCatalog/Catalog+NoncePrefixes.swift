import Foundation
import GRDB

/// The `noncePrefix` table: every chunked-file nonce prefix used under the vault's keys
/// by files of version 1 (docs/FORMAT.md §6.2). Version 2 files need no prefix (§6.6), so
/// nothing draws from it any more; catalogs keep the table, and rows are only ever added.
extension Catalog {
    /// Adds `prefixes` to the registry; those already there are left as they are.
    package func recordNoncePrefixes(_ prefixes: some Sequence<[UInt8]>) throws {
        try write { db in
            for prefix in prefixes {
                try db.execute(sql: "INSERT OR IGNORE INTO noncePrefix(prefix) VALUES (?)", arguments: [Data(prefix)])
            }
        }
    }
}
