"""The Python paged-catalog reader (obscura_pages.py) against the vector of docs/FORMAT.md
§5 (testdata/pages/): the catalog keys, logical ids, the header prefix and its password,
one sealed page, leaf, upper node and header, a container of inner format 2 opened with
its outer key down to an SQLite file that sqlite3 queries, and the plan of the block
commit that wrote it (§8.12). Each tampered case must be refused.
"""
import hashlib
import json
import os
import pathlib
import shutil
import sqlite3
import struct

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import obscura_container as oc
import obscura_pages as op
import obscura_reader as reader

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "testdata" / "pages"
VECTOR = json.loads((VECTORS / "pages.json").read_text())
MEK = bytes.fromhex(VECTOR["mek"])
CATALOG = VECTOR["catalog"]
CONTAINER = VECTOR["container"]
PASSWORD = VECTOR["header_prefix"]["password"].encode()
VAULT_ID = bytes.fromhex(CATALOG["vault_id"])
G = CATALOG["generation"]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def blocks():
    """The catalog's logical blocks, read from the container with the outer key alone."""
    c = oc.Container(str(VECTORS), bytes.fromhex(CONTAINER["outer_key"]))
    assert (c.state.sequence, c.state.inner_format) == (CONTAINER["sequence"], 2)
    slot = oc.slot_id(CONTAINER["file"])
    return {j: c.block(slot, j) for j in range(op.page_id(CATALOG["pages"]) + 1)}


def catalog(blocks: dict, mek: bytes = MEK) -> op.Catalog:
    return op.Catalog(lambda j: blocks[j], mek)


def query(path: str):
    with sqlite3.connect(path) as db:
        return [list(row) for row in db.execute(CATALOG["query"])]


def test_keys():
    """§9.1: HKDF-SHA256 of the MEK, salt "obscura v4 catalog"."""
    keys = VECTOR["keys"]
    assert op.root_key(MEK).hex() == keys["root"]
    assert op.page_key(MEK, 1).hex() == keys["page_1"]
    assert op.page_key(MEK, 2).hex() == keys["page_2"]


def test_logical_ids():
    """§9.4, and the ids are the depth-first order: a page's id is after its leaf's."""
    ids = {"upper": op.upper_id, "leaf": op.leaf_id, "page": op.page_id}
    for row in VECTOR["logical_ids"]:
        assert ids[row["kind"]](row["index"]) == row["id"], row
    assert [op.upper_id(0), op.leaf_id(0), op.page_id(1), op.page_id(252), op.leaf_id(1), op.page_id(253)] == \
        [1, 2, 3, 254, 255, 256]


def test_the_header_prefix_and_its_password():
    """§9.5: the prefix's fields, the checksum, and the MEK unwrapped with the password."""
    prefix = bytes.fromhex(VECTOR["header_prefix"]["prefix"])
    header = op.parse_header_prefix(prefix)
    assert header.iterations == VECTOR["header_prefix"]["iterations"]
    assert op.unwrap_mek(prefix, PASSWORD) == MEK
    with pytest.raises(reader.WrongPassword):
        op.unwrap_mek(prefix, b"pages pX")

    def rechecksummed(edited: bytearray) -> bytes:
        edited[104:136] = hashlib.sha256(bytes(edited[:104])).digest()
        return bytes(edited)

    for offset in (0, 5, 7, 20, 70, 120):
        edited = bytearray(prefix)
        edited[offset] ^= 1
        with pytest.raises(op.HeaderFailure):
            op.unwrap_mek(bytes(edited), PASSWORD)
    for offset in (11, 20, 70):  # count, salt, wrapped MEK: caught by the wrap's tag
        edited = bytearray(prefix)
        edited[offset] ^= 1
        with pytest.raises(reader.WrongPassword):
            op.unwrap_mek(rechecksummed(edited), PASSWORD)
    edited = bytearray(prefix)
    edited[8:12] = struct.pack(">I", 0)
    with pytest.raises(op.HeaderFailure, match="iteration"):
        op.unwrap_mek(rechecksummed(edited), PASSWORD)
    edited = bytearray(prefix)
    edited[4:6] = struct.pack(">H", 3)
    with pytest.raises(op.HeaderFailure):
        op.parse_header_prefix(rechecksummed(edited))


def test_format_md_quotes_the_vector():
    """docs/FORMAT.md §5 prints the keys, associated data, header prefix and ids of the
    vector, for implementations that check themselves against the text."""
    text = (ROOT / "docs" / "FORMAT.md").read_text()
    section = text[text.index("**Paged catalog vectors**"):text.index("How the vectors are built")]
    keys = VECTOR["keys"]
    for value in (VECTOR["mek"], keys["root"], keys["page_1"], keys["page_2"], CATALOG["vault_id"],
                  CATALOG["page"]["associated_data"], CATALOG["leaf"]["associated_data"],
                  CATALOG["upper"]["associated_data"]):
        assert f"`{value}`" in section
    block = section[section.index("```") + 3:]
    assert "".join(block[:block.index("```")].split()) == VECTOR["header_prefix"]["prefix"]
    assert op.root_key(MEK).hex() in section and op.page_key(MEK, 2).hex() in section
    for row in VECTOR["logical_ids"]:
        assert f"{row['index']:,} → {row['id']:,}" in section


def test_a_sealed_page(blocks):
    """§9.2: Seal(K_page(g), page[0, 4040), AD_page); it reads as 4040 bytes and 56 zeros."""
    page = CATALOG["page"]
    ad = op.page_ad(VAULT_ID, page["number"], G)
    assert len(ad) == 32 and ad.hex() == page["associated_data"]
    sealed = bytes.fromhex(page["sealed"])
    assert len(sealed) == op.PAYLOAD and blocks[page["logical_id"]] == sealed
    key = AESGCM(op.page_key(MEK, G))
    plain = key.decrypt(sealed[:12], sealed[12:], ad)
    assert sha256(plain + bytes(op.RESERVE)) == page["plaintext_sha256"]
    assert sealed[:12] + key.encrypt(sealed[:12], plain, ad) == sealed
    assert catalog(blocks).page(page["number"]) == plain + bytes(op.RESERVE)


@pytest.mark.parametrize("kind,level", [("leaf", op.LEAF_LEVEL), ("upper", op.UPPER_LEVEL)])
def test_a_sealed_node(blocks, kind, level):
    """§9.3: T tags then 8 zero bytes, sealed with AD_node (33 bytes)."""
    node = CATALOG[kind]
    ad = op.node_ad(VAULT_ID, level, node["index"], G)
    assert len(ad) == 33 and ad.hex() == node["associated_data"]
    sealed = bytes.fromhex(node["sealed"])
    assert blocks[node["logical_id"]] == sealed
    plain = AESGCM(op.page_key(MEK, G)).decrypt(sealed[:12], sealed[12:], ad)
    tags = [t.hex() for t in (plain[i * 16:(i + 1) * 16] for i in range(len(node["tags"])))]
    assert tags == node["tags"] and not any(plain[16 * len(tags):])
    c = catalog(blocks)
    assert [t.hex() for t in (c.leaf(0) if kind == "leaf" else c.upper(0))] == node["tags"]
    if kind == "leaf":
        assert node["tags"] == [blocks[op.page_id(k)][-16:].hex() for k in range(1, CATALOG["pages"] + 1)]
    else:
        assert node["tags"] == [blocks[op.leaf_id(0)][-16:].hex()]


def test_the_header_block_and_its_root(blocks):
    header = CATALOG["header"]
    block = bytes.fromhex(header["block"])
    assert blocks[0] == block
    assert block[:op.PREFIX].hex() == VECTOR["header_prefix"]["prefix"]
    prefix, root = op.open_root(block, MEK)
    assert (root.vault_id, root.sequence, root.generation, root.seals, root.pages) == (
        VAULT_ID, header["sequence"], G, header["seals"], CATALOG["pages"])
    assert [t.hex() for t in root.upper_tags] == header["upper_tags"] == [blocks[op.upper_id(0)][-16:].hex()]
    sealed = block[op.PREFIX:]
    assert AESGCM(op.root_key(MEK)).decrypt(sealed[:12], sealed[12:], prefix).hex() == header["root"]


def test_the_catalog_opens_with_the_password_into_sqlite(blocks, tmp_path):
    """The container's slot, its header's password, every page verified, then SQLite."""
    c = op.Catalog.with_password(lambda j: blocks[j], PASSWORD)
    path = c.write_sqlite(str(tmp_path / "catalog.sqlite"))
    assert sha256(pathlib.Path(path).read_bytes()) == CATALOG["database_sha256"]
    assert query(path) == CATALOG["rows"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA page_size").fetchone()[0] == op.PAGE
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert pathlib.Path(path).read_bytes()[20] == op.RESERVE  # page 1 records the reserve


def refused(blocks: dict, mek: bytes = MEK):
    with pytest.raises(op.Damaged):
        catalog(blocks, mek).write_sqlite()


def test_a_flipped_byte_in_any_block_is_refused(blocks):
    """Every page, leaf, upper and the header: nonce, ciphertext and tag."""
    for j in blocks:
        for offset in (0, 12, 2000, op.PAYLOAD - 1):
            if j == 0 and offset < op.PREFIX:
                offset += op.PREFIX  # the prefix is the root's associated data: the same outcome
            edited = dict(blocks)
            edited[j] = blocks[j][:offset] + bytes([blocks[j][offset] ^ 1]) + blocks[j][offset + 1:]
            refused(edited)
    edited = dict(blocks)
    edited[0] = bytes([blocks[0][50] ^ 1]).join([blocks[0][:50], blocks[0][51:]])
    refused(edited)  # a flipped prefix byte: the root's associated data


def test_pages_swapped_are_refused(blocks):
    a, b = op.page_id(1), op.page_id(CATALOG["pages"])
    edited = dict(blocks)
    edited[a], edited[b] = blocks[b], blocks[a]
    refused(edited)
    # Even with the leaf's tags swapped to match, the page number is in each page's AD.
    leaf = bytearray(AESGCM(op.page_key(MEK, G)).decrypt(
        blocks[op.leaf_id(0)][:12], blocks[op.leaf_id(0)][12:], op.node_ad(VAULT_ID, 1, 0, G)))
    last = CATALOG["pages"] - 1
    leaf[0:16], leaf[last * 16:last * 16 + 16] = leaf[last * 16:last * 16 + 16], leaf[0:16]
    forge_tree(edited, leaf=bytes(leaf))
    with pytest.raises(op.Damaged, match="authentication"):
        catalog(edited).write_sqlite()


def test_a_page_put_back_to_its_older_version_is_refused(blocks):
    for page in CATALOG["previous"]["pages"]:
        edited = dict(blocks)
        edited[op.page_id(page["number"])] = bytes.fromhex(page["sealed"])
        with pytest.raises(op.Damaged, match=f"page {page['number']} does not match"):
            catalog(edited).write_sqlite()


def test_a_rolled_back_root_is_refused(blocks):
    """The previous header opens on its own (it was a valid root), but its tags name the
    tree before the last commit."""
    edited = dict(blocks)
    edited[0] = bytes.fromhex(CATALOG["previous"]["header"])
    _, root = op.open_root(edited[0], MEK)
    assert root.sequence == CATALOG["header"]["sequence"] - 1
    with pytest.raises(op.Damaged, match="upper node 0 does not match"):
        catalog(edited).write_sqlite()
    # The old header with the old pages is still refused: the nodes are the newer ones.
    for page in CATALOG["previous"]["pages"]:
        edited[op.page_id(page["number"])] = bytes.fromhex(page["sealed"])
    refused(edited)


def test_another_mek_opens_nothing(blocks):
    with pytest.raises(op.Damaged, match="root does not open"):
        catalog(blocks, bytes(32))


def forge_tree(blocks: dict, leaf: bytes):
    """A holder of the MEK re-seals leaf 0 with `leaf` as plaintext, then upper 0 and the
    root over it, so that only the rule under test can refuse the result."""
    key = AESGCM(op.page_key(MEK, G))

    def seal(plain: bytes, ad: bytes) -> bytes:
        nonce = os.urandom(12)
        return nonce + key.encrypt(nonce, plain, ad)

    blocks[op.leaf_id(0)] = seal(leaf, op.node_ad(VAULT_ID, 1, 0, G))
    upper = blocks[op.leaf_id(0)][-16:] + bytes(op.USABLE - 16)
    blocks[op.upper_id(0)] = seal(upper, op.node_ad(VAULT_ID, 2, 0, G))
    prefix = blocks[0][:op.PREFIX]
    root_key = AESGCM(op.root_key(MEK))
    sealed = blocks[0][op.PREFIX:]
    root = bytearray(root_key.decrypt(sealed[:12], sealed[12:], prefix))
    root[44:60] = blocks[op.upper_id(0)][-16:]
    nonce = os.urandom(12)
    blocks[0] = prefix + nonce + root_key.encrypt(nonce, bytes(root), prefix)


def test_an_entry_past_the_last_child_must_be_zero(blocks):
    """§9.3: a leaf that carries a tag past page P is refused, though every tag chains."""
    leaf = AESGCM(op.page_key(MEK, G)).decrypt(
        blocks[op.leaf_id(0)][:12], blocks[op.leaf_id(0)][12:], op.node_ad(VAULT_ID, 1, 0, G))
    edited = dict(blocks)
    forge_tree(edited, leaf)
    assert query(catalog(edited).write_sqlite()) == CATALOG["rows"]  # the forgery alone is sound
    extra = bytearray(leaf)
    extra[CATALOG["pages"] * 16] = 1
    forge_tree(edited, bytes(extra))
    with pytest.raises(op.Damaged, match="past its last child"):
        catalog(edited).write_sqlite()


def test_a_root_with_a_nonzero_reserved_field_is_refused(blocks):
    prefix, sealed = blocks[0][:op.PREFIX], blocks[0][op.PREFIX:]
    key = AESGCM(op.root_key(MEK))
    plain = key.decrypt(sealed[:12], sealed[12:], prefix)
    for offset in (40, 44 + 16, 3884, 3903):
        edited = bytearray(plain)
        edited[offset] ^= 1
        nonce = os.urandom(12)
        with pytest.raises(op.Damaged):
            op.open_root(prefix + nonce + key.encrypt(nonce, bytes(edited), prefix), MEK)


def test_the_block_commit_plan():
    """§8.12: the last commit wrote one bucket of positions in every slot, drawn outside
    live(S): the changed blocks, the map nodes over them and cover, then filler."""
    plan = VECTOR["block_commit"]
    c = oc.Container(str(VECTORS), bytes.fromhex(CONTAINER["outer_key"]))
    assert c.state.sequence == plan["sequence"]
    depth, logical = c.state.depth, c.state.logical

    def path(j):
        return {(h, j // oc.FANOUT ** h) for h in range(1, depth + 1)}

    changed, cover = plan["changed"], plan["cover"]
    # The catalog's commit: its header, upper 0, leaf 0 and the pages it changed.
    pages = {op.page_id(p["number"]) for p in CATALOG["previous"]["pages"]}
    assert set(changed) == {0, op.upper_id(0), op.leaf_id(0)} | pages
    nodes = {(level, index) for level, index, _ in plan["nodes"]}
    assert nodes == set().union(*(path(j) for j in changed + cover))
    needed = len(changed) + len(set().union(*(path(j) for j in changed)))
    bucket = 32
    while bucket < needed:
        bucket *= 4
    assert plan["bucket"] == bucket
    assert not set(changed) & set(cover)
    # Cover stops at the first draw that would overflow the bucket: some block left out
    # would (at depth 1, every one: its only node is already in D).
    assert bucket >= len(changed) + len(cover) + len(nodes)
    left = [j for j in range(logical) if j not in changed + cover]
    assert not left or max(len(changed) + len(cover) + len(nodes) + 1 + len(path(j) - nodes) for j in left) > bucket
    positions = [p for _, p in plan["data_positions"]] + [p for _, _, p in plan["nodes"]] + plan["filler"]
    assert len(positions) == len(set(positions)) == bucket
    assert all(oc.FIRST_DATA <= p < c.state.blocks for p in positions)
    assert not set(positions) & set(plan["live_before"])
    for slot in c.slots:
        data, levels = c.maps[slot]
        assert {j: data[j].position for j, _ in plan["data_positions"]} == dict(map(tuple, plan["data_positions"]))
        assert {(lv, i): levels[lv - 1][i].position for lv, i, _ in plan["nodes"]} == \
            {(lv, i): p for lv, i, p in plan["nodes"]}
        rewritten = {j for j, _ in plan["data_positions"]}
        assert sorted(rewritten) == sorted(changed + cover)
        assert all(data[j].position in plan["live_before"] for j in range(logical) if j not in rewritten)


def test_a_lost_superblock_rolls_forward_and_an_older_slot_is_refused(tmp_path):
    """§8.8 R6 in inner format 2: the catalog's slot without its superblock k (a crash
    between C3 and C4) rolls forward to k; the same slot with a block of k's bucket
    replaced (what a slot put back to before k holds there) is refused as a rollback."""
    for name in (CONTAINER["file"], CONTAINER["other_file"]):
        shutil.copy(VECTORS / name, tmp_path / name)
    path = tmp_path / CONTAINER["file"]
    outer = bytes.fromhex(CONTAINER["outer_key"])
    with open(path, "r+b") as f:
        f.seek((CONTAINER["sequence"] % 2) * oc.BLOCK)
        f.write(os.urandom(oc.BLOCK))
    c = oc.Container(str(tmp_path), outer)
    assert c.state.sequence == CONTAINER["sequence"]
    slot = oc.slot_id(CONTAINER["file"])
    got = {j: c.block(slot, j) for j in range(op.page_id(CATALOG["pages"]) + 1)}
    assert query(catalog(got).write_sqlite()) == CATALOG["rows"]
    _, _, position = VECTOR["block_commit"]["nodes"][0]  # the root node the commit rewrote
    with open(path, "r+b") as f:
        f.seek(position * oc.BLOCK)
        f.write(os.urandom(oc.BLOCK))
    with pytest.raises(oc.Rollback):
        oc.Container(str(tmp_path), outer)


def test_a_layout_b_header_opens_first_and_covers_its_fields():
    """§9.5 layout B: prefix ‖ 240 bytes of passkey fields ‖ a root of 225 upper tags sealed
    with the prefix and the fields as associated data; read B first, then A. Built here from
    the vector's own root, re-sealed in layout B."""
    block = bytes.fromhex(CATALOG["header"]["block"])
    prefix, sealed = block[:op.PREFIX], block[op.PREFIX:]
    plain = AESGCM(op.root_key(MEK)).decrypt(sealed[:12], sealed[12:], prefix)
    fields = bytes(range(240))
    root_b = plain[:44 + 225 * 16] + bytes(20)

    def layout_b(fields, root_plain):
        nonce = bytes(12)
        return prefix + fields + nonce + AESGCM(op.root_key(MEK)).encrypt(nonce, root_plain, prefix + fields)

    b = layout_b(fields, root_b)
    assert len(b) == op.PAYLOAD
    _, root = op.open_root(b, MEK)
    _, root_a = op.open_root(block, MEK)
    assert root == root_a
    # The fields are covered: one flipped byte and the root opens under neither layout.
    for offset in (op.PREFIX, op.PREFIX + 100, op.PREFIX + 239):
        altered = bytearray(b)
        altered[offset] ^= 1
        with pytest.raises(op.Damaged):
            op.open_root(bytes(altered), MEK)
    # A layout-B root past 225·T² pages is damage, and no reason to try layout A.
    too_many = bytearray(root_b)
    too_many[36:40] = struct.pack(">I", 225 * op.T * op.T + 1)
    with pytest.raises(op.Damaged):
        op.open_root(layout_b(fields, bytes(too_many)), MEK)


def test_the_swift_written_layout_b_header():
    """The vector's root re-sealed in layout B by the Swift engine (§9.5): this reader opens
    it B first, finds the same root, and sees the fields in the clear after the prefix."""
    b = CATALOG["header_layout_b"]
    block = bytes.fromhex(b["block"])
    assert len(block) == op.PAYLOAD
    assert block[:op.PREFIX].hex() == VECTOR["header_prefix"]["prefix"]
    assert block[op.PREFIX:op.PREFIX + 240].hex() == b["fields"]
    _, root = op.open_root(block, MEK)
    _, root_a = op.open_root(bytes.fromhex(CATALOG["header"]["block"]), MEK)
    assert root == root_a
    sealed = block[op.PREFIX + 240:]
    assert AESGCM(op.root_key(MEK)).decrypt(sealed[:12], sealed[12:], block[:op.PREFIX + 240]).hex() == b["root"]
    assert len(bytes.fromhex(b["root"])) == 3664


PASSKEY_FIELDS = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "passkey" / "fields"


@pytest.mark.parametrize("name", sorted(p.name for p in PASSKEY_FIELDS.glob("*.json")))
def test_the_passkey_sweep_meets_the_field_vectors(name):
    """§9.8 "Sweep", from the document: each case's R opens its expected field and MEK,
    or nothing (another R, slot, directory or index, or a tampered field)."""
    case = json.loads((PASSKEY_FIELDS / name).read_text())
    block = bytes(op.PREFIX) + bytes.fromhex(case["fields"]) + bytes(op.PAYLOAD - op.PREFIX - op.FIELDS)
    found = op.sweep_passkey(bytes.fromhex(case["prf"]), bytes.fromhex(case["directoryId"]),
                             [(bytes.fromhex(case["slotId"]), block)])
    if case["expect"] == "open":
        assert found == (0, case["field"], bytes.fromhex(case["mek"]))
    else:
        assert found is None


def test_a_vault_opens_from_a_passkeys_prf_output(blocks, tmp_path):
    """Issue 37: the interop reader opens the vector's vault from a PRF output alone (with
    O for the blocks): the layout-B header's field 1 seals the MEK for `prf` in the
    container's first slot, and the catalog it opens is the vector's database."""
    b = CATALOG["header_layout_b"]
    prf, did, slot = (bytes.fromhex(b[k]) for k in ("prf", "directory_id", "slot_id"))
    c = oc.Container(str(VECTORS), bytes.fromhex(CONTAINER["outer_key"]))
    assert did == c.state.directory_id and slot == oc.slot_id(CONTAINER["file"])
    assert op.prf_input(did) != prf
    block_b = bytes.fromhex(b["block"])
    read = lambda j: block_b if j == 0 else blocks[j]  # noqa: E731
    other = next(s for s in c.slots if s != slot)
    found = op.sweep_passkey(prf, did, [(other, os.urandom(op.PAYLOAD)), (slot, block_b)])
    assert found == (1, b["field"], MEK)
    assert query(op.Catalog.with_prf(read, prf, did, slot).write_sqlite(str(tmp_path / "prf.sqlite"))) == CATALOG["rows"]
    # Another R, the field taken to another slot or directory, or a layout-A header: nothing.
    with pytest.raises(op.WrongPassword):
        op.Catalog.with_prf(read, bytes(32), did, slot)
    assert op.sweep_passkey(prf, did, [(other, block_b)]) is None
    assert op.sweep_passkey(prf, bytes(16), [(slot, block_b)]) is None
    assert op.sweep_passkey(prf, did, [(slot, blocks[0])]) is None
