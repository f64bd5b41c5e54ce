"""A Markdown file uploaded in the gallery becomes a note (issue 40, point 20), as a
dropped one does; a file that is not UTF-8 stays a file."""

from conftest import chromium, serving
from test_gallery import create_first_vault, el, item_count, wait


def test_an_uploaded_markdown_file_is_a_note(tmp_path):
    note = tmp_path / "Shopping list.md"
    note.write_text("# Saturday\n\n- bread\n- tulips\n", encoding="utf-8")
    binary = tmp_path / "not-text.md"
    binary.write_bytes(b"\xff\xfe\x00 not utf-8 \xc3")
    with serving(tmp_path) as server, chromium(tmp_path) as driver:
        create_first_vault(driver, server.link)
        el(driver, "#file-input").send_keys(f"{note}\n{binary}")
        wait(driver, lambda: item_count(driver) == 2, 20, "both files in the grid")
        kinds = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/app/api.js').then(api => api.get('/api/items'))"
            ".then((a) => done(a.items.map((i) => [i.name, i.kind])), (e) => done(String(e)));")
        assert sorted(kinds) == [["Shopping list", "note"], ["not-text.md", "file"]], kinds
