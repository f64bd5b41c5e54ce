"""Every screen of the gallery through axe-core (the copy PyPI's axe-selenium-python
ships), at a desktop size and a phone size, in the light and the dark theme: no
serious or critical violation anywhere, WCAG AA contrast included (issue 16,
point 15). A story in order on a vault of its own (its own server and browser, so
test_gallery.py still meets a fresh directory): each test builds on the one before.
A screenshot of every screen lands in artifacts/screenshots/<screen>-<size>-<scheme>.png."""

import os
import pathlib
import time

import axe_selenium_python
import pytest

from conftest import SCREENSHOTS, chromium, serving, set_scheme
from test_gallery import (PASSWORD, UNLOCK_WAIT, click_folder, create_folder, el, folder_info, item_count, shown,
                          text, tiles, type_into, select_tile, wait)

# The axe-core the installed axe-selenium-python ships (3.1 in its 2.x releases, for
# Python 3.11; 4.x in 3.x, for Python 3.12 and later), or OBSCURA_AXE_JS.
AXE = pathlib.Path(os.environ.get("OBSCURA_AXE_JS") or next(
    pathlib.Path(axe_selenium_python.__file__).parent.rglob("axe.min.js")))
SIZES = {
    "desktop": {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
    "phone": {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True},
}
SCHEMES = ("light", "dark")
BLOCKING = ("serious", "critical")
FOLDER = "Trips"               # plain, stays empty: the empty-folder screen
PRIVATE = "Private"            # protected: the folder unlock dialog
PRIVATE_PASSWORD = "lanterns on the pier"

# axe leaves very short text (a folder's count) "incomplete" as "shortTextContent" (in
# data.missingData in axe 3, data.messageKey in axe 4), whatever its contrast; such a node
# whose colours axe did measure, below the ratio it expected, counts here as the serious
# violation it would be.
RUN_AXE = """
const done = arguments[arguments.length - 1];
const short = (node) => {
  const data = (node.any[0] || {}).data || {};
  return (data.missingData || data.messageKey) === 'shortTextContent' && data.contrastRatio > 0
    && data.contrastRatio < parseFloat(data.expectedContrastRatio);
};
const brief = (rule, nodes, impact) => ({
  id: rule.id, impact: impact || rule.impact, help: rule.help,
  nodes: nodes.map((n) => ({target: n.target, impact: impact || n.impact, summary: impact
    ? (n.any[0] || {}).message + ': ' + JSON.stringify((n.any[0] || {}).data) : n.failureSummary || ''})),
});
axe.run(document).then(
  (results) => done(results.violations.map((v) => brief(v, v.nodes)).concat(results.incomplete
    .filter((v) => v.id === 'color-contrast' && v.nodes.some(short))
    .map((v) => brief(v, v.nodes.filter(short), 'serious')))),
  (error) => done({error: String(error)}));"""


def axe_violations(driver):
    """The serious and critical violations axe finds on the page as it is now."""
    if not driver.execute_script("return typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    found = driver.execute_async_script(RUN_AXE)
    if isinstance(found, dict):
        raise AssertionError(f"axe did not run: {found['error']}")
    blocking = []
    for violation in found:
        nodes = [n for n in violation["nodes"] if (n["impact"] or violation["impact"]) in BLOCKING]
        if nodes:
            blocking.append(dict(violation, nodes=nodes))
    return blocking


def describe(where, violation):
    lines = [f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}"]
    for node in violation["nodes"]:
        summary = " ".join(node["summary"].split())
        lines.append(f"    {' '.join(node['target'])}  [{summary[:220]}]")
    return "\n".join(lines)


def resize(driver, size):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SIZES[size])


def audit(driver, screen, sizes=tuple(SIZES), prepare=None):
    """Runs axe on SCREEN at each size, light then dark, saving a screenshot of each;
    PREPARE (when given) brings the screen back before each run (a toast times out).
    Returns the report of every serious or critical violation ('' when none), and
    leaves the page at desktop size in the light theme."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    report = []
    try:
        for size in sizes:
            resize(driver, size)
            for scheme in SCHEMES:
                set_scheme(driver, scheme)
                if prepare:
                    prepare()
                time.sleep(0.35)  # colour transitions (120-180 ms) settle
                driver.save_screenshot(str(SCREENSHOTS / f"{screen}-{size}-{scheme}.png"))
                report += [describe(f"{screen}-{size}-{scheme}", v) for v in axe_violations(driver)]
    finally:
        resize(driver, "desktop")
        set_scheme(driver, "light")
    return "\n".join(report)


def close_dialog(driver, dialog_id):
    driver.execute_script("document.getElementById(arguments[0]).querySelector('[data-close]').click()", dialog_id)
    wait(driver, lambda: not shown(driver, f"#{dialog_id}"), 5, f"#{dialog_id} to close")


def photo_tile(driver):
    return next(t[0] for t in tiles(driver) if t[1] == "photo")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("obscura-a11y")
    # Real minutes: axe and the screenshots leave the vault unused for a while (the
    # 2-second minutes of test_gallery.py would lock it mid-story).
    with serving(workdir, auto_lock_unit_seconds=60) as server, chromium(workdir) as driver:
        resize(driver, "desktop")
        driver.get(server.link)
        wait(driver, lambda: shown(driver, "#unlock-view") and not shown(driver, "#boot"), 15, "the first page")
        yield driver


def test_create_vault_form(page):
    wait(page, lambda: text(page, "#unlock-title") == "Create a new vault", 5, "the create form")
    report = audit(page, "create")
    type_into(page, "#unlock-password", PASSWORD)
    type_into(page, "#create-confirm", PASSWORD + "x")
    el(page, "#unlock-submit").click()
    wait(page, lambda: shown(page, "#unlock-error"), 5, "the mismatch error")
    report = "\n".join(filter(None, [report, audit(page, "create-error")]))
    assert not report, "\n" + report


def test_unlock_page(page):
    el(page, "#create-toggle").click()
    wait(page, lambda: text(page, "#unlock-title") == "Unlock your vault", 5, "the unlock form")
    report = audit(page, "unlock")
    el(page, "#create-toggle").click()
    wait(page, lambda: shown(page, "#create-confirm"), 5, "the create form again")
    assert not report, "\n" + report


def test_empty_vault(page):
    type_into(page, "#unlock-password", PASSWORD)
    type_into(page, "#create-confirm", PASSWORD)
    el(page, "#unlock-submit").click()
    wait(page, lambda: shown(page, "#app-view") and shown(page, "#empty-state"), UNLOCK_WAIT, "the new vault, empty")
    report = audit(page, "empty-vault")
    assert not report, "\n" + report


def test_upload_panel(page, media):
    files = media["photos"][:4] + [media["video"], media["empty"]]  # one fails: its row says why
    el(page, "#file-input").send_keys("\n".join(str(f) for f in files))
    wait(page, lambda: page.execute_script(
        "return document.querySelectorAll('.upload-row').length === arguments[0] &&"
        " !document.querySelector('.upload-row[data-state=waiting], .upload-row[data-state=uploading]')",
        len(files)), 90, "every upload to finish")
    wait(page, lambda: item_count(page) == len(files) - 1, 15, "the grid to show the new items")
    report = audit(page, "upload")
    el(page, "#upload-close").click()
    assert not report, "\n" + report


def test_grid_with_a_selection(page):
    wait(page, lambda: page.execute_script(
        "const imgs = [...document.querySelectorAll(\".tile[data-kind='photo'] img.thumb\")];"
        "return imgs.length > 0 && imgs.every(i => i.complete && i.naturalWidth > 0);"), 20, "the thumbnails")
    assert page.execute_script("return document.querySelectorAll('.grid-day').length") >= 1
    select_tile(page, photo_tile(page))
    wait(page, lambda: shown(page, "#selection-bar"), 5, "the selection bar")
    report = audit(page, "grid")
    assert not report, "\n" + report


def test_delete_confirm_dialog(page):
    el(page, "#sel-delete").click()
    wait(page, lambda: shown(page, "#confirm-dialog"), 5, "the confirm dialog")
    report = audit(page, "confirm-delete")
    close_dialog(page, "confirm-dialog")
    el(page, "#sel-clear").click()
    assert not report, "\n" + report


def test_new_folder_dialog(page):
    create_folder(page, FOLDER)
    el(page, "#new-folder-button").click()
    wait(page, lambda: shown(page, "#folder-dialog"), 5, "the new-folder dialog")
    type_into(page, "#folder-name", PRIVATE)
    el(page, "#folder-protect").click()
    wait(page, lambda: shown(page, "#folder-password"), 5, "the folder password fields")
    report = audit(page, "new-folder")
    type_into(page, "#folder-password", PRIVATE_PASSWORD)
    type_into(page, "#folder-password-confirm", PRIVATE_PASSWORD)
    el(page, "#folder-submit").click()
    wait(page, lambda: not shown(page, "#folder-dialog"), UNLOCK_WAIT, "the protected folder to be created")
    wait(page, lambda: folder_info(page, PRIVATE) is not None, 5, "the protected folder in the sidebar")
    assert not report, "\n" + report


def test_move_dialog(page):
    select_tile(page, photo_tile(page))
    el(page, "#sel-move").click()
    wait(page, lambda: shown(page, "#move-dialog"), 5, "the move dialog")
    report = audit(page, "move")
    close_dialog(page, "move-dialog")
    el(page, "#sel-clear").click()
    assert not report, "\n" + report


def test_viewer(page):
    page.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-open`).click()",
                        photo_tile(page))
    wait(page, lambda: page.execute_script(
        "const i = document.getElementById('viewer-image'); return i.complete && i.naturalWidth > 0"),
        15, "the preview")
    report = audit(page, "viewer")
    el(page, "#viewer-close").click()
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")
    assert not report, "\n" + report


def test_empty_folder(page):
    click_folder(page, FOLDER)
    wait(page, lambda: text(page, "#view-title") == FOLDER and shown(page, "#empty-state"), 10, "the empty folder")
    report = audit(page, "empty-folder")
    assert not report, "\n" + report


def test_folder_unlock_dialog(page):
    if not folder_info(page, PRIVATE)["locked"]:
        click_folder(page, PRIVATE)
        wait(page, lambda: shown(page, "#folder-lock-button"), 10, "the protected folder, open")
        el(page, "#folder-lock-button").click()
        wait(page, lambda: folder_info(page, PRIVATE)["locked"], 10, "the folder to lock")
    click_folder(page, PRIVATE)
    wait(page, lambda: shown(page, "#folder-unlock-dialog"), 5, "the folder unlock dialog")
    report = audit(page, "folder-unlock")
    close_dialog(page, "folder-unlock-dialog")
    assert not report, "\n" + report


def test_settings_dialog(page):
    el(page, "#settings-button").click()
    wait(page, lambda: shown(page, "#settings-dialog"), 5, "the settings dialog")
    wait(page, lambda: page.execute_script("return !!document.querySelector('input[name=autolock]:checked')"),
         5, "the current auto-lock setting")
    report = audit(page, "settings")
    close_dialog(page, "settings-dialog")
    assert not report, "\n" + report


def test_sidebar_on_a_phone(page):
    def open_sidebar():
        if not page.execute_script("return document.body.classList.contains('sidebar-open')"):
            el(page, "#sidebar-toggle").click()
        wait(page, lambda: shown(page, "#sidebar-scrim"), 5, "the sidebar to open")

    report = audit(page, "sidebar", sizes=("phone",), prepare=open_sidebar)
    page.execute_script("document.getElementById('sidebar-toggle').click()")  # the toggle, hidden at desktop size
    assert not report, "\n" + report


def test_toasts(page):
    # An info toast (a favourite added or removed) and an error toast (a folder that is
    # not empty cannot go): each is brought back before each run, as it times out.
    select_tile(page, photo_tile(page))

    def info():
        page.execute_script("document.getElementById('toast').hidden = true")
        el(page, "#sel-favorite").click()
        wait(page, lambda: shown(page, "#toast") and "favourites" in text(page, "#toast"), 5, "the toast")

    report = audit(page, "toast", prepare=info)
    el(page, "#sel-move").click()  # the photo goes into the empty folder, which then cannot be deleted
    wait(page, lambda: shown(page, "#move-dialog"), 5, "the move dialog")
    page.execute_script(
        "const s = document.getElementById('move-target');"
        "s.value = [...s.options].find(o => o.textContent.trim() === arguments[0]).value;", FOLDER)
    el(page, "#move-submit").click()
    wait(page, lambda: not shown(page, "#move-dialog"), 5, "the move dialog to close")
    click_folder(page, FOLDER)
    wait(page, lambda: text(page, "#view-title") == FOLDER and len(tiles(page)) == 1, 10, "the folder with a photo")

    def error():
        page.execute_script("document.getElementById('toast').hidden = true")
        el(page, "#folder-delete-button").click()
        wait(page, lambda: shown(page, "#toast") and "empty" in text(page, "#toast"), 5, "the error toast")

    report = "\n".join(filter(None, [report, audit(page, "toast-error", prepare=error)]))
    assert not report, "\n" + report
