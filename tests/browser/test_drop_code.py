"""The settings dialog's drop code (issue 19 item 3; docs/API.md "Drop code"): the code
it shows is the one `obscura drop code` prints, its link is the drop page on the page's
own origin with the code in the fragment, and the QR code drawn by web/qr.js decodes to
that link (OpenCV's decoder reads a screenshot of it)."""

import os
import subprocess
import time

import cv2  # opencv-python-headless (scripts/setup): its decoder reads the QR code
import numpy as np

from conftest import OBSCURA_BIN, chromium, serving
from test_gallery import PASSWORD, create_first_vault, el, shown, text, wait


def obscura(folder, *args, stdin=""):
    env = dict(os.environ, XDG_CONFIG_HOME=str(folder / "config"), XDG_CACHE_HOME=str(folder / "cache"),
               OBSCURA_OUTER_KEY_FILE=str(folder / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(folder / "decoy.key"))
    return subprocess.run([OBSCURA_BIN, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)


def decode_qr(png):
    """The text of the QR code in PNG, or "": the screenshot is tried at a few scales, as a
    phone's camera sees the code at whatever size it is held."""
    image = cv2.imdecode(np.frombuffer(png, dtype=np.uint8), cv2.IMREAD_GRAYSCALE)
    for scale in (1, 2, 3):
        sized = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(sized)
        if decoded:
            return decoded
    return ""


def test_settings_show_the_vaults_drop_code_its_link_and_a_qr_code_of_it(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        el(driver, "#settings-button").click()
        wait(driver, lambda: shown(driver, "#settings-dialog"), 5, "the settings dialog")
        wait(driver, lambda: shown(driver, "#drop-qr svg"), 10,
             lambda: f"the drop code; error: {text(driver, '#drop-code-error')!r}")
        code = text(driver, "#drop-code")
        link = text(driver, "#drop-link")
        assert code.startswith("DROPS-") and len(code) == 75, code
        assert link == f"{server.url}/drop#{code}"
        words = " ".join(text(driver, "#settings-dialog").split())
        assert "without the password" in words and "which vault it belongs to" in words
        # The test's server listens on 127.0.0.1: a phone that scans the code gets nothing.
        assert shown(driver, "#drop-link-local") and "only on this computer" in text(driver, "#drop-link-local")

        qr = el(driver, "#drop-qr")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", qr)
        # The settings dialog scrolls to the code: a screenshot taken while a loaded machine
        # is still painting it reads nothing, so it is taken again until one reads.
        decoded = ""
        for _ in range(10):
            decoded = decode_qr(qr.screenshot_as_png)
            if decoded:
                break
            time.sleep(0.3)
        assert decoded == link, "the QR code decodes to the drop link"

        # Closing the dialog forgets the code and its drawing.
        el(driver, "#settings-dialog [data-close]").click()
        wait(driver, lambda: text(driver, "#drop-code") == "", 5, "the code forgotten on close")
        assert driver.execute_script("return document.querySelectorAll('#drop-qr svg').length") == 0

    # The server is stopped: the CLI may take the directory's lock.
    printed = obscura(tmp_path, "--vault", str(tmp_path / "vault"), "drop", "code", "--password-stdin",
                      stdin=PASSWORD + "\n")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.strip() == code


# The longest text each version (1 to 10) of level M holds in byte mode, one byte, and
# text that is not ASCII: every version's layout, block split and alignment patterns.
QR_CAPACITY_M = (14, 26, 42, 62, 84, 106, 122, 152, 180, 213)
QR_TEXTS = ["x", *("https://example.test/drop#DROPS-"[:n].ljust(n, "D") for n in QR_CAPACITY_M),
            "Ablage für Fotos — ドロップ"]


def test_every_qr_code_version_the_encoder_draws_decodes_to_its_text(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        driver.get(server.link)
        wait(driver, lambda: driver.execute_script("return document.readyState") == "complete", 10, "the page")
        for sample in QR_TEXTS:
            error = driver.execute_async_script(
                "const [text, done] = arguments;"
                "import('/app/qr.js').then(({ qrSVG }) => {"
                "  let box = document.getElementById('qr-sample');"
                "  if (!box) { box = document.createElement('div'); box.id = 'qr-sample'; box.className = 'drop-qr';"
                "    document.body.prepend(box); }"
                "  box.replaceChildren(qrSVG(text)); done('');"
                "}).catch((e) => done(String(e)));", sample)
            assert error == "", error
            assert decode_qr(el(driver, "#qr-sample").screenshot_as_png) == sample, f"{len(sample.encode())} bytes"
        # One byte past version 10 is refused, not drawn wrong.
        refused = driver.execute_async_script(
            "const [text, done] = arguments;"
            "import('/app/qr.js').then(({ qrSVG }) => { qrSVG(text); done(''); }).catch((e) => done(String(e)));",
            "y" * 214)
        assert "too long" in refused
