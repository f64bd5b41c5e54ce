"""Fixtures for the browser suite: one `obscura serve` on a fresh vault, one
headless Chromium, test media made on the spot, and screenshots of each page
in the light and the dark theme under artifacts/screenshots/."""

import contextlib
import os
import pathlib
import queue
import shutil
import subprocess
import threading
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

REPO = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
OBSCURA_BIN = os.environ.get("OBSCURA_BIN", str(REPO / ".build" / "debug" / "obscura"))
FIXTURES = REPO / "Tests" / "Fixtures"
BANNER = "Obscura gallery: "
START_TIMEOUT = 90  # the first run initialises the vault: ten slots
# The suite is about the gallery, not the KDF: its servers make their directories with
# few PBKDF2 iterations (the hidden `--test-kdf-iterations`), so that each of its many
# unlocks sweeps ten slots in milliseconds rather than seconds. The password-strength
# tests keep the production default (serving(..., production_kdf=True)): the strength
# shown is judged against the directory's KDF.
TEST_KDF_ITERATIONS = 1000


class Server:
    """`url` is the origin (no trailing slash); `link` the URL the server printed,
    carrying the launch's access token in its fragment; `token` that token."""

    def __init__(self, process, link, log):
        self.process = process
        self.link = link
        base, _, fragment = link.partition("#")
        self.url = base.rstrip("/")
        self.token = fragment.partition("token=")[2]
        self.log = log

    def log_tail(self, lines=40):
        return "\n".join(self.log[-lines:])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report carries what its server said last, once per server: a
    failure on CI is often the server's story (a lock, an error), and CI keeps no log."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    server = item.funcargs.get("server") if hasattr(item, "funcargs") else None
    if isinstance(server, Server) and not getattr(server, "log_reported", False):
        server.log_reported = True
        report.sections.append(("what the server logged last", server.log_tail(30)))


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("obscura")


@pytest.fixture(scope="session")
def server(workdir):
    with serving(workdir) as srv:
        yield srv


@contextlib.contextmanager
def serving(workdir, auto_lock_unit_seconds=2, production_kdf=False, keyring_bus=None, extra_env=None):
    """An `obscura serve` on a new vault under WORKDIR, for as long as the block runs;
    one auto-lock "minute" lasts AUTO_LOCK_UNIT_SECONDS. The directory's slots take
    TEST_KDF_ITERATIONS, or with PRODUCTION_KDF the default that users get. With
    KEYRING_BUS (a `secret_service` address) the outer key goes into that keyring
    instead of a key file, as on a desktop. EXTRA_ENV adds or replaces variables (HOME)."""
    if not os.access(OBSCURA_BIN, os.X_OK):
        pytest.fail(f"no obscura binary at {OBSCURA_BIN} (set OBSCURA_BIN)")
    # Trace logging: the last test greps everything the server said for the secrets used.
    # Headless: both keys in key files, which the first run creates (docs/FORMAT.md §4.3).
    env = dict(os.environ, XDG_CONFIG_HOME=str(workdir / "config"), XDG_CACHE_HOME=str(workdir / "cache"),
               OBSCURA_LOG_LEVEL="trace",
               OBSCURA_OUTER_KEY_FILE=str(workdir / "outer.key"), OBSCURA_DECOY_SECRET_FILE=str(workdir / "decoy.key"))
    env.update(extra_env or {})
    if keyring_bus:
        del env["OBSCURA_OUTER_KEY_FILE"]
        env["DBUS_SESSION_BUS_ADDRESS"] = keyring_bus
    process = subprocess.Popen(
        [OBSCURA_BIN, "--vault", str(workdir / "vault"), "serve", "--port", "0",
         "--auto-lock-unit-seconds", str(auto_lock_unit_seconds)]
        + ([] if production_kdf else ["--test-kdf-iterations", str(TEST_KDF_ITERATIONS)]),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        env=env, text=True, bufsize=1)
    log = []
    found = queue.Queue()

    def drain():  # keeps the pipe empty for the server's whole life
        for line in process.stdout:
            log.append(line.rstrip("\n"))
            if BANNER in line:
                found.put(line.split(BANNER, 1)[1].strip())

    threading.Thread(target=drain, daemon=True).start()
    try:
        url = found.get(timeout=START_TIMEOUT)
    except queue.Empty:
        process.kill()
        pytest.fail(f"the server printed no '{BANNER}URL' line in {START_TIMEOUT} s:\n" + "\n".join(log[-40:]))
    try:
        yield Server(process, url, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


SECRET_SERVICE_PASSWORD = "obscura keyring test password"
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={root}/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
"""


@contextlib.contextmanager
def secret_service(root):
    """A real Secret Service for one test, as Tests/ObscuraTestSupport/PrivateSecretService
    starts it: a private session bus with no service activation, and gnome-keyring-daemon
    on it with its `login` collection unlocked by a test password, its files under ROOT.
    Yields the bus address. Every failure to start says which program failed."""
    root = pathlib.Path(root)
    for sub in ("home", "run", "data", "config"):
        (root / sub).mkdir(parents=True, mode=0o700, exist_ok=True)
    (root / "bus.conf").write_text(BUS_CONFIG.format(root=root))
    bus = subprocess.Popen(["dbus-daemon", f"--config-file={root}/bus.conf", "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    keyring = None
    try:
        address = bus.stdout.readline().strip()
        if not address:
            pytest.fail("dbus-daemon printed no address: " + bus.stderr.read())
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, HOME=str(root / "home"),
                   XDG_RUNTIME_DIR=str(root / "run"), XDG_DATA_HOME=str(root / "data"),
                   XDG_CONFIG_HOME=str(root / "config"))
        keyring = subprocess.Popen(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   env=env, text=True)
        keyring.stdin.write(SECRET_SERVICE_PASSWORD)
        keyring.stdin.close()
        deadline = time.monotonic() + 20
        while True:
            owned = subprocess.run(
                ["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                 "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
                env=env, capture_output=True, text=True)
            if "boolean true" in owned.stdout:
                break
            if keyring.poll() is not None or time.monotonic() > deadline:
                keyring.kill()
                pytest.fail("gnome-keyring-daemon did not take org.freedesktop.secrets: " + keyring.communicate()[1])
            time.sleep(0.1)
        yield address
    finally:
        for process in (keyring, bus):
            if process and process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture(scope="session")
def browser(server, workdir):
    with chromium(workdir) as driver:
        yield driver


@contextlib.contextmanager
def chromium(workdir, mobile=False):
    """A headless Chromium of its own (its own cookies), downloading into WORKDIR/downloads;
    with MOBILE, emulating an Android phone (its screen, touch and user agent)."""
    options = Options()
    if mobile:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": 412, "height": 915, "pixelRatio": 2.625, "touch": True, "mobile": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
                         "Chrome/130.0.0.0 Mobile Safari/537.36",
        })
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1360,880", "--autoplay-policy=no-user-gesture-required",
                     "--lang=en-GB", "--hide-scrollbars"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {
        "download.default_directory": str(workdir / "downloads"),
        "download.prompt_for_download": False,
    })
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def shoot(driver, name):
    """Saves NAME-light.png and NAME-dark.png of what the browser shows now (NAME-phone-...
    from a browser the story runs at phone size)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name += getattr(driver, "screenshot_suffix", "")
    for scheme in ("light", "dark"):
        set_scheme(driver, scheme)
        time.sleep(0.3)  # let colour transitions settle
        driver.save_screenshot(str(SCREENSHOTS / f"{name}-{scheme}.png"))
    set_scheme(driver, "light")


def set_scheme(driver, scheme):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


@pytest.fixture(scope="session")
def media(workdir):
    """Photos (repo fixtures and a few ffmpeg patterns), a 6 s H.264 video and an empty file."""
    folder = workdir / "media"
    folder.mkdir()
    photos = []
    for name in ("gradient.jpg", "camera-orientation6.jpg", "gradient.png"):
        shutil.copy(FIXTURES / name, folder / name)
        photos.append(folder / name)
    patterns = {
        "mandelbrot.jpg": "mandelbrot=size=1200x900",
        "bars.jpg": "smptehdbars=size=1280x720",
        "test-pattern.jpg": "testsrc2=size=1024x768",
        "life.png": "life=size=640x480:mold=10:ratio=0.3:death_color=#1d3557:life_color=#f1faee",
    }
    for name, source in patterns.items():
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", source, "-frames:v", "1",
                        "-y", str(folder / name)], check=True)
        photos.append(folder / name)
    video = folder / "clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
                    "-t", "6", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart",
                    "-y", str(video)], check=True)
    empty = folder / "empty.jpg"
    empty.write_bytes(b"")
    return {"photos": photos, "video": video, "empty": empty}
