"""Captures real WebAuthn ceremonies from Chromium's virtual authenticator (DevTools
protocol, `WebAuthn.addVirtualAuthenticator` with `hasPrf`) and writes them as vectors in
the formats of make.py, so that the Swift checks are tested against a browser's own
bytes, not only against vectors this project made:

    python3 tools/passkey-vectors/chromium.py    # writes testdata/passkey/{enrol,assertion}/chromium-*.json

Each capture is one creation (`getPublicKey()`, `getAuthenticatorData()`, the client
data), one get() restricted to the new credential (the enrolment's E5), and one get()
with an empty allow list (an unlock). Needs Debian's chromium and chromium-driver and
Python's selenium (tests/browser/README.md)."""

import contextlib
import functools
import http.server
import json
import os
import pathlib
import shutil
import threading

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

OUT = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "passkey"
PRF_INPUT = bytes(range(0x00, 0x20))
USER = bytes(range(0x70, 0x80))
CREATE_CHALLENGE = bytes(range(0xe0, 0x100))
ENROL_CHALLENGE = bytes(range(0xc0, 0xe0))
UNLOCK_CHALLENGE = bytes(range(0x60, 0x80))

CEREMONY = r"""
const [algs, input, user, createChallenge, enrolChallenge, unlockChallenge] = arguments;
const done = arguments[arguments.length - 1];
const hex = b => Array.from(new Uint8Array(b)).map(x => x.toString(16).padStart(2, '0')).join('');
const bytes = h => new Uint8Array(h.match(/../g).map(x => parseInt(x, 16)));
(async () => {
  const created = await navigator.credentials.create({publicKey: {
    rp: {id: location.hostname, name: 'Obscura'},
    user: {id: bytes(user), name: 'Obscura', displayName: 'Obscura · K7Q'},
    challenge: bytes(createChallenge),
    pubKeyCredParams: algs.map(alg => ({type: 'public-key', alg})),
    authenticatorSelection: {residentKey: 'required', requireResidentKey: true, userVerification: 'required'},
    attestation: 'none', timeout: 60000, extensions: {prf: {eval: {first: bytes(input)}}}}});
  const get = async (challenge, allow) => {
    const a = await navigator.credentials.get({publicKey: {rpId: location.hostname, challenge: bytes(challenge),
      allowCredentials: allow, userVerification: 'required', timeout: 60000, extensions: {prf: {eval: {first: bytes(input)}}}}});
    const prf = a.getClientExtensionResults().prf;
    return {rawId: hex(a.rawId), authenticatorData: hex(a.response.authenticatorData),
            clientDataJSON: hex(a.response.clientDataJSON), signature: hex(a.response.signature),
            userHandle: a.response.userHandle ? hex(a.response.userHandle) : null,
            prf: prf && prf.results ? hex(prf.results.first) : null};
  };
  const extensions = created.getClientExtensionResults();
  done({origin: location.origin, rpId: location.hostname,
        prfEnabled: !!(extensions.prf && extensions.prf.enabled),
        createPrf: extensions.prf && extensions.prf.results ? hex(extensions.prf.results.first) : null,
        registration: {rawId: hex(created.rawId), clientDataJSON: hex(created.response.clientDataJSON),
                       authenticatorData: hex(created.response.getAuthenticatorData()),
                       publicKey: hex(created.response.getPublicKey()), algorithm: created.response.getPublicKeyAlgorithm()},
        enrol: await get(enrolChallenge, [{type: 'public-key', id: created.rawId}]),
        unlock: await get(unlockChallenge, [])});
})().catch(e => done({error: String(e)}));
"""


@contextlib.contextmanager
def page_server():
    """A static page on localhost: WebAuthn needs a host name, and http://localhost is a
    secure context."""
    folder = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / "obscura-passkey-page"
    folder.mkdir(exist_ok=True)
    (folder / "index.html").write_text("<!doctype html><title>passkey</title>")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()


@contextlib.contextmanager
def browser():
    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def authenticator(driver, **overrides):
    """Adds a virtual CTAP2.1 authenticator with resident keys, user verification and PRF."""
    driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    options = {"protocol": "ctap2", "ctap2Version": "ctap2_1", "transport": "internal", "hasResidentKey": True,
               "hasUserVerification": True, "isUserVerified": True, "hasPrf": True, "automaticPresenceSimulation": True}
    options.update(overrides)
    return driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": options})["authenticatorId"]


def ceremony(driver, url, algs):
    driver.get(url)
    result = driver.execute_async_script(CEREMONY, algs, PRF_INPUT.hex(), USER.hex(), CREATE_CHALLENGE.hex(),
                                         ENROL_CHALLENGE.hex(), UNLOCK_CHALLENGE.hex())
    if "error" in result:
        raise RuntimeError(result["error"])
    return result


def vectors(result, name):
    registration = result["registration"]
    spki = bytes.fromhex(registration["publicKey"])
    key = spki[-65:] if registration["algorithm"] == -7 else spki[-32:]
    flags = bytes.fromhex(result["enrol"]["authenticatorData"])[32]
    common = {"rpId": result["rpId"], "origin": result["origin"], "step": "", "expect": "valid",
              "source": "Chromium's virtual authenticator (tools/passkey-vectors/chromium.py)"}
    strip = lambda a: {k: a[k] for k in ("rawId", "authenticatorData", "clientDataJSON", "signature", "userHandle")}
    enrol = dict(common, case=name, createChallenge=CREATE_CHALLENGE.hex(), getChallenge=ENROL_CHALLENGE.hex(),
                 userHandle=USER.hex(), registration=registration, assertion=strip(result["enrol"]),
                 stored={"be": bool(flags & 0x08), "bs": bool(flags & 0x10)})
    assertion = dict(common, case=name, fails=[], challenge=UNLOCK_CHALLENGE.hex(), assertion=strip(result["unlock"]),
                     row={"credentialId": registration["rawId"], "userHandle": USER.hex(), "alg": registration["algorithm"],
                          "publicKey": key.hex(), "be": bool(flags & 0x08)})
    return enrol, assertion


def main():
    with page_server() as url:
        for algs, name in (([-7, -8], "chromium-es256"), ([-8], "chromium-ed25519")):
            with browser() as driver:
                authenticator(driver)
                result = ceremony(driver, url, algs)
            if result["registration"]["algorithm"] != algs[0]:
                print(f"{name}: Chromium made algorithm {result['registration']['algorithm']}, not {algs[0]}; skipped")
                continue
            enrol, assertion = vectors(result, name)
            for kind, body in (("enrol", enrol), ("assertion", assertion)):
                (OUT / kind / f"{name}.json").write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
            print(f"{name}: PRF enabled {result['prfEnabled']}, R at create = R at get: "
                  f"{result['createPrf'] == result['enrol']['prf'] == result['unlock']['prf']}")


if __name__ == "__main__":
    main()
