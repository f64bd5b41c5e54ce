"""Issue 19, item 2 in the browser: items that end. An item given an end of one view shows
no thumbnail, is shown once by the viewer (which says it is its last view), and is gone
when the viewer closes; an item whose time comes while the vault is locked is gone at the
next unlock; the selection bar gives several items an end at once. One vault of its own,
at desktop size."""

import time

import pytest

from conftest import FIXTURES, chromium, serving, shoot
from test_gallery import (close_uploads, create_first_vault, el, item_count, select_tile, shown, text, tile_named,
                          tiles, unlock, wait)

# Seconds until the second item's end: long enough to lock the vault first on a busy machine.
END_IN = 15


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A page unlocked on a new vault holding three photos."""
    folder = tmp_path_factory.mktemp("ends")
    with serving(folder, auto_lock_unit_seconds=60) as server, chromium(folder) as page:
        create_first_vault(page, server.link)
        el(page, "#file-input").send_keys("\n".join(str(FIXTURES / name) for name in ("gradient.jpg", "gradient.png", "gradient.webp")))
        wait(page, lambda: item_count(page) == 3, 30, "the photos imported")
        close_uploads(page)
        yield page


def open_tile(page, name):
    tile = tile_named(page, name)
    page.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-open`).click()", tile)
    wait(page, lambda: shown(page, "#viewer"), 5, "the viewer")
    return tile


def close_viewer(page):
    el(page, "#viewer-close").click()
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer to close")


def preview_loaded(page):
    return page.execute_script("const i = document.getElementById('viewer-image');"
                               " return !i.hidden && i.complete && i.naturalWidth > 0")


def test_an_item_that_ends_after_one_view_is_gone_when_the_viewer_closes(page):
    tile = open_tile(page, "gradient.jpg")
    wait(page, lambda: preview_loaded(page), 15, "the photo, before it has an end")
    el(page, "#viewer-end").click()
    wait(page, lambda: shown(page, "#end-dialog"), 5, "the end dialog")
    el(page, "#end-views").send_keys("1")
    el(page, "#end-submit").click()
    wait(page, lambda: not shown(page, "#end-dialog"), 5, "the dialog to close")
    close_viewer(page)

    # In the grid: no thumbnail, a badge with the views left.
    badge = f".tile[data-id='{tile}'] .tile-end"
    wait(page, lambda: page.execute_script(f"return document.querySelector(\"{badge}\")?.textContent") == "1", 5,
         lambda: "the end's badge on the tile: " + page.execute_script(
             f"return document.querySelector(\".tile[data-id='{tile}']\")?.outerHTML + ' ' + "
             f"document.getElementById('toast').textContent"))
    assert page.execute_script(f"return document.querySelector(\".tile[data-id='{tile}'] img.thumb\")") is None

    # The one view: shown, and said to be the last.
    open_tile(page, "gradient.jpg")
    wait(page, lambda: preview_loaded(page), 15, "the photo in its counted view")
    assert text(page, "#viewer-ending").startswith("Last view"), text(page, "#viewer-ending")
    assert not shown(page, "#viewer-download")
    shoot(page, "ends-last-view")
    close_viewer(page)
    wait(page, lambda: item_count(page) == 2, 10, "the item gone once the viewer closed")
    assert [name for _, _, name in tiles(page) if "gradient.jpg" in name] == []
    # Gone on the server too, not only from the page.
    status = page.execute_script(
        "return fetch('/api/items/' + arguments[0], {credentials: 'same-origin'}).then(r => r.status)", tile)
    assert status == 404


def test_an_item_whose_time_passed_while_locked_is_gone_at_unlock(page):
    tile = tile_named(page, "gradient.png")
    # The page offers an hour and more; the API takes any time, as the command line does.
    answer = page.execute_script(
        "return fetch('/api/session', {credentials: 'same-origin'}).then(r => r.json()).then(s =>"
        " fetch('/api/items/end', {method: 'POST', credentials: 'same-origin',"
        " headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf},"
        " body: JSON.stringify({ids: [arguments[0]], in: arguments[1]})})).then(r => r.status)", tile, END_IN)
    assert answer == 200
    set_at = time.time()
    el(page, "#lock-button").click()
    wait(page, lambda: shown(page, "#unlock-view"), 10, "the unlock page")
    assert time.time() - set_at < END_IN - 2, "locked before the end came"
    time.sleep(max(0, set_at + END_IN + 1 - time.time()))
    unlock(page)
    wait(page, lambda: item_count(page) == 1, 10, lambda: f"the item gone at unlock: {text(page, '#view-count')!r}")
    assert [name for _, _, name in tiles(page) if "gradient.png" in name] == []


def test_the_selection_bar_gives_an_end(page):
    tile = tile_named(page, "gradient.webp")
    select_tile(page, tile)
    wait(page, lambda: shown(page, "#sel-end"), 5, "the selection bar's End")
    el(page, "#sel-end").click()
    wait(page, lambda: shown(page, "#end-dialog"), 5, "the end dialog")
    el(page, "#end-views").send_keys("3")
    el(page, "#end-submit").click()
    badge = f".tile[data-id='{tile}'] .tile-end"
    wait(page, lambda: page.execute_script(f"return document.querySelector(\"{badge}\")?.textContent") == "3", 10,
         "three views left on the tile")
    assert not shown(page, "#selection-bar")
