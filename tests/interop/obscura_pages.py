"""A second, independent reader of the paged catalog (docs/FORMAT.md §9), written from the
document alone.

It takes a slot's logical blocks (from obscura_container.py, §8.12) and the vault's MEK,
or the password the header prefix wraps it under (§9.5), opens the root in the header
block, verifies every upper node, leaf and page down the tag tree (§9.3, §9.6), and writes
the pages into a plain SQLite file for Python's sqlite3 to query. Every sealed block's tag
is compared with the one its parent records before the block is opened, and nothing of a
block that fails is used.
"""
import hashlib
import hmac
import os
import struct
import tempfile
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from obscura_reader import FormatError, WrongPassword, hkdf_sha256, in_range, pbkdf2

PAGE = 4096
RESERVE = 56
USABLE = PAGE - RESERVE          # 4040: what a sealed page and a node's plaintext hold
PAYLOAD = 4068                   # one logical block
T = 252                          # tags per node
UPPER = 240                      # upper tags in the root
MAX_PAGES = UPPER * T * T
TAG = 16
NONCE = 12
PREFIX = 136
ROOT = 3904
UPPER_SPAN = 1 + T * (T + 1)

EXTRACT_SALT = b"obscura v4 catalog"
ROOT_INFO = b"obscura catalog root"
PAGE_INFO = b"obscura catalog pages"
PAGE_LABEL = b"obsv4pg\x00"
NODE_LABEL = b"obsv4tn\x00"
LEAF_LEVEL = 1
UPPER_LEVEL = 2

MAGIC = b"OBSV"
VERSION = 4
SUITE = 1


class Damaged(FormatError):
    """The root, a node or a page does not open, does not match its parent's tag, or breaks
    a rule of §9: altered, swapped, or older than the tree around it."""


class HeaderFailure(FormatError):
    """The header prefix is not a version 4 prefix, or fails its checksum (§9.5)."""


# §9.1

def root_key(mek: bytes) -> bytes:
    return hkdf_sha256(mek, ROOT_INFO, salt=EXTRACT_SALT)


def page_key(mek: bytes, generation: int) -> bytes:
    return hkdf_sha256(mek, PAGE_INFO + struct.pack(">I", generation), salt=EXTRACT_SALT)


# §9.4

def upper_id(m: int) -> int:
    return 1 + m * UPPER_SPAN


def leaf_id(n: int) -> int:
    return upper_id(n // T) + 1 + (n % T) * (T + 1)


def page_id(k: int) -> int:
    if k < 1:
        raise ValueError("pages are numbered from 1")
    i = k - 1
    return leaf_id(i // T) + 1 + i % T


# §9.2, §9.3: associated data

def page_ad(vault_id: bytes, k: int, generation: int) -> bytes:
    return PAGE_LABEL + vault_id + struct.pack(">II", k, generation)


def node_ad(vault_id: bytes, level: int, index: int, generation: int) -> bytes:
    return NODE_LABEL + vault_id + struct.pack(">BII", level, index, generation)


# §9.5: the header prefix and the password

@dataclass
class HeaderPrefix:
    iterations: int
    salt: bytes
    wrapped_mek: bytes
    raw: bytes


def parse_header_prefix(prefix: bytes) -> HeaderPrefix:
    """§9.5: magic, version 4, suite 1, a count in range, and the SHA-256 at [104, 136)."""
    if len(prefix) < PREFIX:
        raise HeaderFailure("shorter than the 136-byte header prefix")
    prefix = prefix[:PREFIX]
    magic, version, suite, iterations = struct.unpack(">4sHHI", prefix[:12])
    if magic != MAGIC or version != VERSION or suite != SUITE:
        raise HeaderFailure("not a version 4 header (magic, version or suite)")
    if not hmac.compare_digest(hashlib.sha256(prefix[:104]).digest(), prefix[104:136]):
        raise HeaderFailure("the header checksum does not match")
    if not in_range(iterations):
        raise HeaderFailure("iteration count outside 1 … 10,000,000")
    return HeaderPrefix(iterations, prefix[12:44], prefix[44:104], prefix)


def unwrap_mek(prefix: bytes, password: bytes) -> bytes:
    """§9.5, §2: KEK = PBKDF2-HMAC-SHA256(password, salt, iterations); the MEK is the
    wrapped box opened under it with bytes [0, 44) as associated data."""
    header = parse_header_prefix(prefix)
    kek = pbkdf2(password, header.salt, header.iterations)
    box = header.wrapped_mek
    try:
        mek = AESGCM(kek).decrypt(box[:NONCE], box[NONCE:], header.raw[:44])
    except InvalidTag:
        raise WrongPassword("the wrapped MEK does not open under this password")
    if len(mek) != 32:
        raise HeaderFailure("the wrapped MEK is not 32 bytes")
    return mek


# §9.5: the root

@dataclass
class Root:
    vault_id: bytes
    sequence: int
    generation: int
    seals: int
    pages: int
    upper_tags: list


def leaf_count(pages: int) -> int:
    return -(-pages // T)


def upper_count(pages: int) -> int:
    return -(-leaf_count(pages) // T)


FIELDS = 240                     # §9.5 layout B, §9.8: four 60-byte passkey fields
UPPER_B = 225                    # upper tags in a layout-B root
ROOT_B = ROOT - FIELDS           # 3664


def parse_root(plain: bytes, upper: int = UPPER) -> Root:
    """§9.5: a reader MUST refuse nonzero zero fields or unused tags, g or sequence 0, and
    P past MAX_PAGES (of the root's layout: UPPER = 240 in A, 225 in B)."""
    if len(plain) != 44 + upper * TAG + 20:
        raise Damaged(f"the root is not {44 + upper * TAG + 20} bytes")
    vault_id = plain[0:16]
    sequence, generation, seals, pages, zero = struct.unpack(">QIQII", plain[16:44])
    if zero or any(plain[44 + upper * TAG:]):
        raise Damaged("a zero field of the root is not zero")
    if pages > upper * T * T:
        raise Damaged("the root's page count is out of range")
    if generation == 0 or sequence == 0:
        raise Damaged("the root's generation or sequence is zero")
    used = upper_count(pages)
    if any(plain[44 + used * TAG:44 + upper * TAG]):
        raise Damaged("an unused upper tag of the root is not zero")
    tags = [plain[44 + m * TAG:44 + (m + 1) * TAG] for m in range(used)]
    return Root(vault_id, sequence, generation, seals, pages, tags)


def open_root(block: bytes, mek: bytes):
    """§9.5, §9.6: the header block's prefix and its root, opened under K_root, layout B
    first (the prefix and the passkey fields as associated data), then layout A (the
    prefix alone). Once B opens, its root is the root: a B root that fails its checks is
    damage, never a reason to try A."""
    if len(block) != PAYLOAD:
        raise Damaged("the header block is not 4068 bytes")
    prefix = block[:PREFIX]
    for header, upper in ((PREFIX + FIELDS, UPPER_B), (PREFIX, UPPER)):
        sealed = block[header:]
        try:
            plain = AESGCM(root_key(mek)).decrypt(sealed[:NONCE], sealed[NONCE:], block[:header])
        except InvalidTag:
            continue
        return prefix, parse_root(plain, upper)
    raise Damaged("the root does not open (another key, or an altered header)")


# §9.8, given there as text.
PRF_INPUT_LABEL = b"obscura passkey prf input v1"
PASSKEY_SALT = b"obscura v4 passkey"
PASSKEY_INFO = b"obscura v4 passkey wrap"
PASSKEY_AD = b"obsv4pk\x00"
FIELD = 60
FIELD_COUNT = 4


def prf_input(directory_id: bytes) -> bytes:
    """§9.8: what the page asks the authenticator's PRF at: SHA-256(label ‖ DID)."""
    return hashlib.sha256(PRF_INPUT_LABEL + directory_id).digest()


def passkey_wrap_key(prf: bytes, directory_id: bytes, slot_id: bytes) -> bytes:
    """§9.8: K_pk(s) = HKDF-SHA256(R, salt, info ‖ DID ‖ slot id)."""
    return hkdf_sha256(prf, PASSKEY_INFO + directory_id + slot_id, salt=PASSKEY_SALT)


def sweep_passkey(prf: bytes, directory_id: bytes, heads):
    """§9.8 "Sweep": `heads` is [(slot id, block 0 or None)] in the order of the slot
    names. Every slot with a block is tried, all four fields, with no early return; the
    answer is (index in heads, field, MEK) of the lowest slot, then field, that opens, or
    None (the wrong-password answer)."""
    if len(prf) != 32:
        raise FormatError("a PRF output is 32 bytes")
    found = []
    for position, (slot, block) in enumerate(heads):
        if block is None or len(block) < PREFIX + FIELDS:
            continue
        key = AESGCM(passkey_wrap_key(prf, directory_id, slot))
        for i in range(FIELD_COUNT):
            field = block[PREFIX + i * FIELD:PREFIX + (i + 1) * FIELD]
            try:
                mek = key.decrypt(field[:NONCE], field[NONCE:], PASSKEY_AD + directory_id + slot + bytes([i]))
            except InvalidTag:
                continue
            if len(mek) == 32:
                found.append((position, i, mek))
    return found[0] if found else None


class Catalog:
    """A paged catalog over `read_block(j)`, which returns logical block j's 4068-byte
    payload. Opening reads the root only; pages are verified as they are read."""

    def __init__(self, read_block, mek: bytes):
        self.read_block = read_block
        self.prefix, self.root = open_root(read_block(0), mek)
        self.key = AESGCM(page_key(mek, self.root.generation))
        self._uppers = {}
        self._leaves = {}

    @classmethod
    def with_password(cls, read_block, password: bytes):
        """Unwraps the MEK from the header's prefix (§9.5), then opens the root."""
        return cls(read_block, unwrap_mek(read_block(0)[:PREFIX], password))

    @classmethod
    def with_prf(cls, read_block, prf: bytes, directory_id: bytes, slot_id: bytes):
        """Opens the catalog of one slot from a passkey's PRF output (§9.8): the field
        that opens gives the MEK. A reader that opens the vault through the server also
        checks the assertion against that field's `passkey` row (§9.9); this one reads."""
        found = sweep_passkey(prf, directory_id, [(slot_id, read_block(0))])
        if found is None:
            raise WrongPassword("no passkey field opens with this PRF output")
        return cls(read_block, found[2])

    def _open(self, sealed: bytes, tag: bytes, ad: bytes, what: str) -> bytes:
        """§9.6: the block's last 16 bytes must be the tag its parent records, before it
        is opened with its associated data."""
        if len(sealed) != PAYLOAD or not hmac.compare_digest(sealed[-TAG:], tag):
            raise Damaged(f"{what} does not match its parent's tag")
        try:
            return self.key.decrypt(sealed[:NONCE], sealed[NONCE:], ad)
        except InvalidTag:
            raise Damaged(f"{what} fails authentication")

    def _node(self, level: int, index: int, tag: bytes, children: int) -> list:
        """§9.3: the first `children` tags of a node; the rest of its 4040 bytes zero."""
        ids = upper_id if level == UPPER_LEVEL else leaf_id
        what = f"{'upper' if level == UPPER_LEVEL else 'leaf'} node {index}"
        plain = self._open(self.read_block(ids(index)), tag,
                           node_ad(self.root.vault_id, level, index, self.root.generation), what)
        if len(plain) != USABLE or any(plain[children * TAG:]):
            raise Damaged(f"{what} has nonzero entries past its last child")
        return [plain[i * TAG:(i + 1) * TAG] for i in range(children)]

    def upper(self, m: int) -> list:
        if m not in self._uppers:
            if not 0 <= m < len(self.root.upper_tags):
                raise Damaged("no such upper node")
            children = min(T, leaf_count(self.root.pages) - m * T)
            self._uppers[m] = self._node(UPPER_LEVEL, m, self.root.upper_tags[m], children)
        return self._uppers[m]

    def leaf(self, n: int) -> list:
        if n not in self._leaves:
            children = min(T, self.root.pages - n * T)
            self._leaves[n] = self._node(LEAF_LEVEL, n, self.upper(n // T)[n % T], children)
        return self._leaves[n]

    def page(self, k: int) -> bytes:
        """§9.2: page k's 4040 bytes, then 56 zero bytes."""
        if not 1 <= k <= self.root.pages:
            raise Damaged("no such page")
        tag = self.leaf((k - 1) // T)[(k - 1) % T]
        plain = self._open(self.read_block(page_id(k)), tag,
                           page_ad(self.root.vault_id, k, self.root.generation), f"page {k}")
        if len(plain) != USABLE:
            raise Damaged(f"page {k} is not 4040 bytes")
        return plain + bytes(RESERVE)

    def database(self) -> bytes:
        """Every page, in order, each verified down the tree."""
        return b"".join(self.page(k) for k in range(1, self.root.pages + 1))

    def write_sqlite(self, path: str = None) -> str:
        """Writes the verified pages into a plain SQLite file and returns its path. Nothing
        is written unless every page verifies."""
        data = self.database()
        if path is None:
            handle, path = tempfile.mkstemp(suffix=".sqlite")
            os.close(handle)
        with open(path, "wb") as f:
            f.write(data)
        return path
