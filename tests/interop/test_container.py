"""The Python container reader (obscura_container.py) against the container vector of
docs/FORMAT.md §5 (testdata/container/): subkeys, one sealed block, the map shapes, and a
whole directory of two slots opened with the outer key, down to the catalogs inside.
Each negative case edits a copy of the slot files and must be refused.
"""
import hashlib
import json
import os
import pathlib
import shutil
import struct
import uuid

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import obscura_container as oc
import obscura_reader as reader

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "testdata" / "container"
VECTOR = json.loads((VECTORS / "container.json").read_text())
OUTER = bytes.fromhex(VECTOR["outer_key"])
SLOTS = VECTOR["container"]["slots"]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def directory(tmp_path):
    """A copy of the vector's slot files, free to edit."""
    for slot in SLOTS:
        shutil.copy(VECTORS / slot["file"], tmp_path / slot["file"])
    return tmp_path


def edit(path: pathlib.Path, offset: int, data: bytes):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def flip(path: pathlib.Path, offset: int):
    raw = path.read_bytes()
    edit(path, offset, bytes([raw[offset] ^ 0x01]))


def superblock(path: pathlib.Path, position: int):
    """The plaintext of one superblock of a slot file, opened with the vector's O."""
    slot = oc.slot_id(path.name)
    raw = path.read_bytes()[position * oc.BLOCK:(position + 1) * oc.BLOCK]
    key = oc.superblock_key(OUTER, slot)
    return AESGCM(key).decrypt(raw[:12], raw[12:], oc.superblock_ad(slot, position))


def reseal_superblock(path: pathlib.Path, position: int, plain: bytes, slot: bytes = None):
    """Seals `plain` as superblock `position` of the slot file (a tamperer holding O)."""
    slot = slot or oc.slot_id(path.name)
    key = oc.superblock_key(OUTER, slot)
    nonce = os.urandom(12)
    edit(path, position * oc.BLOCK, nonce + AESGCM(key).encrypt(nonce, plain, oc.superblock_ad(slot, position)))


def test_subkeys():
    """§8.3: HKDF-SHA256, salt "obscura v4 outer", info label ‖ slot id (‖ generation)."""
    keys = VECTOR["subkeys"]
    slot = bytes.fromhex(keys["slot_id"])
    assert oc.superblock_key(OUTER, slot).hex() == keys["superblock_key"]
    assert oc.block_key(OUTER, slot, 1).hex() == keys["block_key_1"]
    assert oc.block_key(OUTER, slot, 2).hex() == keys["block_key_2"]
    for entry in SLOTS:
        slot = oc.slot_id(entry["file"])
        assert slot.hex() == entry["slot_id"]
        assert oc.superblock_key(OUTER, slot).hex() == entry["superblock_key"]
        assert oc.block_key(OUTER, slot, 1).hex() == entry["block_key_1"]


def test_sealed_block_and_its_associated_data():
    """§8.2, §8.3: one data block; its AD is rebuilt from the fields, and any other
    position, generation, kind or slot fails."""
    block = VECTOR["block"]
    slot = bytes.fromhex(VECTOR["subkeys"]["slot_id"])
    directory = bytes.fromhex(block["directory_id"])
    fields = (block["position"], block["generation"], block["kind"], block["level"], block["logical_id"])
    ad = oc.block_ad(directory, slot, *fields)
    assert len(ad) == 58 and ad.hex() == block["associated_data"]
    sealed = bytes.fromhex(block["sealed"])
    assert len(sealed) == oc.BLOCK
    key = oc.block_key(OUTER, slot, block["generation"])
    payload = AESGCM(key).decrypt(sealed[:12], sealed[12:], ad)
    assert len(payload) == oc.PAYLOAD and sha256(payload) == block["payload_sha256"]
    assert sealed[:12] + AESGCM(key).encrypt(sealed[:12], payload, ad) == sealed
    position, generation, kind, level, logical_id = fields
    for other in [(position + 1, generation, kind, level, logical_id), (position, generation + 1, kind, level, logical_id),
                  (position, generation, oc.KIND_NODE, level, logical_id), (position, generation, kind, level, logical_id + 1)]:
        with pytest.raises(InvalidTag):
            AESGCM(key).decrypt(sealed[:12], sealed[12:], oc.block_ad(directory, slot, *other))
    with pytest.raises(InvalidTag):
        AESGCM(oc.block_key(OUTER, slot, 2)).decrypt(sealed[:12], sealed[12:], ad)


def test_map_shapes():
    """§8.5, §8.9: L = the largest L with 2·(L + M(L)) + 2 ≤ N, and its map's shape."""
    for shape in VECTOR["shapes"]:
        logical = oc.capacity(shape["blocks"])
        counts = oc.map_shape(logical)
        assert (logical, sum(counts), len(counts), counts) == (
            shape["logical_blocks"], shape["map_nodes"], shape["depth"], shape["node_counts"]), shape["blocks"]
    rows = {s["blocks"]: (s["logical_blocks"], s["map_nodes"], s["depth"]) for s in VECTOR["shapes"]}
    # The table in docs/FORMAT.md §8.5.
    assert rows[1 << 8] == (126, 1, 1)
    assert rows[1 << 10] == (507, 3, 1)
    assert rows[1 << 14] == (8142, 49, 1)
    assert rows[1 << 16] == (32572, 195, 2)


def test_the_container_opens_with_the_outer_key_alone(directory):
    c = oc.Container(str(directory), OUTER)
    fields = VECTOR["container"]
    state = c.state
    assert (state.sequence, state.blocks, state.logical, state.depth, state.generation, state.oldest_generation) == (
        fields["sequence"], fields["blocks"], fields["logical_blocks"], fields["depth"], fields["generation"],
        fields["generation"])
    assert state.directory_id.hex() == fields["directory_id"] and state.commit_id.hex() == fields["commit_id"]
    assert (state.sealed, state.commit_time) == (fields["sealed_under_generation"], fields["commit_time"])
    assert [s.hex() for s in c.slots] == [s["slot_id"] for s in SLOTS]
    for entry in SLOTS:
        path = directory / entry["file"]
        assert path.stat().st_size == state.blocks * oc.BLOCK
        # The first commit is sequence 1 at position 1; position 0 is random bytes.
        assert oc.parse_superblock(superblock(path, 1)).sequence == 1
        with pytest.raises(InvalidTag):
            superblock(path, 0)


def test_every_stream_holds_version_3_contents_that_open(directory):
    """§8.9: each stream is L · 4068 bytes; its first bytes are a version 3 slot whose
    catalog opens with the vault password, or, for the decoy, the device credential."""
    c = oc.Container(str(directory), OUTER)
    streams = {}
    for entry in SLOTS:
        stream = c.stream(oc.slot_id(entry["file"]))
        assert len(stream) == c.state.logical * oc.PAYLOAD
        assert sha256(stream) == entry["stream_sha256"]
        assert sha256(stream[:entry["contents_length"]]) == entry["contents_sha256"]
        if "device_secret" in entry:
            password = reader.device_credential(bytes.fromhex(entry["device_secret"]))
        else:
            password = entry["password"].encode()
        _, catalog = reader.open_slot(stream, password)
        assert sha256(catalog) == entry["catalog_sha256"]
        streams[entry["file"]] = stream
    # The vault password opens exactly one slot (§3.5's sweep over the streams).
    password = next(e["password"] for e in SLOTS if "password" in e).encode()
    opened = []
    for name, stream in streams.items():
        try:
            reader.open_mek(stream, password)
            opened.append(name)
        except reader.WrongPassword:
            pass
    assert opened == [next(e["file"] for e in SLOTS if "password" in e)]


def root_position(directory):
    """The container, the first slot's id and the position of its root node 0."""
    c = oc.Container(str(directory), OUTER)
    slot = oc.slot_id(SLOTS[0]["file"])
    return c, slot, c.maps[slot][1][-1][0].position


def test_a_flipped_byte_in_a_map_node_is_refused(directory):
    _, _, position = root_position(directory)
    for offset in (0, 12, 2000, oc.BLOCK - 1):  # nonce, ciphertext, tag
        copy = directory.parent / f"node-{offset}"
        shutil.copytree(directory, copy)
        flip(copy / SLOTS[0]["file"], position * oc.BLOCK + offset)
        with pytest.raises(oc.Damaged):
            oc.Container(str(copy), OUTER)


def test_a_flipped_byte_in_a_data_block_is_refused_when_read(directory):
    c, slot, _ = root_position(directory)
    position = c.maps[slot][0][3].position
    flip(directory / SLOTS[0]["file"], position * oc.BLOCK + 100)
    c = oc.Container(str(directory), OUTER)
    with pytest.raises(oc.Damaged):
        c.stream(slot)
    c.stream(oc.slot_id(SLOTS[1]["file"]))  # the other slot still reads


def test_a_node_with_another_commits_trailer_is_refused(directory):
    """§8.5: sealed correctly under O and referenced by its root, but its trailer is not
    the superblock's commit id: a node another commit wrote."""
    c, slot, position = root_position(directory)
    path = directory / SLOTS[0]["file"]
    raw = path.read_bytes()[position * oc.BLOCK:(position + 1) * oc.BLOCK]
    ad = oc.block_ad(c.state.directory_id, slot, position, 1, oc.KIND_NODE, c.state.depth, 0)
    key = oc.block_key(OUTER, slot, 1)
    payload = AESGCM(key).decrypt(raw[:12], raw[12:], ad)
    stale = payload[:oc.TRAILER_OFFSET] + bytes(oc.TRAILER)
    nonce = os.urandom(12)
    node = nonce + AESGCM(key).encrypt(nonce, stale, ad)
    edit(path, position * oc.BLOCK, node)
    plain = bytearray(superblock(path, 1))
    plain[1100 + 8:1100 + 24] = node[-16:]  # root reference 0's tag
    reseal_superblock(path, 1, bytes(plain))
    with pytest.raises(oc.Damaged, match="another commit"):
        oc.Container(str(directory), OUTER)


def test_a_block_moved_to_another_position_is_refused(directory):
    """§8.3: the position is associated data. A holder of O copies data block 0 to a free
    position and re-points every slot's map at it (so the maps still agree): the block
    carries its tag, yet fails where it now sits."""
    c = oc.Container(str(directory), OUTER)
    data, nodes = next(iter(c.maps.values()))
    root = nodes[-1][0].position
    assert c.state.depth == 1  # the root is the leaf that references data block 0
    used = {r.position for r in data} | {root}
    free = next(p for p in range(oc.FIRST_DATA, c.state.blocks) if p not in used)
    for entry in SLOTS:
        path = directory / entry["file"]
        slot = oc.slot_id(entry["file"])
        raw = path.read_bytes()
        edit(path, free * oc.BLOCK, raw[data[0].position * oc.BLOCK:(data[0].position + 1) * oc.BLOCK])
        ad = oc.block_ad(c.state.directory_id, slot, root, 1, oc.KIND_NODE, 1, 0)
        key = oc.block_key(OUTER, slot, 1)
        node = raw[root * oc.BLOCK:(root + 1) * oc.BLOCK]
        payload = bytearray(AESGCM(key).decrypt(node[:12], node[12:], ad))
        payload[0:4] = struct.pack(">I", free)
        nonce = os.urandom(12)
        node = nonce + AESGCM(key).encrypt(nonce, bytes(payload), ad)
        edit(path, root * oc.BLOCK, node)
        plain = bytearray(superblock(path, 1))
        plain[1100 + 8:1100 + 24] = node[-16:]  # root reference 0's tag
        reseal_superblock(path, 1, bytes(plain))
    c = oc.Container(str(directory), OUTER)
    for entry in SLOTS:
        with pytest.raises(oc.Damaged, match="authentication"):
            c.stream(oc.slot_id(entry["file"]))


def test_another_outer_key_opens_nothing(directory):
    with pytest.raises(oc.OuterKeyMismatch):
        oc.Container(str(directory), bytes(32))


def test_slot_files_swapped_by_name_open_nothing(directory):
    """§8.3: the slot id is in every subkey and every associated data."""
    a, b = (directory / s["file"] for s in SLOTS)
    tmp = directory / "swap"
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)
    with pytest.raises(oc.OuterKeyMismatch):
        oc.Container(str(directory), OUTER)


def test_a_slot_without_its_superblock_is_a_rollback(directory):
    """§8.8: the only commit is not held by every slot of its set."""
    edit(directory / SLOTS[1]["file"], oc.BLOCK, os.urandom(oc.BLOCK))
    with pytest.raises(oc.Rollback):
        oc.Container(str(directory), OUTER)


def test_a_missing_slot_file_is_damage(directory):
    (directory / SLOTS[1]["file"]).unlink()
    with pytest.raises(oc.Damaged, match="missing"):
        oc.Container(str(directory), OUTER)


def test_a_short_slot_is_damage_and_a_long_one_reads(directory):
    path = directory / SLOTS[0]["file"]
    with open(path, "ab") as f:
        f.write(os.urandom(oc.BLOCK))
    c = oc.Container(str(directory), OUTER)
    assert sha256(c.stream(oc.slot_id(SLOTS[0]["file"]))) == SLOTS[0]["stream_sha256"]
    os.truncate(path, (c.state.blocks - 1) * oc.BLOCK)
    with pytest.raises(oc.Damaged, match="shorter"):
        oc.Container(str(directory), OUTER)


def test_stray_files_are_not_slots_and_a_foreign_slot_is_refused(directory):
    """§8.1, §8.8 R7: names that are not exactly `{uuid}.db.enc` are ignored; a slot file
    outside the slot set with neither a valid superblock nor an install mark is refused;
    one with an install mark is ignored (a writer removes it); one holding a commit is
    refused."""
    source = directory / SLOTS[0]["file"]
    shutil.copy(source, directory / (SLOTS[0]["file"].upper()))
    shutil.copy(source, directory / (SLOTS[0]["file"] + " (conflicted copy)"))
    stray = directory / "00000000-0000-4000-8000-000000000000.db.enc"
    stray.write_bytes(os.urandom(VECTOR["container"]["blocks"] * oc.BLOCK))
    with pytest.raises(oc.Damaged, match="not part of this directory"):
        oc.Container(str(directory), OUTER)

    # An install mark at position 1 (§8.6 step I): an unfinished add, ignored.
    slot = oc.slot_id(stray.name)
    nonce = os.urandom(12)
    mark = AESGCM(oc.superblock_key(OUTER, slot)).encrypt(nonce, bytes(oc.BLOCK - 28), oc.install_mark_ad(slot, 1))
    edit(stray, oc.BLOCK, nonce + mark)
    c = oc.Container(str(directory), OUTER)
    assert len(c.slots) == 2

    # The stray now holds commit 1 of a slot set that lists it.
    plain = bytearray(superblock(source, 1))
    ids = sorted([oc.slot_id(stray.name)] + [oc.slot_id(s["file"]) for s in SLOTS])
    plain[74:76] = struct.pack(">H", 3)
    plain[76:76 + 48] = b"".join(ids)
    reseal_superblock(stray, 1, bytes(plain))
    with pytest.raises(oc.Damaged, match="outside"):
        oc.Container(str(directory), OUTER)


def test_a_superblock_field_out_of_range_is_not_valid(directory):
    """§8.4: a superblock that opens but breaks a rule counts as not valid."""
    path = directory / SLOTS[0]["file"]
    plain = bytearray(superblock(path, 1))
    plain[4060] = 1  # reserved
    reseal_superblock(path, 1, bytes(plain))
    with pytest.raises(oc.Rollback):
        oc.Container(str(directory), OUTER)


def write_commit_2(directory, blocks_in, superblock_in):
    """Commit 2 written by hand, as §8.6 says, up to C3: every slot's stream re-sealed
    unchanged at new positions with the new commit id in the node trailer. Blocks go
    to the slots in `blocks_in`, superblock 2 (position 0) only to those in
    `superblock_in`: the state a crash between C3 and C4 leaves, or, when a slot has no
    blocks, one slot rolled back by one commit."""
    c = oc.Container(str(directory), OUTER)
    assert c.state.depth == 1
    data, nodes = next(iter(c.maps.values()))
    live = {r.position for r in data} | {r.position for level in nodes for r in level}
    free = [p for p in range(oc.FIRST_DATA, c.state.blocks) if p not in live]
    order = sorted(free, key=lambda _: os.urandom(4))[:c.state.logical + 1]
    commit_id = os.urandom(16)
    for entry in SLOTS:
        slot = oc.slot_id(entry["file"])
        path = directory / entry["file"]
        key = oc.block_key(OUTER, slot, 1)
        stream = c.stream(slot)
        refs = b""
        for j in range(c.state.logical):
            ad = oc.block_ad(c.state.directory_id, slot, order[j], 1, oc.KIND_DATA, 0, j)
            nonce = os.urandom(12)
            block = nonce + AESGCM(key).encrypt(nonce, stream[j * oc.PAYLOAD:(j + 1) * oc.PAYLOAD], ad)
            if entry["file"] in blocks_in:
                edit(path, order[j] * oc.BLOCK, block)
            refs += struct.pack(">II", order[j], 1) + block[-16:]
        root = order[c.state.logical]
        body = refs + bytes(oc.TRAILER_OFFSET - len(refs)) + commit_id[:oc.TRAILER]
        ad = oc.block_ad(c.state.directory_id, slot, root, 1, oc.KIND_NODE, 1, 0)
        nonce = os.urandom(12)
        node = nonce + AESGCM(key).encrypt(nonce, body, ad)
        if entry["file"] in blocks_in:
            edit(path, root * oc.BLOCK, node)
        if entry["file"] in superblock_in:
            plain = bytearray(superblock(path, 1))
            plain[20:28] = struct.pack(">Q", 2)
            plain[28:44] = commit_id
            plain[1100:1124] = struct.pack(">II", root, 1) + node[-16:]
            reseal_superblock(path, 0, bytes(plain))
    return commit_id


def test_an_interrupted_commit_is_rolled_forward(directory):
    """§8.8 R6: superblock 2 reached one slot only; the other slot's blocks of commit 2
    are in place, so the directory is at commit 2, with every stream unchanged."""
    names = [s["file"] for s in SLOTS]
    commit_id = write_commit_2(directory, blocks_in=names, superblock_in=names[:1])
    c = oc.Container(str(directory), OUTER)
    assert (c.state.sequence, c.state.commit_id) == (2, commit_id)
    for entry in SLOTS:
        assert sha256(c.stream(oc.slot_id(entry["file"]))) == entry["stream_sha256"]


def test_a_commit_every_slot_holds_is_agreed(directory):
    names = [s["file"] for s in SLOTS]
    write_commit_2(directory, blocks_in=names, superblock_in=names)
    c = oc.Container(str(directory), OUTER)
    assert c.state.sequence == 2
    assert sha256(c.stream(oc.slot_id(names[1]))) == SLOTS[1]["stream_sha256"]


def test_a_slot_without_the_newer_commits_blocks_is_a_rollback(directory):
    """§8.8 R6: one slot holds commit 2 and the other has none of its blocks (it was
    put back to its version before commit 2): refused, not repaired by a guess."""
    names = [s["file"] for s in SLOTS]
    write_commit_2(directory, blocks_in=names[:1], superblock_in=names[:1])
    with pytest.raises(oc.Rollback):
        oc.Container(str(directory), OUTER)


def test_a_slot_more_than_one_commit_ahead_is_a_rollback(directory):
    """§8.8 R5: commit 2 is held by both slots, and one slot also holds commit 5 (at
    position 1): no crash leaves that."""
    names = [s["file"] for s in SLOTS]
    write_commit_2(directory, blocks_in=names, superblock_in=names)
    path = directory / names[0]
    plain = bytearray(superblock(path, 1))
    plain[20:28] = struct.pack(">Q", 5)
    plain[28:44] = os.urandom(16)
    reseal_superblock(path, 1, bytes(plain))
    with pytest.raises(oc.Rollback, match="more than one commit ahead"):
        oc.Container(str(directory), OUTER)


RECOVERY = ROOT / "testdata" / "recovery"


def recovery_case(name):
    fields = dict(line.split(": ", 1) for line in (RECOVERY / name / "case").read_text().splitlines() if line)
    return fields


@pytest.mark.parametrize("name", sorted(p.name for p in RECOVERY.iterdir()))
def test_recovery_vectors(name, tmp_path):
    """§8.8 on the pinned directories of testdata/recovery, the bytes the Swift reader
    opens too: each gives the outcome its `case` names."""
    fields = recovery_case(name)
    listed = fields["files"].split(",")
    assert sorted(p.name for p in (RECOVERY / name).iterdir()) == sorted(listed + ["case"])
    for file in listed:
        shutil.copy(RECOVERY / name / file, tmp_path / file)
    try:
        c = oc.Container(str(tmp_path), bytes.fromhex(fields["outer_key"]))
        streams = {str(uuid.UUID(bytes=slot)) + ".db.enc": sha256(c.stream(slot)) for slot in c.state.slots}
        expected = dict(entry.split(":") for entry in fields["streams"].split(","))
        outcome = "success" if (str(c.state.sequence), streams) == (fields["sequence"], expected) else "wrong state"
    except oc.Rollback:
        outcome = "rollback"
    except oc.Damaged:
        outcome = "damaged"
    except oc.OuterKeyMismatch:
        outcome = "outer key mismatch"
    assert outcome == fields["expect"], name
