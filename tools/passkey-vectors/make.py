"""Writes testdata/passkey/: the vectors of docs/FORMAT.md §9.8 (passkey fields) and
§9.9 (the assertion check), computed here with Python's `cryptography`, independently
of the Swift code that the tests check against them.

    python3 tools/passkey-vectors/make.py     # rewrites testdata/passkey/

ECDSA signatures are randomized, so a rerun writes other (equally valid) ES256
signatures; everything else is the same on every run. Commit the files only when a
case is added or changed."""

import base64
import hashlib
import hmac
import json
import pathlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, utils
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

OUT = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "passkey"

# docs/FORMAT.md §9.8
PRF_INPUT_LABEL = b"obscura passkey prf input v1"
WEBAUTHN_PRF_LABEL = b"WebAuthn PRF\x00"
EXTRACT_SALT = b"obscura v4 passkey"
WRAP_INFO = b"obscura v4 passkey wrap"
AD_LABEL = b"obsv4pk\x00"

DID = bytes(range(0x00, 0x10))
SLOT = bytes(range(0x10, 0x20))
OTHER_SLOT = bytes(range(0x80, 0x90))
R = bytes(range(0x20, 0x40))
MEK = bytes(range(0xa0, 0xc0))
NONCE = bytes(range(0xc0, 0xcc))


def prf_input(did):
    return hashlib.sha256(PRF_INPUT_LABEL + did).digest()


def wrap_key(r, did, slot):
    prk = hmac.new(EXTRACT_SALT, r, hashlib.sha256).digest()
    return prk, hmac.new(prk, WRAP_INFO + did + slot + b"\x01", hashlib.sha256).digest()


def ad(did, slot, index):
    return AD_LABEL + did + slot + bytes([index])


def seal_field(r, did, slot, index, mek, nonce):
    _, key = wrap_key(r, did, slot)
    return nonce + AESGCM(key).encrypt(nonce, mek, ad(did, slot, index))


def filler(label, count):
    """Deterministic stand-in for the CSPRNG bytes of unused fields."""
    out = b""
    while len(out) < count:
        out += hashlib.sha256(label + bytes([len(out)])).digest()
    return out[:count]


def field_vectors():
    prk, key = wrap_key(R, DID, SLOT)
    p_in = prf_input(DID)
    common = {"directoryId": DID.hex(), "slotId": SLOT.hex(), "prf": R.hex()}
    cases = {}
    fields = [filler(b"field0", 60), filler(b"field1", 60), seal_field(R, DID, SLOT, 2, MEK, NONCE), filler(b"field3", 60)]
    cases["open"] = dict(common, fields="".join(f.hex() for f in fields), expect="open", field=2, mek=MEK.hex(),
                         prfInput=p_in.hex(), salt1=hashlib.sha256(WEBAUTHN_PRF_LABEL + p_in).digest().hex(),
                         prk=prk.hex(), wrapKey=key.hex(), nonce=NONCE.hex(),
                         associatedData=ad(DID, SLOT, 2).hex())
    cases["wrong-r"] = dict(common, prf=bytes(range(0x21, 0x41)).hex(), fields=cases["open"]["fields"], expect="none")
    cases["wrong-slot"] = dict(common, slotId=OTHER_SLOT.hex(), fields=cases["open"]["fields"], expect="none")
    cases["wrong-directory"] = dict(common, directoryId=OTHER_SLOT.hex(), fields=cases["open"]["fields"], expect="none")
    moved = [fields[0], fields[2], fields[1], fields[3]]
    cases["moved-index"] = dict(common, fields="".join(f.hex() for f in moved), expect="none")
    tampered = bytearray(fields[2])
    tampered[30] ^= 0x01
    cases["tampered-field"] = dict(common, fields="".join(f.hex() for f in [fields[0], fields[1], bytes(tampered), fields[3]]),
                                   expect="none")
    last = [filler(b"f0", 60), filler(b"f1", 60), filler(b"f2", 60), seal_field(R, DID, SLOT, 3, MEK, NONCE)]
    cases["open-last"] = dict(common, fields="".join(f.hex() for f in last), expect="open", field=3, mek=MEK.hex())
    return cases


# --- the assertion check (§9.9) -------------------------------------------------------

RP_ID = "localhost"
ORIGIN = "http://localhost:8731"
CHALLENGE = bytes(range(0x60, 0x80))
CREATE_CHALLENGE = bytes(range(0xe0, 0x100))
CRED_ID = bytes(range(0x90, 0xa0))
USER = bytes(range(0x70, 0x80))
P256_PRIVATE = ec.derive_private_key(int.from_bytes(bytes(range(0x40, 0x60)), "big"), ec.SECP256R1())
ED_PRIVATE = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(range(0x40, 0x60)))
OTHER_P256 = ec.derive_private_key(int.from_bytes(bytes(range(0x41, 0x61)), "big"), ec.SECP256R1())
UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80
P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def client_data(kind="webauthn.get", challenge=CHALLENGE, origin=ORIGIN, extra=""):
    return ('{"type":"%s","challenge":"%s","origin":"%s"%s}' % (kind, b64u(challenge), origin, extra)).encode()


def auth_data(flags=UP | UV, rp=RP_ID, tail=b""):
    return hashlib.sha256(rp.encode()).digest() + bytes([flags]) + b"\x00\x00\x00\x00" + tail


def x963(private):
    return private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def spki(private):
    return private.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def sign(private, data, cdj):
    message = data + hashlib.sha256(cdj).digest()
    if isinstance(private, ed25519.Ed25519PrivateKey):
        return private.sign(message)
    return private.sign(message, ec.ECDSA(hashes.SHA256()))


def high_s(signature):
    r, s = utils.decode_dss_signature(signature)
    if s > P256_N // 2:
        return signature
    return utils.encode_dss_signature(r, P256_N - s)


def row(private, be=False, cred=CRED_ID):
    if isinstance(private, ed25519.Ed25519PrivateKey):
        key, alg = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw), -8
    else:
        key, alg = x963(private), -7
    return {"credentialId": cred.hex(), "userHandle": USER.hex(), "alg": alg, "publicKey": key.hex(), "be": be}


def assertion(private=P256_PRIVATE, data=None, cdj=None, signature=None, raw=CRED_ID, user=USER, signer=None):
    data = auth_data() if data is None else data
    cdj = client_data() if cdj is None else cdj
    if signature is None:
        signature = sign(signer or private, data, cdj)
    return {"rawId": raw.hex(), "authenticatorData": data.hex(), "clientDataJSON": cdj.hex(),
            "signature": signature.hex(), "userHandle": None if user is None else user.hex()}


def assertion_vectors():
    base = {"rpId": RP_ID, "origin": ORIGIN, "challenge": CHALLENGE.hex()}
    cases = {}

    # Steps that fail together with the case's own: without a row or a parsed client
    # data, the checks that read them fail too (every check runs, §9.9).
    also = {"v1-free-row": ["V2", "V3", "V13"], "v4-not-json": ["V5", "V6", "V7", "V8"],
            "v4-not-object": ["V5", "V6", "V7", "V8"], "v8-cross-origin-number": ["V4", "V5", "V6", "V7"]}

    def case(name, step, expect, rw=None, challenge=CHALLENGE, **kw):
        fails = sorted([step] + also.get(name, []), key=lambda s: int(s[1:])) if expect == "fail" else []
        cases[name] = dict(base, step=step, expect=expect, fails=fails, challenge=None if challenge is None else challenge.hex(),
                           row=row(P256_PRIVATE) if rw is None else rw, assertion=assertion(**kw))

    case("valid-es256", "", "valid")
    case("valid-es256-high-s", "V13", "valid",
         signature=high_s(sign(P256_PRIVATE, auth_data(), client_data())))
    case("valid-ed25519", "", "valid", rw=row(ED_PRIVATE), private=ED_PRIVATE)
    case("valid-no-user-handle", "V3", "valid", user=None)
    case("valid-extension-data", "V11", "valid", data=auth_data(UP | UV | ED, tail=b"\xa0"))
    case("valid-be-bs", "V10", "valid", rw=row(P256_PRIVATE, be=True), data=auth_data(UP | UV | BE | BS))
    case("valid-cross-origin-false", "V8", "valid", cdj=client_data(extra=',"crossOrigin":false'))
    case("v1-free-row", "V1", "fail", rw={})
    case("v2-credential-id", "V2", "fail", raw=bytes(range(0x91, 0xa1)))
    case("v2-credential-id-length", "V2", "fail", raw=CRED_ID + b"\x00")
    case("v3-user-handle", "V3", "fail", user=bytes(16))
    case("v4-not-json", "V4", "fail", cdj=b"not json at all")
    case("v4-not-object", "V4", "fail", cdj=b'["webauthn.get"]')
    case("v5-type-create", "V5", "fail", cdj=client_data(kind="webauthn.create"))
    case("v6-challenge", "V6", "fail", cdj=client_data(challenge=bytes(32)))
    case("v6-no-outstanding-challenge", "V6", "fail", challenge=None)
    case("v7-origin-port", "V7", "fail", cdj=client_data(origin="http://localhost:8732"))
    case("v7-origin-ip", "V7", "fail", cdj=client_data(origin="http://127.0.0.1:8731"))
    case("v7-origin-slash", "V7", "fail", cdj=client_data(origin=ORIGIN + "/"))
    case("v8-cross-origin", "V8", "fail", cdj=client_data(extra=',"crossOrigin":true'))
    case("v8-cross-origin-number", "V8", "fail", cdj=client_data(extra=',"crossOrigin":0'))
    case("v8-top-origin", "V8", "fail", cdj=client_data(extra=',"topOrigin":"http://localhost:9000"'))
    case("v9-rp-id-hash", "V9", "fail", data=auth_data(rp="evil.localhost"))
    case("v10-no-up", "V10", "fail", data=auth_data(UV))
    case("v10-no-uv", "V10", "fail", data=auth_data(UP))
    case("v10-at", "V10", "fail", data=auth_data(UP | UV | AT))
    case("v10-bs-without-be", "V10", "fail", rw=row(P256_PRIVATE, be=False), data=auth_data(UP | UV | BS))
    case("v10-be-changed", "V10", "fail", rw=row(P256_PRIVATE, be=False), data=auth_data(UP | UV | BE))
    case("v11-trailing-bytes", "V11", "fail", data=auth_data(tail=b"\x00"))
    case("v11-extension-flag-without-data", "V11", "fail", data=auth_data(UP | UV | ED))
    case("v13-signature-other-key", "V13", "fail", signer=OTHER_P256)
    good = sign(P256_PRIVATE, auth_data(), client_data())
    case("v13-der-trailing-bytes", "V13", "fail", signature=good + b"\x00")
    r, s = utils.decode_dss_signature(good)
    case("v13-raw-signature-for-es256", "V13", "fail", signature=r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    ed_good = sign(ED_PRIVATE, auth_data(), client_data())
    case("v13-ed25519-63-bytes", "V13", "fail", rw=row(ED_PRIVATE), signature=ed_good[:63])
    case("v13-ed25519-other-message", "V13", "fail", rw=row(ED_PRIVATE),
         signature=sign(ED_PRIVATE, auth_data(), client_data(origin="http://localhost:1")))
    return cases


def cose_es256(private):
    point = x963(private)
    return b"\xa5\x01\x02\x03\x26\x20\x01\x21\x58\x20" + point[1:33] + b"\x22\x58\x20" + point[33:]


def enrol_vectors():
    cases = {}
    ed_raw = ED_PRIVATE.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    def create_data(flags=UP | UV | AT, cred=CRED_ID, rp=RP_ID, length=None, key=None):
        tail = bytes(16) + (len(cred) if length is None else length).to_bytes(2, "big") + cred
        return auth_data(flags, rp=rp, tail=tail + (cose_es256(P256_PRIVATE) if key is None else key))

    def case(name, step, expect, private=P256_PRIVATE, alg=-7, public=None, cdata=None, ccdj=None, raw=CRED_ID,
             get=None, create_challenge=CREATE_CHALLENGE, stored=None):
        cases[name] = {
            "rpId": RP_ID, "origin": ORIGIN, "step": step, "expect": expect,
            "createChallenge": None if create_challenge is None else create_challenge.hex(),
            "getChallenge": CHALLENGE.hex(), "userHandle": USER.hex(),
            "registration": {"rawId": raw.hex(),
                             "clientDataJSON": (ccdj or client_data("webauthn.create", CREATE_CHALLENGE)).hex(),
                             "authenticatorData": (cdata if cdata is not None else create_data()).hex(),
                             "publicKey": (spki(private) if public is None else public).hex(), "algorithm": alg},
            "assertion": get if get is not None else assertion(private),
            "stored": stored or {"be": False, "bs": False},
        }

    case("valid-es256", "", "valid")
    case("valid-ed25519", "", "valid", private=ED_PRIVATE, alg=-8,
         cdata=create_data(key=b"\xa4\x01\x01\x03\x27\x20\x06\x21\x58\x20" + ed_raw))
    case("valid-synced", "PK19", "valid", cdata=create_data(UP | UV | AT | BE | BS),
         get=assertion(data=auth_data(UP | UV | BE | BS)), stored={"be": True, "bs": True})
    case("e1-type", "E1", "not-verified", ccdj=client_data("webauthn.get", CREATE_CHALLENGE))
    case("e1-challenge", "E1", "not-verified", ccdj=client_data("webauthn.create", CHALLENGE))
    case("e1-no-outstanding-challenge", "E1", "not-verified", create_challenge=None)
    case("e1-origin", "E1", "not-verified", ccdj=client_data("webauthn.create", CREATE_CHALLENGE, "http://localhost:1"))
    case("e3-rp-id-hash", "E3", "not-verified", cdata=create_data(rp="evil.localhost"))
    case("e3-no-uv", "E3", "not-verified", cdata=create_data(UP | AT))
    case("e3-no-at", "E3", "not-verified", cdata=create_data(UP | UV))
    case("e3-bs-without-be", "E3", "not-verified", cdata=create_data(UP | UV | AT | BS))
    case("e3-credential-id-differs", "E3", "not-verified", raw=bytes(range(0x91, 0xa1)),
         get=assertion(raw=bytes(range(0x91, 0xa1))))
    case("e3-credential-id-too-long", "E3", "id-too-long", cdata=create_data(cred=bytes(256)), raw=bytes(256),
         get=assertion(raw=bytes(256)))
    case("e3-length-past-end", "E3", "not-verified", cdata=create_data(length=200)[:90])
    case("e4-spki-p384", "E4", "unsupported-key",
         public=ec.generate_private_key(ec.SECP384R1()).public_key().public_bytes(
             serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))
    case("e4-algorithm-rs256", "E4", "unsupported-key", alg=-257)
    case("e4-algorithm-mismatch", "E4", "unsupported-key", alg=-8)
    case("e4-spki-trailing", "E4", "unsupported-key", public=spki(P256_PRIVATE) + b"\x00")
    off_curve = bytearray(spki(P256_PRIVATE))
    off_curve[-1] ^= 0x01
    case("e4-off-curve", "E4", "unsupported-key", public=bytes(off_curve))
    identity = bytes.fromhex("302a300506032b6570032100") + bytes([1]) + bytes(31)
    case("e4-ed25519-small-order", "E4", "unsupported-key", private=ED_PRIVATE, alg=-8, public=identity)
    case("e5-assertion-other-key", "E5", "not-verified", get=assertion(signer=OTHER_P256))
    case("e5-assertion-old-challenge", "E5", "not-verified", get=assertion(cdj=client_data(challenge=bytes(32))))
    case("pk19-bs-differs", "PK19", "not-verified", cdata=create_data(UP | UV | AT | BE),
         get=assertion(data=auth_data(UP | UV | BE | BS)))
    return cases


def main():
    for kind, cases in (("fields", field_vectors()), ("assertion", assertion_vectors()), ("enrol", enrol_vectors())):
        folder = OUT / kind
        folder.mkdir(parents=True, exist_ok=True)
        # chromium-*.json are captures from a browser (chromium.py): kept.
        for old in folder.glob("*.json"):
            if not old.name.startswith("chromium-"):
                old.unlink()
        for name, body in cases.items():
            (folder / f"{name}.json").write_text(json.dumps(dict(case=name, **body), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
