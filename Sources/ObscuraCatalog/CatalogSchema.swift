import Foundation
import GRDB
import ObscuraCrypto

/// The catalog's tables, designed once for every feature (docs/FORMAT.md §3.3).
///
/// Everything here lives only inside a sealed slot: items, folders and settings.
package enum CatalogSchema {
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "folder") { t in
                t.primaryKey("id", .text)
                t.column("parentId", .text).references("folder", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.column("createdAt", .double).notNull()
                // Folder password (null when unprotected): PBKDF2 salt and rounds, the
                // folder key wrapped under the folder KEK, and SHA-256 of the KEK.
                t.column("kdfSalt", .blob)
                t.column("kdfIterations", .integer)
                t.column("wrappedKey", .blob)
                t.column("keyVerifier", .blob)
            }
            try db.create(table: "item") { t in
                t.primaryKey("id", .text)
                t.column("kind", .text).notNull()  // photo, video, file
                t.column("mediaId", .text).notNull()
                t.column("thumbId", .text)
                t.column("name", .text).notNull()
                t.column("mimeType", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("width", .integer)
                t.column("height", .integer)
                t.column("orientation", .integer)
                t.column("duration", .double)
                t.column("takenAt", .double)
                t.column("importedAt", .double).notNull()
                t.column("folderId", .text).references("folder", onDelete: .setNull)
                t.column("favorite", .boolean).notNull().defaults(to: false)
                t.column("contentHash", .blob).notNull()
                // For items in a protected folder: name and metadata sealed under the
                // folder key, so a session with only the MEK sees none of them.
                t.column("protectedMeta", .blob)
            }
            try db.create(index: "item_by_date", on: "item", columns: ["takenAt", "importedAt", "id"])
            try db.create(index: "item_by_folder", on: "item", columns: ["folderId"])
            try db.create(index: "item_by_hash", on: "item", columns: ["contentHash"])
            // Every chunked-file nonce prefix ever used under this vault's MEK (and folder
            // keys), so that no prefix is drawn twice (docs/FORMAT.md §6.2). Never shrinks:
            // a deleted file's ciphertext may live on in a backup.
            try db.create(table: "noncePrefix") { t in
                t.primaryKey("prefix", .blob)
            }
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2") { db in
            // The gallery's order (docs/FORMAT.md §3.3): pages read this index in order
            // instead of sorting every row (100,000 items: ~200 ms to under 1 ms).
            try db.execute(sql: "CREATE INDEX item_by_sort ON item(COALESCE(takenAt, importedAt) DESC, id)")
        }
        migrator.registerMigration("v3") { db in
            // Items and favourites per folder ('' for the top level), kept by triggers
            // (docs/FORMAT.md §3.3): a page's total is a sum over folders, not a count of
            // every row, which in a paged catalog would read every page of an index
            // (1,000,000 items: hundreds of milliseconds on a cold cache). No OR IGNORE in
            // the triggers: the statement that fires one (a foreign key's SET NULL among
            // them) imposes its own conflict policy on the trigger's statements. A row that
            // falls to zero goes: a deleted folder's id stays in no table.
            try db.execute(sql: """
                CREATE TABLE item_tally (
                    folder TEXT NOT NULL PRIMARY KEY,
                    items INTEGER NOT NULL,
                    favorites INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO item_tally (folder, items, favorites)
                    SELECT ifnull(folderId, ''), COUNT(*), SUM(favorite != 0) FROM item GROUP BY ifnull(folderId, '');
                CREATE TRIGGER item_tally_insert AFTER INSERT ON item BEGIN
                    INSERT INTO item_tally (folder, items, favorites) SELECT ifnull(NEW.folderId, ''), 0, 0
                        WHERE NOT EXISTS (SELECT 1 FROM item_tally WHERE folder = ifnull(NEW.folderId, ''));
                    UPDATE item_tally SET items = items + 1, favorites = favorites + (NEW.favorite != 0)
                        WHERE folder = ifnull(NEW.folderId, '');
                END;
                CREATE TRIGGER item_tally_delete AFTER DELETE ON item BEGIN
                    UPDATE item_tally SET items = items - 1, favorites = favorites - (OLD.favorite != 0)
                        WHERE folder = ifnull(OLD.folderId, '');
                    DELETE FROM item_tally WHERE folder = ifnull(OLD.folderId, '') AND items = 0;
                END;
                CREATE TRIGGER item_tally_update AFTER UPDATE OF folderId, favorite ON item BEGIN
                    UPDATE item_tally SET items = items - 1, favorites = favorites - (OLD.favorite != 0)
                        WHERE folder = ifnull(OLD.folderId, '');
                    DELETE FROM item_tally WHERE folder = ifnull(OLD.folderId, '') AND items = 0;
                    INSERT INTO item_tally (folder, items, favorites) SELECT ifnull(NEW.folderId, ''), 0, 0
                        WHERE NOT EXISTS (SELECT 1 FROM item_tally WHERE folder = ifnull(NEW.folderId, ''));
                    UPDATE item_tally SET items = items + 1, favorites = favorites + (NEW.favorite != 0)
                        WHERE folder = ifnull(NEW.folderId, '');
                END;
                """)
        }
        migrator.registerMigration("v4") { db in
            // The trash, places and search (issue 17; docs/FORMAT.md §3.3). A trashed item
            // keeps its row, folder and sealed fields until it is emptied or expires, and
            // leaves every view, tally and search but the trash's. No row is in the trash
            // yet, so the tally stands as v3 counted it.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN deletedAt REAL;
                ALTER TABLE item ADD COLUMN latitude REAL;
                ALTER TABLE item ADD COLUMN longitude REAL;
                ALTER TABLE item ADD COLUMN place TEXT;
                CREATE INDEX item_in_trash ON item(deletedAt, id) WHERE deletedAt IS NOT NULL;
                CREATE INDEX item_by_kind ON item(kind, COALESCE(takenAt, importedAt) DESC, id);
                DROP TRIGGER item_tally_insert;
                DROP TRIGGER item_tally_delete;
                DROP TRIGGER item_tally_update;
                \(tallyTriggers)
                \(searchTable(firstSearchColumns))
                """)
        }
        migrator.registerMigration("v5") { db in
            // Renditions of videos browsers cannot play (issue 17; docs/FORMAT.md §3.3):
            // the pool id of the rendition, and whether it is still to be made. The index
            // holds only the rows still waiting, which is what the background work asks for.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN renditionId TEXT;
                ALTER TABLE item ADD COLUMN renditionState TEXT;
                CREATE INDEX item_rendition_pending ON item(id) WHERE renditionState = 'pending';
                """)
        }
        migrator.registerMigration("v6") { db in
            // Pairs, Live Photos and RAW+JPEG (issue 17; docs/FORMAT.md §3.3): an item's
            // second original (a motion, a RAW), and the keyed value that pairs halves
            // imported apart. The indexes hold only the rows that have one.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN companionId TEXT;
                ALTER TABLE item ADD COLUMN companionRole TEXT;
                ALTER TABLE item ADD COLUMN companionName TEXT;
                ALTER TABLE item ADD COLUMN companionMimeType TEXT;
                ALTER TABLE item ADD COLUMN companionSize INTEGER;
                ALTER TABLE item ADD COLUMN companionHash BLOB;
                ALTER TABLE item ADD COLUMN pairKey BLOB;
                CREATE INDEX item_by_pair_key ON item(pairKey) WHERE pairKey IS NOT NULL;
                CREATE INDEX item_by_companion_hash ON item(companionHash) WHERE companionHash IS NOT NULL;
                """)
        }
        migrator.registerMigration("v7") { db in
            // Ends (issue 19; docs/FORMAT.md §3.3, "Ends"): when an item is deleted for
            // good, by time or by views. The index holds only the rows that have a time,
            // which is what the enforcement asks for, every few seconds while a vault is open.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN endsAt REAL;
                ALTER TABLE item ADD COLUMN viewsLeft INTEGER;
                CREATE INDEX item_by_end ON item(endsAt, id) WHERE endsAt IS NOT NULL;
                """)
        }
        migrator.registerMigration("v8") { db in
            // Notes (issue 19; docs/FORMAT.md §3.3, "Notes"): a note's search text beside
            // its title, and the photos attached to a note. The search index is made anew
            // with the text as a third column, and filled from the rows (no note exists yet,
            // so it holds what v4's held). An attachment goes with either of its items.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN noteText TEXT;
                CREATE TABLE note_attachment (
                    noteId TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    itemId TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (noteId, itemId)
                ) WITHOUT ROWID;
                CREATE INDEX note_attachment_by_item ON note_attachment(itemId);
                DROP TRIGGER item_search_insert;
                DROP TRIGGER item_search_delete;
                DROP TRIGGER item_search_update;
                DROP TABLE item_search;
                \(searchTable(noteSearchColumns))
                """)
        }
        migrator.registerMigration("v9") { db in
            // Argon2id (docs/FORMAT.md §2, §6.4): a protected folder's KDF suite beside its
            // cost word; null is suite 1, PBKDF2, which every folder before it has.
            try db.execute(sql: "ALTER TABLE folder ADD COLUMN kdfSuite INTEGER")
        }
        migrator.registerMigration("v10") { db in
            // A note with an end in views reads only through a counted view (issue 40
            // point 4; docs/FORMAT.md §3.3, "Notes"): a search for words of its body would
            // read it without one. The index takes its text only while it has no views
            // left to count, and is filled anew.
            try db.execute(sql: """
                DROP TRIGGER item_search_insert;
                DROP TRIGGER item_search_delete;
                DROP TRIGGER item_search_update;
                INSERT INTO item_search (item_search) VALUES ('delete-all');
                \(searchFill(noteSearchColumns, hidingViewLimited: true))
                \(searchTriggers(noteSearchColumns, hidingViewLimited: true))
                """)
        }
        migrator.registerMigration("v11") { db in
            // Passkey unlock (docs/FORMAT.md §3.3, §9.8): one fixed row per field of block 0,
            // free until a credential commit enrols it, and never inserted or deleted
            // again, so that every later credential commit rewrites the same one page. No
            // other column and no index: the rowid is the field's index.
            try db.execute(sql: "CREATE TABLE passkey (field INTEGER PRIMARY KEY, rec BLOB NOT NULL)")
            let random = SystemRandom()
            for field in 0..<Catalog.passkeyRowCount {
                try db.execute(sql: "INSERT INTO passkey (field, rec) VALUES (?, ?)",
                               arguments: [field, Data(Catalog.freePasskeyRecord(using: random))])
            }
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, '0')", arguments: [Catalog.passwordChangedAtKey])
        }
        migrator.registerMigration("v12") { db in
            // Text read in pictures and their vectors (issue 38; docs/FORMAT.md §3.3,
            // "The picture index"; docs/SEARCH.md §S4.1): three tables and their triggers,
            // no row and no fill, so the migration writes the same pages in every vault.
            try db.execute(sql: indexSchema)
        }
        return migrator
    }

    /// Migration v12 (docs/FORMAT.md §3.3, "The picture index"). Rows are appended by the
    /// indexing job's settle and never updated in their identity or text (I6); the
    /// triggers delete what a user's change makes stale, in the change's own commit.
    /// Nothing fires on an insert into `item`: an import writes the pages it wrote before.
    static let indexSchema = """
        CREATE TABLE index_profile (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            name TEXT NOT NULL UNIQUE
        );
        CREATE TABLE item_index (
            seq INTEGER PRIMARY KEY,
            itemRowid INTEGER NOT NULL UNIQUE,
            state INTEGER NOT NULL,
            textProfile INTEGER,
            vectorProfile INTEGER,
            ocrText TEXT,
            sealed BLOB
        );
        CREATE TABLE item_vector (
            seq INTEGER PRIMARY KEY,
            vector BLOB NOT NULL
        );
        CREATE TRIGGER item_index_fixed BEFORE UPDATE OF seq, itemRowid, ocrText, sealed ON item_index
            WHEN OLD.seq IS NOT NEW.seq OR OLD.itemRowid IS NOT NEW.itemRowid OR OLD.ocrText IS NOT NEW.ocrText
              OR OLD.sealed IS NOT NEW.sealed BEGIN
            SELECT RAISE(ABORT, 'item_index rows are never updated in place (I6)');
        END;
        CREATE TRIGGER item_vector_fixed BEFORE UPDATE ON item_vector BEGIN
            SELECT RAISE(ABORT, 'item_vector rows are never updated (I6)');
        END;
        CREATE TRIGGER item_index_vector_gone AFTER DELETE ON item_index BEGIN
            DELETE FROM item_vector WHERE seq = OLD.seq;
        END;
        CREATE TRIGGER item_index_gone AFTER DELETE ON item BEGIN
            DELETE FROM item_index WHERE itemRowid = OLD.rowid;
        END;
        CREATE TRIGGER item_index_views AFTER UPDATE OF viewsLeft ON item
            WHEN (OLD.viewsLeft IS NULL) != (NEW.viewsLeft IS NULL) BEGIN
            DELETE FROM item_index WHERE itemRowid = NEW.rowid;
            INSERT INTO item_index (itemRowid, state) SELECT NEW.rowid, 64 WHERE NEW.viewsLeft IS NOT NULL;
        END;
        CREATE TRIGGER item_index_rekeyed AFTER UPDATE OF folderId ON item
            WHEN OLD.folderId IS NOT NEW.folderId
            AND (OLD.folderId IN (SELECT id FROM folder WHERE wrappedKey IS NOT NULL)
                 OR NEW.folderId IN (SELECT id FROM folder WHERE wrappedKey IS NOT NULL)) BEGIN
            DELETE FROM item_index WHERE itemRowid = NEW.rowid AND state != 64;
        END;
        CREATE TRIGGER item_index_protected AFTER UPDATE OF folderId ON item
            WHEN NEW.folderId IN (SELECT id FROM folder WHERE wrappedKey IS NOT NULL) BEGIN
            DELETE FROM item_index WHERE itemRowid = NEW.rowid AND sealed IS NULL AND state != 64;
        END;
        """

    /// The tally's triggers from migration v4 on: those of v3, counting only the rows
    /// outside the trash (`deletedAt` null). Moving to the trash and back is an update of
    /// `deletedAt`: the update trigger takes the old row out of the tally when it was
    /// counted, and puts the new one in when it is to be.
    static let tallyTriggers = """
        CREATE TRIGGER item_tally_insert AFTER INSERT ON item WHEN NEW.deletedAt IS NULL BEGIN
            INSERT INTO item_tally (folder, items, favorites) SELECT ifnull(NEW.folderId, ''), 0, 0
                WHERE NOT EXISTS (SELECT 1 FROM item_tally WHERE folder = ifnull(NEW.folderId, ''));
            UPDATE item_tally SET items = items + 1, favorites = favorites + (NEW.favorite != 0)
                WHERE folder = ifnull(NEW.folderId, '');
        END;
        CREATE TRIGGER item_tally_delete AFTER DELETE ON item WHEN OLD.deletedAt IS NULL BEGIN
            UPDATE item_tally SET items = items - 1, favorites = favorites - (OLD.favorite != 0)
                WHERE folder = ifnull(OLD.folderId, '');
            DELETE FROM item_tally WHERE folder = ifnull(OLD.folderId, '') AND items = 0;
        END;
        CREATE TRIGGER item_tally_update AFTER UPDATE OF folderId, favorite, deletedAt ON item BEGIN
            UPDATE item_tally SET items = items - 1, favorites = favorites - (OLD.favorite != 0)
                WHERE OLD.deletedAt IS NULL AND folder = ifnull(OLD.folderId, '');
            DELETE FROM item_tally
                WHERE OLD.deletedAt IS NULL AND folder = ifnull(OLD.folderId, '') AND items = 0;
            INSERT INTO item_tally (folder, items, favorites) SELECT ifnull(NEW.folderId, ''), 0, 0
                WHERE NEW.deletedAt IS NULL
                AND NOT EXISTS (SELECT 1 FROM item_tally WHERE folder = ifnull(NEW.folderId, ''));
            UPDATE item_tally SET items = items + 1, favorites = favorites + (NEW.favorite != 0)
                WHERE NEW.deletedAt IS NULL AND folder = ifnull(NEW.folderId, '');
        END;
        """

    /// The search index (migration v4): an FTS5 table of trigrams over the name and place
    /// of each item outside the trash, its content read from `item` by rowid, kept by
    /// triggers. Trigrams find any part of a name ("0042" in "IMG_0042.jpg"),
    /// case-insensitively. A protected item's row holds an empty name and no place (both
    /// sealed, §6.4), so the index holds nothing of it; an open protected folder is
    /// searched in Swift. Leaving out the trash lets a search count its matches in the
    /// index alone: at 100,000 items, counting through `item` costs a lookup a match.
    ///
    /// The index names `item` rows by rowid, which the table has beside its text key and
    /// which a copy of the rows need not keep: whatever copies them (a conversion, §9.7)
    /// fills the index anew with ``searchFill(_:)``. Migration v4 made it over
    /// ``firstSearchColumns``; v8 makes it anew over ``noteSearchColumns``.
    static func searchTable(_ columns: [String]) -> String {
        let list = columns.joined(separator: ", ")
        return """
            CREATE VIRTUAL TABLE item_search USING fts5(
                \(list), content = 'item', content_rowid = 'rowid', tokenize = 'trigram');
            \(searchFill(columns, hidingViewLimited: false))
            \(searchTriggers(columns, hidingViewLimited: false))
            """
    }

    /// The triggers that keep the search index (migrations v4, v8, v10). With
    /// `hidingViewLimited` (v10), a row's `noteText` is indexed only while its
    /// `viewsLeft` is null, so the triggers also follow changes of `viewsLeft`; the
    /// values a 'delete' hands FTS5 are worked out as the insert's were, as an external
    /// content index needs.
    static func searchTriggers(_ columns: [String], hidingViewLimited: Bool) -> String {
        let list = columns.joined(separator: ", ")
        let new = indexedValues(columns, of: "NEW", hidingViewLimited: hidingViewLimited)
        let old = indexedValues(columns, of: "OLD", hidingViewLimited: hidingViewLimited)
        let watched = list + (hidingViewLimited ? ", viewsLeft" : "")
        return """
            CREATE TRIGGER item_search_insert AFTER INSERT ON item WHEN NEW.deletedAt IS NULL BEGIN
                INSERT INTO item_search (rowid, \(list)) VALUES (NEW.rowid, \(new));
            END;
            CREATE TRIGGER item_search_delete AFTER DELETE ON item WHEN OLD.deletedAt IS NULL BEGIN
                INSERT INTO item_search (item_search, rowid, \(list)) VALUES ('delete', OLD.rowid, \(old));
            END;
            CREATE TRIGGER item_search_update AFTER UPDATE OF \(watched), deletedAt ON item BEGIN
                INSERT INTO item_search (item_search, rowid, \(list))
                    SELECT 'delete', OLD.rowid, \(old) WHERE OLD.deletedAt IS NULL;
                INSERT INTO item_search (rowid, \(list))
                    SELECT NEW.rowid, \(new) WHERE NEW.deletedAt IS NULL;
            END;
            """
    }

    /// The values the index takes of `row` ("NEW", "OLD", or a table's name).
    private static func indexedValues(_ columns: [String], of row: String, hidingViewLimited: Bool) -> String {
        columns.map { column in
            hidingViewLimited && column == "noteText"
                ? "CASE WHEN \(row).viewsLeft IS NULL THEN \(row).noteText END" : "\(row).\(column)"
        }.joined(separator: ", ")
    }

    /// The search index's columns from migration v4: name and place.
    static let firstSearchColumns = ["name", "place"]
    /// The search index's columns from migration v8 on: a note's search text besides
    /// (docs/FORMAT.md §3.3, "Notes").
    static let noteSearchColumns = ["name", "place", "noteText"]

    /// Fills an empty search index of `columns` from the rows outside the trash (FTS5's
    /// own `rebuild` would take every row), as the triggers of the same
    /// `hidingViewLimited` would have.
    static func searchFill(_ columns: [String], hidingViewLimited: Bool) -> String {
        let list = columns.joined(separator: ", ")
        let values = indexedValues(columns, of: "item", hidingViewLimited: hidingViewLimited)
        return "INSERT INTO item_search (rowid, \(list)) SELECT rowid, \(values) FROM item WHERE deletedAt IS NULL;"
    }
}
