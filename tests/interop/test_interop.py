"""The Python reader against an export the CLI makes in the same run, and the vectors.

The `obscura` binary comes from OBSCURA_BIN (default: .build/debug/obscura); the vault
of the `export` fixture uses the real 600,000 rounds, the others few (TEST_KDF).
"""
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import live_photo_samples as live_photo  # noqa: E402 (after its path)
import obscura_container as container
import obscura_reader as reader

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("OBSCURA_BIN", str(ROOT / ".build" / "debug" / "obscura"))


def run(args, stdin, home):
    # No keyring here: both keys live in key files (docs/FORMAT.md §4.3).
    env = {"XDG_CONFIG_HOME": str(home / "config"), "HOME": str(home), "PATH": "/usr/bin:/bin",
           "OBSCURA_OUTER_KEY_FILE": str(home / "outer.key"), "OBSCURA_DECOY_SECRET_FILE": str(home / "decoy.key")}
    result = subprocess.run([BIN, "--vault", str(home / "vault")] + args, input=stdin.encode(),
                            capture_output=True, env=env)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


# The fixtures other than `export` are about what an export carries, not the vault's
# KDF: their directories take few PBKDF2 iterations (the hidden --test-kdf-iterations),
# and their exports still the production 600,000.
TEST_KDF = ["--test-kdf-iterations", "1000"]


def vault_export(home, files, production_kdf=False):
    """Makes a vault in HOME whose password is "vault password", adds FILES with the CLI
    and exports it with a generated password: (the export's path, its password). The
    directory takes the production KDF cost with PRODUCTION_KDF, else TEST_KDF's."""
    run(["init"] + ([] if production_kdf else TEST_KDF), "", home)
    run(["create", "--password-stdin", "--allow-weak-password"], "vault password\n", home)
    run(["add", "--password-stdin"] + [str(f) for f in files], "vault password\n", home)
    out = run(["export", "--password-stdin", "--generate-password", "-o", str(home / "v.obscura")],
              "vault password\n", home)
    return str(home / "v.obscura"), out.split(": ")[1].split("\n")[0].strip()


@pytest.fixture(scope="module")
def export():
    with tempfile.TemporaryDirectory() as tmp:
        home = pathlib.Path(tmp)
        photo = home / "sunset.jpg"
        subprocess.run(["/usr/bin/convert", "-size", "640x480", "plasma:fractal", str(photo)], check=True)
        notes = home / "notes.txt"
        notes.write_text("interoperable")
        path, password = vault_export(home, [photo, notes], production_kdf=True)
        yield {"path": path, "password": password, "photo": photo.read_bytes(),
               "notes": notes.read_bytes(), "home": home}


def test_the_cli_makes_a_container_this_reader_opens_with_its_outer_key(export):
    """§8 through this reader, on the directory the CLI made: the outer key from its key
    file opens every slot; inside, nine decoys open with the decoy credential and one
    slot with the vault password, and no slot file shows the version 3 magic."""
    home = export["home"]
    outer = reader.decode_key_text((home / "outer.key").read_bytes(), "outer")
    decoy = reader.decode_key_text((home / "decoy.key").read_bytes(), "decoy")
    data = home / "vault" / "data"
    assert all(not p.read_bytes().startswith(reader.SLOT_MAGIC) for p in data.iterdir())
    assert len({p.stat().st_size for p in data.iterdir()}) == 1
    c = container.Container(str(data), outer)
    opened = {"decoy": 0, "vault": 0}
    for slot in c.slots:
        stream = c.stream(slot)
        for label, password in (("decoy", reader.device_credential(decoy)), ("vault", b"vault password")):
            try:
                reader.open_mek(stream, password)
                opened[label] += 1
            except reader.WrongPassword:
                pass
    assert opened == {"decoy": 9, "vault": 1}
    with pytest.raises(container.OuterKeyMismatch):
        container.Container(str(data), bytes(32))


def test_the_cli_keeps_a_paged_catalog_this_reader_queries(export):
    """§9 through the second readers, on the directory the CLI made: the vault's slot
    holds a paged catalog (header version 4); its pages, verified down the tag tree and
    written into a plain SQLite file, hold the two items `add` imported, with keyed
    content hashes (§6.7)."""
    import sqlite3
    import obscura_pages as pages
    home = export["home"]
    outer = reader.decode_key_text((home / "outer.key").read_bytes(), "outer")
    c = container.Container(str(home / "vault" / "data"), outer)
    opened = []
    for slot in c.slots:
        head = c.block(slot, 0)
        assert head[:6] == reader.SLOT_MAGIC + bytes([0, 4]), "every slot of a new container is paged"
        try:
            opened.append(pages.Catalog.with_password(lambda j, s=slot: c.block(s, j), b"vault password"))
        except reader.WrongPassword:
            pass
    assert len(opened) == 1
    path = opened[0].write_sqlite()
    try:
        db = sqlite3.connect(path)
        rows = db.execute("SELECT name, length(contentHash) FROM item ORDER BY name").fetchall()
        assert rows == [("notes.txt", 33), ("sunset.jpg", 33)]
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        db.close()
    finally:
        os.unlink(path)


def test_wrong_export_password_is_rejected_before_the_payload(export):
    with pytest.raises(reader.WrongPassword):
        reader.Export(export["path"], "not the password")


def test_manifest_lists_the_items(export):
    e = reader.Export(export["path"], export["password"].lower())  # lenient form
    names = sorted(item["name"] for item in e.items)
    assert names == ["notes.txt", "sunset.jpg"]
    photo = next(i for i in e.items if i["name"] == "sunset.jpg")
    assert photo["kind"] == "photo" and photo["size"] == len(export["photo"])
    assert photo["thumb_id"] and (2, photo["thumb_id"]) in e.files


def test_a_photo_decrypts_with_the_vault_password(export):
    e = reader.Export(export["path"], export["password"])
    mek = e.open_vault("vault password")
    photo = next(i for i in e.items if i["name"] == "sunset.jpg")
    assert e.original(photo, mek) == export["photo"]
    notes = next(i for i in e.items if i["name"] == "notes.txt")
    assert e.original(notes, mek) == export["notes"]
    with pytest.raises(reader.WrongPassword):
        e.open_vault("wrong vault password")


def test_the_clis_media_is_version_2_and_its_hashes_are_keyed(export):
    """§6.6, §6.7 through this reader, on what the CLI wrote: every original and thumbnail
    is a version 2 chunked file with a salt of its own, and each item's contentHash in the
    carried catalog is the keyed hash of the plaintext the reader decrypts."""
    e = reader.Export(export["path"], export["password"])
    mek = e.open_vault("vault password")
    files = list(e.files.values())
    assert all(f[:6] == reader.CHUNKED_MAGIC + b"\x00\x02" for f in files)
    assert len({f[20:52] for f in files}) == len(files)
    photo = next(i for i in e.items if i["name"] == "sunset.jpg")
    assert e.thumbnail(photo, mek)[:2] == b"\xff\xd8"
    hashes = dict(e.catalog("vault password").execute("SELECT id, contentHash FROM item").fetchall())
    assert len(hashes) == 2
    for item in e.items:
        plaintext = e.original(item, mek)
        assert hashes[item["id"]] == reader.content_hash(mek, plaintext)
        assert hashes[item["id"]] != hashlib.sha256(plaintext).digest()


@pytest.fixture(scope="module")
def video_export():
    """An export of a vault holding a phone's HEVC clip, whose rendition `add` made."""
    with tempfile.TemporaryDirectory() as tmp:
        home = pathlib.Path(tmp)
        clip = home / "IMG_0007.MOV"
        subprocess.run(["/usr/bin/ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=duration=2:size=320x240:rate=25",
                        "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                        "-pix_fmt", "yuv420p", str(clip)], check=True)
        path, password = vault_export(home, [clip])
        yield {"path": path, "password": password, "clip": clip.read_bytes()}


def test_a_videos_rendition_travels_in_the_export_and_opens_as_an_original(video_export):
    """§3.3 renditions, §7.3, §7.4 through this reader: the manifest names the rendition,
    its file comes as an original record and decrypts under the MEK with its own UUID; it
    is an H.264 MP4 that ffprobe reads, the original is the clip as it was, and the carried
    catalog says the rendition is ready."""
    e = reader.Export(video_export["path"], video_export["password"])
    mek = e.open_vault("vault password")
    (clip,) = e.items
    assert clip["kind"] == "video" and clip["rendition_id"] not in (clip["media_id"], clip.get("thumb_id"))
    assert e.original(clip, mek) == video_export["clip"]
    mp4 = e.rendition(clip, mek)
    assert mp4[4:8] == b"ftyp"
    probe = subprocess.run(["/usr/bin/ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=codec_name,width,height", "-of", "csv=p=0", "-"], input=mp4, capture_output=True)
    assert probe.stdout.decode().strip() == "h264,320,240"
    row = e.catalog("vault password").execute("SELECT renditionId, renditionState FROM item").fetchall()
    assert row == [(clip["rendition_id"], "ready")]


@pytest.fixture(scope="module")
def live_export():
    """An export of a vault holding a Live Photo that `add` paired from its two halves."""
    with tempfile.TemporaryDirectory() as tmp:
        home = pathlib.Path(tmp)
        identifier = "6F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
        still, movie = home / "IMG_0200.JPG", home / "IMG_0200.MOV"
        still.write_bytes(live_photo.still(identifier))
        live_photo.movie(movie, identifier, seconds=1)
        path, password = vault_export(home, [still, movie])
        yield {"path": path, "password": password, "still": still.read_bytes(),
               "movie": movie.read_bytes(), "identifier": identifier}


def test_a_live_photos_motion_travels_in_the_export_as_a_second_original(live_export):
    """§3.3 Live Photos, §6.7, §7.3, §7.4 through this reader: one item, manifest format 3,
    whose companion_id names an original record that decrypts to the movie; the carried
    catalog names it with the movie's name, size and keyed hash, and holds the content
    identifier nowhere."""
    e = reader.Export(live_export["path"], live_export["password"])
    mek = e.open_vault("vault password")
    assert e.manifest["format"] == 3
    (item,) = e.items
    assert item["kind"] == "photo" and item["name"] == "IMG_0200.JPG"
    assert e.original(item, mek) == live_export["still"]
    assert e.companion(item, mek) == live_export["movie"]
    db = e.catalog("vault password")
    row = db.execute("SELECT companionId, companionRole, companionName, companionSize, companionHash, pairKey,"
                     " renditionState FROM item").fetchall()
    assert row == [(item["companion_id"], "motion", "IMG_0200.MOV", len(live_export["movie"]),
                    reader.content_hash(mek, live_export["movie"]), None, "ready")]
    identifier = live_export["identifier"].encode()
    assert identifier not in db.serialize() and identifier.lower() not in db.serialize()


@pytest.fixture(scope="module")
def note_export():
    """A vault holding a photo and a note the CLI wrote from standard input, with the photo
    attached, exported."""
    with tempfile.TemporaryDirectory() as tmp:
        home = pathlib.Path(tmp)
        photo = home / "orchard.jpg"
        subprocess.run(["/usr/bin/convert", "-size", "64x48", "plasma:fractal", str(photo)], check=True)
        run(["init"] + TEST_KDF, "", home)
        run(["create", "--password-stdin", "--allow-weak-password"], "vault password\n", home)
        run(["add", "--password-stdin", str(photo)], "vault password\n", home)
        photo_id = json.loads(run(["ls", "--json", "--password-stdin"], "vault password\n", home))[0]["id"]
        body = "# Orchard\n\nPlums *ripe*, café open.\n"
        note_id = run(["note", "add", "--password-stdin", "--title", "Orchard day", "-"], "vault password\n" + body, home).strip()
        run(["note", "attach", "--password-stdin", note_id, photo_id], "vault password\n", home)
        out = run(["export", "--password-stdin", "--generate-password", "-o", str(home / "v.obscura")], "vault password\n", home)
        yield {"path": str(home / "v.obscura"), "password": out.split(": ")[1].split("\n")[0].strip(),
               "body": body, "note": note_id, "photo": photo_id}


def test_a_note_reads_from_the_export(note_export):
    """§3.3 "Notes", §7.4 through this reader: the note is an item of kind note and type
    text/markdown whose original decrypts to its UTF-8 body; the carried catalog holds its
    search text and the photo attached to it."""
    e = reader.Export(note_export["path"], note_export["password"])
    mek = e.open_vault("vault password")
    item = next(i for i in e.items if i["id"] == note_export["note"])
    assert item["kind"] == "note" and item["mime_type"] == "text/markdown" and item.get("thumb_id") is None
    note = e.note(item, mek, "vault password")
    assert note == {"title": "Orchard day", "body": note_export["body"], "attachments": [note_export["photo"]]}
    assert item["size"] == len(note_export["body"].encode())
    db = e.catalog("vault password")
    assert db.execute("SELECT noteText FROM item WHERE id = ?", (item["id"],)).fetchone() == (note_export["body"],)
    hits = db.execute("SELECT rowid FROM item_search WHERE item_search MATCH ?", ('"café"',)).fetchall()
    assert len(hits) == 1, "the body's words are in the search index"


def vectors(kind):
    for path in sorted((ROOT / "testdata" / kind).iterdir()):
        raw = path.read_bytes()
        head, body = raw.split(b"\n\n", 1)
        fields = dict(line.split(": ", 1) for line in head.decode().splitlines())
        yield path.name, fields, body


@pytest.mark.parametrize("name,fields,body", list(vectors("chunked")), ids=lambda v: v if isinstance(v, str) else "")
def test_chunked_vectors(name, fields, body):
    """docs/FORMAT.md §5: every chunked vector, blobs included, gives its expected outcome
    here too; the first four bytes choose the format (§6.5)."""
    key, context = bytes.fromhex(fields["mek"]), bytes.fromhex(fields["context"])
    outer = bytes.fromhex(fields["folder_key"]) if "folder_key" in fields else None
    if "file_key" in fields:  # §6.6: the derived keys of a version 2 file
        inner, outer_file = reader.v2_file_keys(body[20:52], key, outer)
        assert inner.hex() == fields["file_key"], name
        assert (outer_file.hex() if outer_file else None) == fields.get("outer_file_key"), name
    try:
        plain = reader.open_pool_file(body, key, context, outer)
        outcome = "success" if hashlib.sha256(plain).hexdigest() == fields.get("plaintext_sha256") else "wrong plaintext"
    except reader.FormatError as error:
        message = str(error)
        outcome = ("truncated" if message == "truncated" else "trailing data" if message == "trailing data"
                   else "chunk failure" if message.startswith("chunk") else "failure")
    assert outcome == fields["expect"], name


@pytest.mark.parametrize("name,fields,body", list(vectors("hash")), ids=lambda v: v if isinstance(v, str) else "")
def test_hash_vectors(name, fields, body):
    """§6.7: the keyed content hash of the body under the MEK or the folder key."""
    root = bytes.fromhex(fields["key"])
    assert reader.hkdf_sha256(root, reader.CONTENT_HASH_LABEL).hex() == fields["hash_key"], name
    assert hashlib.sha256(body).hexdigest() == fields["sha256"], name
    outcome = "success" if reader.content_hash(root, body).hex() == fields["content_hash"] else "wrong hash"
    assert outcome == fields["expect"], name


@pytest.mark.parametrize("name,fields,body", list(vectors("slot")), ids=lambda v: v if isinstance(v, str) else "")
def test_slot_vectors_up_to_the_key(name, fields, body):
    """Slot vectors through the Python slot reader as far as the MEK (§3.5)."""
    if "device_secret" in fields:  # a decoy: the credential is its password (§4.1)
        password = reader.device_credential(bytes.fromhex(fields["device_secret"]))
    else:
        password = fields["password"].encode()
    try:
        reader.open_mek(body, password)
        outcome = "opened"
    except reader.WrongPassword:
        outcome = "wrong password"
    except reader.FormatError:
        outcome = "rejected"
    expected = {"success": "opened", "corrupt": "opened", "wrong password": "wrong password"}.get(fields["expect"], "rejected")
    if fields["expect"] == "truncated" and len(body) >= reader.SLOT_HEADER_SIZE:
        expected = "opened"  # the header is whole; the catalog is what is cut
    assert outcome == expected, name


@pytest.mark.parametrize("name,fields,body", list(vectors("export")), ids=lambda v: v if isinstance(v, str) else "")
def test_export_vectors(name, fields, body, tmp_path):
    """§7 vectors through this reader: password check, payload, then the photo."""
    path = tmp_path / name
    path.write_bytes(body)
    try:
        e = reader.Export(str(path), fields["password"])
        mek = e.open_vault(fields["vault_password"])
        photo = e.original(e.items[0], mek)
    except reader.Unsupported:
        outcome = "unsupported"
    except reader.WrongPassword:
        outcome = "wrong password"
    except (reader.FormatError, ValueError, KeyError, IndexError):
        outcome = "damaged"
    else:
        # Outside the try: a file that reads must never pass as "damaged" for lack of
        # the fields only success vectors carry.
        rendition = e.items[0].get("rendition_id") and hashlib.sha256(e.rendition(e.items[0], mek)).hexdigest()
        companion = e.items[0].get("companion_id") and hashlib.sha256(e.companion(e.items[0], mek)).hexdigest()
        ok = (str(len(e.items)) == fields.get("items")
              and hashlib.sha256(photo).hexdigest() == fields.get("photo_sha256")
              and (rendition or None) == fields.get("rendition_sha256")
              and (companion or None) == fields.get("companion_sha256"))
        outcome = "success" if ok else "wrong plaintext"
    assert outcome == fields["expect"], name


@pytest.mark.parametrize("name,fields,body", list(vectors("folder")), ids=lambda v: v if isinstance(v, str) else "")
def test_folder_vectors(name, fields, body):
    """§6.4: a folder record's key columns unwrap to the folder key, or fail as expected."""
    try:
        key = reader.unwrap_folder_key(
            fields["folder_id"], fields["password"].encode(), bytes.fromhex(fields["kdf_salt"]),
            int(fields["kdf_iterations"]), body, bytes.fromhex(fields["key_verifier"]),
            int(fields.get("kdf_suite", "1")))
        outcome = "success" if key.hex() == fields.get("folder_key") else "wrong key"
    except reader.WrongPassword:
        outcome = "wrong password"
    except reader.FormatError:
        outcome = "corrupt"
    assert outcome == fields["expect"], name


@pytest.mark.parametrize("name,fields,body", list(vectors("meta")), ids=lambda v: v if isinstance(v, str) else "")
def test_meta_vectors(name, fields, body):
    """§6.4: protectedMeta opens under the folder key to exactly the expected fields."""
    try:
        meta = reader.open_protected_meta(body, bytes.fromhex(fields["folder_key"]), fields["item_id"])
    except reader.FormatError:
        outcome = "failure"
    else:
        expected = {key: json.loads(fields[key]) for key in reader.META_KEYS}
        outcome = "success" if meta == expected else f"wrong fields {meta}"
    assert outcome == fields["expect"], name


@pytest.mark.parametrize("name,fields,body", list(vectors("device")), ids=lambda v: v if isinstance(v, str) else "")
def test_device_vectors(name, fields, body):
    """§4.1, §4.2: a device-secret file gives its credential and its base32 form."""
    try:
        credential = reader.device_credential(body)
    except reader.FormatError:
        outcome = "failure"
    else:
        ok = credential.hex() == fields["credential"] and reader.crockford_encode(body) == fields["crockford"]
        outcome = "success" if ok else "wrong credential"
    assert outcome == fields["expect"], name


@pytest.mark.parametrize("name,fields,body", list(vectors("key")), ids=lambda v: v if isinstance(v, str) else "")
def test_key_vectors(name, fields, body):
    """§4.3: a key text of the kind asked for gives its key; anything else fails."""
    try:
        key = reader.decode_key_text(body, fields["kind"])
    except reader.FormatError:
        outcome = "failure"
    else:
        outcome = "success" if key.hex() == fields["key"] else "wrong key"
    assert outcome == fields["expect"], name


def test_key_text_example():
    """§4.3's example, from the document."""
    key = bytes(range(32))
    assert reader.key_check_group(key, "outer") == "WS8W"
    assert reader.key_check_group(key, "decoy") == "AWEG"
    text = b"OUTER-000G-40R4-0M30-E209-185G-R38E-1W81-24GK-2GAH-C5RR-34D1-P70X-3RFG-WS8W"
    assert reader.decode_key_text(text, "outer") == key
