#!/usr/bin/env python3
"""Real screenshots of the gallery read by the product's OCR path (issue 38, step 3):
headless Chromium (the browser suite's own set-up, tests/browser/conftest.py) walks a
fresh vault through a few screens, each taken in light and dark; for each, the words the
page shows in the viewport (from the DOM, the truth) are looked for in what
`obscura-indexer` reads from the PNG and in what `tesseract stdin stdout` reads, in the
same run. Prints one table row per screen and the totals; docs/BENCHMARKS.md records it.

    python3 tools/search-spike/gallery_ocr.py [--indexer PATH]   (scripts/bench-ocr runs it)
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "browser"))
sys.path.insert(0, str(REPO / "tools" / "search-spike"))

from conftest import chromium, serving, set_scheme  # noqa: E402
from indexer_client import Indexer  # noqa: E402
from test_gallery import create_first_vault, el, shown, wait  # noqa: E402

# The text of every element whose box lies in the viewport, is rendered and is on top at
# its centre, as the eye sees it: text nodes only, inputs' values and placeholders left out.
VISIBLE_TEXT = """
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  const element = node.parentElement;
  if (!element || !node.textContent.trim()) continue;
  const style = getComputedStyle(element);
  if (style.visibility !== 'visible' || Number(style.opacity) < 0.5) continue;
  const range = document.createRange();
  range.selectNodeContents(node);
  const box = range.getBoundingClientRect();
  if (box.width < 1 || box.height < 1 || box.bottom <= 0 || box.right <= 0 || box.top >= innerHeight || box.left >= innerWidth) continue;
  if (element.closest('[hidden], [aria-hidden=true]')) continue;
  // Covered (a dialog's backdrop over the gallery, a panel over the grid): not shown.
  const x = Math.min(innerWidth - 1, Math.max(0, box.left + box.width / 2));
  const y = Math.min(innerHeight - 1, Math.max(0, box.top + box.height / 2));
  const top = document.elementFromPoint(x, y);
  if (!top || !(top === element || element.contains(top) || top.contains(element))) continue;
  out.push(node.textContent);
}
return out.join('\\n');
"""


def words(text):
    """Words of three letters or more, as a search would look for them."""
    return [w for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", text)]


def found(truth, read):
    low = read.casefold()
    ws = words(truth)
    return sum(1 for w in ws if w.casefold() in low), len(ws)


def tool(png):
    out = subprocess.run(["tesseract", "stdin", "stdout", "-l", "eng", "--psm", "3"], input=png,
                         capture_output=True, env=dict(os.environ, OMP_THREAD_LIMIT="1")).stdout
    return out.decode("utf-8", "replace")


def screens(driver, link, media):
    """Yields (name, ) after bringing the page to each screen."""
    driver.get(link)
    wait(driver, lambda: shown(driver, "#create-confirm"), 15, "the create form")
    yield "create"
    create_first_vault(driver, link)
    yield "empty vault"
    el(driver, "#file-input").send_keys("\n".join(str(f) for f in media))
    wait(driver, lambda: driver.execute_script(
        "return !document.querySelector('.upload-row[data-state=waiting], .upload-row[data-state=uploading]')"
        " && document.querySelectorAll('.upload-row').length > 0"), 90, "the uploads")
    time.sleep(1)
    yield "uploads finished"
    el(driver, "#settings-button").click()
    wait(driver, lambda: shown(driver, "#settings-dialog"), 10, "settings")
    yield "settings"
    driver.execute_script("document.getElementById('settings-dialog').close()")
    el(driver, "#notes-button").click()
    time.sleep(1)
    yield "notes"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--indexer", default=str(REPO / ".build" / "debug" / "obscura-indexer"))
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="obscura-gallery-ocr-"))
    media = []
    for name in ("gradient.jpg", "camera-orientation6.jpg", "gradient.png"):
        media.append(REPO / "Tests" / "Fixtures" / name)
    worker = Indexer(args.indexer)
    worker.load("eng")
    rows, totals = [], {"worker": [0, 0], "tool": [0, 0]}
    with serving(work) as server, chromium(work) as driver:
        for name in screens(driver, server.link, media):
            for scheme in ("light", "dark"):
                set_scheme(driver, scheme)
                time.sleep(0.4)
                truth = driver.execute_script(VISIBLE_TEXT)
                png = driver.get_screenshot_as_png()
                status, confidence, text = worker.read(png)
                w_found, total = found(truth, text)
                t_found, _ = found(truth, tool(png))
                totals["worker"][0] += w_found
                totals["tool"][0] += t_found
                totals["worker"][1] += total
                totals["tool"][1] += total
                rows.append((f"{name} ({scheme})", total, w_found, t_found))
            set_scheme(driver, "light")
    diag = worker.diag()
    worker.close()
    print("| screen (1360 × 880) | words shown | found in obscura-indexer's text | found in tesseract's text |")
    print("|---|---|---|---|")
    for name, total, w_found, t_found in rows:
        print(f"| {name} | {total} | {w_found} ({w_found / max(1, total):.0%}) | {t_found} ({t_found / max(1, total):.0%}) |")
    w, t = totals["worker"], totals["tool"]
    print(f"| **all** | {w[1]} | {w[0]} ({w[0] / max(1, w[1]):.0%}) | {t[0]} ({t[0] / max(1, t[1]):.0%}) |")
    print(f"worker peak RSS {int(diag['vmhwm_kib']) // 1024} MiB")


if __name__ == "__main__":
    main()
