"""Nested folders (issue 40, point 17): a path makes the parents it lacks, and a parent
shows the folders inside it rather than "This folder is empty"."""

import base64

from conftest import FIXTURES, chromium, serving, shoot
from test_gallery import create_first_vault, el, shown, text, wait


def call(driver, script, *args):
    """Runs SCRIPT with `api` (the page's api.js) in scope; returns what it resolves, or
    {"error": status} when it fails."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/app/api.js').then(api => (async () => {" + script + "})())"
        ".then(done, (e) => done({error: e.status, message: e.message}));", *args)


def test_a_parent_shows_its_folders_and_their_counts(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        made = call(driver, "return api.post('/api/folders', {path: 'Trips/2024'});")
        assert "error" not in made, made
        jpeg = base64.b64encode((FIXTURES / "gradient.jpg").read_bytes()).decode()
        uploaded = call(driver, """
            const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
            const file = new File([bytes], 'beach.jpg', {type: 'image/jpeg'});
            return api.uploadFile(file, arguments[1], () => {}).promise;""", jpeg, made["id"])
        assert "error" not in uploaded, uploaded

        driver.refresh()
        wait(driver, lambda: shown(driver, "#app-view"), 15, "the gallery")
        trips = wait(driver, lambda: driver.execute_script(
            "return [...document.querySelectorAll('#folder-list .folder-item')]"
            ".find((b) => b.getAttribute('aria-label').startsWith('Trips,'))"), 10, "Trips in the sidebar")
        trips.click()
        wait(driver, lambda: text(driver, "#view-title") == "Trips", 10, "the Trips folder")
        wait(driver, lambda: shown(driver, "#subfolders"), 10, "the folders inside Trips")
        inside = el(driver, "#subfolders .subfolder")
        assert inside.get_attribute("aria-label") == "2024, 1 item", inside.get_attribute("aria-label")
        wait(driver, lambda: shown(driver, "#empty-state"), 10, "the empty state")
        assert text(driver, "#empty-title") == "No photos directly in this folder", text(driver, "#empty-title")
        assert "1 folder" in text(driver, "#empty-text")
        shoot(driver, "folder-with-subfolders")

        inside.click()
        wait(driver, lambda: text(driver, "#view-title") == "Trips › 2024", 10, "the 2024 folder")
        wait(driver, lambda: driver.execute_script("return document.querySelectorAll('.tile').length") == 1, 10,
             "its one photo")
        assert not shown(driver, "#subfolders")
