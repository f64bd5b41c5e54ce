"""Issue 19, item 1 in the browser: notes. A note is written in the gallery, its Markdown
shown safely (no raw HTML, no remote image, only http(s) and mailto links), edited, given
a photo, found by a word of its body, listed in the journal by day, exported with the
vault and read back from the export by the command line. One vault of its own, at
desktop size."""

import os
import subprocess

import pytest
from selenium.webdriver.common.by import By

from conftest import FIXTURES, OBSCURA_BIN, chromium, serving, shoot
from selenium.webdriver.common.keys import Keys

from test_gallery import (PASSWORD, close_uploads, create_first_vault, el, item_count, press, search_for, select_tile, shown,
                          text, tiles, type_into, wait)

BODY = """# Harvest day

Picked **walnuts** and *quinces* by the river.

- basket one
- basket two

<img src="https://evil.example/track.png" onerror="window.pwned = 1">
![remote](https://evil.example/pixel.png)
[bad link](javascript:window.pwned=2) and [the farm](https://example.org/farm)
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notes")
    with serving(folder, auto_lock_unit_seconds=60) as server, chromium(folder) as page:
        create_first_vault(page, server.link)
        el(page, "#file-input").send_keys(str(FIXTURES / "gradient.jpg"))
        wait(page, lambda: item_count(page) == 1, 30, "the photo imported")
        close_uploads(page)
        yield folder, page


@pytest.fixture(scope="module")
def page(served):
    return served[1]


def note_id(page):
    return page.execute_script(
        "return fetch('/api/items?kind=note', {credentials: 'same-origin'}).then(r => r.json()).then(p => p.items[0].id)")


def write_note(page, title, body):
    type_into(page, "#note-edit-title", title)
    # The body through the field's value (send_keys types slowly and a textarea keeps it all).
    page.execute_script("document.getElementById('note-edit-body').value = arguments[0]", body)
    el(page, "#note-edit-submit").click()
    wait(page, lambda: not shown(page, "#note-edit-dialog") and shown(page, "#note-dialog"), 10,
         lambda: "the note saved: " + text(page, "#note-edit-error"))


def test_a_note_is_written_and_its_markdown_shown_safely(page):
    el(page, "#notes-button").click()
    wait(page, lambda: shown(page, "#journal-dialog"), 5, "the journal")
    assert shown(page, "#journal-empty")
    el(page, "#journal-new").click()
    wait(page, lambda: shown(page, "#note-edit-dialog"), 5, "the note editor")
    write_note(page, "", BODY)

    assert text(page, "#note-title") == "Harvest day", "the title is the first line"
    body = el(page, "#note-body")
    assert [e.text for e in body.find_elements(By.CSS_SELECTOR, "strong")] == ["walnuts"]
    assert [e.text for e in body.find_elements(By.CSS_SELECTOR, "em")] == ["quinces"]
    assert len(body.find_elements(By.CSS_SELECTOR, "ul > li")) == 2
    assert body.find_elements(By.CSS_SELECTOR, "img") == [], "no image, remote or raw"
    assert '<img src="https://evil.example/track.png"' in body.text, "raw HTML is shown as text"
    links = body.find_elements(By.CSS_SELECTOR, "a")
    assert [a.get_attribute("href") for a in links] == ["https://example.org/farm"], "only the http(s) link is a link"
    assert links[0].get_attribute("rel") == "noopener noreferrer"
    assert page.execute_script("return window.pwned === undefined")
    shoot(page, "note")


def test_the_note_and_its_editor_pass_axe(page):
    from test_accessibility import audit  # axe-core, as the other screens are checked
    report = audit(page, "note-view")
    el(page, "#note-edit-button").click()
    wait(page, lambda: shown(page, "#note-edit-dialog"), 5, "the editor")
    report += audit(page, "note-editor")
    page.find_element(By.CSS_SELECTOR, "#note-edit-dialog [data-close]").click()
    wait(page, lambda: not shown(page, "#note-edit-dialog"), 5, "the editor to close")
    assert not report, "\n" + report


def test_a_note_is_edited_and_given_a_photo(page):
    el(page, "#note-edit-button").click()
    wait(page, lambda: shown(page, "#note-edit-dialog"), 5, "the editor on the note")
    assert page.execute_script("return document.getElementById('note-edit-body').value").startswith("# Harvest day")
    write_note(page, "Harvest", "Picked **medlars** today.\n")
    wait(page, lambda: text(page, "#note-title") == "Harvest" and "medlars" in text(page, "#note-body"), 5, "the edit shown")

    el(page, "#note-attach-button").click()
    wait(page, lambda: shown(page, "#note-attach-dialog"), 10, "the photo picker")
    boxes = page.find_elements(By.CSS_SELECTOR, "#note-attach-list input[type=checkbox]")
    assert len(boxes) == 1
    boxes[0].click()
    el(page, "#note-attach-submit").click()
    wait(page, lambda: not shown(page, "#note-attach-dialog"), 5, "the picker to close")
    wait(page, lambda: page.execute_script(
        "const i = document.querySelector('#note-attachments img'); return !!i && i.complete && i.naturalWidth > 0"),
        10, "the attached photo's thumbnail in the note")
    shoot(page, "note-with-photo")
    page.find_element(By.CSS_SELECTOR, "#note-dialog [data-close]").click()
    wait(page, lambda: not shown(page, "#note-dialog"), 5, "the note to close")
    wait(page, lambda: page.execute_script("return document.getElementById('note-body').textContent") == "", 5,
         "a closed note's text to leave the page")


def test_a_note_is_found_by_its_text_and_listed_in_the_journal(page):
    wait(page, lambda: item_count(page) == 2, 10, "the note in the grid")
    search_for(page, text="medlars")
    wait(page, lambda: item_count(page) == 1 and tiles(page)[0][1] == "note", 10, lambda: f"the note found: {tiles(page)}")
    page.execute_script("document.querySelector('.tile[data-kind=note] .tile-open').click()")
    wait(page, lambda: shown(page, "#note-dialog") and text(page, "#note-title") == "Harvest", 10, "the note from the grid")
    page.find_element(By.CSS_SELECTOR, "#note-dialog [data-close]").click()
    search_for(page, text="walnuts")
    wait(page, lambda: shown(page, "#empty-state"), 10, "the old text no longer found")
    el(page, "#search-clear").click()

    el(page, "#notes-button").click()
    wait(page, lambda: shown(page, "#journal-dialog"), 5, "the journal")
    assert [h.get_attribute("textContent") for h in page.find_elements(By.CSS_SELECTOR, "#journal-list .journal-day h3")] == ["Today"]
    entry = el(page, "#journal-list .journal-note")
    assert "Harvest" in entry.text and "medlars" in entry.text
    shoot(page, "journal")
    entry.click()
    wait(page, lambda: shown(page, "#note-dialog") and text(page, "#note-title") == "Harvest", 10, "the note from the journal")
    page.find_element(By.CSS_SELECTOR, "#note-dialog [data-close]").click()


def test_an_export_carries_the_note_to_another_directory(served, tmp_path):
    folder, page = served
    identifier = note_id(page)
    el(page, "#settings-button").click()
    wait(page, lambda: shown(page, "#settings-dialog"), 5, "the settings dialog")
    el(page, "#export-prepare").click()
    wait(page, lambda: shown(page, "#export-password"), 10, "a generated export password")
    password = text(page, "#export-password")
    el(page, "#export-download").click()
    downloads = folder / "downloads"
    wait(page, lambda: list(downloads.glob("obscura-*.obscura")) and not list(downloads.glob("*.crdownload")), 30,
         "the export downloaded")
    export = next(downloads.glob("obscura-*.obscura"))

    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), OBSCURA_OUTER_KEY_FILE=str(tmp_path / "outer.key"),
               OBSCURA_DECOY_SECRET_FILE=str(tmp_path / "decoy.key"))
    run = lambda args, stdin="": subprocess.run([OBSCURA_BIN, "--vault", str(tmp_path / "vault")] + args, input=stdin,
                                                capture_output=True, text=True, env=env, timeout=120)
    assert run(["init", "--test-kdf-iterations", "1000"]).returncode == 0
    imported = run(["import", "--password-stdin", str(export)], password + "\n")
    assert imported.returncode == 0, imported.stderr
    body = run(["note", "cat", "--password-stdin", identifier], PASSWORD + "\n")
    assert body.returncode == 0 and body.stdout == "Picked **medlars** today.\n", body.stderr


def test_a_note_of_one_view_is_shown_once_and_gone_when_closed(page):
    """A note given an end of one view (issue 19, item 2) opens in its own view through a
    counted view, and closing it deletes it for good."""
    # The export test before leaves the settings dialog open.
    page.execute_script("document.querySelectorAll('dialog[open]').forEach(d => d.close())")
    el(page, "#notes-button").click()
    wait(page, lambda: shown(page, "#journal-dialog"), 5, "the journal")
    el(page, "#journal-new").click()
    wait(page, lambda: shown(page, "#note-edit-dialog"), 5, "the note editor")
    write_note(page, "Read once", "Burn after **reading**.")
    page.find_element(By.CSS_SELECTOR, "#note-dialog [data-close]").click()
    wait(page, lambda: not shown(page, "#note-dialog"), 5, "the note closed")
    identifier = page.execute_script(
        "return fetch('/api/items?kind=note', {credentials: 'same-origin'}).then(r => r.json())"
        ".then(p => p.items.find(i => i.name === 'Read once').id)")
    wait(page, lambda: page.execute_script(f"return !!document.querySelector(\".tile[data-id='{identifier}']\")"), 10,
         "the note's tile")
    select_tile(page, identifier)
    wait(page, lambda: shown(page, "#sel-end"), 5, "the selection bar's End")
    el(page, "#sel-end").click()
    wait(page, lambda: shown(page, "#end-dialog"), 5, "the end dialog")
    el(page, "#end-views").send_keys("1")
    el(page, "#end-submit").click()
    wait(page, lambda: not shown(page, "#end-dialog"), 5, "the dialog to close")
    el(page, "body").send_keys(Keys.ESCAPE)

    page.execute_script("document.querySelector(`.tile[data-id='${arguments[0]}'] .tile-open`).click()", identifier)
    wait(page, lambda: shown(page, "#note-dialog") and "reading" in text(page, "#note-body"), 10,
         lambda: "the note in its counted view: " + text(page, "#toast"))
    page.find_element(By.CSS_SELECTOR, "#note-dialog [data-close]").click()
    status = f"return fetch('/api/items/{identifier}', {{credentials: 'same-origin'}}).then(r => r.status)"
    wait(page, lambda: page.execute_script(status) in (404, 410), 10, "the note deleted once closed")


def test_the_viewer_steps_over_notes(page):
    """Notes open in their own view: ← and → in the photo viewer pass over them (it showed
    a note as a generic file). Here the notes are newer than the one photo, so ← from the
    photo finds no photo before it and stays."""
    page.execute_script("location.hash = ''")
    wait(page, lambda: page.execute_script("return document.querySelectorAll(\".tile[data-kind='note']\").length") > 0, 10,
         "the notes' tiles")
    indexes = page.execute_script(
        "const of = (kind) => [...document.querySelectorAll(`.tile[data-kind='${kind}'] .tile-open`)].map(b => Number(b.dataset.index));"
        "return { photos: of('photo'), notes: of('note') };")
    assert len(indexes["photos"]) == 1 and min(indexes["notes"]) < indexes["photos"][0], indexes
    page.execute_script("document.querySelector(`.tile-open[data-index='${arguments[0]}']`).click()", indexes["photos"][0])
    wait(page, lambda: shown(page, "#viewer"), 5, "the viewer")
    name = text(page, "#viewer-name")
    press(page, Keys.ARROW_LEFT)
    page.execute_script("return new Promise((done) => setTimeout(done, 800))")
    assert text(page, "#viewer-name") == name
    assert page.execute_script("return document.getElementById('viewer').dataset.kind") == "photo"
    press(page, Keys.ESCAPE)
    wait(page, lambda: not shown(page, "#viewer"), 5, "the viewer closed")


def test_a_hostile_note_renders_in_one_pass(page):
    """A note may come from a drop (anyone with the drop code), so its Markdown renders in
    time linear in its length: a megabyte of '[' (the regex renderer took about an hour),
    of '>' (it overflowed the stack), of '*a' and of '# ' with spaces each renders in well
    under the bound, and a quote nested past eight levels shows the rest as text."""
    results = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/app/markdown.js').then(({ renderMarkdown }) => {
          const mega = (unit) => unit.repeat(Math.ceil((1 << 20) / unit.length));
          const times = {};
          for (const [name, body] of [['brackets', mega('[')], ['quotes', mega('>')], ['stars', mega('*a')],
                                      ['links', mega('[a](')], ['heading', '# ' + mega(' ') + 'x']]) {
            const start = performance.now();
            renderMarkdown(body);
            times[name] = performance.now() - start;
          }
          const box = document.createElement('div');
          box.append(renderMarkdown('>'.repeat(12) + ' deep'));
          done({ times, depth: box.querySelectorAll('blockquote').length, text: box.textContent });
        }).catch((e) => done({ error: String(e) }));""")
    assert "error" not in results, results
    slow = {name: ms for name, ms in results["times"].items() if ms > 10_000}
    assert slow == {}, f"renders that took over 10 s: {slow}"
    assert results["depth"] == 9 and results["text"] == ">>> deep", results


def test_no_csp_violations_or_script_errors(page):
    problems = [entry["message"] for entry in page.get_log("browser")
                if "Content Security Policy" in entry["message"] or "Uncaught" in entry["message"]]
    assert problems == []
