"""The gallery in a real browser, in order, on one vault: create, lock, wrong
password, unlock, upload, thumbnails, delete, viewer, video, folders, settings,
auto-lock, unlock again. Each test builds on the one before. The whole story
runs twice, each time on a new vault, server and browser: at desktop size
(1360x880) and at phone size (390x844)."""

import json
import re
import struct
import subprocess
import zipfile
import urllib.parse
import time

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BANNER, chromium, serving, shoot

PASSWORD = "correct horse battery staple"
FOLDER_PASSWORD = "tulips by the windmill in april"  # strong enough at a folder's cost (item 6)
SECRETS_SEEN = []  # secrets the story met besides the two above (the export password)
UNLOCK_WAIT = 30  # a sweep of ten slots at 600,000 PBKDF2 rounds, on a busy 2-core machine


def wait(driver, condition, timeout=10, message=""):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition())
    except TimeoutException:
        raise AssertionError(f"timed out after {timeout} s: {message() if callable(message) else message}") from None


def el(driver, css):
    return driver.find_element(By.CSS_SELECTOR, css)


def shown(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "return !!e && !e.closest('[hidden]') && e.getClientRects().length > 0;", css)


def text(driver, css):
    return driver.execute_script("return document.querySelector(arguments[0])?.textContent ?? ''", css)


def tiles(driver):
    """[(id, kind, name)] of the tiles in the DOM, in grid order."""
    return driver.execute_script(
        "return [...document.querySelectorAll('.tile')].map(t => [t.dataset.id, t.dataset.kind,"
        " t.querySelector('.tile-open').getAttribute('aria-label')]);")


def tile_named(driver, name):
    """The id of NAME's tile, scrolling the grid from the top until that tile is rendered
    (only rows near the screen exist: on a phone most tiles are not in the DOM)."""
    def find():
        for tile_id, kind, label in tiles(driver):
            if f" {name}," in label:
                return tile_id
        return None
    found = find()
    if found:
        return found
    driver.execute_script("document.getElementById('grid-scroller').scrollTop = 0")
    for _ in range(100):
        time.sleep(0.1)  # the grid renders on the next animation frame
        found = find()
        if found:
            driver.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}']`)"
                                  ".scrollIntoView({block: 'center'})", found)
            time.sleep(0.1)
            return found
        moved = driver.execute_script(
            "const s = document.getElementById('grid-scroller'); const before = s.scrollTop;"
            "s.scrollTop = before + s.clientHeight * 0.8; return s.scrollTop !== before")
        if not moved:
            break
    raise AssertionError(f"no tile for {name}; tiles: {tiles(driver)}")


def item_count(driver):
    words = text(driver, "#view-count").replace(",", "").split()
    return int(words[0]) if words else -1


def create_first_vault(driver, link):
    """Opens LINK (a new directory's server) and creates its first vault with PASSWORD."""
    driver.get(link)
    wait(driver, lambda: shown(driver, "#create-confirm"), 15, "the create form")
    type_into(driver, "#unlock-password", PASSWORD)
    type_into(driver, "#create-confirm", PASSWORD)
    el(driver, "#unlock-submit").click()
    wait(driver, lambda: shown(driver, "#app-view"), UNLOCK_WAIT, "the gallery")


def type_into(driver, css, value):
    field = el(driver, css)
    field.clear()
    field.send_keys(value)


def submit_unlock(driver, password):
    type_into(driver, "#unlock-password", password)
    el(driver, "#unlock-submit").click()


def unlock(driver, password=PASSWORD):
    submit_unlock(driver, password)
    wait(driver, lambda: shown(driver, "#app-view"), UNLOCK_WAIT, "the gallery after unlocking")


def press(driver, key):
    """A key press to whatever has focus (element.send_keys would click the element first)."""
    ActionChains(driver).send_keys(key).perform()


def select_tile(driver, tile_id):
    driver.execute_script(
        "document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-check`).click()", tile_id)


SIZES = {"desktop": (1360, 880), "phone": (390, 844)}


@pytest.fixture(scope="module", params=list(SIZES))
def size(request):
    return request.param


@pytest.fixture(scope="module")
def story_dir(size, tmp_path_factory):
    """The directory of one run of the story: its vault, keys and downloads."""
    return tmp_path_factory.mktemp("story-" + size)


# One auto-lock "minute" of the story's server, in seconds: the default delay (5) is 40 s,
# "1 minute" 8 s. At 2 s (the suite's default) the story's vault locked itself twice on CI
# (stop 43 and a fresh-clone run after it), in the phone story's trash test, with no
# request in flight: on 2 busy cores a few test steps can pass 10 s with no request.
STORY_MINUTE_SECONDS = 8


@pytest.fixture(scope="module")
def server(story_dir):
    with serving(story_dir, auto_lock_unit_seconds=STORY_MINUTE_SECONDS) as srv:
        yield srv


@pytest.fixture(scope="session")
def large_media(tmp_path_factory):
    """A 3000x2000 JPEG and a 2400x1600 HEIC, made before any story starts: ImageMagick
    takes long enough over them that a vault waiting meanwhile would lock itself
    (one auto-lock "minute" is STORY_MINUTE_SECONDS here)."""
    folder = tmp_path_factory.mktemp("large")
    jpeg, heic = folder / "big-plasma.jpg", folder / "phone-photo.heic"
    subprocess.run(["/usr/bin/convert", "-seed", "3", "-size", "3000x2000", "plasma:fractal", "-quality", "85", str(jpeg)],
                   check=True)
    subprocess.run(["/usr/bin/convert", "-seed", "4", "-size", "2400x1600", "plasma:fractal", str(heic)], check=True)
    return {"jpeg": jpeg, "heic": heic}


@pytest.fixture(scope="module")
def page(size, server, story_dir, large_media):
    SECRETS_SEEN.clear()
    with chromium(story_dir) as browser:
        browser.set_window_size(*SIZES[size])
        browser.screenshot_suffix = "" if size == "desktop" else "-phone"
        # Without the printed link's token the page gets no session and says so.
        browser.get(server.url + "/")
        wait(browser, lambda: "obscura serve" in el(browser, "#unlock-notice").text, 15, "the no-session notice")
        assert browser.get_cookies() == []
        browser.get(server.link)
        wait(browser, lambda: shown(browser, "#unlock-view") and el(browser, "#unlock-notice").text == "", 15,
             "the unlock page")
        # The token left the address bar as soon as the page read it.
        assert "token" not in browser.current_url, browser.current_url
        yield browser


def sidebar(page):
    """Opens the sidebar where it folds away (phone size), so its controls can be clicked."""
    if shown(page, "#sidebar-toggle") and not page.execute_script("return document.body.classList.contains('sidebar-open')"):
        el(page, "#sidebar-toggle").click()
        time.sleep(0.25)  # its slide-in


def close_sidebar(page):
    """Folds the sidebar away again where it folds (phone size)."""
    if page.execute_script("return document.body.classList.contains('sidebar-open')"):
        page.execute_script("document.getElementById('sidebar-scrim').click()")
        time.sleep(0.25)


def test_first_run_leads_with_creating_a_vault_and_reveals_no_count(page):
    """Issue 16, bug 5: on a directory this server has just made, the page leads with
    creating a vault (a new user's first password was a "Wrong password"); unlocking is
    one click away, and nothing speaks of slots."""
    assert text(page, "#unlock-title") == "Create a new vault"
    assert shown(page, "#create-confirm")
    assert el(page, "#unlock-password").get_attribute("type") == "password"
    assert el(page, "label[for='unlock-password']").text == "Password"
    assert el(page, "#create-toggle").text == "Unlock instead"
    body = page.find_element(By.TAG_NAME, "body").text.lower()
    assert "slot" not in body and "decoy" not in body
    shoot(page, "create")
    el(page, "#create-toggle").click()
    wait(page, lambda: text(page, "#unlock-title") == "Unlock your vault", 5, "the unlock form")
    assert el(page, "#create-toggle").text == "Create a new vault"
    shoot(page, "unlock")
    el(page, "#create-toggle").click()


def test_create_vault(page):
    wait(page, lambda: shown(page, "#create-confirm"), 5, "the confirm field")
    type_into(page, "#unlock-password", PASSWORD)
    type_into(page, "#create-confirm", PASSWORD + "x")
    el(page, "#unlock-submit").click()
    wait(page, lambda: "differ" in text(page, "#unlock-error"), 5, "a mismatch error")
    type_into(page, "#create-confirm", PASSWORD)
    el(page, "#unlock-submit").click()
    wait(page, lambda: shown(page, "#app-view"), UNLOCK_WAIT, "the gallery of the new vault")
    wait(page, lambda: shown(page, "#empty-state"), 10, "the empty state")
    assert "No photos yet" in text(page, "#empty-title")
    shoot(page, "empty")


def answered(page):
    return page.execute_script(
        "const b = document.getElementById('unlock-submit'); return !b.classList.contains('busy')")


def test_lock_then_wrong_password_then_unlock(page):
    el(page, "#lock-button").click()
    # A vault exists now: the page offers unlocking first, after a reload too.
    wait(page, lambda: text(page, "#unlock-title") == "Unlock your vault", 5, "the unlock form")
    page.refresh()
    wait(page, lambda: text(page, "#unlock-title") == "Unlock your vault" and not shown(page, "#boot"), 10,
         lambda: f"the unlock form after a reload: {text(page, '#unlock-title')!r}, boot {shown(page, '#boot')}, "
                 f"notice {text(page, '#unlock-notice')!r}")
    wait(page, lambda: shown(page, "#unlock-view"), 10, "the unlock page after Lock")
    assert not shown(page, "#app-view")
    # Issue 16, point 13: the password can be shown, and is hidden again when sent.
    type_into(page, "#unlock-password", "not the password")
    reveal = el(page, "#unlock-password + .reveal")
    assert reveal.get_attribute("aria-pressed") == "false"
    reveal.click()
    assert el(page, "#unlock-password").get_attribute("type") == "text"
    assert reveal.get_attribute("aria-pressed") == "true"
    assert reveal.get_attribute("aria-label") == "Hide password"
    submit_unlock(page, "not the password")
    assert el(page, "#unlock-password").get_attribute("type") == "password"
    wait(page, lambda: answered(page) and shown(page, "#unlock-error"), UNLOCK_WAIT, "an error for a wrong password")
    assert text(page, "#unlock-error") == "Wrong password."
    assert not shown(page, "#app-view")
    unlock(page)


def test_repeated_wrong_passwords_show_the_wait(page):
    el(page, "#lock-button").click()
    wait(page, lambda: shown(page, "#unlock-view"), 10, "the unlock page after Lock")
    attempts = 0
    while "Try again in" not in el(page, "#unlock-submit").text:
        # the first few failures pass without delay, then the server makes us wait
        assert attempts < 6, "no progressive delay after six wrong passwords in a row"
        assert text(page, "#unlock-error") in ("", "Wrong password.")
        submit_unlock(page, f"wrong {attempts}")
        attempts += 1
        wait(page, lambda: answered(page) and shown(page, "#unlock-error"), UNLOCK_WAIT, f"wrong password {attempts}")
    # A success erases no failure: the create and the wrong password of the test before
    # count too. Failures 3 and 4 are answered at once, and the answer to the 4th
    # starts the wait.
    assert attempts == 2, "the first failures must not be delayed"
    assert el(page, "#unlock-submit").get_attribute("aria-disabled") == "true"
    assert "Wait" in text(page, "#unlock-error")
    # Issue 16, point 13: a password typed and sent during the wait is kept, and sent
    # by itself when the wait ends (it used to be refused by a disabled button).
    type_into(page, "#unlock-password", PASSWORD)
    press(page, Keys.ENTER)
    wait(page, lambda: "will be tried" in text(page, "#unlock-error"), 5, "the queued password acknowledged")
    wait(page, lambda: shown(page, "#app-view"), UNLOCK_WAIT + 10, "the queued password to unlock when the wait ends")


def test_upload_photos_and_video(page, media):
    files = media["photos"] + [media["video"], media["empty"]]
    el(page, "#file-input").send_keys("\n".join(str(f) for f in files))
    wait(page, lambda: shown(page, "#upload-panel"), 5, "the upload panel")
    wait(page, lambda: page.execute_script(
        "return document.querySelectorAll('.upload-row').length === arguments[0] &&"
        " !document.querySelector('.upload-row[data-state=waiting], .upload-row[data-state=uploading]')",
        len(files)), 90, "every upload to finish")
    states = page.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('.upload-row')].map(r =>"
        " [r.querySelector('.upload-name').textContent, [r.dataset.state, r.querySelector('.upload-message').textContent]]))")
    for f in media["photos"] + [media["video"]]:
        assert states[f.name][0] == "done", (f.name, states[f.name])
    assert states["empty.jpg"][0] == "failed", states["empty.jpg"]
    assert states["empty.jpg"][1] == "The file is empty.", states["empty.jpg"]
    assert "1 failed" in text(page, "#upload-summary")
    wait(page, lambda: item_count(page) == len(files) - 1, 15, "the grid to show the new items")
    shoot(page, "upload")


def test_grid_shows_thumbnails(page, media):
    expected = len(media["photos"]) + 1
    wait(page, lambda: item_count(page) == expected, 15, f"{expected} items in the count")
    wait(page, lambda: len(tiles(page)) == expected, 10, "a tile per item")
    # A batch with a failure stays open until closed: its error must be read.
    assert shown(page, "#upload-panel")
    el(page, "#upload-close").click()

    def photo_thumbnails_loaded():
        return page.execute_script(
            "const imgs = [...document.querySelectorAll(\".tile[data-kind='photo'] img.thumb\")];"
            "return imgs.length === arguments[0] && imgs.every(i => i.complete && i.naturalWidth > 0);",
            len(media["photos"]))
    wait(page, photo_thumbnails_loaded, 20, "every photo thumbnail decoded (naturalWidth > 0)")
    assert page.execute_script("return document.querySelectorAll('.grid-day').length") >= 1
    time.sleep(0.3)
    shoot(page, "grid")


def test_drop_files_onto_the_page(page):
    before = item_count(page)
    page.execute_script("""
        const canvas = document.createElement('canvas');
        canvas.width = 480; canvas.height = 320;
        const g = canvas.getContext('2d');
        const fill = g.createLinearGradient(0, 0, 480, 320);
        fill.addColorStop(0, '#2a9d8f'); fill.addColorStop(1, '#e9c46a');
        g.fillStyle = fill; g.fillRect(0, 0, 480, 320);
        const bytes = atob(canvas.toDataURL('image/png').split(',')[1]);
        const file = new File([Uint8Array.from(bytes, c => c.charCodeAt(0))], 'dropped.png', {type: 'image/png'});
        const data = new DataTransfer();
        data.items.add(file);
        for (const type of ['dragenter', 'dragover', 'drop']) {
          document.body.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
        }""")
    wait(page, lambda: page.execute_script(
        "return [...document.querySelectorAll('.upload-row')].some(r =>"
        " r.querySelector('.upload-name').textContent === 'dropped.png' && r.dataset.state === 'done')"),
        30, "the dropped file to upload")
    wait(page, lambda: item_count(page) == before + 1, 10, "the dropped file in the grid")
    assert not shown(page, "#drop-overlay")
    close_uploads(page)


def close_uploads(page):
    """Closes the upload panel, unless it already closed itself."""
    page.execute_script("if (!document.getElementById('upload-panel').hidden) document.getElementById('upload-close').click()")


def drop_canvas_files(page, files):
    """Drops PNG files drawn on a canvas: [(name, hue)]; the same hue gives the same bytes."""
    page.execute_script("""
        const data = new DataTransfer();
        for (const [name, hue] of arguments[0]) {
          const canvas = document.createElement('canvas');
          canvas.width = 96; canvas.height = 64;
          const g = canvas.getContext('2d');
          g.fillStyle = `hsl(${hue}, 60%, 45%)`; g.fillRect(0, 0, 96, 64);
          const bytes = atob(canvas.toDataURL('image/png').split(',')[1]);
          data.items.add(new File([Uint8Array.from(bytes, c => c.charCodeAt(0))], name, {type: 'image/png'}));
        }
        for (const type of ['dragenter', 'dragover', 'drop']) {
          document.body.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
        }""", files)


def test_duplicates_are_counted_and_the_panel_closes_itself(page):
    """Issue 16, point 14: a file already in the vault counts as a duplicate, not as
    added; once every file of a batch went in, the panel closes by itself."""
    before = item_count(page)
    drop_canvas_files(page, [("teal.png", 170)])
    wait(page, lambda: item_count(page) == before + 1, 30, "the first file in the grid")
    close_uploads(page)
    drop_canvas_files(page, [("teal again.png", 170), ("amber.png", 40)])
    wait(page, lambda: text(page, "#upload-summary") == "1 of 2 added · 1 already in the vault", 30,
         lambda: f"the summary to count the duplicate apart: {text(page, '#upload-summary')!r}")
    shoot(page, "upload-duplicate")
    wait(page, lambda: not shown(page, "#upload-panel"), 8, "the panel to close itself after a clean batch")
    assert item_count(page) == before + 2


ODD_NAMES = ["Screenshot 2024-01-02 at 10.11.12.png", "a+b=c.png", "100% sure %41.png", "#1 best & more.png",
             "Ünïcødé 写真.png", "party 🎉.png"]


def test_odd_file_names_round_trip(page):
    """Issue 16, bug 2: names with spaces, +, %, #, non-Latin letters and emoji come back
    exactly as they were, in the API and in the grid (a space used to become "+")."""
    before = item_count(page)
    page.execute_script("""
        const data = new DataTransfer();
        arguments[0].forEach((name, i) => {
          const canvas = document.createElement('canvas');
          canvas.width = 64 + i; canvas.height = 48;
          const g = canvas.getContext('2d');
          g.fillStyle = `hsl(${i * 50}, 70%, 50%)`; g.fillRect(0, 0, canvas.width, 48);
          const bytes = atob(canvas.toDataURL('image/png').split(',')[1]);
          data.items.add(new File([Uint8Array.from(bytes, c => c.charCodeAt(0))], name, {type: 'image/png'}));
        });
        for (const type of ['dragenter', 'dragover', 'drop']) {
          document.body.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
        }""", ODD_NAMES)
    wait(page, lambda: item_count(page) == before + len(ODD_NAMES), 30, "the odd names to upload")
    names = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api/items?limit=500').then(r => r.json()).then(j => done(j.items.map(i => i.name)));""")
    for name in ODD_NAMES:
        assert name in names, (name, sorted(n for n in names if n not in ODD_NAMES))
        tile_named(page, name)
    close_uploads(page)


def exif_segment(date):
    """An APP1 "Exif" segment whose only tag is DateTimeOriginal `date` ("YYYY:MM:DD HH:MM:SS")."""
    tiff = bytearray(b"II*\x00\x08\x00\x00\x00")
    tiff += struct.pack("<H", 1) + struct.pack("<HHII", 0x8769, 4, 1, 26) + struct.pack("<I", 0)  # IFD0 -> Exif IFD
    tiff += struct.pack("<H", 1) + struct.pack("<HHII", 0x9003, 2, 20, 44) + struct.pack("<I", 0)  # Exif IFD
    tiff += date.encode()[:19] + b"\x00"
    payload = b"Exif\x00\x00" + bytes(tiff)
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def dated_jpeg(path, width, height, date, colour):
    jpeg = subprocess.run(["/usr/bin/convert", "-size", f"{width}x{height}", f"xc:{colour}", "jpg:-"],
                          check=True, capture_output=True).stdout
    path.write_bytes(jpeg[:2] + exif_segment(date) + jpeg[2:])
    return path


TIMELINE = """
    const names = arguments[0];
    const canvas = document.getElementById('grid-canvas').getBoundingClientRect();
    const tiles = [...document.querySelectorAll('.tile')].map(t => {
      const r = t.getBoundingClientRect();
      return {name: t.querySelector('.tile-open').getAttribute('aria-label'), left: r.left - canvas.left,
              right: r.right - canvas.left, top: r.top, width: r.width, height: r.height};
    });
    const ours = names.map(n => tiles.find(t => t.name.includes(' ' + n + ',')));
    const days = [...document.querySelectorAll('.grid-day')].map(d => ({text: d.textContent, top: d.getBoundingClientRect().top}));
    const months = [...document.querySelectorAll('.grid-month')].map(m => m.textContent);
    return {width: canvas.width, tiles, ours, days, months};"""


def test_timeline_rows_keep_each_photos_shape(page, tmp_path):
    """Issue 16, point 9: days flow into justified rows under month headings (one row of
    squares per day made 650 photos 40 screens long): a tile keeps its photo's shape,
    three photos of three days of one month share a row, and no row is wider than the
    page, at desktop and at phone size."""
    shapes = {"wide-0301.jpg": (300, 200, "2022:03:01 12:00:00", "orange"),
              "tall-0303.jpg": (200, 300, "2022:03:03 12:00:00", "purple"),
              "square-0305.jpg": (240, 240, "2022:03:05 12:00:00", "teal")}
    files = [dated_jpeg(tmp_path / name, w, h, date, colour) for name, (w, h, date, colour) in shapes.items()]
    before = item_count(page)
    el(page, "#file-input").send_keys("\n".join(str(f) for f in files))
    wait(page, lambda: item_count(page) == before + 3, 30, "the three dated photos")
    close_uploads(page)
    names = list(shapes)
    try:
        for size in (None, (390, 844)):
            if size:
                page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                     {"width": size[0], "height": size[1], "deviceScaleFactor": 3, "mobile": True})
            page.execute_script("const t = [...document.querySelectorAll('.tile-open')].find(b => b.getAttribute('aria-label')"
                                ".includes(' wide-0301.jpg,')); if (t) t.scrollIntoView()")
            wait(page, lambda: None not in page.execute_script(TIMELINE, names), 10, "the three tiles on screen")
            state = page.execute_script(TIMELINE, names)
            where = f"at {size or 'desktop'}"
            assert "March 2022" in state["months"], (where, state["months"])
            # Oldest last: the photo of 5 March comes first, then 3, then 1 March.
            square, tall, wide = state["ours"][2], state["ours"][1], state["ours"][0]
            assert square["top"] == tall["top"] == wide["top"], (where, "the three days share one row", state["ours"])
            assert square["left"] < tall["left"] < wide["left"], (where, state["ours"])
            assert abs(square["height"] - tall["height"]) < 0.5 and abs(tall["height"] - wide["height"]) < 0.5
            for tile, ratio in ((wide, 1.5), (tall, 2 / 3), (square, 1.0)):
                assert abs(tile["width"] / tile["height"] - ratio) < 0.03, (where, tile, ratio)
            assert sum(1 for d in state["days"] if d["text"].endswith(("Mar 1", "1 Mar", "Mar 3", "3 Mar", "Mar 5", "5 Mar"))) == 3, \
                (where, state["days"])
            assert all(t["right"] <= state["width"] + 0.5 for t in state["tiles"]), (where, "a tile past the edge")
            shoot(page, "timeline" + (f"-{size[0]}" if size else ""))
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def touch(page, element, seconds):
    """A finger on `element` for `seconds`, then lifted (a WebDriver touch pointer)."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(page, mouse=finger)
    actions.pointer_action.move_to(element).pointer_down().pause(seconds).pointer_up()
    actions.perform()


TOUCH_TARGETS = """
    const out = [];
    for (const e of document.querySelectorAll(arguments[0])) {
      if (e.closest('[hidden]') || !e.getClientRects().length) continue;
      const r = e.getBoundingClientRect();
      if (r.width < 43.5 || r.height < 43.5) out.push((e.id || e.className) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
    return out;"""


def test_touch_long_press_selects_then_taps_add(page):
    """Issue 16, point 7, on a touch phone: a long press selects a tile (it used to open
    it), taps then add to the selection, a day's label selects the day; select rings
    show without hover; the selection bar leaves the title alone; every control is at
    least 44 px."""
    show_view(page, "all")
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    page.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        page.execute_script("document.getElementById('grid-scroller').scrollTop = 0")
        wait(page, lambda: len(tiles(page)) >= 3, 5, "tiles")
        first, second = [t[0] for t in tiles(page)][:2]
        tile_button = lambda tile_id: el(page, f".tile[data-id='{tile_id}'] .tile-open")
        assert page.execute_script("return getComputedStyle(document.querySelector('.tile-check')).opacity") == "1", \
            "select rings show on a touch screen"
        touch(page, tile_button(first), 0.9)
        wait(page, lambda: text(page, "#selection-count") == "1 selected", 5, "a long press to select")
        assert not shown(page, "#viewer"), "a long press opened the viewer"
        touch(page, tile_button(second), 0.05)
        wait(page, lambda: text(page, "#selection-count") == "2 selected", 5, "a tap to add to the selection")
        assert not shown(page, "#viewer")
        day = el(page, ".grid-day .day-select")
        touch(page, day, 0.05)
        wait(page, lambda: el(page, ".grid-day .day-select").get_attribute("aria-pressed") == "true", 5,
             "the day's label to select the day")
        title = page.execute_script("return document.getElementById('view-title').getBoundingClientRect().toJSON()")
        bar = page.execute_script("return document.getElementById('selection-bar').getBoundingClientRect().toJSON()")
        overlap = not (bar["bottom"] <= title["top"] or bar["top"] >= title["bottom"]
                       or bar["right"] <= title["left"] or bar["left"] >= title["right"])
        assert not overlap, ("the selection bar covers the title", title, bar)
        small = page.execute_script(TOUCH_TARGETS, "#sidebar-toggle, #upload-button, #settings-button, #lock-button,"
                                    " #selection-bar button, .tile-check, .day-select")
        assert small == [], f"touch targets under 44 px: {small}"
        shoot(page, "touch-selection")
        el(page, "#sel-clear").click()
        wait(page, lambda: not shown(page, "#selection-bar"), 5, "the selection cleared")
    finally:
        page.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_download_a_selection_as_one_zip(page, media, story_dir):
    """Issue 16, point 12: the selection downloads as one ZIP, streamed by the server
    as it decrypts each original; the files in it are the originals, byte for byte."""
    chosen = [p for p in media["photos"]][:2]
    for photo in chosen:
        select_tile(page, tile_named(page, photo.name))
    wait(page, lambda: text(page, "#selection-count") == "2 selected", 5, "two selected")
    gallery = page.current_url
    el(page, "#sel-download").click()
    downloads = story_dir / "downloads"

    def saved():
        assert page.current_url == gallery, f"the download replaced the page: {page.current_url}"
        files = list(downloads.glob("Obscura-2-items.zip")) if downloads.exists() else []
        return files and not list(downloads.glob("*.crdownload")) and files[0]
    archive = wait(page, saved, 30, f"Obscura-2-items.zip in {downloads}")
    with zipfile.ZipFile(archive) as z:
        assert z.testzip() is None
        assert sorted(z.namelist()) == sorted(p.name for p in chosen)
        for photo in chosen:
            assert z.read(photo.name) == photo.read_bytes(), photo.name
            assert z.getinfo(photo.name).compress_type == zipfile.ZIP_STORED
    # A refused download (an item gone meanwhile) answers in its own tab: the gallery stays.
    gallery_tab = page.current_window_handle
    page.execute_script("""
        const form = document.getElementById('zip-form');
        const field = (name, value) => Object.assign(document.createElement('input'), {type: 'hidden', name, value});
        form.replaceChildren(field('csrf', arguments[0]), field('id', '00000000-0000-0000-0000-000000000000'));
        form.submit();""", page.execute_script("return await fetch('/api/session').then(r => r.json()).then(s => s.csrf)"))
    wait(page, lambda: len(page.window_handles) == 2, 10, "the refusal in a tab of its own")
    assert page.current_url == gallery and shown(page, "#app-view")
    for handle in page.window_handles:
        if handle != gallery_tab:
            page.switch_to.window(handle)
            page.close()
    page.switch_to.window(gallery_tab)
    el(page, "#sel-clear").click()


def test_delete_needs_confirmation(page):
    before = item_count(page)
    victim = tile_named(page, "dropped.png")
    select_tile(page, victim)
    wait(page, lambda: shown(page, "#selection-bar"), 5, "the selection bar")
    assert text(page, "#selection-count") == "1 selected"
    el(page, "#sel-delete").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    el(page, "#confirm-dialog [data-close]").click()  # cancel keeps it
    time.sleep(0.3)
    assert item_count(page) == before
    el(page, "#sel-delete").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog again")
    el(page, "#confirm-submit").click()
    wait(page, lambda: item_count(page) == before - 1, 10, "the count to drop by one")
    assert victim not in [t[0] for t in tiles(page)]
    assert not shown(page, "#selection-bar")


def show_view(page, view):
    page.execute_script("document.querySelector(`#library-list .nav-item[data-view='${arguments[0]}']`).click()", view)
    wait(page, lambda: page.execute_script(
        "return document.querySelector(`#library-list .nav-item[data-view='${arguments[0]}']`)"
        ".getAttribute('aria-current') === 'page'", view), 5, f"the {view} view")
    # The view's items arrive after it is current: until then its count is empty, and a
    # count read then (CI once read the Trash's -1 as All photos' before an upload) is no
    # view's.
    wait(page, lambda: item_count(page) >= 0, 10, f"the {view} view's count")


def test_trash_restores_and_deletes_for_good(page, tmp_path):
    """Issue 17, point 6: a delete goes to the Trash, which restores it where it was; a
    delete for good and "Empty trash" erase, each after a confirmation."""
    show_view(page, "trash")
    wait(page, lambda: "dropped.png" in " ".join(t[2] for t in tiles(page)), 10, "the deleted photo in the Trash")
    assert item_count(page) == 1 and "30 days" in text(page, "#view-count")
    assert shown(page, "#trash-empty-button")
    victim = tile_named(page, "dropped.png")
    select_tile(page, victim)
    wait(page, lambda: shown(page, "#sel-restore"), 5, "the Restore button")
    assert not shown(page, "#sel-move") and not shown(page, "#sel-delete")
    el(page, "#sel-restore").click()
    wait(page, lambda: shown(page, "#empty-state") and "trash is empty" in text(page, "#empty-title"), 10, "an empty Trash")
    show_view(page, "all")
    assert tile_named(page, "dropped.png") == victim

    select_tile(page, victim)
    el(page, "#sel-delete").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    assert "trash" in text(page, "#confirm-title").lower()
    el(page, "#confirm-submit").click()
    wait(page, lambda: victim not in [t[0] for t in tiles(page)], 10, "the photo to leave All photos")
    show_view(page, "trash")
    wait(page, lambda: victim in [t[0] for t in tiles(page)], 10, "the photo in the Trash again")
    select_tile(page, victim)
    el(page, "#sel-delete-forever").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    assert "for good" in text(page, "#confirm-title")
    el(page, "#confirm-submit").click()
    wait(page, lambda: shown(page, "#empty-state"), 10, "the Trash empty again")
    status = page.execute_script(
        "return fetch('/api/items/' + arguments[0]).then(r => r.status)", victim)
    assert status == 404, "deleted for good"

    scrap = tmp_path / "scrap.txt"
    scrap.write_text("to be emptied")
    show_view(page, "all")
    before = item_count(page)
    el(page, "#file-input").send_keys(str(scrap))
    wait(page, lambda: item_count(page) == before + 1, 30, "the scrap file")
    close_uploads(page)
    select_tile(page, tile_named(page, "scrap.txt"))
    el(page, "#sel-delete").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    el(page, "#confirm-submit").click()
    wait(page, lambda: item_count(page) == before, 10, "the scrap file in the trash")
    show_view(page, "trash")
    wait(page, lambda: shown(page, "#trash-empty-button"), 10, "Empty trash")
    shoot(page, "trash")
    el(page, "#trash-empty-button").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    el(page, "#confirm-submit").click()
    wait(page, lambda: shown(page, "#empty-state") and not shown(page, "#trash-empty-button"), 10, "the Trash emptied")
    show_view(page, "all")


def search_for(page, **fields):
    """Fills the search row (text, kind, from, to) as a person would and waits for the grid."""
    if shown(page, "#search-filters") and not shown(page, "#search-kind"):
        el(page, "#search-filters").click()  # a phone keeps the kind and days behind "Filters"
        wait(page, lambda: shown(page, "#search-kind") and shown(page, "#search-from"), 5, "the filters")
    page.execute_script("""
        const [text, kind, from, to] = arguments;
        const set = (id, value) => { const e = document.getElementById(id); e.value = value;
            e.dispatchEvent(new Event(id === 'search-text' ? 'input' : 'change', {bubbles: true})); };
        set('search-kind', kind); set('search-from', from); set('search-to', to); set('search-text', text);""",
        fields.get("text", ""), fields.get("kind", ""), fields.get("start", ""), fields.get("end", ""))
    time.sleep(0.6)  # the typing pause (250 ms), then the answer


def test_search_by_name_kind_and_days(page):
    """Issue 17, point 5: the search row narrows the view by name, kind and a range of
    capture days, counts its matches, and says so when nothing matches."""
    show_view(page, "all")
    total = item_count(page)
    search_for(page, text="0303")
    wait(page, lambda: "match" in text(page, "#view-count") and item_count(page) == 1, 10, "one match for 0303")
    assert [t[2] for t in tiles(page) if "tall-0303.jpg" in t[2]], tiles(page)
    assert len(tiles(page)) == 1
    assert "0303" not in page.current_url, "a search stays out of the address"
    search_for(page, start="2022-03-02", end="2022-03-05")
    wait(page, lambda: item_count(page) == 2, 10, "the two photos of 3 and 5 March 2022")
    labels = " ".join(t[2] for t in tiles(page))
    assert "tall-0303.jpg" in labels and "square-0305.jpg" in labels and "wide-0301.jpg" not in labels
    search_for(page, kind="video")
    wait(page, lambda: item_count(page) >= 1 and all(t[1] == "video" for t in tiles(page)), 10, "videos only")
    search_for(page, text="no such photo anywhere")
    wait(page, lambda: shown(page, "#empty-state") and "Nothing matches" in text(page, "#empty-title"), 10, "no match")
    shoot(page, "search-nothing")
    el(page, "#search-clear").click()
    wait(page, lambda: item_count(page) == total and "match" not in text(page, "#view-count"), 10, "the whole view again")



def test_date_scrubber_jumps_to_a_year(page):
    """Issue 17, point 5: a rail of years (and months, with a pointer) beside the grid
    jumps to where that year begins; it steps aside during a search."""
    show_view(page, "all")
    wait(page, lambda: shown(page, "#scrubber") and page.execute_script(
        "return [...document.querySelectorAll('#scrubber .scrub-year')].map(b => b.textContent).includes('2022')"),
        10, "the scrubber with 2022")
    years = page.execute_script("return [...document.querySelectorAll('#scrubber .scrub-year')].map(b => b.textContent)")
    assert years == sorted(years, reverse=True), years
    page.execute_script("document.getElementById('grid-scroller').scrollTop = 0")
    page.execute_script("[...document.querySelectorAll('#scrubber .scrub-year')].find(b => b.textContent === '2022').click()")
    # The newest photo of 2022 (5 March) on screen: as near the top as the grid can scroll.
    wait(page, lambda: page.execute_script("""
        const s = document.getElementById('grid-scroller');
        const box = s.getBoundingClientRect();
        const tile = [...document.querySelectorAll('.tile')].find(t =>
          t.querySelector('.tile-open').getAttribute('aria-label').includes(' square-0305.jpg,'));
        if (!tile) return false;
        const r = tile.getBoundingClientRect();
        return r.top >= box.top && r.bottom <= box.bottom && (s.scrollTop > 0 || s.scrollHeight <= s.clientHeight);"""),
        10, "the first photo of 2022 on screen")
    shoot(page, "scrubber")
    search_for(page, text="0303")
    wait(page, lambda: not shown(page, "#scrubber"), 5, "no scrubber during a search")
    el(page, "#search-clear").click()
    wait(page, lambda: shown(page, "#scrubber"), 10, "the scrubber back")


def test_selection_never_outlives_its_items_and_delete_focuses_cancel(page):
    """Issue 16, bug 3: items that leave the view (unfavourited in Favourites) leave the
    selection, so a delete can only act on what is on screen; the delete dialog's focus
    starts on Cancel, not on the red button."""
    photos = [t[0] for t in tiles(page) if t[1] == "photo"][:2]
    for tile_id in photos:
        select_tile(page, tile_id)
    wait(page, lambda: shown(page, "#selection-bar"), 5, "the selection bar")
    el(page, "#sel-favorite").click()
    wait(page, lambda: page.execute_script(
        "return arguments[0].every(id => document.querySelector(`.tile[data-id='${id}']`)?.classList.contains('favorite'))",
        photos), 10, "both marked as favourites")
    show_view(page, "favorites")
    wait(page, lambda: set(photos) <= {t[0] for t in tiles(page)}, 10, "both in Favourites")
    favourites = item_count(page)
    assert not shown(page, "#selection-bar"), "the view change cleared the selection"
    for tile_id in photos:
        select_tile(page, tile_id)
    el(page, "#sel-favorite").click()  # both leave Favourites
    wait(page, lambda: item_count(page) == favourites - 2, 10, "both to leave Favourites")
    assert not shown(page, "#selection-bar"), "items no longer on screen are still selected"

    show_view(page, "all")
    wait(page, lambda: photos[0] in [t[0] for t in tiles(page)], 10, "All photos again")
    select_tile(page, photos[0])
    el(page, "#sel-delete").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    assert page.execute_script("return document.activeElement?.matches('#confirm-dialog [data-close]') ?? false"), \
        "focus starts on Cancel"
    el(page, "#confirm-dialog [data-close]").click()
    el(page, "#sel-clear").click()
    wait(page, lambda: not shown(page, "#selection-bar"), 5, "the selection cleared")


def test_viewer_previous_next_zoom_favourite(page):
    first = page.execute_script(
        "return Math.min(...[...document.querySelectorAll(\".tile[data-kind='photo'] .tile-open\")]"
        ".map(b => Number(b.dataset.index)))")
    page.execute_script("document.querySelector(`.tile-open[data-index='${arguments[0]}']`).click()", first)
    wait(page, lambda: shown(page, "#viewer"), 5, "the viewer")
    wait(page, lambda: page.execute_script(
        "const i = document.getElementById('viewer-image'); return i.complete && i.naturalWidth > 0"),
        15, "the preview to load")
    name = text(page, "#viewer-name")
    press(page, Keys.ARROW_RIGHT)
    wait(page, lambda: text(page, "#viewer-name") != name, 5, "→ to show the next item")
    press(page, Keys.ARROW_LEFT)
    wait(page, lambda: text(page, "#viewer-name") == name, 5,
         f"← to come back to {name} (shows {text(page, '#viewer-name')}, tiles {tiles(page)})")
    el(page, "#viewer-next").click()
    wait(page, lambda: text(page, "#viewer-name") != name, 5, "the next button")
    el(page, "#viewer-prev").click()
    wait(page, lambda: text(page, "#viewer-name") == name, 5, "the previous button")
    wait(page, lambda: page.execute_script(
        "const i = document.getElementById('viewer-image'); return i.complete && i.naturalWidth > 0"),
        15, "the preview to load again")
    el(page, "#viewer-zoom-in").click()
    assert "scale(1.5)" in el(page, "#viewer-image").get_attribute("style")
    el(page, "#viewer-zoom-out").click()
    el(page, "#viewer-favorite").click()
    wait(page, lambda: el(page, "#viewer-favorite").get_attribute("aria-pressed") == "true", 5, "favourite on")
    href = el(page, "#viewer-download").get_attribute("href")
    assert href.endswith("/original?download=1"), href
    time.sleep(0.2)
    shoot(page, "viewer")
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#viewer"), 5, "Esc to close the viewer")
    assert page.execute_script("return document.querySelectorAll('.tile.favorite').length") == 1
    focused = lambda: page.execute_script("return document.activeElement?.dataset?.index ?? null")
    assert focused() == str(first), "closing the viewer puts the focus back on its tile"
    press(page, Keys.ARROW_RIGHT)
    assert focused() == str(first + 1), "→ moves the focus to the next tile"


def test_zoom_past_the_preview_loads_the_original(page, large_media):
    """Issue 16, point 10: zoomed past the 1440-pixel preview, the viewer shows the
    original, so a large photo stays sharp; the details give the size as shown
    (a quarter-turned photo's width is its stored height)."""
    big = large_media["jpeg"]
    before = item_count(page)
    el(page, "#file-input").send_keys(str(big))
    wait(page, lambda: item_count(page) == before + 1, 30, "the large photo")
    close_uploads(page)
    open_tile(page, tile_named(page, big.name))
    image_state = lambda: page.execute_script(
        "const i = document.getElementById('viewer-image');"
        "return {complete: i.complete, natural: i.naturalWidth, full: i.dataset.full ?? null, shown: i.clientWidth,"
        " src: i.src.slice(0, 5)}")
    wait(page, lambda: image_state()["complete"] and image_state()["natural"] > 0, 15, "the preview")
    assert image_state()["natural"] == 1440, image_state()
    assert "3000\u00a0×\u00a02000" in text(page, "#viewer-date")
    shown_before = image_state()["shown"]
    for _ in range(5):  # 7.6x: past the preview's pixels on a phone's narrow screen too
        el(page, "#viewer-zoom-in").click()
    wait(page, lambda: image_state()["full"] == "true" and image_state()["natural"] == 3000, 20,
         lambda: f"the original past the preview's pixels: {image_state()}")
    assert image_state()["src"] == "blob:"
    assert abs(image_state()["shown"] - shown_before) <= 1, "the swap moved the picture"
    shoot(page, "viewer-zoomed-original")
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")

    # A HEIC, which no <img> shows: the zoom goes to the server's full-size JPEG of it.
    heic = large_media["heic"]
    el(page, "#file-input").send_keys(str(heic))
    wait(page, lambda: item_count(page) == before + 2, 60, lambda: "the HEIC photo: " + page.execute_script(
        "return [...document.querySelectorAll('.upload-row')].map(r => r.textContent).join(' | ')"))
    close_uploads(page)
    open_tile(page, tile_named(page, heic.name))
    wait(page, lambda: image_state()["complete"] and image_state()["natural"] == 1440, 15, "the HEIC's preview")
    for _ in range(5):
        el(page, "#viewer-zoom-in").click()
    wait(page, lambda: image_state()["full"] == "true" and image_state()["natural"] == 2400, 30,
         lambda: f"the full-size JPEG of the HEIC: {image_state()}")
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")

    open_tile(page, tile_named(page, "camera-orientation6.jpg"))
    # Stored 64 × 48 with EXIF orientation 6: it shows 48 wide, 64 tall.
    wait(page, lambda: "48\u00a0×\u00a064" in text(page, "#viewer-date"), 5, lambda: text(page, "#viewer-date"))
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")


LONG_NAME = "WhatsApp Image 2024-05-17 at 21.45.33 from the family trip to the mountains, second day, " \
            "before the storm came in (edited version for printing).png"

VIEWER_FITS = """
    const width = document.documentElement.clientWidth, height = document.documentElement.clientHeight;
    const out = [];
    for (const e of document.querySelectorAll('#viewer-close, #viewer-position, .viewer-tools > *, #viewer-image')) {
      if (e.hidden || e.offsetParent === null) continue;
      const r = e.getBoundingClientRect();
      if (r.left < -1 || r.right > width + 1 || r.top < -1 || r.bottom > height + 1) out.push(e.id || e.className);
    }
    const viewer = document.getElementById('viewer');
    if (viewer.scrollWidth > viewer.clientWidth + 1) out.push('viewer wider than the screen');
    return out;"""


def test_a_long_name_never_pushes_the_viewer_off_screen(page):
    """Issue 16, bug 1: a long file name pushed the viewer's buttons off screen and
    cropped the photo, on a phone and on a desktop. The name is cut with an ellipsis."""
    page.execute_script("""
        const canvas = document.createElement('canvas');
        canvas.width = 640; canvas.height = 480;
        const g = canvas.getContext('2d');
        g.fillStyle = '#457b9d'; g.fillRect(0, 0, 640, 480); g.fillStyle = '#f1faee'; g.fillRect(20, 20, 600, 440);
        const bytes = atob(canvas.toDataURL('image/png').split(',')[1]);
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(bytes, c => c.charCodeAt(0))], arguments[0], {type: 'image/png'}));
        for (const type of ['dragenter', 'dragover', 'drop']) {
          document.body.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
        }""", LONG_NAME)
    wait(page, lambda: any(LONG_NAME in t[2] for t in tiles(page)), 30, "the long-named photo")
    close_uploads(page)
    tile = tile_named(page, LONG_NAME)
    sizes = [(None, None), (390, 844)]  # the window as it is, then a phone
    try:
        for width, height in sizes:
            if width:
                page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                     {"width": width, "height": height, "deviceScaleFactor": 3, "mobile": True})
            page.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-open`).click()", tile)
            wait(page, lambda: shown(page, "#viewer"), 5, "the viewer")
            wait(page, lambda: page.execute_script(
                "const i = document.getElementById('viewer-image'); return i.complete && i.naturalWidth > 0"),
                15, "the preview to load")
            time.sleep(0.3)
            outside = page.execute_script(VIEWER_FITS)
            assert not outside, f"at {width or 'desktop'}: outside the screen: {outside}"
            assert text(page, "#viewer-name") == LONG_NAME
            shoot(page, "viewer-long-name" + (f"-{width}" if width else ""))
            el(page, "#viewer-close").click()
            wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_video_plays_and_seeks(page):
    video_tile = next(t for t in tiles(page) if t[1] == "video")
    page.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-open`).click()", video_tile[0])
    wait(page, lambda: shown(page, "#viewer-video"), 5, "the video player")
    wait(page, lambda: page.execute_script("return document.getElementById('viewer-video').readyState >= 1"),
         15, "the video's metadata")
    duration = page.execute_script("return document.getElementById('viewer-video').duration")
    assert 5.5 < duration < 6.5, duration
    # Issue 16, point 14: the blurry 256-pixel poster gives way to the video's own
    # frame, at the video's size, as soon as one is decoded.
    wait(page, lambda: page.execute_script(
        "const v = document.getElementById('viewer-video'); return v.readyState >= 2 && !v.hasAttribute('poster')"),
        15, "the first frame to replace the thumbnail poster")
    assert page.execute_script("return document.getElementById('viewer-video').videoWidth") >= 320
    page.execute_script("const v = document.getElementById('viewer-video'); v.muted = true; v.play();")
    wait(page, lambda: page.execute_script("return document.getElementById('viewer-video').currentTime > 0.3"),
         15, "playback to start")
    page.execute_script("document.getElementById('viewer-video').currentTime = 3.5;")
    wait(page, lambda: page.execute_script(
        "const v = document.getElementById('viewer-video'); return !v.seeking && v.currentTime > 3.8"),
        15, "playback to go on past the seek point")
    assert page.execute_script("return document.getElementById('viewer-video').error") is None
    page.execute_script("document.getElementById('viewer-video').pause()")
    shoot(page, "video")
    el(page, "#viewer-close").click()
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")


def create_folder(page, name, parent_label=None, password=None):
    sidebar(page)
    el(page, "#new-folder-button").click()
    wait(page, lambda: shown(page, "#folder-dialog"), 5, "the new-folder dialog")
    type_into(page, "#folder-name", name)
    if parent_label:
        page.execute_script(
            "const s = document.getElementById('folder-parent');"
            "s.value = [...s.options].find(o => o.textContent.trim() === arguments[0]).value;", parent_label)
    if password:
        el(page, "#folder-protect").click()
        type_into(page, "#folder-password", password)
        type_into(page, "#folder-password-confirm", password)
    el(page, "#folder-submit").click()
    wait(page, lambda: not shown(page, "#folder-dialog"), 15, f"folder {name} to be created")
    close_sidebar(page)


FIND_FOLDER = ("const b = [...document.querySelectorAll('.folder-item')]"
               ".find(b => b.querySelector('.nav-label').textContent === arguments[0]);")


def folder_info(page, name):
    """{label, locked} of the folder's sidebar entry, or None (read in one go: the list re-renders)."""
    return page.execute_script(
        FIND_FOLDER + "return b ? {label: b.getAttribute('aria-label'), locked: b.classList.contains('locked')} : null",
        name)


def click_folder(page, name):
    assert page.execute_script(FIND_FOLDER + "if (b) b.click(); return !!b;", name), f"no folder {name}"


def unlock_folder(page, name, password):
    click_folder(page, name)
    wait(page, lambda: shown(page, "#folder-unlock-dialog"), 5, "the folder password dialog")
    type_into(page, "#folder-unlock-password", password)
    el(page, "#folder-unlock-submit").click()


def test_folders_create_protect_move_lock_unlock(page):
    create_folder(page, "Trips")
    wait(page, lambda: folder_info(page, "Trips") is not None, 5, "Trips in the sidebar")
    create_folder(page, "Secret", parent_label="Trips", password=FOLDER_PASSWORD)
    wait(page, lambda: folder_info(page, "Secret") is not None, 5, "Secret in the sidebar")
    assert "Trips/Secret" in folder_info(page, "Secret")["label"]
    if folder_info(page, "Secret")["locked"]:
        unlock_folder(page, "Secret", FOLDER_PASSWORD)
        wait(page, lambda: text(page, "#view-title") == "Trips › Secret", UNLOCK_WAIT, "the unlocked folder")
        show_view(page, "all")
        wait(page, lambda: text(page, "#view-title") == "All photos", 5, "All photos")

    total = item_count(page)
    moved = tile_named(page, "bars.jpg")
    select_tile(page, moved)
    el(page, "#sel-move").click()
    wait(page, lambda: shown(page, "#move-dialog"), 5, "the move dialog")
    page.execute_script(
        "const s = document.getElementById('move-target');"
        "s.value = [...s.options].find(o => o.textContent.trim() === 'Secret').value;")
    el(page, "#move-submit").click()
    wait(page, lambda: not shown(page, "#move-dialog"), 5, "the move dialog to close")

    click_folder(page, "Secret")
    wait(page, lambda: text(page, "#view-title") == "Trips › Secret", 10, "the Secret folder view")
    wait(page, lambda: [t[0] for t in tiles(page)] == [moved], 10, "the moved photo in the folder")
    wait(page, lambda: page.execute_script(
        "const i = document.querySelector('.tile img.thumb'); return !!i && i.complete && i.naturalWidth > 0"),
        10, "its thumbnail")
    shoot(page, "folder")

    el(page, "#folder-lock-button").click()
    wait(page, lambda: text(page, "#view-title") == "All photos", 10, "All photos after locking the folder")
    wait(page, lambda: item_count(page) == total - 1, 10, "the moved photo hidden from All photos")
    assert moved not in [t[0] for t in tiles(page)]
    assert folder_info(page, "Secret")["locked"]

    unlock_folder(page, "Secret", "wrong folder password")
    wait(page, lambda: shown(page, "#folder-unlock-error"), UNLOCK_WAIT, "a wrong folder password error")
    assert text(page, "#folder-unlock-error") == "Wrong folder password."
    # Folder passwords meet the server-wide delay too: this wrong one started it.
    assert "Try again in" in el(page, "#folder-unlock-submit").text
    type_into(page, "#folder-unlock-password", FOLDER_PASSWORD)
    wait(page, lambda: el(page, "#folder-unlock-submit").is_enabled(), 20, "the folder delay to run out")
    assert text(page, "#folder-unlock-error") == "The wait is over. You can try again now."
    el(page, "#folder-unlock-submit").click()
    wait(page, lambda: text(page, "#view-title") == "Trips › Secret", UNLOCK_WAIT, "the folder after unlocking")
    wait(page, lambda: [t[0] for t in tiles(page)] == [moved], 10, "the photo back in view")
    # The folder's wait ended while it was open; the dialog said so (point 13).
    # Issue 16, point 8: unlocked, the folder still keeps its photo inside: All photos
    # and Favourites never mix it in.
    show_view(page, "all")
    wait(page, lambda: text(page, "#view-title") == "All photos" and item_count(page) == total - 1, 10,
         "All photos without the open folder's photo")
    assert moved not in [t[0] for t in tiles(page)]


def test_a_folder_that_is_not_empty_says_so_before_asking(page):
    """Issue 16, bug 4: deleting a folder that holds items or folders used to ask for
    confirmation and then fail; now it says at once that the folder must be empty. An
    empty folder is asked about, then deleted."""
    for name, title, held in (("Secret", "Trips › Secret", "1 item"), ("Trips", "Trips", "1 folder")):
        click_folder(page, name)
        wait(page, lambda: text(page, "#view-title") == title, 10, f"the {name} folder")
        page.execute_script("document.getElementById('toast').hidden = true")
        el(page, "#folder-delete-button").click()
        wait(page, lambda: shown(page, "#toast"), 5, "a message")
        assert not shown(page, "#confirm-dialog"), f"{name}: asked before saying it must be empty"
        assert held in text(page, "#toast") and "empty" in text(page, "#toast"), text(page, "#toast")
    show_view(page, "all")
    wait(page, lambda: text(page, "#view-title") == "All photos", 5, "All photos")
    create_folder(page, "Empty for now")  # at the top level: no folder is open
    click_folder(page, "Empty for now")
    wait(page, lambda: text(page, "#view-title") == "Empty for now", 10, "the empty folder")
    el(page, "#folder-delete-button").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    el(page, "#confirm-submit").click()
    wait(page, lambda: folder_info(page, "Empty for now") is None, 10, "the empty folder gone")
    show_view(page, "all")
    wait(page, lambda: text(page, "#view-title") == "All photos", 5, "All photos")


def test_hidden_tab_drops_folder_keys(page, server):
    assert not folder_info(page, "Secret")["locked"]
    click_folder(page, "Secret")
    wait(page, lambda: text(page, "#view-title") == "Trips › Secret" and item_count(page) == 1, 10, "the open folder")
    gallery = page.current_window_handle
    page.switch_to.new_window("tab")  # the gallery tab is now hidden
    try:
        def secret_locked():  # the gallery's keepalive POST may land a moment later
            page.get(server.url + "/api/folders")
            folders = json.loads(page.find_element(By.TAG_NAME, "body").text)["folders"]
            return next(f for f in folders if f["path"] == "Trips/Secret")["unlocked"] is False
        wait(page, secret_locked, 5, "the server to drop the folder key while the gallery is hidden")
    finally:
        page.close()
        page.switch_to.window(gallery)
    wait(page, lambda: folder_info(page, "Secret")["locked"], 10, "the sidebar to show Secret locked")
    wait(page, lambda: text(page, "#view-title") == "All photos", 10, "All photos once the open folder locked")
    assert "#/folder/" not in page.execute_script("return location.hash")
    assert not page.execute_script("return document.body.classList.contains('obscured')")


def location_hash(page):
    return page.execute_script("return location.hash")


def open_tile(page, tile_id):
    page.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-open`).click()", tile_id)
    wait(page, lambda: shown(page, "#viewer"), 5, "the viewer")


def test_addresses_back_and_reload(page):
    """Issue 16, point 6: every view and open item has an address; Back closes the
    viewer or returns to the previous view without leaving the app; a reload, and an
    unlock after a lock, come back to the same place."""
    show_view(page, "all")
    wait(page, lambda: item_count(page) > 2, 10, "All photos")
    first, second = [t[0] for t in tiles(page)][:2]
    open_tile(page, first)
    assert location_hash(page) == "#/item/" + first
    name = text(page, "#viewer-name")
    press(page, Keys.ARROW_RIGHT)
    wait(page, lambda: text(page, "#viewer-name") != name, 5, "the next item")
    # Stepping rewrites the address rather than stacking one entry per photo.
    assert location_hash(page) == "#/item/" + second
    page.back()
    wait(page, lambda: not shown(page, "#viewer"), 5, "Back to close the viewer")
    assert shown(page, "#app-view") and text(page, "#view-title") == "All photos"
    assert location_hash(page) in ("", "#/")
    page.forward()
    wait(page, lambda: shown(page, "#viewer") and location_hash(page) == "#/item/" + second, 5, "Forward to reopen it")
    second_name = text(page, "#viewer-name")
    page.refresh()
    wait(page, lambda: shown(page, "#viewer") and text(page, "#viewer-name") == second_name, 15,
         "the same item open after a reload")
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#viewer") and location_hash(page) in ("", "#/"), 5, "Esc to close it")

    click_folder(page, "Trips")
    wait(page, lambda: text(page, "#view-title") == "Trips", 10, "the Trips folder")
    trips = location_hash(page)
    assert re.fullmatch(r"#/folder/[0-9a-f-]{36}", trips), trips
    show_view(page, "favorites")
    assert location_hash(page) == "#/favorites"
    page.back()
    wait(page, lambda: text(page, "#view-title") == "Trips", 5, "Back to the folder")
    page.back()
    wait(page, lambda: text(page, "#view-title") == "All photos", 5, "Back to All photos")
    assert shown(page, "#app-view")

    # Locked, then reloaded: unlocking comes back to the folder.
    page.forward()
    wait(page, lambda: text(page, "#view-title") == "Trips", 5, "Forward to the folder")
    el(page, "#lock-button").click()
    wait(page, lambda: shown(page, "#unlock-view"), 10, "the unlock page")
    page.refresh()
    wait(page, lambda: shown(page, "#unlock-view") and not shown(page, "#boot"), 10, "the unlock page after a reload")
    unlock(page)
    wait(page, lambda: text(page, "#view-title") == "Trips" and location_hash(page) == trips, 10,
         "the folder again after unlocking")
    # An address naming nothing of this vault gives way to All photos.
    page.execute_script("location.hash = '#/folder/00000000-0000-0000-0000-000000000000'")
    wait(page, lambda: text(page, "#view-title") == "All photos" and location_hash(page) == "#/", 5,
         "an unknown folder's address to fall back to All photos")


def test_folders_rename_move_and_new_folder_while_moving(page):
    """Issue 16, point 11: a folder can be renamed and moved (with what it holds); the
    move dialog starts at the top level and can make a folder on the spot."""
    click_folder(page, "Trips")
    wait(page, lambda: text(page, "#view-title") == "Trips", 10, "the Trips folder")
    el(page, "#folder-rename-button").click()
    wait(page, lambda: shown(page, "#rename-dialog"), 5, "the rename dialog")
    assert el(page, "#rename-name").get_attribute("value") == "Trips"
    type_into(page, "#rename-name", "Journeys")
    el(page, "#rename-submit").click()
    wait(page, lambda: text(page, "#view-title") == "Journeys" and folder_info(page, "Trips") is None, 10,
         "the folder renamed")
    shoot(page, "folder-renamed")

    show_view(page, "all")
    create_folder(page, "Archive")
    wait(page, lambda: folder_info(page, "Archive") is not None, 5, "Archive in the sidebar")
    click_folder(page, "Journeys")
    wait(page, lambda: text(page, "#view-title") == "Journeys", 10, "the Journeys folder")
    el(page, "#folder-move-button").click()
    wait(page, lambda: shown(page, "#move-dialog"), 5, "the move dialog")
    offered = page.execute_script("return [...document.getElementById('move-target').options].map(o => o.textContent.trim())")
    # Not into itself, nor below itself, nor into a protected folder.
    assert offered == ["No folder (top level)", "Archive"], offered
    page.execute_script(
        "const s = document.getElementById('move-target');"
        "s.value = [...s.options].find(o => o.textContent.trim() === 'Archive').value;")
    el(page, "#move-submit").click()
    wait(page, lambda: text(page, "#view-title") == "Archive › Journeys", 10, "the folder moved into Archive")
    assert "Archive/Journeys/Secret" in folder_info(page, "Secret")["label"]

    show_view(page, "all")
    # The view's button turns current before its grid is fetched and drawn; on a loaded
    # machine the folder's tiles can still be the ones on screen.
    wait(page, lambda: any(t[1] == "photo" for t in tiles(page)), 10, "the photos of All")
    photo = next(t[0] for t in tiles(page) if t[1] == "photo")
    select_tile(page, photo)
    el(page, "#sel-move").click()
    wait(page, lambda: shown(page, "#move-dialog"), 5, "the move dialog")
    assert el(page, "#move-target").get_attribute("value") == "", "the move dialog starts at the top level"
    el(page, "#move-new-folder").click()
    wait(page, lambda: shown(page, "#folder-dialog"), 5, "the new-folder dialog over the move dialog")
    type_into(page, "#folder-name", "Fresh")
    el(page, "#folder-submit").click()
    wait(page, lambda: not shown(page, "#folder-dialog"), 10, "the new folder made")
    assert shown(page, "#move-dialog")
    chosen = lambda: page.execute_script(
        "const s = document.getElementById('move-target'); return s.options[s.selectedIndex].textContent.trim()")
    wait(page, lambda: chosen() == "Fresh", 5, lambda: f"the new folder chosen (chosen: {chosen()})")
    el(page, "#move-submit").click()
    wait(page, lambda: folder_info(page, "Fresh") is not None and "1 item" in folder_info(page, "Fresh")["label"], 10,
         "the photo moved into the new folder")


def test_settings_then_auto_lock_then_unlock_again(page):
    count = item_count(page)
    el(page, "#settings-button").click()
    wait(page, lambda: shown(page, "#settings-dialog"), 5, "the settings dialog")
    wait(page, lambda: page.execute_script("return !!document.querySelector('input[name=autolock]:checked')"),
         5, "the current auto-lock setting")
    shoot(page, "settings")
    page.execute_script("document.querySelector('input[name=autolock][value=\"1\"]').click()")
    wait(page, lambda: text(page, "#autolock-status").startswith("Saved"), 5, "the setting to save")
    press(page, Keys.ESCAPE)
    started = time.monotonic()
    # one "minute" is STORY_MINUTE_SECONDS here (--auto-lock-unit-seconds)
    wait(page, lambda: shown(page, "#unlock-view"), STORY_MINUTE_SECONDS + 30, "auto-lock to bring back the unlock page")
    assert time.monotonic() - started > 1.0
    assert "locked itself" in text(page, "#unlock-notice")
    assert page.execute_script("return document.querySelectorAll('.tile').length") == 0
    unlock(page)
    wait(page, lambda: item_count(page) == count, 10, "the same items after unlocking again")
    # Issue 16, point 15: the keyboard starts on the first photo after unlocking.
    wait(page, lambda: page.execute_script(
        "return document.activeElement?.classList.contains('tile-open') && document.activeElement.dataset.index === '0'"),
        5, lambda: f"focus on the first tile, not {page.execute_script('return document.activeElement?.outerHTML.slice(0, 80)')}")
    el(page, "#settings-button").click()
    wait(page, lambda: shown(page, "#settings-dialog"), 5, "the settings dialog")
    # The status still says "Saved" from the first change: clear it, so the wait below
    # sees this save and not that one (a one-minute auto-lock would not wait for us).
    page.execute_script("document.querySelector('#autolock-status').textContent = ''")
    page.execute_script("document.querySelector('input[name=autolock][value=\"5\"]').click()")
    wait(page, lambda: text(page, "#autolock-status").startswith("Saved"), 5, "auto-lock back to 5")
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#settings-dialog"), 5, "the settings dialog to close")


def test_export_downloads_an_obscura_file(page, story_dir):
    el(page, "#settings-button").click()
    wait(page, lambda: shown(page, "#settings-dialog"), 5, "the settings dialog")
    el(page, "#export-prepare").click()
    wait(page, lambda: shown(page, "#export-password"), 10, "a generated export password")
    assert re.fullmatch(r"[0-9A-Z]{5}(-[0-9A-Z]{5}){3}", text(page, "#export-password")), text(page, "#export-password")
    SECRETS_SEEN.append(text(page, "#export-password"))
    gallery = page.current_url
    el(page, "#export-download").click()
    downloads = story_dir / "downloads"

    def exported():
        assert page.current_url == gallery, (  # an error answer replaces the page
            f"the export form led to {page.current_url}: {page.find_element(By.TAG_NAME, 'body').text[:200]}")
        files = list(downloads.glob("obscura-*.obscura")) if downloads.exists() else []
        return files and files[0].stat().st_size > 0 and not list(downloads.glob("*.crdownload"))
    wait(page, exported, 30, f"an obscura-*.obscura file in {downloads}")


def test_no_csp_violations_or_script_errors(page):
    problems = [entry["message"] for entry in page.get_log("browser")
                if "Content Security Policy" in entry["message"] or "Uncaught" in entry["message"]]
    assert problems == []


def test_no_secret_in_the_server_log(page, server, story_dir):
    """The server ran at trace level: nothing it said holds a password, the session
    cookie, the CSRF token or a key's text, in any spelling a log or a URL would use."""
    cookie = next(c["value"] for c in page.get_cookies() if c["name"].startswith("obscura_"))
    csrf = page.execute_script(
        "return await fetch('/api/session').then(r => r.json()).then(s => s.csrf)")
    keys = [(story_dir / name).read_text().strip() for name in ("outer.key", "decoy.key")]
    assert all(key.startswith(("OUTER-", "DECOY-")) for key in keys)
    # The key texts, and their bodies alone (a log might drop the kind word).
    keys += [key.split("-", 1)[1] for key in keys]
    secrets = [PASSWORD, FOLDER_PASSWORD, cookie, csrf, server.token] + SECRETS_SEEN + keys
    assert len(SECRETS_SEEN) == 1, "the export test did not record its password"
    # The banner is the one line meant to carry the access token (to the terminal).
    log = "\n".join(line for line in server.log if BANNER not in line)
    assert "obscura" in log.lower(), "the server said nothing at trace level"
    for secret in secrets:
        for form in {secret, urllib.parse.quote(secret), urllib.parse.quote_plus(secret), secret.replace("-", "")}:
            assert form not in log, f"a secret ({secret[:3]}...) appears in the server log"
