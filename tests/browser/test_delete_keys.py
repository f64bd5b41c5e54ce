"""Deleting and selecting from the keyboard, and undoing a delete (issue 40, point 15):
Delete in the grid and in the viewer (which has a Delete button too), Ctrl+A selects the
items rather than the page's text, "Moved ... to the trash" offers Undo, and ? lists the
shortcuts."""

import base64

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import FIXTURES, chromium, serving
from test_gallery import create_first_vault, el, item_count, press, shown, text, wait
from test_nested_folders import call

PHOTOS = ("gradient.jpg", "camera-orientation6.jpg", "gradient.png")


def upload(driver, name):
    data = base64.b64encode((FIXTURES / name).read_bytes()).decode()
    answer = call(driver, """
        const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
        return api.uploadFile(new File([bytes], arguments[1]), null, () => {}).promise;""", data, name)
    assert "error" not in answer, answer


def toast(driver):
    return driver.execute_script("return document.getElementById('toast').hidden ? '' : document.getElementById('toast').textContent")


def confirm(driver):
    wait(driver, lambda: shown(driver, "#confirm-dialog"), 5, "the confirmation")
    el(driver, "#confirm-submit").click()


def undo(driver):
    wait(driver, lambda: shown(driver, "#toast .toast-action"), 5, lambda: "an Undo in: " + toast(driver))
    el(driver, "#toast .toast-action").click()


def test_delete_select_all_undo_and_the_shortcuts_list(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        for name in PHOTOS:
            upload(driver, name)
        driver.refresh()
        wait(driver, lambda: item_count(driver) == 3, 15, "three photos")
        driver.execute_script("document.activeElement?.blur()")

        # Ctrl+A: the three items, not the page's text.
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
        wait(driver, lambda: text(driver, "#selection-count") == "3 selected", 5,
             lambda: "a selection of three, not: " + text(driver, "#selection-count"))
        assert driver.execute_script("return String(window.getSelection())") == ""

        # Delete: confirmed, to the trash, and undone.
        press(driver, Keys.DELETE)
        confirm(driver)
        wait(driver, lambda: item_count(driver) == 0, 10, "the grid emptied")
        assert "Moved 3 items to the trash" in toast(driver)
        undo(driver)
        wait(driver, lambda: item_count(driver) == 3, 10, "the three photos back")
        wait(driver, lambda: "Restored 3 items" in toast(driver), 5, "the restore said")

        # ? lists the shortcuts.
        driver.execute_script("document.activeElement?.blur()")
        press(driver, "?")
        wait(driver, lambda: shown(driver, "#shortcuts-dialog"), 5, "the shortcuts")
        assert "Ctrl+A" in text(driver, "#shortcuts-dialog")
        press(driver, Keys.ESCAPE)
        wait(driver, lambda: not shown(driver, "#shortcuts-dialog"), 5, "the shortcuts closed")

        # The viewer: a Delete button, and the Delete key; it goes on to the next photo.
        el(driver, ".tile .tile-open").click()
        wait(driver, lambda: shown(driver, "#viewer"), 10, "the viewer")
        assert shown(driver, "#viewer-delete")
        first = text(driver, "#viewer-name")
        press(driver, Keys.DELETE)
        confirm(driver)
        wait(driver, lambda: shown(driver, "#viewer") and text(driver, "#viewer-name") != first, 10,
             "the next photo in the viewer")
        assert item_count(driver) == 2
        assert f"Moved {first} to the trash" in toast(driver)
        undo(driver)
        wait(driver, lambda: item_count(driver) == 3, 10, "the photo back")
        el(driver, "#viewer-delete").click()
        confirm(driver)
        wait(driver, lambda: item_count(driver) == 2, 10, "a photo deleted with the button")
