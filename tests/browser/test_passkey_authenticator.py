"""The behaviour of Chromium's virtual authenticator that passkey unlock is built on
(docs/PASSKEY.md §P3.2, §P5.2, §P5.5, §P7.4), checked in the CI's own Chromium before any
gallery page uses it: PRF through the DevTools protocol's `hasPrf`, one R per credential
and input whether the get() is discoverable or restricted, the two SPKI prefixes the
server accepts (FORMAT.md §9.9, E4), and the two failures the page must handle: an
authenticator without PRF, and a failed user verification. The ceremonies' bytes are
checked by the Swift verifier through testdata/passkey/*/chromium-*.json
(tools/passkey-vectors/chromium.py)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "passkey-vectors"))
import chromium as capture  # noqa: E402

ES256_SPKI = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d03010703420004")
ED25519_SPKI = bytes.fromhex("302a300506032b6570032100")

GET = r"""
const [input, challenge, allow] = arguments;
const done = arguments[arguments.length - 1];
const hex = b => Array.from(new Uint8Array(b)).map(x => x.toString(16).padStart(2, '0')).join('');
const bytes = h => new Uint8Array(h.match(/../g).map(x => parseInt(x, 16)));
navigator.credentials.get({publicKey: {rpId: location.hostname, challenge: bytes(challenge), userVerification: 'required',
    allowCredentials: allow.map(id => ({type: 'public-key', id: bytes(id)})), timeout: 5000,
    extensions: {prf: {eval: {first: bytes(input)}}}}})
  .then(a => { const prf = a.getClientExtensionResults().prf;
               done({rawId: hex(a.rawId), flags: new Uint8Array(a.response.authenticatorData)[32],
                     prf: prf && prf.results ? hex(prf.results.first) : null}); })
  .catch(e => done({error: e.name}));
"""


def get(driver, input_bytes, allow=()):
    return driver.execute_async_script(GET, input_bytes.hex(), capture.UNLOCK_CHALLENGE.hex(), list(allow))


def test_prf_gives_one_secret_per_credential_and_input():
    with capture.page_server() as url, capture.browser() as driver:
        capture.authenticator(driver)
        es256 = capture.ceremony(driver, url, [-7, -8])
        assert es256["prfEnabled"] is True
        assert es256["registration"]["algorithm"] == -7
        assert bytes.fromhex(es256["registration"]["publicKey"]).startswith(ES256_SPKI)
        r = es256["createPrf"]
        assert r and len(r) == 64
        # The create-time R, the restricted get's and the discoverable get's are one value
        # (§P4.1 steps 3-4 compare them).
        assert es256["enrol"]["prf"] == r and es256["unlock"]["prf"] == r
        # UP and UV set, AT clear on an assertion (§9.9 V10).
        assert bytes.fromhex(es256["unlock"]["authenticatorData"])[32] & 0x45 == 0x05
        # Another input, another R; the same input at another call, the same R.
        assert get(driver, bytes(32))["prf"] not in (None, r)
        again = get(driver, capture.PRF_INPUT, [es256["registration"]["rawId"]])
        assert again["prf"] == r
        # A second credential on the same authenticator answers with its own R.
        ed25519 = capture.ceremony(driver, url, [-8])
        assert bytes.fromhex(ed25519["registration"]["publicKey"]).startswith(ED25519_SPKI)
        assert ed25519["createPrf"] not in (None, r)
        assert get(driver, capture.PRF_INPUT, [ed25519["registration"]["rawId"]])["prf"] == ed25519["createPrf"]


def test_an_authenticator_without_prf_says_so_at_create():
    with capture.page_server() as url, capture.browser() as driver:
        capture.authenticator(driver, hasPrf=False)
        result = capture.ceremony(driver, url, [-7])
        # §P5.5: prf.enabled is not true, and no R comes back: the page must stop there.
        assert result["prfEnabled"] is False
        assert result["createPrf"] is None and result["unlock"]["prf"] is None


def test_a_failed_user_verification_rejects_the_get():
    with capture.page_server() as url, capture.browser() as driver:
        authenticator = capture.authenticator(driver)
        result = capture.ceremony(driver, url, [-7])
        driver.execute_cdp_cmd("WebAuthn.setUserVerified", {"authenticatorId": authenticator, "isUserVerified": False})
        # §P5.5: the promise rejects (NotAllowedError); nothing would reach the server.
        assert get(driver, capture.PRF_INPUT, [result["registration"]["rawId"]]) == {"error": "NotAllowedError"}
