"""SQL and GRDB stay in the catalog (issue 35): outside the ObscuraCatalog module no
file of the other product modules (crypto, places, imaging, store, keys, the library,
the server, the CLI) imports GRDB or holds an SQL statement. The
paged catalog (ObscuraPages) is a GRDB user by design, and the tools (benchmarks, vectors,
fuzzers) measure or pin the catalog's bytes from outside, so they are not checked."""

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
CATALOG = REPO / "Sources" / "ObscuraCatalog"
# Every product module but the catalog and the paged catalog.
CHECKED = [REPO / "Sources" / name for name in (
    "ObscuraCrypto", "ObscuraPlaces", "ObscuraImaging", "ObscuraStore", "ObscuraKeys",
    "ObscuraKit", "ObscuraServer", "ObscuraCLI", "obscura")]
GRDB = re.compile(r"^\s*(?:@testable\s+)?import\s+GRDB", re.MULTILINE)
SQL = re.compile(r'"[^"\n]*\b(?:SELECT\s|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX|TRIGGER)|PRAGMA\s)'
                 r"|\bsql:\s*\""
                 # A multi-line string literal whose first line is a statement.
                 r'|"""\s*\n\s*(?:SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|WITH)\s')


def offenders(pattern):
    found = []
    for root in CHECKED:
        for path in root.rglob("*.swift"):
            if CATALOG in path.parents:
                continue
            if pattern.search(path.read_text()):
                found.append(str(path.relative_to(REPO)))
    return found


def test_only_the_catalog_imports_grdb():
    assert offenders(GRDB) == []


def test_only_the_catalog_holds_sql():
    assert offenders(SQL) == []


def test_the_checks_see_the_catalogs_own_files():
    # The patterns must match what the catalog really writes, or the two tests above
    # pass on nothing.
    catalog = [p.read_text() for p in CATALOG.rglob("*.swift")]
    assert sum(bool(GRDB.search(text)) for text in catalog) >= 5
    assert sum(bool(SQL.search(text)) for text in catalog) >= 5


# docs/SEARCH.md §S4.1's write rules (review round 2, R2-4): an outer statement's conflict
# clause overrides those of the statements its triggers run, and REPLACE's implicit delete
# fires delete triggers only with recursive_triggers on, so the index triggers on `item`
# (search, tally, and the text index to come) hold only if no statement writes `item` or
# `item_index` with a conflict clause, REPLACE or an upsert.
CONFLICTED_WRITE = re.compile(
    r"\b(?:INSERT\s+OR\s+\w+|REPLACE)\s+INTO\s+(?:main\.)?\"?item(?:_index)?\b"
    r"|\bINSERT\s+INTO\s+(?:main\.)?\"?item(?:_index)?\b[^;\"]*\bON\s+CONFLICT\b"
    r"|\bUPDATE\s+OR\s+\w+\s+(?:main\.)?\"?item(?:_index)?\b",
    re.IGNORECASE)
# GRDB's own forms of the same: a conflict policy or an upsert on a record.
GRDB_CONFLICT = re.compile(r"\bonConflict\s*:|\.upsert\w*\(|conflictResolution|persistenceConflictPolicy")


def test_no_conflict_clause_or_upsert_writes_items():
    found = []
    for path in (REPO / "Sources").rglob("*.swift"):
        text = path.read_text()
        for pattern in (CONFLICTED_WRITE, GRDB_CONFLICT):
            for match in pattern.finditer(text):
                found.append(f"{path.relative_to(REPO)}: {match.group(0)}")
    assert found == []


def test_the_conflict_rule_sees_what_it_forbids():
    # The patterns must catch the forms they are for, or the test above passes on nothing.
    for sql in ["INSERT OR REPLACE INTO item (id) VALUES (1)", "REPLACE INTO item_index (seq) VALUES (1)",
                'INSERT OR IGNORE INTO main."item" (id) VALUES (1)',
                "INSERT INTO item_index (itemRowid) VALUES (1) ON CONFLICT DO NOTHING",
                "UPDATE OR REPLACE item SET name = 'x'"]:
        assert CONFLICTED_WRITE.search(sql), sql
    for sql in ["INSERT INTO item (id) VALUES (1)", "INSERT OR IGNORE INTO item_tally (k) VALUES (1)",
                "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = 1"]:
        assert not CONFLICTED_WRITE.search(sql), sql
    assert GRDB_CONFLICT.search("try record.insert(db, onConflict: .replace)")


# docs/FORMAT.md §3.3: no writer may VACUUM a catalog (it may renumber `item`'s rowids,
# which the picture index names), and `item_index` is written only by the explicit
# statements of the catalog's index file and the schema's triggers (review round 2, R2-1).
VACUUM = re.compile(r'"[^"\n]*\bVACUUM\b|\.vacuum\(', re.IGNORECASE)
INDEX_WRITE = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:main\.)?\"?item_index\b", re.IGNORECASE)
INDEX_WRITERS = {CATALOG / "Catalog+Index.swift", CATALOG / "CatalogSchema.swift"}


def product_files():
    for root in CHECKED + [CATALOG, REPO / "Sources" / "ObscuraPages"]:
        yield from root.rglob("*.swift")


def test_no_writer_vacuums_a_catalog():
    assert [str(p.relative_to(REPO)) for p in product_files() if VACUUM.search(p.read_text())] == []


def test_only_the_index_file_writes_index_rows():
    found = [str(p.relative_to(REPO)) for p in product_files()
             if p not in INDEX_WRITERS and INDEX_WRITE.search(p.read_text())]
    assert found == []
    assert all(INDEX_WRITE.search(p.read_text()) for p in INDEX_WRITERS)
    assert VACUUM.search('try db.execute(sql: "VACUUM")') and VACUUM.search("try queue.vacuum()")
