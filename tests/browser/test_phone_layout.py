"""The gallery at phone size (390x844, issue 40, point 16): the viewer's name is not
squeezed beside its tools and its date line stays one line, the selection bar stays
inside the screen, and the year rail has room of its own beside the tiles."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import chromium, serving, shoot
from test_delete_keys import PHOTOS, upload
from test_gallery import create_first_vault, el, item_count, shown, wait


def rect(driver, css):
    return driver.execute_script("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                                 "return {left: r.left, right: r.right, width: r.width, height: r.height};", css)


def test_the_phone_layout_keeps_everything_on_screen(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        driver.set_window_size(390, 844)
        create_first_vault(driver, server.link)
        for name in PHOTOS:
            upload(driver, name)
        driver.refresh()
        wait(driver, lambda: item_count(driver) == 3, 15, "three photos")
        width = driver.execute_script("return window.innerWidth")

        # The year rail's column is the grid's right padding: no tile under it.
        assert rect(driver, "#grid-canvas")["right"] <= width - 44, (rect(driver, "#grid-canvas"), width)

        # Every item selected: the bar and its buttons stay on the screen.
        driver.execute_script("document.activeElement?.blur()")
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
        wait(driver, lambda: shown(driver, "#selection-bar"), 5, "the selection bar")
        bar = rect(driver, "#selection-bar")
        assert bar["right"] <= width and bar["left"] >= 0, (bar, width)
        assert rect(driver, "#sel-clear")["right"] <= width
        shoot(driver, "phone-selection")
        el(driver, "#sel-clear").click()

        # The viewer: the name has the row's width, the date line one line.
        el(driver, ".tile .tile-open").click()
        wait(driver, lambda: shown(driver, "#viewer"), 10, "the viewer")
        wait(driver, lambda: driver.execute_script("return document.getElementById('viewer-date').textContent") != "",
             10, "the date line")
        name, date = rect(driver, "#viewer-name"), rect(driver, "#viewer-date")
        assert name["width"] >= width * 0.6, (name, width)
        line = driver.execute_script("return parseFloat(getComputedStyle(document.getElementById('viewer-date')).lineHeight)")
        assert date["height"] <= line * 1.5, (date, line)
        shoot(driver, "phone-viewer")
