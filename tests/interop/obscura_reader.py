"""A second, independent reader of Obscura's formats, written from docs/FORMAT.md alone.

It reads `.obscura` exports (§7), opens a vault's MEK from its slot header with the vault
password (§3), and decrypts chunked media files (§6). Python's standard library and the
`cryptography` package (AES-GCM) only; nothing here is shared with the Swift code.
"""
import hashlib
import hmac
import json
import struct
import uuid

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.exceptions import InvalidTag

EXPORT_MAGIC = b"OBSX"
EXPORT_HEADER_SIZE = 64
VERIFICATION_TEXT = b"OBSCURA_EXPORT_V1"
CHUNKED_MAGIC = b"OBSK"
CHUNKED_HEADER_SIZE = 24
SLOT_MAGIC = b"OBSV"
SLOT_HEADER_SIZE = 172
TAG = 16
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class FormatError(Exception):
    """The bytes do not follow docs/FORMAT.md, or fail authentication."""


class WrongPassword(Exception):
    """The export password does not match the header's verification tag."""


def pbkdf2(password: bytes, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password, salt, iterations, 32)


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


def decrypt_chunked(data: bytes, key: bytes, context: bytes, outer_key: bytes = None) -> bytes:
    """§6: a chunked file (header at the start of `data`), every chunk authenticated."""
    if data[:4] != CHUNKED_MAGIC:
        raise FormatError("not a chunked file")
    header = data[:CHUNKED_HEADER_SIZE]
    version, flags = struct.unpack(">HH", header[4:8])
    prefix = header[8:12]
    chunk_size, total = struct.unpack(">IQ", header[12:24])
    if version != 1 or flags & ~1 or not 4096 <= chunk_size <= 16 << 20:
        raise FormatError("unsupported chunked header")
    protected = bool(flags & 1)
    if protected != (outer_key is not None):
        raise FormatError("folder key required" if protected else "not folder-protected")
    overhead = TAG * (2 if protected else 1)
    count = max(1, -(-total // chunk_size))
    expected_size = CHUNKED_HEADER_SIZE + total + count * overhead
    if len(data) != expected_size:
        raise FormatError("truncated" if len(data) < expected_size else "trailing data")
    out = bytearray()
    offset = CHUNKED_HEADER_SIZE
    for i in range(count):
        length = chunk_size if i < count - 1 else total - (count - 1) * chunk_size
        sealed = data[offset:offset + length + overhead]
        offset += length + overhead
        ad = header + (b"\x01" if i == count - 1 else b"\x00") + context
        try:
            if protected:
                sealed = AESGCM(outer_key).decrypt(prefix + struct.pack(">Q", count + i), sealed, ad)
            out += AESGCM(key).decrypt(prefix + struct.pack(">Q", i), sealed, ad)
        except InvalidTag:
            raise FormatError(f"chunk {i} failed authentication")
    return bytes(out)


class Export:
    """An `.obscura` file: header checked, payload decrypted and parsed (§7)."""

    def __init__(self, path: str, password: str):
        with open(path, "rb") as f:
            header = f.read(EXPORT_HEADER_SIZE)
            if len(header) != EXPORT_HEADER_SIZE or header[:4] != EXPORT_MAGIC:
                raise FormatError("not an Obscura export")
            version, flags, iterations = struct.unpack(">HHI", header[4:12])
            if version != 1 or flags != 0 or not 1 <= iterations <= 10_000_000:
                raise FormatError("unsupported export header")
            salt, tag = header[12:44], header[44:60]
            kek = pbkdf2(canonical_export_password(password), salt, iterations)
            expected = AESGCM(kek).encrypt(b"\x00" * 12, VERIFICATION_TEXT, header[:44])[-TAG:]
            if not hmac.compare_digest(expected, tag):
                raise WrongPassword()
            self.bytes_read_at_check = f.tell()
            body = f.read()
        if body[8:12] != header[60:64]:
            raise FormatError("payload prefix differs from the header's")
        payload = decrypt_chunked(body, kek, context=header)
        (m,) = struct.unpack(">I", payload[:4])
        self.manifest = json.loads(payload[4:4 + m])
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
            self.files[(kind, file_id)] = payload[pos + 24:pos + 24 + length]
            pos += 24 + length
        if pos != len(payload):
            raise FormatError("trailing payload")
        vault = self.manifest["vault"]
        if self.slot[8:12] != struct.pack(">I", vault["iterations"]):
            raise FormatError("manifest and slot disagree")

    @property
    def items(self):
        return self.manifest["items"]

    def open_vault(self, vault_password: str) -> bytes:
        """§3.5: the MEK from the slot header and the vault password."""
        return open_mek(self.slot, vault_password.encode())

    def original(self, item: dict, mek: bytes) -> bytes:
        data = self.files[(1, item["media_id"])]
        return decrypt_chunked(data, mek, context=uuid.UUID(item["media_id"]).bytes)


def open_mek(slot: bytes, password: bytes) -> bytes:
    """§3.5 up to the MEK: checks magic, version, suite, checksum and range, derives the KEK."""
    h = slot[:SLOT_HEADER_SIZE]
    if len(h) != SLOT_HEADER_SIZE or h[:4] != SLOT_MAGIC or struct.unpack(">HH", h[4:8]) != (3, 1):
        raise FormatError("unsupported slot")
    if not hmac.compare_digest(hashlib.sha256(h[:140]).digest(), h[140:172]):
        raise FormatError("slot header checksum")
    (iterations,) = struct.unpack(">I", h[8:12])
    if not 1 <= iterations <= 10_000_000:
        raise FormatError("iteration count out of range")
    kek = pbkdf2(password, h[12:44], iterations)
    wrapped = h[44:104]
    try:
        return AESGCM(kek).decrypt(wrapped[:12], wrapped[12:], h[:44])
    except InvalidTag:
        raise WrongPassword()
