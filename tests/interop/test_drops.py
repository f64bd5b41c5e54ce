"""Drops (docs/FORMAT.md §10) read and written by the Python reader: the vectors opened
with their private keys, and a drop sealed here to a code the CLI prints, taken in by the
vault at its next unlock."""
import hashlib
import os
import pathlib
import subprocess
import sys
import uuid

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import obscura_drop as drop  # noqa: E402
import obscura_reader as reader  # noqa: E402
from test_interop import ROOT, run, vectors  # noqa: E402


@pytest.mark.parametrize("name,fields,body", list(vectors("drop")), ids=lambda v: v if isinstance(v, str) else "")
def test_drop_vectors(name, fields, body):
    """§10: each drop vector gives its expected outcome with the vector's private key."""
    assert drop.decode_drop_code(fields["code"]).hex() != "", name
    try:
        kind, shown, content = drop.open_drop(body, bytes.fromhex(fields["private_key"]))
        ok = (kind == fields["kind"] and shown == fields["name"]
              and hashlib.sha256(content).hexdigest() == fields["content_sha256"])
        outcome = "success" if ok else "wrong content"
    except drop.NoMatch:
        outcome = "no match"
    except drop.Damaged:
        outcome = "damaged"
    except drop.NewerEnvelope:
        outcome = "newer envelope"
    except drop.BadEnvelope:
        outcome = "bad envelope"
    except reader.FormatError:
        outcome = "malformed"
    assert outcome == fields["expect"], name
    if fields["expect"] == "success":
        # Each step of §10.2-§10.3 on its own, so that a slip says where it is.
        found = drop.steps(body, bytes.fromhex(fields["private_key"]))
        for step in ("enc", "dh", "shared_secret", "root", "k_in"):
            assert found[step].hex() == fields[step], f"{name}: {step}"


def test_the_vector_code_is_the_vector_key():
    fields = dict(next(v for v in vectors("drop") if v[0] == "valid")[1])
    assert drop.decode_drop_code(fields["code"].lower()).hex() == fields["public_key"]


def test_a_drop_sealed_here_reaches_the_vault(tmp_path):
    """A blob this reader seals to the code `obscura drop code` prints, put in the inbox,
    is in the vault after its next unlock: the page's path, without the page."""
    run(["init", "--test-kdf-iterations", "1000"], "", tmp_path)  # not about the KDF
    run(["create", "--password-stdin", "--allow-weak-password"], "vault password\n", tmp_path)
    code = run(["drop", "code", "--password-stdin"], "vault password\n", tmp_path).strip()
    inbox = tmp_path / "vault" / "inbox"
    inbox.mkdir(mode=0o700, exist_ok=True)
    blob = drop.seal_drop(drop.decode_drop_code(code), "from python.txt", b"sealed in Python\n")
    blob_name = str(uuid.uuid4()) + ".data.enc"
    (inbox / blob_name).write_bytes(blob)
    listed = run(["ls", "--password-stdin"], "vault password\n", tmp_path)
    assert "from python.txt" in listed
    # The blob is gone; the intake's empty receipt says it was taken (FORMAT.md §10.6).
    assert [p.name for p in inbox.iterdir()] == [".taken-" + blob_name[:36]]
    assert (inbox / (".taken-" + blob_name[:36])).stat().st_size == 0
