"""Drop blobs and drop codes (docs/FORMAT.md §10), written from the spec alone: HPKE base
mode with DHKEM(X25519, HKDF-SHA256), HKDF-SHA256 and the export-only AEAD (RFC 9180),
then the chunked format of §6.6 under the exported root."""
import hashlib
import hmac
import os
import struct

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import obscura_reader as reader

INFO = b"obscura drop v1"
EXPORT_CONTEXT = b"obscura drop v1 payload"
KEM_ID, KDF_ID, AEAD_ID = 0x0020, 0x0001, 0xFFFF
CHUNK_SIZE = 262144
CODE_WORD, CODE_CHECK_BYTE = "DROPS", 0x50
KINDS = {1: "file", 2: "note"}


def _extract(salt: bytes, ikm: bytes) -> bytes:
    return hmac.new(salt, ikm, hashlib.sha256).digest()


def _expand(prk: bytes, info: bytes, length: int) -> bytes:
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()[:length]


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return _extract(salt, b"HPKE-v1" + suite + label + ikm)


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    return _expand(prk, struct.pack(">H", length) + b"HPKE-v1" + suite + label + info, length)


class NoMatch(reader.FormatError):
    """No root this key derives opens chunk 0: another vault's drop, or a DH that RFC 9180
    §7.1.4 refuses (a low-order enc). The blob stays for other vaults."""


class Damaged(reader.FormatError):
    """Chunk 0 opens under this key, a later chunk or the length does not (§10.6 step 4)."""


class BadEnvelope(reader.FormatError):
    """Every chunk opens, but §10.4 refuses the envelope."""


class NewerEnvelope(reader.FormatError):
    """Every chunk opens, but the envelope's version or kind is unknown here (§10.4): the
    blob stays in the inbox for a newer reader."""


def shared_secret(dh: bytes, enc: bytes, pk_r: bytes) -> bytes:
    """RFC 9180 §4.1: DHKEM's ExtractAndExpand of the X25519 output."""
    kem = b"KEM" + struct.pack(">H", KEM_ID)
    return _labeled_expand(kem, _labeled_extract(kem, b"", b"eae_prk", dh), b"shared_secret", enc + pk_r, 32)


def export(dh: bytes, enc: bytes, pk_r: bytes) -> bytes:
    """RFC 9180 §4.1, §5.1 (mode_base, no PSK), §5.3: the 32-byte root of §10.2."""
    suite = b"HPKE" + struct.pack(">HHH", KEM_ID, KDF_ID, AEAD_ID)
    shared = shared_secret(dh, enc, pk_r)
    context = (b"\x00" + _labeled_extract(suite, b"", b"psk_id_hash", b"")
               + _labeled_extract(suite, b"", b"info_hash", INFO))
    secret = _labeled_extract(suite, shared, b"secret", b"")
    exporter = _labeled_expand(suite, secret, b"exp", context, 32)
    return _labeled_expand(suite, exporter, b"sec", EXPORT_CONTEXT, 32)


def _raw(public_key) -> bytes:
    from cryptography.hazmat.primitives import serialization
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def steps(blob: bytes, private_key: bytes) -> dict:
    """§10.2, §10.3: the values on the way from a blob's salt to its chunk key, as the
    vectors' `enc` … `k_in` fields name them. NoMatch when the DH is refused."""
    h = reader.parse_chunked_header(blob)
    enc = bytearray(h["salt"])
    enc[31] &= 0x7F
    key = X25519PrivateKey.from_private_bytes(private_key)
    try:
        dh = key.exchange(X25519PublicKey.from_public_bytes(bytes(enc)))
    except ValueError as error:  # the all-zero output of a low-order point
        raise NoMatch("the X25519 output is refused: " + str(error)) from None
    pk_r = _raw(key.public_key())
    root = export(dh, bytes(enc), pk_r)
    return {"enc": bytes(enc), "dh": dh, "shared_secret": shared_secret(dh, bytes(enc), pk_r), "root": root,
            "k_in": reader.hkdf_sha256(root, reader.V2_INNER_KEY_LABEL, salt=h["salt"])}


def open_drop(blob: bytes, private_key: bytes):
    """§10.3, §10.4: (kind, name, content) of a blob for `private_key`. FormatError when
    the header is not a drop's, NoMatch when chunk 0 does not open, Damaged when a later
    chunk (or the length) fails, NewerEnvelope when the envelope's version or kind is
    unknown, BadEnvelope when §10.4 refuses it."""
    h = reader.parse_chunked_header(blob)
    if h["version"] != 2 or h["flags"] != 0 or h["chunk_size"] != CHUNK_SIZE:
        raise reader.FormatError("not a drop header")
    # §6.2's file size, checked before any key is used (a short blob is malformed, not damaged).
    count = max(1, -(-h["total"] // CHUNK_SIZE))
    if len(blob) != len(h["bytes"]) + h["total"] + count * reader.TAG:
        raise reader.FormatError("the file size is not the header's")
    root = steps(blob, private_key)["root"]
    try:
        plain = reader.decrypt_chunked(blob, root, b"")
    except reader.FormatError as error:
        raise (NoMatch if str(error).startswith("chunk 0") else Damaged)(str(error)) from None
    if len(plain) >= 2 and (plain[0] != 1 or plain[1] not in KINDS):
        raise NewerEnvelope("unknown envelope version or kind")
    if len(plain) < 4:
        raise BadEnvelope("the envelope is cut short")
    (n,) = struct.unpack(">H", plain[2:4])
    if n > 255 or len(plain) < 4 + n:
        raise BadEnvelope("the name runs past the plaintext")
    try:
        name = plain[4:4 + n].decode("utf-8")
    except UnicodeDecodeError:
        raise BadEnvelope("the name is not UTF-8") from None
    return KINDS[plain[1]], name, plain[4 + n:]


def seal_drop(public_key: bytes, name: str, content: bytes, kind: int = 1) -> bytes:
    """§10.2-§10.4: a blob of `content` for the holder of `public_key`."""
    ephemeral = X25519PrivateKey.generate()
    enc = _raw(ephemeral.public_key())
    root = export(ephemeral.exchange(X25519PublicKey.from_public_bytes(public_key)), enc, public_key)
    salt = bytearray(enc)
    salt[31] |= os.urandom(1)[0] & 0x80
    encoded = name.encode("utf-8")
    plain = bytes([1, kind]) + struct.pack(">H", len(encoded)) + encoded + content
    header = b"OBSK" + struct.pack(">HHIQ", 2, 0, CHUNK_SIZE, len(plain)) + bytes(salt)
    k_in = reader.hkdf_sha256(root, reader.V2_INNER_KEY_LABEL, salt=bytes(salt))
    count = max(1, -(-len(plain) // CHUNK_SIZE))
    out = bytearray(header)
    for i in range(count):
        chunk = plain[i * CHUNK_SIZE:(i + 1) * CHUNK_SIZE]
        ad = header + (b"\x01" if i == count - 1 else b"\x00")
        out += AESGCM(k_in).encrypt(b"\x00" * 4 + struct.pack(">Q", i), chunk, ad)
    return bytes(out)


def decode_drop_code(text: str) -> bytes:
    """§10.1: the public key of a drop code, read as §4.3 reads a key text."""
    symbols = "".join(c for c in text if c not in "- \t\r\n")
    if len(symbols) != 61 or symbols[:5].upper() != CODE_WORD:
        raise reader.FormatError("not a valid drop code")
    bits = "".join(f"{reader.crockford_value(c):05b}" for c in symbols[5:57])
    if bits[256:] != "0000":
        raise reader.FormatError("not a valid drop code")
    key = int(bits[:256], 2).to_bytes(32, "big")
    check = reader.crockford_encode(hashlib.sha256(reader.KEY_CHECK_LABEL + bytes([CODE_CHECK_BYTE]) + key).digest()[:3])[:4]
    if bytes(reader.crockford_value(c) for c in symbols[57:]) != bytes(reader.crockford_value(c) for c in check):
        raise reader.FormatError("not a valid drop code")
    return key
