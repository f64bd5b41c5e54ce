"""The drop page as an installable app and a share target (issue 39 step S8; docs/PHONE.md
§W4), in Chromium emulating an Android phone: the page is installable (its manifest, its
service worker, a secure context on localhost: Chromium reports no installability error),
and a share post of three photos, which Android's Chrome issues when photos are shared to
the installed app, is taken by the worker in the phone, sealed in the page, and the photos
appear in the vault whose code the page was given and in no other. Android's share sheet,
WebAPK minting and backgrounding cannot be tried here (§W0.1 A3)."""

import os
import subprocess
import urllib.error
import urllib.request

from conftest import OBSCURA_BIN, chromium, serving
from test_gallery import PASSWORD, create_first_vault, el, shown, text, wait


def obscura(folder, *args, stdin=""):
    env = dict(os.environ, XDG_CONFIG_HOME=str(folder / "config"), XDG_CACHE_HOME=str(folder / "cache"),
               OBSCURA_OUTER_KEY_FILE=str(folder / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(folder / "decoy.key"))
    return subprocess.run([OBSCURA_BIN, "--vault", str(folder / "vault"), *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)


def photos(folder, count):
    paths = []
    for index in range(count):
        path = folder / f"shared-{index}.jpg"
        subprocess.run(["/usr/bin/convert", "-seed", str(index), "-size", "64x48", "plasma:fractal", str(path)],
                       check=True, timeout=60)
        paths.append(path)
    return paths


def test_the_drop_page_is_installable_and_a_shared_batch_reaches_the_right_vault_only(tmp_path):
    shared = photos(tmp_path, 3)
    with serving(tmp_path) as server, chromium(tmp_path, mobile=True) as driver:
        create_first_vault(driver, server.link)
        code = driver.execute_async_script(
            "const done = arguments[0];"
            "import('/app/api.js').then(api => api.get('/api/drops/code')).then((a) => done(a.code), (e) => done(String(e)));")
        assert code.startswith("DROPS-"), code

        driver.get(server.url + "/drop")
        wait(driver, lambda: driver.execute_script("return Boolean(navigator.serviceWorker.controller)"), 15,
             "the drop page's service worker in control")
        assert driver.execute_script("return window.isSecureContext")
        manifest = driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert manifest["url"].endswith("/drop.webmanifest") and not manifest.get("errors"), manifest
        assert '"share_target"' in manifest["data"]
        installability = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})
        assert installability["installabilityErrors"] == [], installability
        # The worker's scope is the drop page's alone: the gallery is not part of the app.
        scope = driver.execute_async_script(
            "const done = arguments[0]; navigator.serviceWorker.getRegistration().then((r) => done(r.scope));")
        assert scope == server.url + "/drop"

        # The share post Android's Chrome makes: a navigation POST of multipart form data,
        # field "media", to the manifest's share_target.
        driver.execute_script(
            "const form = document.createElement('form');"
            "form.id = 'share'; form.method = 'post'; form.enctype = 'multipart/form-data'; form.action = '/drop/share';"
            "const input = document.createElement('input'); input.type = 'file'; input.name = 'media'; input.multiple = true;"
            "form.append(input); document.body.append(form);")
        el(driver, "#share input").send_keys("\n".join(str(path) for path in shared))
        driver.execute_script("document.getElementById('share').submit()")
        wait(driver, lambda: shown(driver, "#drop-shared"), 15,
             lambda: f"the shared files in the page; error: {text(driver, '#drop-error')!r}")
        assert "3 shared files are ready" in text(driver, "#drop-shared")
        assert driver.execute_script("return location.pathname + location.search") == "/drop", "the batch id left the address"

        el(driver, "#drop-code").send_keys(code)
        el(driver, "#drop-send").click()
        wait(driver, lambda: "3 of 3 dropped" in text(driver, "#drop-status"), 60,
             lambda: f"the drops; rows: {text(driver, '#drop-list')!r}")
        inbox = tmp_path / "vault" / "inbox"
        assert len([p for p in inbox.iterdir() if p.name.endswith(".data.enc")]) == 3

    # The server is stopped: the CLI may take the directory. A second vault, unlocked
    # first, opens none of the drops; the first takes all three.
    other = obscura(tmp_path, "create", "--password-stdin", "--allow-weak-password", stdin="another vault\n")
    assert other.returncode == 0, other.stderr
    listed = obscura(tmp_path, "ls", "--password-stdin", stdin="another vault\n")
    assert listed.returncode == 0 and listed.stdout.strip() == "", listed.stdout + listed.stderr
    listed = obscura(tmp_path, "ls", "--password-stdin", stdin=PASSWORD + "\n")
    assert listed.returncode == 0, listed.stderr
    for path in shared:
        assert path.name in listed.stdout, listed.stdout
    assert not [p for p in inbox.iterdir() if p.name.endswith(".data.enc")]


def test_a_share_post_that_reaches_the_server_stores_nothing(tmp_path):
    """With no worker to take it (the app not installed, its data cleared), a share post
    reaches the server: it is answered with a redirect to the page, which says the files
    were lost, and nothing of it is read or kept (§W4.6)."""
    with serving(tmp_path) as server:
        body = (b"--x\r\nContent-Disposition: form-data; name=\"media\"; filename=\"a.jpg\"\r\n"
                b"Content-Type: image/jpeg\r\n\r\nPLAINTEXT PHOTO\r\n--x--\r\n")
        request = urllib.request.Request(server.url + "/drop/share", data=body, method="POST",
                                         headers={"Content-Type": "multipart/form-data; boundary=x", "Origin": "null"})

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None
        try:
            urllib.request.build_opener(NoRedirect).open(request, timeout=10)
            raise AssertionError("no redirect")
        except urllib.error.HTTPError as answer:
            assert answer.code == 303 and answer.headers["Location"] == "/drop?share=none"
    inbox = tmp_path / "vault" / "inbox"
    assert not inbox.exists() or not list(inbox.iterdir())
