#!/usr/bin/env python3
"""The gallery grid on a 100,000-item vault in headless Chromium: how many
thumbnails load at first paint and after scrolling, how many tiles the DOM
holds, how long the first thumbnails take, and frame times while scrolling.

Not a test (pytest does not collect it): scripts/bench-gallery runs it on the
vault that `obscura-bench gallery WORKDIR` built, and docs/BENCHMARKS.md
records what it prints.

    python3 tests/browser/bench_grid.py WORKDIR [--obscura BIN] [--screens 20]
"""

import argparse
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

REPO = pathlib.Path(__file__).resolve().parents[2]
BANNER = "Obscura gallery: "
PASSWORD = "gallery bench"  # GalleryBench.password in Sources/obscura-bench/GalleryBench.swift
WIDTH, HEIGHT = 1280, 800

# Counts what the page has asked for and shown so far. Resource timing keeps 250
# entries unless told otherwise: far fewer than a long scroll makes.
PROBE = """
performance.setResourceTimingBufferSize(1000000);
window.__bench = { rendered: new Set() };
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) {
    if (n.querySelectorAll) for (const b of n.querySelectorAll('.tile-open')) window.__bench.rendered.add(b.dataset.index);
  }
}).observe(document.getElementById('grid-canvas'), { childList: true, subtree: true });
"""

STATE = """
const t0 = window.__bench.t0 ?? 0;
const thumbs = performance.getEntriesByType('resource').filter((e) => e.name.includes('/thumbnail'));
const pages = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/items?'));
const unlock = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/unlock'));
const imgs = [...document.querySelectorAll('#grid-canvas img.thumb')];
const inView = imgs.filter((i) => { const r = i.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; });
return {
  viewport: innerWidth + 'x' + innerHeight,
  count: document.getElementById('view-count').textContent,
  tiles: document.querySelectorAll('.tile').length,
  tilesInView: inView.length,
  imgsLoaded: imgs.filter((i) => i.complete && i.naturalWidth > 0).length,
  inViewLoaded: inView.filter((i) => i.complete && i.naturalWidth > 0).length,
  thumbRequests: thumbs.length,
  distinctThumbs: new Set(thumbs.map((e) => e.name)).size,
  firstThumbMs: thumbs.length ? Math.min(...thumbs.map((e) => e.responseEnd)) - t0 : null,
  lastThumbMs: thumbs.length ? Math.max(...thumbs.map((e) => e.responseEnd)) - t0 : null,
  pageRequests: pages.length,
  firstPageMs: pages.length ? pages[0].responseEnd - pages[0].startTime : null,
  unlockMs: unlock.length ? unlock[0].responseEnd - unlock[0].startTime : null,
  rendered: window.__bench.rendered.size,
};
"""

# Scrolls the grid by `step` pixels an animation frame for `screens` screens and
# returns the frame-to-frame times (ms) seen meanwhile.
SCROLL = """
const [screens, step, done] = arguments;
const scroller = document.getElementById('grid-scroller');
const target = scroller.scrollTop + screens * scroller.clientHeight;
const deltas = [];
let last = performance.now();
function frame(now) {
  deltas.push(now - last);
  last = now;
  if (scroller.scrollTop >= target || scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight) {
    done(deltas);
    return;
  }
  scroller.scrollTop = Math.min(target, scroller.scrollTop + step);
  requestAnimationFrame(frame);
}
requestAnimationFrame((now) => { last = now; requestAnimationFrame(frame); });
"""


def start_server(binary, workdir):
    env = dict(os.environ, XDG_CONFIG_HOME=str(workdir / "config"))
    process = subprocess.Popen([binary, "--vault", str(workdir / "vault"), "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               env=env, text=True, bufsize=1)
    found = queue.Queue()

    def drain():  # keeps the pipe empty for the server's whole life
        for line in process.stdout:
            if BANNER in line:
                found.put(line.split(BANNER, 1)[1].strip())

    threading.Thread(target=drain, daemon=True).start()
    try:
        return process, found.get(timeout=60)
    except queue.Empty:
        process.kill()
        sys.exit(f"bench_grid: {binary} printed no '{BANNER}URL' line")


def start_browser():
    options = Options()  # as tests/browser/conftest.py, at the benchmark's viewport
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={WIDTH},{HEIGHT}", "--lang=en-GB", "--hide-scrollbars"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(120)
    # The window size includes no browser chrome in headless mode, but pin the viewport anyway.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return driver


def wait(driver, condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    sys.exit(f"bench_grid: timed out after {timeout} s waiting for {what}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", type=pathlib.Path, help="WORKDIR of `obscura-bench gallery`")
    parser.add_argument("--obscura", default=os.environ.get("OBSCURA_BIN", str(REPO / ".build" / "release" / "obscura")))
    parser.add_argument("--screens", type=int, default=20)
    parser.add_argument("--step", type=int, default=40, help="pixels scrolled per animation frame")
    args = parser.parse_args()
    if not (args.workdir / "vault-ready").exists():
        sys.exit(f"bench_grid: no benchmark vault in {args.workdir}: run `obscura-bench gallery {args.workdir}` first")

    server, url = start_server(args.obscura, args.workdir)
    driver = start_browser()
    try:
        driver.get(url)  # the printed link: the page trades its token for a session
        state = lambda: driver.execute_script(STATE)  # noqa: E731
        wait(driver, lambda: driver.execute_script("return !document.getElementById('unlock-view').hidden"), 15, "the unlock page")
        driver.execute_script(PROBE)
        driver.find_element("id", "unlock-password").send_keys(PASSWORD)
        # The clock starts at the click, taken inside the page.
        driver.execute_script("window.__bench.t0 = performance.now(); document.getElementById('unlock-submit').click();")

        def first_screen_loaded():
            s = state()
            return s if s["tilesInView"] > 0 and s["inViewLoaded"] == s["tilesInView"] else None

        wait(driver, first_screen_loaded, 60, "the first screen of thumbnails")
        time.sleep(1.0)  # let thumbnails of the rows just off screen arrive too
        first = state()
        print(f"grid benchmark: {args.obscura}, viewport {first['viewport']}, Chromium headless")
        print(f"  items in the catalog (view count)            {first['count']}")
        print(f"  unlock request (10 slots, catalog load)      {first['unlockMs']:8.1f} ms")
        print(f"  first page request (/api/items, browser)     {first['firstPageMs']:8.1f} ms")
        print(f"  first thumbnail arrived, after the click      {first['firstThumbMs']:8.1f} ms")
        print(f"  first screen's thumbnails all arrived         {first['lastThumbMs']:8.1f} ms")
        print(f"  at first paint: tiles on screen {first['tilesInView']}, tiles in the DOM {first['tiles']}, "
              f"thumbnail requests {first['thumbRequests']}, pages fetched {first['pageRequests']}")

        deltas = driver.execute_async_script(SCROLL, args.screens, args.step)
        stopped = time.monotonic()
        # The screen where the scroll stopped: its page of items and its thumbnails.
        wait(driver, first_screen_loaded, 120, "the grid to fill after scrolling")
        filled = (time.monotonic() - stopped) * 1000
        time.sleep(1.0)
        after = state()
        steady = sorted(deltas[1:]) or [0]
        mean = sum(steady) / len(steady)
        print(f"  after scrolling {args.screens} screens ({args.step} px a frame, {len(deltas)} frames):")
        print(f"    tiles ever rendered {after['rendered']}, tiles in the DOM now {after['tiles']}, "
              f"thumbnail requests {after['thumbRequests']} ({after['distinctThumbs']} distinct), "
              f"pages fetched {after['pageRequests']}")
        print(f"    grid filled again (items and thumbnails on screen) {filled:.0f} ms after the scroll stopped")
        print(f"    frame time: mean {mean:.1f} ms, median {steady[len(steady) // 2]:.1f} ms, "
              f"worst {steady[-1]:.1f} ms, frames over 50 ms: {sum(1 for d in steady if d > 50)}")
    finally:
        driver.quit()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
