"""The note's photo picker and the drop page's file picker look like the rest of the
page (issue 40, point 20: both were unstyled)."""

from conftest import chromium, serving, shoot
from test_gallery import create_first_vault, wait


def test_the_pickers_have_the_pages_look(tmp_path):
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        # A picker entry as notes.js builds it: the tick on the picture's corner, and a
        # ticked entry framed in the accent colour.
        style = driver.execute_script("""
            const label = document.createElement('label');
            label.className = 'note-pick';
            const box = document.createElement('input');
            box.type = 'checkbox';
            box.checked = true;
            label.append(box);
            document.getElementById('note-attach-list').append(label);
            const s = {tick: getComputedStyle(box).position, frame: getComputedStyle(label).borderTopColor,
                       accent: getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()};
            label.remove();
            return s;""")
        assert style["tick"] == "absolute", style
        assert style["frame"] != "rgba(0, 0, 0, 0)", style

        driver.get(server.url + "/drop")
        wait(driver, lambda: driver.execute_script("return !!document.getElementById('drop-files')"), 10, "the drop page")
        button = driver.execute_script(
            "const s = getComputedStyle(document.getElementById('drop-files'), '::file-selector-button');"
            "return {radius: s.borderTopLeftRadius, height: s.height};")
        assert button == {"radius": "6px", "height": "36px"}, button
        shoot(driver, "drop-page-picker")
