"""A second, independent reader of Obscura's formats, written from docs/FORMAT.md alone.

It reads `.obscura` exports (§7), opens a vault's MEK and catalog from its slot with the
vault password (§3), derives the decoy credential from a device secret (§4.1), decodes key
texts (§4.3), decrypts chunked media files of versions 1 and 2 and single-shot blobs (§6,
§6.6), computes keyed content hashes (§6.7), and unwraps folder keys and opens protected
metadata (§6.4). Python's standard library and the
`cryptography` package (AES-GCM) only; nothing here is shared with the Swift code. The
slot container of §8, which holds a slot's bytes in a version 4 directory, is read by
obscura_container.py.
"""
import base64
import binascii
import hashlib
import hmac
import json
import re
import sqlite3
import struct
import uuid

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.exceptions import InvalidTag

EXPORT_MAGIC = b"OBSX"
EXPORT_HEADER_SIZE = 64
VERIFICATION_TEXT = b"OBSCURA_EXPORT_V1"
CHUNKED_MAGIC = b"OBSK"
CHUNKED_HEADER_SIZE = 24
CHUNKED_V2_HEADER_SIZE = 52
V2_INNER_KEY_LABEL = b"obscura media v2 inner key"
V2_OUTER_KEY_LABEL = b"obscura media v2 outer key"
CONTENT_HASH_LABEL = b"obscura content hash v1"
SLOT_MAGIC = b"OBSV"
SLOT_HEADER_SIZE = 172
TAG = 16
NONCE = 12
KEY = 32
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
MAX_ITERATIONS = 10_000_000
EXPORT_CHUNK_SIZE = 1 << 20
DEVICE_SECRET_SIZE = 32
CREDENTIAL_INFO = b"obscura device credential v1"
FOLDER_KEY_LABEL = b"obscura folder key v1"
# §3.3: pool ids are lower-case 8-4-4-4-12 hex; anything else is refused before use.
CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class FormatError(Exception):
    """The bytes do not follow docs/FORMAT.md, or fail authentication."""


class Unsupported(FormatError):
    """An export refused from its 64-byte header alone, before any derivation (§7.1)."""


class WrongPassword(Exception):
    """The password does not match (export verification tag, slot, folder verifier)."""


def in_range(iterations: int) -> bool:
    """§2: every stored PBKDF2 count must be in 1 ... 10,000,000."""
    return 1 <= iterations <= MAX_ITERATIONS


def hkdf_sha256(ikm: bytes, info: bytes, length: int = 32, salt: bytes = b"") -> bytes:
    """RFC 5869 with SHA-256; an empty salt is HashLen (32) zero bytes."""
    prk = hmac.new(salt or b"\x00" * 32, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def device_credential(secret_file: bytes) -> bytes:
    """§4.1: the decoy credential from the bytes of a device-secret file (exactly 32)."""
    if len(secret_file) != DEVICE_SECRET_SIZE:
        raise FormatError("a device secret is exactly 32 bytes")
    return hkdf_sha256(secret_file, CREDENTIAL_INFO)


def crockford_encode(data: bytes) -> str:
    """§4.2: most significant bit first, 5 bits a symbol, the last group zero-padded."""
    bits = "".join(f"{b:08b}" for b in data)
    bits += "0" * (-len(bits) % 5)
    return "".join(CROCKFORD[int(bits[i:i + 5], 2)] for i in range(0, len(bits), 5))


KEY_CHECK_LABEL = b"obscura key check v1"
KEY_KINDS = {"outer": ("OUTER", 0x4F), "decoy": ("DECOY", 0x44)}


def crockford_value(symbol: str) -> int:
    """§4.2: one symbol, any case, O read as 0, I and L as 1."""
    c = {"O": "0", "I": "1", "L": "1"}.get(symbol.upper(), symbol.upper())
    if c not in CROCKFORD:
        raise FormatError("not a valid key text")
    return CROCKFORD.index(c)


def key_check_group(key: bytes, kind: str) -> str:
    """§4.3: the first 20 bits of SHA-256(label ‖ kind byte ‖ key) as 4 symbols."""
    digest = hashlib.sha256(KEY_CHECK_LABEL + bytes([KEY_KINDS[kind][1]]) + key).digest()
    return crockford_encode(digest[:3])[:4]


def decode_key_text(text: bytes, kind: str) -> bytes:
    """§4.3: the 32-byte key of a key text of `kind` ("outer" or "decoy")."""
    symbols = bytes(b for b in text if b not in b"- \t\r\n")
    if len(symbols) != 61 or any(b <= 0x20 or b >= 0x7F for b in symbols):
        raise FormatError("not a valid key text")
    symbols = symbols.decode("ascii")
    if symbols[:5].upper() != KEY_KINDS[kind][0]:
        raise FormatError("not a valid key text")
    bits = "".join(f"{crockford_value(c):05b}" for c in symbols[5:57])
    if bits[256:] != "0000":
        raise FormatError("not a valid key text")
    key = int(bits[:256], 2).to_bytes(32, "big")
    typed = bytes(crockford_value(c) for c in symbols[57:])
    expected = bytes(crockford_value(c) for c in key_check_group(key, kind))
    if not hmac.compare_digest(typed, expected):
        raise FormatError("not a valid key text")
    return key


def pbkdf2(password: bytes, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password, salt, iterations, 32)


def argon2id_cost(word: int):
    """§2 suite 2: the cost word `e t p 00` as (memory KiB, passes, lanes), or None when
    it is outside the reader's bounds."""
    e, t, p, zero = word.to_bytes(4, "big")
    if (zero != 0 or not 3 <= e <= 18 or not 1 <= t <= 10 or not 1 <= p <= 16 or (1 << e) < 8 * p
            or (1 << e) * t > 3 << 18):
        return None
    return 1 << e, t, p


def cost_in_range(suite: int, word: int) -> bool:
    """§2: whether `word` is within suite `suite`'s bounds (1: PBKDF2, 2: Argon2id)."""
    return in_range(word) if suite == 1 else suite == 2 and argon2id_cost(word) is not None


def derive_kek(suite: int, word: int, password: bytes, salt: bytes) -> bytes:
    """§2: KDF(suite, cost word)(password, salt), 32 bytes; the bounds are checked first."""
    if not cost_in_range(suite, word):
        raise FormatError("key derivation cost out of range")
    if suite == 1:
        return pbkdf2(password, salt, word)
    from argon2.low_level import Type, hash_secret_raw  # argon2-cffi (scripts/setup)
    memory, passes, lanes = argon2id_cost(word)
    return hash_secret_raw(password, salt, time_cost=passes, memory_cost=memory, parallelism=lanes,
                           hash_len=32, type=Type.ID, version=19)


def canonical_export_password(typed: str) -> bytes:
    """§7.2: a generated password (20 lenient Crockford symbols) in canonical form."""
    symbols = typed.replace("-", "").replace(" ", "")
    if len(symbols) == 20:
        out = []
        for c in symbols.upper():
            c = {"O": "0", "I": "1", "L": "1"}.get(c, c)
            if c not in CROCKFORD:
                return typed.encode()
            out.append(c)
        return "".join(out).encode()
    return typed.encode()


def open_box(key: bytes, box: bytes, ad: bytes) -> bytes:
    """§1: a sealed box, nonce (12) ‖ ciphertext ‖ tag (16)."""
    if len(box) < NONCE + TAG:
        raise FormatError("shorter than a sealed box")
    try:
        return AESGCM(key).decrypt(box[:NONCE], box[NONCE:], ad)
    except InvalidTag:
        raise FormatError("sealed box failed authentication")


def open_blob(data: bytes, key: bytes, context: bytes, outer_key: bytes = None) -> bytes:
    """§6.5: a single-shot blob; protected, the outer box (same associated data) first."""
    if data[:4] == CHUNKED_MAGIC:
        raise FormatError("a chunked file, not a blob")
    if outer_key is not None:
        data = open_box(outer_key, data, context)
    return open_box(key, data, context)


def parse_chunked_header(data: bytes) -> dict:
    """§6.1, §6.6: the header of either version; the magic and version come first, then
    the version's whole header must be there."""
    if data[:4] != CHUNKED_MAGIC:
        raise FormatError("not a chunked file")
    if len(data) < 6:
        raise FormatError("truncated")
    (version,) = struct.unpack(">H", data[4:6])
    size = {1: CHUNKED_HEADER_SIZE, 2: CHUNKED_V2_HEADER_SIZE}.get(version)
    if size is None:
        raise FormatError("unsupported chunked version")
    if len(data) < size:
        raise FormatError("truncated")
    (flags,) = struct.unpack(">H", data[6:8])
    if version == 1:
        header = {"prefix": data[8:12], "salt": None}
        chunk_size, total = struct.unpack(">IQ", data[12:24])
    else:
        header = {"prefix": None, "salt": data[20:52]}
        chunk_size, total = struct.unpack(">IQ", data[8:20])
    if flags & ~1 or not 4096 <= chunk_size <= 16 << 20:
        raise FormatError("unsupported chunked header")
    header.update(version=version, flags=flags, chunk_size=chunk_size, total=total, bytes=data[:size])
    return header


def v2_file_keys(salt: bytes, key: bytes, outer_key: bytes = None):
    """§6.6: each layer's key, HKDF-SHA256(salt = the header's salt, IKM = MEK or folder
    key, info = the layer's label)."""
    inner = hkdf_sha256(key, V2_INNER_KEY_LABEL, salt=salt)
    outer = hkdf_sha256(outer_key, V2_OUTER_KEY_LABEL, salt=salt) if outer_key is not None else None
    return inner, outer


def decrypt_chunked(data: bytes, key: bytes, context: bytes, outer_key: bytes = None) -> bytes:
    """§6: a chunked file of version 1 or 2 (header at the start of `data`), every chunk
    authenticated."""
    h = parse_chunked_header(data)
    protected = bool(h["flags"] & 1)
    if protected != (outer_key is not None):
        raise FormatError("folder key required" if protected else "not folder-protected")
    header, chunk_size, total = h["bytes"], h["chunk_size"], h["total"]
    overhead = TAG * (2 if protected else 1)
    count = max(1, -(-total // chunk_size))
    expected_size = len(header) + total + count * overhead
    if len(data) != expected_size:
        raise FormatError("truncated" if len(data) < expected_size else "trailing data")
    if h["version"] == 2:
        # §6.6: keys of the file's own; nonce 00000000 ‖ UInt64BE(i) in both layers.
        key, outer_key = v2_file_keys(h["salt"], key, outer_key)
        inner_nonce = outer_nonce = lambda i: b"\x00" * 4 + struct.pack(">Q", i)
    else:
        # §6.2, §6.4: prefix ‖ UInt64BE(i), and prefix ‖ UInt64BE(n + i) in the folder layer.
        inner_nonce = lambda i: h["prefix"] + struct.pack(">Q", i)
        outer_nonce = lambda i: h["prefix"] + struct.pack(">Q", count + i)
    out = bytearray()
    offset = len(header)
    for i in range(count):
        length = chunk_size if i < count - 1 else total - (count - 1) * chunk_size
        sealed = data[offset:offset + length + overhead]
        offset += length + overhead
        ad = header + (b"\x01" if i == count - 1 else b"\x00") + context
        try:
            if protected:
                sealed = AESGCM(outer_key).decrypt(outer_nonce(i), sealed, ad)
            out += AESGCM(key).decrypt(inner_nonce(i), sealed, ad)
        except InvalidTag:
            raise FormatError(f"chunk {i} failed authentication")
    return bytes(out)


def open_pool_file(data: bytes, key: bytes, context: bytes, outer_key: bytes = None) -> bytes:
    """§6.5: the first four bytes choose: `OBSK` a chunked file (either version; version 2
    thumbnails are one), anything else a version 1 single-shot blob."""
    opener = decrypt_chunked if data[:4] == CHUNKED_MAGIC else open_blob
    return opener(data, key, context, outer_key)


def content_hash(root_key: bytes, plaintext: bytes) -> bytes:
    """§6.7: `01` ‖ HMAC-SHA256(K_hash, SHA-256(plaintext)), with K_hash =
    HKDF-SHA256(empty salt, IKM = the MEK or the folder key, info = the label)."""
    hash_key = hkdf_sha256(root_key, CONTENT_HASH_LABEL)
    return b"\x01" + hmac.new(hash_key, hashlib.sha256(plaintext).digest(), hashlib.sha256).digest()


class Export:
    """An `.obscura` file: header checked, payload decrypted and parsed (§7)."""

    def __init__(self, path: str, password: str):
        with open(path, "rb") as f:
            header = f.read(EXPORT_HEADER_SIZE)
            if len(header) != EXPORT_HEADER_SIZE or header[:4] != EXPORT_MAGIC:
                raise Unsupported("not an Obscura export")
            # §7.1: the KDF field is 0 for PBKDF2 (suite 1), 2 for Argon2id.
            version, kdf, word = struct.unpack(">HHI", header[4:12])
            if version != 1 or kdf not in (0, 2) or not cost_in_range(kdf or 1, word):
                raise Unsupported("unsupported export header")
            if header[60:64] == b"\x00" * 4:
                raise Unsupported("zero nonce prefix")
            salt, tag = header[12:44], header[44:60]
            kek = derive_kek(kdf or 1, word, canonical_export_password(password), salt)
            expected = AESGCM(kek).encrypt(b"\x00" * 12, VERIFICATION_TEXT, header[:44])[-TAG:]
            if not hmac.compare_digest(expected, tag):
                raise WrongPassword()
            self.bytes_read_at_check = f.tell()
            body = f.read()
        # §7.3: the payload header's prefix, flags and chunk size are fixed.
        if body[8:12] != header[60:64]:
            raise FormatError("payload prefix differs from the header's")
        if body[4:6] != b"\x00\x01" or body[6:8] != b"\x00\x00" or body[12:16] != struct.pack(">I", EXPORT_CHUNK_SIZE):
            raise FormatError("payload header is not the export's")
        payload = decrypt_chunked(body, kek, context=header)
        (m,) = struct.unpack(">I", payload[:4])
        self.manifest = json.loads(payload[4:4 + m])
        # §7.4: 3 when some item carries a second original (companion_id); else 2 when
        # some item carries a rendition; else 1.
        items = self.manifest.get("items", [])
        companions = any(item.get("companion_id") is not None for item in items)
        renditions = any(item.get("rendition_id") is not None for item in items)
        if self.manifest.get("format") != (3 if companions else 2 if renditions else 1):
            raise FormatError("manifest format")
        pos = 4 + m
        (s,) = struct.unpack(">Q", payload[pos:pos + 8])
        self.slot = payload[pos + 8:pos + 8 + s]
        pos += 8 + s
        self.files = {}
        while True:
            kind = payload[pos]
            pos += 1
            if kind == 0:
                break
            file_id = str(uuid.UUID(bytes=payload[pos:pos + 16]))
            (length,) = struct.unpack(">Q", payload[pos + 16:pos + 24])
            if (kind, file_id) in self.files:
                raise FormatError("a file record appears twice")
            self.files[(kind, file_id)] = payload[pos + 24:pos + 24 + length]
            pos += 24 + length
        if pos != len(payload):
            raise FormatError("trailing payload")
        # §7.3: exactly the files the manifest names, each once, of its kind.
        # A file named twice (by two items, or twice by one) is refused: two items would
        # share one pool file, and removing either would take the other's.
        named = []
        for item in self.manifest["items"]:
            named.append((1, item["media_id"]))
            if item.get("thumb_id") is not None:
                named.append((2, item["thumb_id"]))
            if item.get("rendition_id") is not None:
                named.append((1, item["rendition_id"]))
            if item.get("companion_id") is not None:
                named.append((1, item["companion_id"]))
        if len({file_id for _, file_id in named}) != len(named):
            raise FormatError("the manifest names a file twice")
        if set(self.files) != set(named):
            raise FormatError("file records differ from the manifest's files")
        vault = self.manifest["vault"]
        if (self.slot[6:8] != struct.pack(">H", vault.get("suite") or 1)
                or self.slot[8:12] != struct.pack(">I", vault["iterations"])
                or self.slot[12:44] != b64(vault["salt"]) or self.slot[44:104] != b64(vault["wrapped_key"])):
            raise FormatError("manifest and slot disagree")
        for item in self.items:
            for key in ("media_id", "thumb_id", "rendition_id", "companion_id"):
                if item.get(key) is not None and not CANONICAL_UUID.fullmatch(item[key]):
                    raise FormatError(f"{key} is not a canonical UUID")

    @property
    def items(self):
        return self.manifest["items"]

    def open_vault(self, vault_password: str) -> bytes:
        """§3.5: the MEK from the slot header and the vault password."""
        return open_mek(self.slot, vault_password.encode())

    def note(self, item: dict, mek: bytes, vault_password: str) -> dict:
        """§3.3 "Notes": a note's title (the item's name), its Markdown body (the original,
        UTF-8) and the ids of the items attached to it, in order, from the carried catalog."""
        if item["kind"] != "note":
            raise FormatError("not a note")
        db = self.catalog(vault_password)
        attached = [row[0] for row in db.execute(
            "SELECT itemId FROM note_attachment WHERE noteId = ? ORDER BY position", (item["id"],))]
        return {"title": item["name"], "body": self.original(item, mek).decode("utf-8"), "attachments": attached}

    def original(self, item: dict, mek: bytes) -> bytes:
        data = self.files[(1, item["media_id"])]
        return decrypt_chunked(data, mek, context=uuid.UUID(item["media_id"]).bytes)

    def rendition(self, item: dict, mek: bytes) -> bytes:
        """§3.3, §7.3: a rendition travels as an original record and opens as one."""
        data = self.files[(1, item["rendition_id"])]
        return decrypt_chunked(data, mek, context=uuid.UUID(item["rendition_id"]).bytes)

    def companion(self, item: dict, mek: bytes) -> bytes:
        """§3.3, §7.3: a Live Photo's motion travels as an original record and opens as one."""
        data = self.files[(1, item["companion_id"])]
        return decrypt_chunked(data, mek, context=uuid.UUID(item["companion_id"]).bytes)

    def thumbnail(self, item: dict, mek: bytes) -> bytes:
        data = self.files[(2, item["thumb_id"])]
        return open_pool_file(data, mek, context=uuid.UUID(item["thumb_id"]).bytes)

    def catalog(self, vault_password: str) -> sqlite3.Connection:
        """§3.3: the carried catalog, opened into an in-memory SQLite database."""
        _, image = open_slot(self.slot, vault_password.encode())
        db = sqlite3.connect(":memory:")
        db.deserialize(image)
        return db


def open_mek(slot: bytes, password: bytes) -> bytes:
    """§3.5 up to the MEK (steps 1-7), in the spec's order: length for the version, magic,
    dispatch on the version (3: §3.1's header, H = 172, C = 140; 4: a paged slot's header
    prefix, §9.5, H = 136, C = 104), length for the header, suite, checksum, range, then
    the KEK. A paged header's iteration count, salt and wrapped MEK are at §3.1's offsets,
    and its version is in the wrapped MEK's associated data (§9.7)."""
    if len(slot) < 6:
        raise FormatError("truncated")
    if slot[:4] != SLOT_MAGIC:
        raise FormatError("unsupported slot")
    (version,) = struct.unpack(">H", slot[4:6])
    if version == 3:
        size, checked = SLOT_HEADER_SIZE, 140
    elif version == 4:
        size, checked = 136, 104
    else:
        raise FormatError("unsupported slot")
    if len(slot) < size:
        raise FormatError("truncated")
    h = slot[:size]
    if struct.unpack(">H", h[6:8])[0] not in (1, 2):
        raise FormatError("unsupported slot")
    checksum = h[checked:checked + 32]
    if not hmac.compare_digest(hashlib.sha256(h[:checked]).digest(), checksum):
        raise FormatError("slot header checksum")
    suite, word = struct.unpack(">HI", h[6:12])
    kek = derive_kek(suite, word, password, h[12:44])
    wrapped = h[44:104]
    try:
        return AESGCM(kek).decrypt(wrapped[:12], wrapped[12:], h[:44])
    except InvalidTag:
        raise WrongPassword()


def open_slot(file: bytes, password: bytes):
    """§3.5 `open_slot`: the MEK (steps 1-7), then the envelope and the sealed catalog
    (steps 8-13); returns (MEK, catalog image). Inside a version 4 container the file is
    the slot's whole inner stream (§8.9)."""
    mek = open_mek(file, password)
    if len(file) < SLOT_HEADER_SIZE:
        raise FormatError("truncated")
    h = file[:SLOT_HEADER_SIZE]
    envelope = open_box(mek, h[104:140], h[:104])
    if len(envelope) != 8:
        raise FormatError("corrupt envelope")
    (length,) = struct.unpack(">Q", envelope)
    if length < NONCE + TAG:
        raise FormatError("corrupt envelope")
    if length > len(file) - SLOT_HEADER_SIZE:
        raise FormatError("truncated")
    return mek, open_box(mek, file[SLOT_HEADER_SIZE:SLOT_HEADER_SIZE + length], h[:8])


def b64(text: str) -> bytes:
    """§7.4: standard base64 (RFC 4648 §4: `+`, `/`, `=` padding), strictly."""
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise FormatError("not standard base64")


def unwrap_folder_key(folder_id: str, password: bytes, salt: bytes, iterations: int,
                      wrapped: bytes, verifier: bytes, suite: int = 1) -> bytes:
    """§6.4 `unlock_folder`: suite and range, verifier, then the wrapped key and its
    length. `suite` is the record's kdfSuite (null: 1); `iterations` its cost word."""
    if suite not in (1, 2):
        raise FormatError("unknown folder key derivation")
    kek = derive_kek(suite, iterations, password, salt)
    if not hmac.compare_digest(hashlib.sha256(kek).digest(), verifier):
        raise WrongPassword()
    key = open_box(kek, wrapped, FOLDER_KEY_LABEL + folder_id.encode())
    if len(key) != KEY:
        raise FormatError("a folder key is 32 bytes")
    return key


def open_protected_meta(sealed: bytes, folder_key: bytes, item_id: str) -> dict:
    """§6.4: one sealed box under the folder key, the item id's 16 bytes as associated
    data; the JSON's eight keys, an absent one read as null."""
    meta = json.loads(open_box(folder_key, sealed, uuid.UUID(item_id).bytes))
    return {key: meta.get(key) for key in META_KEYS}


# §6.4's keys; migration v4 added the last three.
META_KEYS = ("name", "mimeType", "takenAt", "width", "height", "latitude", "longitude", "place")
