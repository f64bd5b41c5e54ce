import Foundation
import GRDB

/// The word index over the picture index's text (docs/SEARCH.md §S5.1; docs/FORMAT.md
/// §3.3, "The picture index"): a contentless FTS5 table in the connection's temp schema,
/// which `temp_store = MEMORY` keeps in memory and the paged VFS never sees. It is no part
/// of the image, of a commit, of an export or a backup: a word index on disk would write a
/// page per distinct word of every change and keep deleted words in its segments. Made on
/// every connection the catalog opens, filled from `item_index` before the first search
/// that needs it, and kept by TEMP triggers.
extension Catalog {
    /// Membership, one rule for the triggers, the fill and the tests' reference: a row is
    /// in the index exactly when it has text and its item is outside the trash. (A
    /// protected item's row has no `ocrText`, and a view-limited item's row is the
    /// placeholder, so neither is ever in it.)
    static func wordMembership(of row: String) -> String {
        "\(row).ocrText IS NOT NULL AND (SELECT deletedAt IS NULL FROM main.item WHERE rowid = \(row).itemRowid)"
    }

    /// The word index's tokenizer: words split at what is not a letter, a number or a
    /// private-use character, folded to lower case without diacritics. The reference the
    /// tests compare with is made with the same.
    static let wordTokenizer = "unicode61 remove_diacritics 2"

    /// The temp objects (normative: docs/SEARCH.md §S5.1, review round 2 R2-4). Every
    /// statement is guarded by `[NOT] EXISTS` on `ocr_member`, never by a key conflict, so
    /// the order triggers run in does not matter; names never collide with main tables.
    static let wordIndexSchema = """
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.ocr_words USING fts5(
            ocrText, content = '', tokenize = '\(wordTokenizer)');
        CREATE TABLE IF NOT EXISTS temp.ocr_member (rowid INTEGER PRIMARY KEY);
        CREATE TEMP TRIGGER IF NOT EXISTS ocr_ins AFTER INSERT ON main.item_index
            WHEN \(wordMembership(of: "NEW"))
            AND NOT EXISTS (SELECT 1 FROM temp.ocr_member WHERE rowid = NEW.itemRowid) BEGIN
            INSERT INTO ocr_words (rowid, ocrText) VALUES (NEW.itemRowid, NEW.ocrText);
            INSERT INTO ocr_member (rowid) VALUES (NEW.itemRowid);
        END;
        CREATE TEMP TRIGGER IF NOT EXISTS ocr_del AFTER DELETE ON main.item_index
            WHEN EXISTS (SELECT 1 FROM temp.ocr_member WHERE rowid = OLD.itemRowid) BEGIN
            INSERT INTO ocr_words (ocr_words, rowid, ocrText) VALUES ('delete', OLD.itemRowid, OLD.ocrText);
            DELETE FROM ocr_member WHERE rowid = OLD.itemRowid;
        END;
        CREATE TEMP TRIGGER IF NOT EXISTS ocr_trash AFTER UPDATE OF deletedAt ON main.item
            WHEN OLD.deletedAt IS NULL AND NEW.deletedAt IS NOT NULL
            AND EXISTS (SELECT 1 FROM temp.ocr_member WHERE rowid = NEW.rowid) BEGIN
            INSERT INTO ocr_words (ocr_words, rowid, ocrText)
                SELECT 'delete', itemRowid, ocrText FROM main.item_index WHERE itemRowid = NEW.rowid;
            DELETE FROM ocr_member WHERE rowid = NEW.rowid;
        END;
        CREATE TEMP TRIGGER IF NOT EXISTS ocr_restore AFTER UPDATE OF deletedAt ON main.item
            WHEN OLD.deletedAt IS NOT NULL AND NEW.deletedAt IS NULL
            AND NOT EXISTS (SELECT 1 FROM temp.ocr_member WHERE rowid = NEW.rowid) BEGIN
            INSERT INTO ocr_words (rowid, ocrText)
                SELECT itemRowid, ocrText FROM main.item_index WHERE itemRowid = NEW.rowid AND ocrText IS NOT NULL;
            INSERT INTO ocr_member (rowid)
                SELECT itemRowid FROM main.item_index WHERE itemRowid = NEW.rowid AND ocrText IS NOT NULL;
        END;
        """

    /// Rows the fill reads in one short write, so that a long fill never holds the
    /// catalog's queue for long; a chunk also stops after ``wordFillBytes`` of text.
    static let wordFillChunk = 2_000
    /// The text one chunk of the fill tokenises at most (past its first row): 2,000 rows
    /// at the 3,840-byte cap would hold the queue for about 0.4 s (review of step 2, S7).
    static let wordFillBytes = 512 * 1024

    /// Makes the temp objects on `db` (idempotent): at open, and on the connection
    /// ``reload()`` opens after a failed commit, which has none.
    static func prepareWordIndex(_ db: Database) throws {
        try db.execute(sql: wordIndexSchema)
    }

    /// Fills the word index from `item_index`, in chunks by `seq`, unless the current
    /// connection's index is already filled. Rows committed meanwhile reach it through
    /// the triggers; none is added twice. A reload meanwhile (a new connection, with an
    /// empty index) starts the fill again on the new one (review of step 2, S5). Must not
    /// be called inside a transaction of this catalog.
    package func fillWordIndex(chunk: Int = wordFillChunk, bytes: Int = wordFillBytes) throws {
        while true {
            let connection = database
            if wordIndexLock.withLock({ wordIndexConnection === connection }) { return }
            var cursor: Int64 = 0
            var moved = false
            while true {
                let next: Int64? = try write { db in
                    // The chunk's last seq: `chunk` rows, fewer when their text passes `bytes`.
                    guard let last = try Int64.fetchOne(db, sql: """
                        SELECT coalesce(max(CASE WHEN total <= ? THEN seq END), min(seq)) FROM (
                            SELECT seq, sum(length(CAST(ocrText AS BLOB))) OVER (ORDER BY seq) AS total
                            FROM main.item_index WHERE seq > ? ORDER BY seq LIMIT ?)
                        """, arguments: [bytes, cursor, chunk]) else { return nil }
                    let rows = """
                        FROM main.item_index WHERE seq > ? AND seq <= ? AND \(Self.wordMembership(of: "item_index"))
                        AND NOT EXISTS (SELECT 1 FROM temp.ocr_member WHERE rowid = itemRowid)
                        """
                    try db.execute(sql: "INSERT INTO temp.ocr_words (rowid, ocrText) SELECT itemRowid, ocrText \(rows)",
                                   arguments: [cursor, last])
                    try db.execute(sql: "INSERT INTO temp.ocr_member (rowid) SELECT itemRowid \(rows)", arguments: [cursor, last])
                    return last
                }
                if database !== connection {
                    moved = true
                    break
                }
                guard let next else { break }
                cursor = next
            }
            if moved { continue }
            let done = wordIndexLock.withLock { () -> Bool in
                guard database === connection else { return false }
                wordIndexConnection = connection
                return true
            }
            if done { return }
        }
    }

    /// The word index's generation (one more at each ``reload()``, whose new connection's
    /// index is empty until filled again; review round 2, R2-10) and whether the current
    /// connection's index is filled.
    package var wordIndexState: (generation: Int, filled: Bool) {
        let connection = database
        return wordIndexLock.withLock { (wordIndexGeneration, wordIndexConnection === connection) }
    }

    /// The FTS5 query of `text` against the word index: each word of it, in double quotes
    /// (its own doubled, so nothing in it is query syntax), as a prefix, all of them
    /// required; a word of one character is matched whole, since as a prefix it would
    /// merge the lists of a large part of the vocabulary on every keystroke (review of
    /// step 2, S1). At most ``wordQueryLimit`` words. Nil when no word holds a character
    /// `unicode61` keeps in a token (a letter, a number, a private-use character).
    static func wordQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: \.isWhitespace)
            .filter { $0.unicodeScalars.contains(where: isTokenCharacter) }
            .prefix(wordQueryLimit)
        guard !words.isEmpty else { return nil }
        return words.map { word in
            "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + (word.count == 1 ? "\"" : "\"*")
        }.joined(separator: " AND ")
    }

    /// The most words of a query the word index is asked for: a pasted paragraph must not
    /// hold the catalog's queue for seconds.
    static let wordQueryLimit = 16

    /// Whether `unicode61` keeps `scalar` in a token: the general categories L*, N* and Co.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }
}

extension Catalog {
    /// How this connection's word index differs from one rebuilt from the membership rule
    /// (review round 2, R2-3: FTS5's `integrity-check` proves nothing about deletes on a
    /// contentless table): every (term, row, column, offset) of `fts5vocab`'s instance
    /// view on one side only, and every `ocr_member` row the rule does not give or the
    /// reverse; empty when they agree. For the tests and audits.
    package func wordIndexMismatches() throws -> [String] {
        try write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE temp.ocr_reference USING fts5(ocrText, content = '', tokenize = '\(Self.wordTokenizer)');
                INSERT INTO temp.ocr_reference (rowid, ocrText)
                    SELECT itemRowid, ocrText FROM main.item_index WHERE \(Self.wordMembership(of: "item_index"));
                CREATE VIRTUAL TABLE temp.ocr_words_terms USING fts5vocab(temp, ocr_words, instance);
                CREATE VIRTUAL TABLE temp.ocr_reference_terms USING fts5vocab(temp, ocr_reference, instance);
                """)
            defer {
                try? db.execute(sql: """
                    DROP TABLE temp.ocr_words_terms; DROP TABLE temp.ocr_reference_terms; DROP TABLE temp.ocr_reference;
                    """)
            }
            let terms = "SELECT term, doc, col, offset FROM temp"
            let onlyIndex = try String.fetchAll(db, sql: """
                SELECT 'index only: ' || term || ' row ' || doc FROM (\(terms).ocr_words_terms EXCEPT \(terms).ocr_reference_terms)
                """)
            let onlyReference = try String.fetchAll(db, sql: """
                SELECT 'missing: ' || term || ' row ' || doc FROM (\(terms).ocr_reference_terms EXCEPT \(terms).ocr_words_terms)
                """)
            let members = try String.fetchAll(db, sql: """
                SELECT 'member without the rule: ' || rowid FROM (SELECT rowid FROM temp.ocr_member
                    EXCEPT SELECT itemRowid FROM main.item_index WHERE \(Self.wordMembership(of: "item_index")))
                UNION ALL
                SELECT 'rule without member: ' || rowid FROM (SELECT itemRowid AS rowid FROM main.item_index
                    WHERE \(Self.wordMembership(of: "item_index")) EXCEPT SELECT rowid FROM temp.ocr_member)
                """)
            return onlyIndex + onlyReference + members
        }
    }
}
