"""Search hits in many months (issue 40, point 20): the timeline's layout gave each hit
its own month heading and row, so a dozen hits needed a dozen screens of scrolling.
During a search the grid groups by year and packs the hits into full rows."""

import base64
import shutil
import subprocess

from conftest import FIXTURES, chromium, serving
from test_gallery import create_first_vault, shown, wait
from test_nested_folders import call

MONTHS = 8


def dated_copies(tmp_path):
    """MONTHS copies of a JPEG, each with its own capture month of 2024 (and so its own bytes)."""
    out = []
    for month in range(1, MONTHS + 1):
        path = tmp_path / f"harbour-{month:02d}.jpg"
        shutil.copy(FIXTURES / "gradient.jpg", path)
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-DateTimeOriginal=2024:{month:02d}:15 12:00:00", str(path)],
                       check=True)
        out.append(path)
    return out


def headings(driver):
    return driver.execute_script("return [...document.querySelectorAll('.grid-month')].map((h) => h.textContent)")


def canvas_height(driver):
    return driver.execute_script("return document.getElementById('grid-canvas').getBoundingClientRect().height")


def test_search_hits_in_many_months_fit_on_a_screen(tmp_path):
    # Real minutes: the uploads through the API are not the user's actions, and must
    # not leave the auto-lock to end the test.
    with serving(tmp_path, auto_lock_unit_seconds=60) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        for path in dated_copies(tmp_path):
            data = base64.b64encode(path.read_bytes()).decode()
            answer = call(driver, """
                const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
                return api.uploadFile(new File([bytes], arguments[1], {type: 'image/jpeg'}), null, () => {}).promise;""",
                data, path.name)
            assert "error" not in answer, answer
        driver.execute_script("document.getElementById('search-text').value = 'harbour';"
                              "document.getElementById('search-form').requestSubmit();")
        # Every hit on the first screen: the grid draws only the rows in view.
        wait(driver, lambda: driver.execute_script("return document.querySelectorAll('.tile').length") == MONTHS, 15,
             lambda: f"every hit on screen; headings {headings(driver)}, canvas {canvas_height(driver)} px")
        assert headings(driver) == ["2024"], headings(driver)
        viewport = driver.execute_script("return document.getElementById('grid-scroller').clientHeight")
        assert canvas_height(driver) <= viewport, (canvas_height(driver), viewport)

        # Without the search, the timeline keeps a heading per month, taller than a screen.
        searched = canvas_height(driver)
        driver.execute_script("document.getElementById('search-clear').click()")
        wait(driver, lambda: headings(driver)[:2] == ["August 2024", "July 2024"], 15, lambda: str(headings(driver)))
        assert canvas_height(driver) > max(viewport, searched), (canvas_height(driver), viewport, searched)
        assert shown(driver, "#grid-canvas")
