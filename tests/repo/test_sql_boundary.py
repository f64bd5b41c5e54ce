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
