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


def folder_label(driver, name):
    return driver.execute_script(
        "const b = [...document.querySelectorAll('#folder-list .folder-item')]"
        ".find((b) => b.getAttribute('aria-label').startsWith(arguments[0] + ','));"
        "return b ? b.getAttribute('aria-label') : '';", name)


def test_a_folders_count_follows_a_delete_in_the_viewer_and_its_undo(tmp_path):
    """Issue 40 point 17: the sidebar's count changed only at the next unlock after a
    delete from the viewer (and its Undo), which did not refresh the folders."""
    from selenium.webdriver.common.keys import Keys
    from test_gallery import press, unlock

    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        made = call(driver, "return api.post('/api/folders', {path: 'Trips'});")
        for name in ("gradient.jpg", "gradient.png"):
            data = base64.b64encode((FIXTURES / name).read_bytes()).decode()
            uploaded = call(driver, """
                const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
                return api.uploadFile(new File([bytes], arguments[2]), arguments[1], () => {}).promise;""",
                data, made["id"], name)
            assert "error" not in uploaded, uploaded
        # Lock and unlock: the sidebar then shows the counts as they are.
        el(driver, "#lock-button").click()
        wait(driver, lambda: shown(driver, "#unlock-password"), 10, "the unlock page")
        unlock(driver)
        wait(driver, lambda: folder_label(driver, "Trips") == "Trips, 2 items", 15, lambda: folder_label(driver, "Trips"))
        driver.execute_script(
            "[...document.querySelectorAll('#folder-list .folder-item')]"
            ".find((b) => b.getAttribute('aria-label').startsWith('Trips,')).click()")
        wait(driver, lambda: driver.execute_script("return document.querySelectorAll('.tile').length") == 2, 10, "two tiles")
        el(driver, ".tile").click()
        wait(driver, lambda: shown(driver, "#viewer"), 10, "the viewer")
        press(driver, Keys.DELETE)
        wait(driver, lambda: shown(driver, "#confirm-dialog"), 5, "the confirmation")
        el(driver, "#confirm-submit").click()
        wait(driver, lambda: folder_label(driver, "Trips") == "Trips, 1 items", 10, lambda: "the count after the delete: " + folder_label(driver, "Trips"))
        wait(driver, lambda: shown(driver, "#toast .toast-action"), 5, "the Undo")
        el(driver, "#toast .toast-action").click()
        wait(driver, lambda: folder_label(driver, "Trips") == "Trips, 2 items", 10,
             lambda: "the count after the Undo: " + folder_label(driver, "Trips"))
