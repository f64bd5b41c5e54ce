#!/usr/bin/env python3
"""Catalog figures for docs/SEARCH.md §S4-§S5 with plain SQLite (Python's sqlite3: Debian's
3.40.1, the library the paged catalog runs on; page size 4096, no encryption, so page
counts are the paged catalog's and times are a floor).

Builds a catalog of N items shaped like §3.3's `item` table (with its indexes and the
trigram search index over name, place and note text), then adds the proposed
`item_index` table (one 516-byte int8 vector and the OCR text per item) and a trigram
index over the OCR text, and measures:

  * bytes per item: the file's growth, by part (vectors, OCR text, its trigram index);
  * pages a commit writes when the background job indexes a batch of k items into an
    indexed catalog (the file before and after, compared page by page): the bucket a
    container commit takes (FORMAT.md §8.12);
  * reading every vector back (the first semantic query of a session) and a text query
    through the trigram index (count and one page of 60, as Catalog+Listing does).

OCR text is synthetic: a share of items with none, short or long text (--text-profile).

    python3 storage_bench.py [--items 100000] [--text-profile photos|documents] [--out DIR]
"""
import argparse
import os
import random
import shutil
import sqlite3
import struct
import time
import uuid

PAGE = 4096


def words(rng, n_vocab=3000):
    letters = "etaoinshrdlcumwfgypbvk"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(n_vocab)]
    return vocab


def ocr_text(rng, vocab, profile):
    r = rng.random()
    none, short = (0.75, 0.90) if profile == "photos" else (0.30, 0.50)
    if r < none:
        return None
    n = rng.randint(2, 12) if r < short else rng.randint(60, 250)
    out = []
    for _ in range(n):
        out.append(rng.choice(vocab) if rng.random() < 0.85 else str(rng.randint(0, 10**rng.randint(2, 9))))
    return " ".join(out)


def vector(rng):
    return struct.pack("<f", rng.random() / 127) + bytes(rng.getrandbits(8) for _ in range(512))


SCHEMA = """
CREATE TABLE folder (id TEXT PRIMARY KEY, parentId TEXT, name TEXT NOT NULL, createdAt REAL NOT NULL);
CREATE TABLE item (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, mediaId TEXT NOT NULL, thumbId TEXT, name TEXT NOT NULL,
  mimeType TEXT NOT NULL, size INTEGER NOT NULL, width INTEGER, height INTEGER, orientation INTEGER,
  duration REAL, takenAt REAL, importedAt REAL NOT NULL, folderId TEXT REFERENCES folder(id) ON DELETE SET NULL,
  favorite BOOLEAN NOT NULL DEFAULT 0, contentHash BLOB NOT NULL, protectedMeta BLOB,
  deletedAt REAL, latitude REAL, longitude REAL, place TEXT, renditionId TEXT, renditionState TEXT,
  noteText TEXT, viewsLeft INTEGER, endsAt REAL);
CREATE INDEX item_by_date ON item(takenAt, importedAt, id);
CREATE INDEX item_by_folder ON item(folderId);
CREATE INDEX item_by_hash ON item(contentHash);
CREATE INDEX item_by_sort ON item(COALESCE(takenAt, importedAt) DESC, id);
CREATE INDEX item_by_kind ON item(kind, COALESCE(takenAt, importedAt) DESC, id);
CREATE VIRTUAL TABLE item_search USING fts5(name, place, noteText, content='item', content_rowid='rowid', tokenize='trigram');
"""

# The proposal (§S4): one row per indexed item, apart from `item` so that gallery pages do
# not read vectors; an FTS5 index over the OCR text, kept by triggers. --layout picks the
# row layout, --ocr-fts the tokenizer (none: vectors and text, no text index).
def index_schema(layout, ocr_fts):
    key = "itemId TEXT NOT NULL PRIMARY KEY REFERENCES item(id) ON DELETE CASCADE"
    if layout == "rowid":
        key = "itemId TEXT NOT NULL UNIQUE REFERENCES item(id) ON DELETE CASCADE"
    sql = f"""CREATE TABLE item_index ({key}, state INTEGER NOT NULL DEFAULT 0, model INTEGER,
      vector BLOB, ocrText TEXT, sealed BLOB){' WITHOUT ROWID' if layout == 'without-rowid' else ''};"""
    if ocr_fts == "none":
        return sql
    # A WITHOUT ROWID table has no rowid for FTS5 to name rows by: the text index then
    # names item rows, through a view, as the combined index of §S5.1 would.
    content = "item_index" if layout == "rowid" else "item_text"
    rowid = "rowid" if layout == "rowid" else "itemRowid"
    if layout != "rowid":
        sql += """CREATE VIEW item_text AS SELECT item.rowid AS itemRowid, item_index.ocrText AS ocrText
                  FROM item_index JOIN item ON item.id = item_index.itemId;"""
    new_rowid = "NEW.rowid" if layout == "rowid" else "(SELECT rowid FROM item WHERE id = NEW.itemId)"
    old_rowid = "OLD.rowid" if layout == "rowid" else "(SELECT rowid FROM item WHERE id = OLD.itemId)"
    return sql + f"""
    CREATE VIRTUAL TABLE item_text_search USING fts5(ocrText, content='{content}', content_rowid='{rowid}', tokenize='{ocr_fts}');
    CREATE TRIGGER item_index_ai AFTER INSERT ON item_index BEGIN
      INSERT INTO item_text_search (rowid, ocrText) VALUES ({new_rowid}, NEW.ocrText); END;
    CREATE TRIGGER item_index_ad AFTER DELETE ON item_index BEGIN
      INSERT INTO item_text_search (item_text_search, rowid, ocrText) VALUES ('delete', {old_rowid}, OLD.ocrText); END;
    """


def size(path):
    return os.path.getsize(path)


def changed_pages(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        n = 0
        while True:
            x, y = fa.read(PAGE), fb.read(PAGE)
            if not x and not y:
                return n
            n += x != y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--text-profile", default="photos", choices=["photos", "documents"])
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/obscura-search-spike"))
    ap.add_argument("--layout", default="rowid", choices=["rowid", "without-rowid"])
    ap.add_argument("--ocr-fts", default="trigram", choices=["trigram", "unicode61", "none"])
    args = ap.parse_args()
    rng = random.Random(38)
    vocab = words(rng)
    path = os.path.join(args.out, f"catalog-{args.text_profile}.db")
    for p in (path, path + "-journal"):
        if os.path.exists(p):
            os.remove(p)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA page_size={PAGE}")
    db.execute("PRAGMA journal_mode=MEMORY")
    db.executescript(SCHEMA)
    t0 = time.time()
    db.execute("BEGIN")
    ids = []
    for i in range(args.items):
        iid = str(uuid.UUID(int=rng.getrandbits(128)))
        ids.append(iid)
        taken = 1.4e9 + rng.random() * 3e8
        db.execute("INSERT INTO item (id, kind, mediaId, thumbId, name, mimeType, size, width, height, orientation,"
                   " takenAt, importedAt, favorite, contentHash, place) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (iid, "photo", str(uuid.UUID(int=rng.getrandbits(128))), str(uuid.UUID(int=rng.getrandbits(128))),
                    f"IMG_{i:05d}.jpg", "image/jpeg", rng.randint(10**6, 8 * 10**6), 4032, 3024, 1, taken, taken + 100,
                    rng.random() < 0.05, b"\x01" + rng.randbytes(32), rng.choice(["Berlin", "Lisbon", "Oslo", None])))
        db.execute("INSERT INTO item_search (rowid, name, place, noteText) SELECT rowid, name, place, noteText FROM item WHERE id = ?", (iid,))
    db.execute("COMMIT")
    base = size(path)
    print(f"catalog of {args.items} items without the index: {base / 2**20:.1f} MiB ({base / args.items:.0f} B/item); built in {time.time() - t0:.0f} s")

    db.executescript(index_schema(args.layout, args.ocr_fts))
    # Index all but the last 1,000 items in one go, then measure batches into the rest.
    texts = 0
    db.execute("BEGIN")
    for iid in ids[:-1000]:
        t = ocr_text(rng, vocab, args.text_profile)
        texts += len(t or "")
        db.execute("INSERT INTO item_index (itemId, model, vector, ocrText, state) VALUES (?,?,?,?,1)",
                   (iid, 1, vector(rng), t))
    db.execute("COMMIT")
    indexed = args.items - 1000
    grown = size(path) - base
    parts = {}
    try:
        for name, pages in db.execute("SELECT name, COUNT(*) FROM dbstat GROUP BY name"):
            parts[name] = pages * PAGE
    except sqlite3.OperationalError:
        pass
    print(f"+ index of {indexed} items ({args.layout}, OCR index {args.ocr_fts}): {grown / 2**20:.1f} MiB, {grown / indexed:.0f} B/item"
          f" (OCR text {texts / indexed:.0f} B/item on average, profile {args.text_profile})")
    for name in sorted(parts, key=lambda n: -parts[n])[:8]:
        print(f"    {name}: {parts[name] / 2**20:.1f} MiB ({parts[name] / indexed:.0f} B/item)")

    # Pages per commit when the job indexes k more items.
    rest = ids[-1000:]
    for k in (1, 8, 32, 128):
        snap = path + ".before"
        shutil.copyfile(path, snap)
        db.execute("BEGIN")
        for iid in rest[:k]:
            db.execute("INSERT INTO item_index (itemId, model, vector, ocrText, state) VALUES (?,?,?,?,1)",
                       (iid, 1, vector(rng), ocr_text(rng, vocab, args.text_profile)))
        db.execute("COMMIT")
        rest = rest[k:]
        n = changed_pages(snap, path)
        print(f"commit of {k:3d} indexed items: {n} pages written ({n / k:.1f} per item)")
        os.remove(snap)

    # The first semantic query of a session: every vector into memory.
    db.close()
    db = sqlite3.connect(path)
    t0 = time.time()
    rows = db.execute("SELECT itemId, vector FROM item_index WHERE vector IS NOT NULL").fetchall()
    read_ms = (time.time() - t0) * 1e3
    print(f"reading {len(rows)} vectors (warm file cache, no decryption): {read_ms:.0f} ms")
    pages = sum(v for k, v in parts.items() if k.startswith("item_index") or k.startswith("sqlite_autoindex_item_index"))
    print(f"    pages of item_index and its key: {pages // PAGE}; sealed-page opens at 2 GB/s would add ~{pages / 2e9 * 1e3:.0f} ms (estimate)")

    # A text query: count, then one page of 60 in gallery order, through the OCR index.
    if args.ocr_fts != "none":
        word = rng.choice(vocab)
        join = ("JOIN item_index ON item_index.rowid = item_text_search.rowid JOIN item ON item.id = item_index.itemId"
                if args.layout == "rowid" else "JOIN item ON item.rowid = item_text_search.rowid")
        t0 = time.time()
        for _ in range(10):
            n = db.execute("SELECT COUNT(*) FROM item_text_search WHERE item_text_search MATCH ?", (f'"{word}"',)).fetchone()[0]
            page = db.execute(f"""SELECT item.* FROM item_text_search {join} WHERE item_text_search MATCH ?
                                 ORDER BY COALESCE(takenAt, importedAt) DESC, item.id LIMIT 60""", (f'"{word}"',)).fetchall()
        print(f"text query {word!r}: {n} matches, count + page of {len(page)} in {(time.time() - t0) * 100:.1f} ms (mean of 10, warm)")
    total = size(path)
    print(f"whole catalog: {total / 2**20:.1f} MiB for {args.items} items")


if __name__ == "__main__":
    main()
