"""Back with a dialog open closes the dialog and leaves the page behind it as it was
(issue 40, point 20: it changed the view behind the dialog)."""

from test_gallery import create_first_vault, el, press, shown, text, wait
from conftest import chromium, serving


def test_back_closes_the_dialog_and_keeps_the_view(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        el(driver, "#library-list .nav-item[data-view='favorites']").click()
        wait(driver, lambda: text(driver, "#view-title") == "Favourites", 10, "Favourites")
        el(driver, "#library-list .nav-item[data-view='trash']").click()
        wait(driver, lambda: text(driver, "#view-title") == "Trash", 10, "the Trash")

        driver.execute_script("document.activeElement?.blur()")
        press(driver, "?")
        wait(driver, lambda: shown(driver, "#shortcuts-dialog"), 5, "a dialog")
        driver.back()
        wait(driver, lambda: not shown(driver, "#shortcuts-dialog"), 5, "the dialog closed by Back")
        assert text(driver, "#view-title") == "Trash", text(driver, "#view-title")
        assert driver.execute_script("return location.hash") == "#/trash"
        assert "token" not in driver.current_url

        # Without a dialog, Back goes back as before.
        driver.back()
        wait(driver, lambda: text(driver, "#view-title") == "Favourites", 10, "Back to Favourites")
