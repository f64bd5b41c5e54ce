"""Issue 17 in the browser: a camera roll's own files. A DNG shows its embedded preview
as thumbnail and in the viewer; a photo's GPS position becomes a place in its details,
and the search finds it by that place; an HEVC clip plays its rendition; a Live Photo is
one item whose motion plays in the viewer. One vault of its own, at desktop size."""

import pathlib
import struct
import subprocess
import sys
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains

from conftest import chromium, serving, shoot

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import live_photo_samples as live_photo  # noqa: E402 (after its path)
from test_gallery import (close_uploads, create_first_vault, el, item_count, search_for, select_tile, show_view, shown,
                          text, tile_named, tiles, wait)


def tiff_ifd(entries, at):
    """One little-endian TIFF directory placed at offset AT, its values longer than four
    bytes right after it. ENTRIES: {tag: (type, values)}, type 1 BYTE, 2 ASCII, 3 SHORT,
    4 LONG."""
    formats = {1: "B", 2: "B", 3: "H", 4: "I"}
    extra_at = at + 2 + 12 * len(entries) + 4
    body, extra = b"", b""
    for tag in sorted(entries):
        kind, values = entries[tag]
        raw = struct.pack("<%d%s" % (len(values), formats[kind]), *values)
        if len(raw) <= 4:
            field = raw.ljust(4, b"\0")
        else:
            field = struct.pack("<I", extra_at + len(extra))
            extra += raw + (b"\0" if len(raw) % 2 else b"")
        body += struct.pack("<HHI", tag, kind, len(values)) + field
    return struct.pack("<H", len(entries)) + body + struct.pack("<I", 0) + extra


def dng(preview, width=64, height=48, date="2021:05:06 07:08:09"):
    """A DNG as Adobe's converter lays one out, small: IFD0 the sensor data (a colour filter
    array of zeros) with the DNG tags, a SubIFD holding PREVIEW (a JPEG), an Exif IFD with
    the capture date. Offsets are worked out in two passes (sizes do not depend on them)."""
    sensor = bytes(width * height * 2)
    ascii_ = lambda s: (2, list(s.encode() + b"\0"))

    def directories(sub_at, exif_at, sensor_at, preview_at):
        ifd0 = {0x00FE: (4, [0]), 0x0100: (4, [width]), 0x0101: (4, [height]), 0x0102: (3, [16]), 0x0103: (3, [1]),
                0x0106: (3, [32803]), 0x010F: ascii_("Obscura"), 0x0110: ascii_("Test DNG"), 0x0111: (4, [sensor_at]),
                0x0112: (3, [1]), 0x0115: (3, [1]), 0x0116: (4, [height]), 0x0117: (4, [len(sensor)]),
                0x014A: (4, [sub_at]), 0x828D: (3, [2, 2]), 0x828E: (1, [0, 1, 1, 2]), 0x8769: (4, [exif_at]),
                0xC612: (1, [1, 4, 0, 0]), 0xC614: ascii_("Obscura Test DNG")}
        sub = {0x00FE: (4, [1]), 0x0102: (3, [8, 8, 8]), 0x0103: (3, [7]), 0x0106: (3, [6]), 0x0111: (4, [preview_at]),
               0x0115: (3, [3]), 0x0117: (4, [len(preview)])}
        exif = {0x9003: ascii_(date)}
        first = tiff_ifd(ifd0, 8)
        second = tiff_ifd(sub, 8 + len(first))
        third = tiff_ifd(exif, 8 + len(first) + len(second))
        return first, second, third

    a, b, c = directories(0, 0, 0, 0)
    sub_at, exif_at = 8 + len(a), 8 + len(a) + len(b)
    sensor_at = exif_at + len(c)
    a, b, c = directories(sub_at, exif_at, sensor_at, sensor_at + len(sensor))
    return b"II*\x00" + struct.pack("<I", 8) + a + b + c + sensor + preview


def gps_segment(latitude, longitude):
    """An APP1 "Exif" segment holding only a GPS IFD with the position, to 1/10,000 s."""
    def rationals(degrees):
        value = abs(degrees)
        whole = int(value)
        minutes = int((value - whole) * 60)
        seconds = round(((value - whole) * 60 - minutes) * 60 * 10000)
        return [whole, 1, minutes, 1, seconds, 10000]
    tiff = b"II*\x00" + struct.pack("<I", 8)
    tiff += struct.pack("<H", 1) + struct.pack("<HHII", 0x8825, 4, 1, 26) + struct.pack("<I", 0)
    tiff += struct.pack("<H", 4)
    tiff += struct.pack("<HHI", 0x0001, 2, 2) + (b"S" if latitude < 0 else b"N") + b"\0\0\0"
    tiff += struct.pack("<HHII", 0x0002, 5, 3, 80)
    tiff += struct.pack("<HHI", 0x0003, 2, 2) + (b"W" if longitude < 0 else b"E") + b"\0\0\0"
    tiff += struct.pack("<HHII", 0x0004, 5, 3, 104)
    tiff += struct.pack("<I", 0)
    tiff += struct.pack("<6I", *rationals(latitude)) + struct.pack("<6I", *rationals(longitude))
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def jpeg(width, height, colour):
    return subprocess.run(["/usr/bin/convert", "-size", f"{width}x{height}", f"xc:{colour}", "jpg:-"],
                          check=True, capture_output=True).stdout


@pytest.fixture(scope="module")
def roll(tmp_path_factory):
    """A page unlocked on a new vault of its own."""
    folder = tmp_path_factory.mktemp("camera-roll")
    # Real minutes: a clip's import and conversion, on a loaded machine, may take longer
    # than the gallery suite's two-second "minutes" of auto-lock (its own tests cover that).
    with serving(folder, auto_lock_unit_seconds=60) as server, chromium(folder) as page:
        create_first_vault(page, server.link)
        page.roll_dir = folder
        yield page


def centre_colour(page, css):
    """[r, g, b] at the centre of the image CSS, read through a canvas."""
    return page.execute_script("""
        const img = document.querySelector(arguments[0]);
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        return [...g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data].slice(0, 3);""", css)


def test_a_dng_shows_its_embedded_preview(roll):
    path = roll.roll_dir / "IMG_1234.DNG"
    path.write_bytes(dng(jpeg(320, 240, "#d02020")))
    el(roll, "#file-input").send_keys(str(path))
    wait(roll, lambda: item_count(roll) == 1, 30, "the DNG imported")
    close_uploads(roll)
    tile = tile_named(roll, "IMG_1234.DNG")
    assert [t[1] for t in tiles(roll) if t[0] == tile] == ["photo"]
    thumb = f".tile[data-id='{tile}'] img.thumb"
    wait(roll, lambda: roll.execute_script(f"const i = document.querySelector(\"{thumb}\"); return !!i && i.complete && i.naturalWidth > 0"),
         15, "the DNG's thumbnail")
    r, g, b = centre_colour(roll, thumb)
    assert r > 150 and g < 90 and b < 90, ("the preview's red", r, g, b)
    item = roll.execute_script("return fetch('/api/items/' + arguments[0]).then(r => r.json())", tile)
    assert item["mimeType"] == "image/x-adobe-dng" and (item["width"], item["height"]) == (64, 48)
    roll.execute_script(f"document.querySelector(\".tile[data-id='{tile}'] .tile-open\").click()")
    wait(roll, lambda: shown(roll, "#viewer-image") and roll.execute_script(
        "const i = document.getElementById('viewer-image'); return i.complete && i.naturalWidth > 0"), 15, "the preview")
    r, g, b = centre_colour(roll, "#viewer-image")
    assert r > 150 and g < 90 and b < 90, ("the viewer's red", r, g, b)
    assert "2021" in text(roll, "#viewer-date")
    shoot(roll, "viewer-dng")
    el(roll, "#viewer-close").click()
    wait(roll, lambda: not shown(roll, "#viewer"), 5, "the viewer closed")


def test_a_photos_place_is_shown_and_searched(roll):
    base = jpeg(200, 150, "#2050c0")
    for name, (lat, lon) in {"lyon.jpg": (45.7640, 4.8357), "sydney.jpg": (-33.8688, 151.2093)}.items():
        (roll.roll_dir / name).write_bytes(base[:2] + gps_segment(lat, lon) + base[2:] + name.encode())
    before = item_count(roll)
    el(roll, "#file-input").send_keys("\n".join(str(roll.roll_dir / n) for n in ("lyon.jpg", "sydney.jpg")))
    wait(roll, lambda: item_count(roll) == before + 2, 30, "the two photos")
    close_uploads(roll)
    search_for(roll, text="lyon")
    wait(roll, lambda: item_count(roll) == 1 and "match" in text(roll, "#view-count"), 10, "one photo taken in Lyon")
    assert [t[2] for t in tiles(roll) if "lyon.jpg" in t[2]], tiles(roll)
    roll.execute_script("document.querySelector('.tile .tile-open').click()")
    wait(roll, lambda: "Lyon, " in text(roll, "#viewer-date") and "France" in text(roll, "#viewer-date"), 10,
         lambda: f"the place in the details: {text(roll, '#viewer-date')!r}")
    el(roll, "#viewer-close").click()
    wait(roll, lambda: not shown(roll, "#viewer"), 5, "the viewer closed")
    search_for(roll, text="australia")
    wait(roll, lambda: item_count(roll) == 1 and "sydney.jpg" in " ".join(t[2] for t in tiles(roll)), 10, "Sydney by its country")
    el(roll, "#search-clear").click()
    wait(roll, lambda: item_count(roll) == before + 2, 10, "every photo again")


def test_an_hevc_clip_plays_its_rendition_and_seeks(roll):
    """A phone's HEVC clip: Chromium here cannot decode H.265, so the viewer plays the
    H.264 rendition made in the background, shows the conversion's progress meanwhile,
    and seeks in it by HTTP Range; the download stays the original."""
    path = roll.roll_dir / "IMG_0042.MOV"
    subprocess.run(["/usr/bin/ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=duration=8:size=640x360:rate=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=8",
                    "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-y", str(path)], check=True)
    before = item_count(roll)
    el(roll, "#file-input").send_keys(str(path))
    wait(roll, lambda: item_count(roll) == before + 1, 180, "the clip imported")
    close_uploads(roll)
    tile = tile_named(roll, "IMG_0042.MOV")
    item = roll.execute_script("return fetch('/api/items/' + arguments[0]).then(r => r.json())", tile)
    assert item["kind"] == "video" and item["rendition"] in ("pending", "ready"), item
    roll.execute_script(f"document.querySelector(\".tile[data-id='{tile}'] .tile-open\").click()")
    wait(roll, lambda: (roll.execute_script("return document.getElementById('viewer-video').getAttribute('src')") or "")
         .endswith("/rendition"), 180, "the rendition in the viewer")
    assert not shown(roll, "#viewer-rendition"), "the progress note is gone once it plays"
    video = "document.getElementById('viewer-video')"
    roll.execute_script(f"const v = {video}; v.muted = true; v.play();")
    wait(roll, lambda: roll.execute_script(f"return {video}.currentTime") > 0.5, 20,
         lambda: "playing: " + str(roll.execute_script(f"const v = {video}; return [v.readyState, v.currentTime, v.error && v.error.code]")))
    size = roll.execute_script(f"const v = {video}; return [v.videoWidth, v.videoHeight, v.duration]")
    assert size[0] == 640 and size[1] == 360 and abs(size[2] - 8) < 0.3, size
    roll.execute_script(f"const v = {video}; v.seekedAt = null; v.addEventListener('seeked', () => v.seekedAt = v.currentTime, {{once: true}}); v.currentTime = 6;")
    wait(roll, lambda: (roll.execute_script(f"return {video}.seekedAt") or 0) >= 5.9, 20, "the seek to 6 s")
    wait(roll, lambda: roll.execute_script(f"return {video}.currentTime") > 6.3, 20, "playing on after the seek")
    shoot(roll, "viewer-hevc-rendition")
    download = roll.execute_script("return document.getElementById('viewer-download').getAttribute('href')")
    assert download.endswith("/original?download=1"), download
    head = roll.execute_script("return fetch(arguments[0]).then(r => [r.headers.get('content-type'), r.headers.get('content-length')])", download)
    assert head == ["video/quicktime", str(path.stat().st_size)], head
    el(roll, "#viewer-close").click()
    wait(roll, lambda: not shown(roll, "#viewer"), 5, "the viewer closed")


def test_the_viewer_restores_a_video_from_the_trash_with_its_rendition(roll):
    """The viewer of a trashed item offers Restore; the clip comes back where it was, its
    rendition still made (a trashed item keeps its files)."""
    show_view(roll, "all")
    clip = tile_named(roll, "IMG_0042.MOV")
    select_tile(roll, clip)
    el(roll, "#sel-delete").click()
    wait(roll, lambda: shown(roll, "#confirm-dialog"), 5, "the confirm dialog")
    el(roll, "#confirm-submit").click()
    wait(roll, lambda: clip not in [t[0] for t in tiles(roll)], 10, "the clip to leave All photos")
    show_view(roll, "trash")
    wait(roll, lambda: clip in [t[0] for t in tiles(roll)], 10, "the clip in the Trash")
    roll.execute_script(f"document.querySelector(\".tile[data-id='{clip}'] .tile-open\").click()")
    wait(roll, lambda: shown(roll, "#viewer-restore"), 10, "Restore in the viewer")
    assert "In the trash: 30 days left" in text(roll, "#viewer-date")
    shoot(roll, "viewer-restore")
    el(roll, "#viewer-restore").click()
    wait(roll, lambda: "Restored IMG_0042.MOV" in text(roll, "#toast"), 10, "the restore confirmed")
    # It was the Trash's only item: the viewer closes itself on the empty Trash.
    wait(roll, lambda: not shown(roll, "#viewer"), 10, "the viewer closed with nothing left to show")
    wait(roll, lambda: shown(roll, "#empty-state") and "trash is empty" in text(roll, "#empty-title"), 10, "the empty Trash")
    show_view(roll, "all")
    wait(roll, lambda: clip in [t[0] for t in tiles(roll)], 10, "the clip back in All photos")
    item = roll.execute_script("return fetch('/api/items/' + arguments[0]).then(r => r.json())", clip)
    assert item["deletedAt"] is None and item["rendition"] == "ready", item


def test_a_live_photo_is_one_item_whose_motion_plays_in_the_viewer(roll):
    """A still and its HEVC motion uploaded one after the other (the motion first) become
    one item: the still's tile with a Live badge, the movie's own tile gone. In the viewer
    the motion plays over the still while the badge is hovered, from its H.264 rendition."""
    identifier = "0B7E5F3C-9A41-4D2E-8C6B-1F2A3B4C5D6E"
    still, movie = roll.roll_dir / "IMG_0100.JPG", roll.roll_dir / "IMG_0100.MOV"
    still.write_bytes(live_photo.still(identifier))
    live_photo.movie(movie, identifier)
    # What a second reader sees in the two files: the same identifier.
    assert live_photo.exiftool("-MakerNotes:MediaGroupUUID", still) == identifier
    assert live_photo.exiftool("-Keys:ContentIdentifier", movie) == identifier

    show_view(roll, "all")
    before = item_count(roll)
    el(roll, "#file-input").send_keys(str(movie))
    wait(roll, lambda: item_count(roll) == before + 1, 120, "the movie imported on its own")
    close_uploads(roll)
    el(roll, "#file-input").send_keys(str(still))
    wait(roll, lambda: any(" IMG_0100.JPG," in t[2] for t in tiles(roll)), 60, "the still's tile")
    close_uploads(roll)
    wait(roll, lambda: item_count(roll) == before + 1, 20, "one item for the two files")
    assert not any(" IMG_0100.MOV," in t[2] for t in tiles(roll)), "the movie's own tile is gone"
    tile = tile_named(roll, "IMG_0100.JPG")
    assert roll.execute_script(f"return document.querySelector(\".tile[data-id='{tile}'] .tile-pair\")?.textContent") == "Live"
    label = [t[2] for t in tiles(roll) if t[0] == tile][0]
    assert label.startswith("Live Photo IMG_0100.JPG"), label
    item = roll.execute_script("return fetch('/api/items/' + arguments[0]).then(r => r.json())", tile)
    assert item["kind"] == "photo" and item["companion"] == {"role": "motion", "name": "IMG_0100.MOV",
                                                             "mimeType": "video/quicktime", "size": movie.stat().st_size}, item
    wait(roll, lambda: roll.execute_script("return fetch('/api/renditions?id=' + arguments[0]).then(r => r.json())", tile)
         .get("state") == "ready", 120, "the motion's rendition")

    roll.execute_script(f"document.querySelector(\".tile[data-id='{tile}'] .tile-open\").click()")
    wait(roll, lambda: shown(roll, "#viewer-live"), 10, "the Live badge in the viewer")
    wait(roll, lambda: roll.execute_script("return document.getElementById('viewer-image').classList.contains('ready')"), 10,
         "the still shown")
    assert not shown(roll, "#viewer-motion")
    ActionChains(roll).move_to_element(el(roll, "#viewer-live")).perform()
    motion = "document.getElementById('viewer-motion')"
    wait(roll, lambda: roll.execute_script(f"return {motion}.currentTime") > 0.3, 30,
         lambda: "the motion playing: " + str(roll.execute_script(
             f"const v = {motion}; return [v.hidden, v.getAttribute('src'), v.readyState, v.currentTime, v.error && v.error.code]")))
    assert roll.execute_script(f"return {motion}.getAttribute('src')").endswith("/motion")
    assert roll.execute_script(f"return [{motion}.videoWidth, {motion}.videoHeight]") == [320, 240]
    shoot(roll, "viewer-live-photo")
    ActionChains(roll).move_to_element(el(roll, "#viewer-name")).perform()
    wait(roll, lambda: not shown(roll, "#viewer-motion"), 10, "back to the still when the pointer leaves")
    # The motion downloads as it was imported; the item's own download is the still.
    companion = roll.execute_script("return document.getElementById('viewer-download-companion').getAttribute('href')")
    assert shown(roll, "#viewer-download-companion") and text(roll, "#viewer-companion-kind") == "MOV"
    head = roll.execute_script("return fetch(arguments[0]).then(r => [r.headers.get('content-type'),"
                               " r.headers.get('content-length'), r.headers.get('content-disposition')])", companion)
    assert head[:2] == ["video/quicktime", str(movie.stat().st_size)] and "IMG_0100.MOV" in head[2], head
    assert roll.execute_script("return document.getElementById('viewer-download').getAttribute('href')").endswith("/original?download=1")
    el(roll, "#viewer-close").click()
    wait(roll, lambda: not shown(roll, "#viewer"), 5, "the viewer closed")


def test_a_raw_and_its_jpeg_are_one_item_with_both_kept(roll):
    """A DNG and the JPEG the camera wrote with it (same name, same capture time), uploaded
    one after the other: one item, the JPEG's, with a RAW badge; the viewer offers the
    RAW's download beside the JPEG's, byte for byte."""
    raw, still = roll.roll_dir / "DSC_0300.DNG", roll.roll_dir / "DSC_0300.JPG"
    raw.write_bytes(dng(jpeg(64, 48, "#ff8800"), date="2022:03:04 05:06:07"))
    still.write_bytes(jpeg(96, 72, "#0088ff"))
    subprocess.run(["/usr/bin/exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2022:03:04 05:06:07", str(still)],
                   check=True)
    show_view(roll, "all")
    before = item_count(roll)
    el(roll, "#file-input").send_keys(str(still))
    wait(roll, lambda: item_count(roll) == before + 1, 60, "the JPEG imported")
    close_uploads(roll)
    tile = tile_named(roll, "DSC_0300.JPG")
    el(roll, "#file-input").send_keys(str(raw))
    wait(roll, lambda: roll.execute_script(f"return document.querySelector(\".tile[data-id='{tile}'] .tile-pair\")?.textContent")
         == "RAW", 60, "the RAW badge once the RAW is in")
    # The upload panel says what the RAW became, not that it was added as an item.
    said = roll.execute_script("""return [...document.querySelectorAll('#upload-list .upload-row')]
        .filter(r => r.querySelector('.upload-name').textContent === 'DSC_0300.DNG')
        .map(r => r.querySelector('.upload-message').textContent)""")
    assert said == ["Added to DSC_0300.JPG as its RAW"], said
    close_uploads(roll)
    assert item_count(roll) == before + 1, "one item for the two files"
    assert not any(" DSC_0300.DNG," in t[2] for t in tiles(roll))
    roll.execute_script(f"document.querySelector(\".tile[data-id='{tile}'] .tile-open\").click()")
    wait(roll, lambda: shown(roll, "#viewer-download-companion"), 10, "the RAW's download")
    assert text(roll, "#viewer-companion-kind") == "DNG" and not shown(roll, "#viewer-live")
    href = roll.execute_script("return document.getElementById('viewer-download-companion').getAttribute('href')")
    body = roll.execute_script("""return fetch(arguments[0]).then(r => r.arrayBuffer())
        .then(b => Array.from(new Uint8Array(b)))""", href)
    assert bytes(body) == raw.read_bytes()
    shoot(roll, "viewer-raw-pair")
    el(roll, "#viewer-close").click()
    wait(roll, lambda: not shown(roll, "#viewer"), 5, "the viewer closed")
