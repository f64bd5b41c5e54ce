"""Issue 19 item 3: the drop page. A file dropped in /drop#CODE while every vault is
locked is sealed in the page and appears in the vault the code names after its unlock,
and in no other vault of the directory; a bad code shows an error and posts nothing."""

import os
import subprocess
import time

from conftest import FIXTURES, OBSCURA_BIN, chromium, serving
from test_gallery import (UNLOCK_WAIT, create_first_vault, el, item_count, shown, text, unlock,
                          wait)

SECOND_PASSWORD = "second vault password"
PHOTO = FIXTURES / "gradient.jpg"


def cli(workdir, *arguments, stdin=""):
    """The CLI on the served directory, with the server's keys and configuration."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(workdir / "config"), XDG_CACHE_HOME=str(workdir / "cache"),
               OBSCURA_OUTER_KEY_FILE=str(workdir / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(workdir / "decoy.key"))
    done = subprocess.run([OBSCURA_BIN, "--vault", str(workdir / "vault"), *arguments], input=stdin,
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def inbox(workdir):
    """The blobs and temporaries in the inbox; not the intakes' receipts (FORMAT.md §10.6),
    which say that a blob was taken and hold nothing."""
    path = workdir / "vault" / "inbox"
    return sorted(name for name in os.listdir(path) if not name.startswith(".taken-")) if path.exists() else []


def drop_page(driver, srv, code):
    driver.get(f"{srv.url}/drop#{code}")
    wait(driver, lambda: el(driver, "#drop-code").get_attribute("value") == code, 10, "the drop page")


def test_a_drop_made_in_the_page_while_locked_reaches_its_vault_and_no_other(tmp_path):
    with chromium(tmp_path) as driver:
        # Vault A, made in the gallery; the server's end locks it.
        with serving(tmp_path) as srv:
            create_first_vault(driver, srv.link)
        # Vault B, and its code, from the CLI (the server held the directory until now).
        cli(tmp_path, "create", "--password-stdin", "--allow-weak-password", stdin=SECOND_PASSWORD + "\n")
        code = cli(tmp_path, "drop", "code", "--password-stdin", stdin=SECOND_PASSWORD + "\n").strip().splitlines()[-1]
        assert code.startswith("DROPS-"), code

        with serving(tmp_path) as srv:
            # A code with one symbol changed fails its check: an error, and nothing posted.
            bad = code[:-1] + ("0" if code[-1] != "0" else "1")
            drop_page(driver, srv, bad)
            wait(driver, lambda: shown(driver, "#drop-error"), 5, "the bad code's error")
            el(driver, "#drop-files").send_keys(str(PHOTO))
            el(driver, "#drop-send").click()
            wait(driver, lambda: "not a valid drop code" in text(driver, "#drop-error"), 5, "the error on sending")
            assert not driver.find_elements("css selector", "#drop-list li")
            assert inbox(tmp_path) == []
            # The page keeps the chosen file for a corrected code; this test chooses again.
            driver.execute_script("document.getElementById('drop-files').value = ''")

            # The right code: the photo and a note are sealed in the page and land in the inbox.
            drop_page(driver, srv, code)
            assert not shown(driver, "#drop-error")
            el(driver, "#drop-files").send_keys(str(PHOTO))
            driver.execute_script("document.getElementById('drop-note').value = arguments[0]", "# Harvest\n\nfrom the page")
            el(driver, "#drop-send").click()
            states = "return [...document.querySelectorAll('#drop-list li')].map(li => li.dataset.state)"
            wait(driver, lambda: len(driver.execute_script(states)) == 2 and "uploading" not in driver.execute_script(states),
                 30, "the drops")
            assert driver.execute_script(states) == ["done", "done"], text(driver, "#drop-list")
            assert "Note: Harvest" in text(driver, "#drop-list")
            assert text(driver, "#drop-status").startswith("2 of 2 dropped"), text(driver, "#drop-status")
            assert len(inbox(tmp_path)) == 2
            assert all(name.endswith(".data.enc") for name in inbox(tmp_path))

            # Vault A takes nothing in; vault B takes the photo.
            driver.get(srv.link)
            wait(driver, lambda: shown(driver, "#unlock-password"), 15, "the unlock page")
            unlock(driver)
            wait(driver, lambda: item_count(driver) >= 0, UNLOCK_WAIT, "A's count")
            assert item_count(driver) == 0
            assert len(inbox(tmp_path)) == 2, "A took B's drops"
            el(driver, "#lock-button").click()
            wait(driver, lambda: shown(driver, "#unlock-view"), 10, "the unlock page")
            unlock(driver, SECOND_PASSWORD)
            wait(driver, lambda: item_count(driver) == 2, UNLOCK_WAIT, "the dropped photo and note in B")
            labels = driver.execute_script(
                "return [...document.querySelectorAll('.tile .tile-open')].map(t => t.getAttribute('aria-label')).join()")
            assert "gradient.jpg" in labels and "Harvest" in labels, labels
            # The unlock says what it took in, once.
            wait(driver, lambda: "Took in 1 dropped file and 1 dropped note" in driver.execute_script(
                "return document.getElementById('toast').textContent"), 10, "the intake notice")
            assert inbox(tmp_path) == []


def test_a_cross_site_post_without_the_drop_header_is_refused(tmp_path):
    """The route needs the page's header; a plain post (what a form or another site's
    fetch without a preflight can send) is refused and stores nothing."""
    import urllib.error
    import urllib.request
    with serving(tmp_path) as srv:
        request = urllib.request.Request(f"{srv.url}/api/drops", data=b"OBSK" + bytes(100), method="POST",
                                         headers={"Content-Type": "application/octet-stream"})
        try:
            urllib.request.urlopen(request)
            raise AssertionError("accepted")
        except urllib.error.HTTPError as error:
            assert error.code == 403
        assert inbox(tmp_path) == []


def test_the_drop_page_passes_axe(tmp_path):
    """The page, with a bad code's error shown and with a dropped file's row, at both
    sizes and in both themes, as the gallery's screens are audited."""
    from test_accessibility import audit
    with serving(tmp_path) as srv, chromium(tmp_path) as driver:
        driver.get(f"{srv.url}/drop#DROPS-0000")
        wait(driver, lambda: shown(driver, "#drop-error"), 5, "the bad code's error")
        assert audit(driver, "drop-bad-code") == ""
        # A drop to some key's code: its row, done.
        driver.get(f"{srv.url}/drop#{some_code()}")
        wait(driver, lambda: not shown(driver, "#drop-error"), 5, "the good code")
        el(driver, "#drop-files").send_keys(str(PHOTO))
        el(driver, "#drop-send").click()
        wait(driver, lambda: driver.execute_script(
            "return document.querySelector('#drop-list li')?.dataset.state") == "done", 30, "the drop")
        assert audit(driver, "drop") == ""


def some_code():
    """The drop code (FORMAT §10.1) of a fresh X25519 key, made as tests/interop makes them."""
    import hashlib
    import sys
    sys.path.insert(0, str(FIXTURES.parents[1] / "tests" / "interop"))
    import obscura_reader as reader
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    key = X25519PrivateKey.generate().public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    body = reader.crockford_encode(key)
    check = reader.crockford_encode(hashlib.sha256(reader.KEY_CHECK_LABEL + b"\x50" + key).digest()[:3])[:4]
    return "-".join(["DROPS"] + [body[i:i + 4] for i in range(0, 52, 4)] + [check])


def test_a_drop_reaches_an_open_gallery_without_a_new_unlock(tmp_path):
    """Issue 40, point 18: drops waited for the next unlock, so an owner with the gallery
    open saw nothing until Lock and Unlock. The server takes them in while the vault is
    open, and the page says so once and shows them."""
    sender_dir = tmp_path / "sender"
    sender_dir.mkdir()
    with serving(tmp_path) as srv, chromium(tmp_path) as owner, chromium(sender_dir) as sender:
        create_first_vault(owner, srv.link)
        code = owner.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/app/api.js').then(api => api.get('/api/drops/code')).then((a) => done(a.code), (e) => done(String(e)));")
        assert code.startswith("DROPS-"), code
        assert item_count(owner) == 0

        drop_page(sender, srv, code)
        el(sender, "#drop-files").send_keys(str(PHOTO))
        el(sender, "#drop-send").click()
        wait(sender, lambda: sender.execute_script(
            "return [...document.querySelectorAll('#drop-list li')].map(li => li.dataset.state)") == ["done"],
            30, "the drop")

        # No lock, no unlock: the open gallery says so within a few seconds, and shows the
        # photo when asked (a reload by itself would count as use, docs/PHONE.md §W6.2).
        wait(owner, lambda: "Took in 1 dropped file" in owner.execute_script(
            "return document.getElementById('toast').textContent"), 30, "the intake notice")
        wait(owner, lambda: shown(owner, "#drops-show"), 10, "the Show button")
        assert item_count(owner) == 0
        el(owner, "#drops-show").click()
        wait(owner, lambda: item_count(owner) == 1, 15, "the dropped photo in the open gallery")
        assert not shown(owner, "#drops-show")
        assert inbox(tmp_path) == []


def test_drops_do_not_keep_an_untouched_tab_from_locking(tmp_path):
    """Whoever holds a vault's public drop code must not keep an open, visible tab that
    nobody touches from auto-locking by dropping files (docs/PHONE.md §W6.2, review
    W-R11): the page tells of each intake and reloads nothing by itself."""
    with serving(tmp_path) as srv, chromium(tmp_path) as owner:
        create_first_vault(owner, srv.link)
        code = owner.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/app/api.js').then(api => api.get('/api/drops/code')).then((a) => done(a.code), (e) => done(String(e)));")
        assert code.startswith("DROPS-"), code
        # Auto-lock is 5 "minutes" of 2 s. Drops every 3 s for up to 30 s: the intakes
        # (every 5 s) are told, and the tab still locks about 10 s after its last use.
        start = time.monotonic()
        told = False
        while time.monotonic() - start < 30 and not shown(owner, "#unlock-view"):
            cli(tmp_path, "drop", "files", "--code", code, str(PHOTO))
            told = told or shown(owner, "#drops-show")
            time.sleep(3)
        assert told, "no intake was told before the lock"
        wait(owner, lambda: shown(owner, "#unlock-view"), 5, "the auto-lock")
        assert time.monotonic() - start < 25, "locked late"
        assert "locked itself" in text(owner, "#unlock-notice") + text(owner, "#unlock-error")
