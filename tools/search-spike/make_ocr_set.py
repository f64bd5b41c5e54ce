#!/usr/bin/env python3
"""Renders the OCR measurement set of docs/SEARCH.md §S2: known text on plain, rotated,
skewed, photo-like and screenshot-like backgrounds, in several fonts and sizes.

Writes OUT/ocr/NNN.ppm (binary PPM, what both OCR paths read) and OUT/ocr/truth.json
(the lines of each image, its category, font, size and rotation). Seeded: the same
seed gives the same set. Needs Pillow and numpy; fonts from fonts-dejavu-core,
fonts-liberation2 and fonts-freefont-ttf (Debian).

    python3 make_ocr_set.py [--out DIR] [--per-category N] [--seed S]
"""
import argparse
import json
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
]

# Words a vault's documents hold: IDs, receipts, contracts, messages.
ENGLISH = """passport contract receipt invoice total amount payment account number date birth
name address street city country signature holder expires issued nationality reference
policy insurance doctor appointment password recovery code message meeting tomorrow
evening station ticket flight boarding gate seat bank transfer balance statement
whiteboard project deadline budget review approved rental agreement tenant landlord
deposit monthly license vehicle registration warranty serial model order delivery""".split()
GERMAN = """Rechnung Betrag Straße Größe Führerschein Versicherung Überweisung Kündigung
Mietvertrag Gebühr Bestätigung Geburtsdatum Staatsangehörigkeit Unterschrift Quittung
Mehrwertsteuer Lieferschein Prüfung Zahlungsfrist Bürgeramt""".split()


def token(rng):
    r = rng.random()
    if r < 0.08:
        return f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(1990, 2030)}"
    if r < 0.14:
        return "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(9))
    if r < 0.20:
        return f"{rng.randint(1, 999)}.{rng.randint(0, 99):02d}"
    return rng.choice(ENGLISH)


def lines_for(rng, n, words=(3, 6), german=False):
    out = []
    for _ in range(n):
        ws = [token(rng) for _ in range(rng.randint(*words))]
        if german:
            for i in range(len(ws)):
                if rng.random() < 0.5:
                    ws[i] = rng.choice(GERMAN)
        ws[0] = ws[0][:1].upper() + ws[0][1:]
        out.append(" ".join(ws))
    return out


def photo_background(rng, w, h):
    """Smooth random colour fields, a gradient, blobs and grain: photo-like, not a photo."""
    nrng = np.random.default_rng(rng.randint(0, 2**31))
    small = nrng.random((h // 64 + 2, w // 64 + 2, 3)).astype(np.float32)
    img = Image.fromarray((small * 255).astype(np.uint8)).resize((w, h), Image.BICUBIC)
    arr = np.asarray(img.filter(ImageFilter.GaussianBlur(24))).astype(np.float32)
    grad = np.linspace(0.6, 1.2, h, dtype=np.float32)[:, None, None]
    arr = arr * grad
    d = ImageDraw.Draw(img := Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)))
    for _ in range(12):
        x, y, r = rng.randint(0, w), rng.randint(0, h), rng.randint(20, 200)
        d.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randint(0, 255) for _ in range(3)))
    img = img.filter(ImageFilter.GaussianBlur(6))
    arr = np.asarray(img).astype(np.float32) + nrng.normal(0, 8, (h, w, 3))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def draw_block(img, lines, font, fill, x, y, spacing=1.5, box=None):
    d = ImageDraw.Draw(img)
    size = font.size
    if box is not None:
        width = max(d.textlength(t, font=font) for t in lines)
        d.rectangle((x - size // 2, y - size // 2, x + width + size // 2, y + len(lines) * size * spacing + size // 2), fill=box)
    for i, t in enumerate(lines):
        d.text((x, y + i * size * spacing), t, font=font, fill=fill)


def render(rng, category, index):
    w, h = (1440, 1080) if category != "screenshot" else (1440, 900)
    font_path = FONTS[index % len(FONTS)]
    rotation = 0
    german = category == "german"
    scale = 1
    if category.startswith("small"):
        # Fine print at 8-12 px in a 1440-pixel preview ("small"), and the same page
        # decoded at twice the size ("small2x"): what a larger OCR decode buys.
        scale = 2 if category == "small2x" else 1
        w, h = w * scale, h * scale
        size = [8, 10, 12][index % 3]
        font = ImageFont.truetype(font_path, size * scale)
        lines = lines_for(rng, 12)
        img = Image.new("RGB", (w, h), (245, 245, 240))
        draw_block(img, lines, font, (20, 20, 30), 80 * scale, 80 * scale)
    elif category in ("document", "rotated", "skewed", "german"):
        size = [14, 20, 28, 40][index % 4]
        font = ImageFont.truetype(font_path, size)
        n = max(3, min(12, int(700 / (size * 1.6))))
        lines = lines_for(rng, n, german=german)
        paper = tuple(rng.randint(225, 255) for _ in range(3))
        img = Image.new("RGB", (w, h), paper)
        draw_block(img, lines, font, (20, 20, 30), 80, 80)
        if category == "rotated":
            rotation = [90, 180, 270][index % 3]
            img = img.rotate(rotation, expand=True)
        elif category == "skewed":
            rotation = rng.choice([-8, -5, -3, 3, 5, 8])
            img = img.rotate(rotation, expand=True, resample=Image.BICUBIC, fillcolor=paper)
    elif category == "photo":
        size = [24, 32, 48, 64][index % 4]
        font = ImageFont.truetype(font_path, size)
        lines = lines_for(rng, rng.randint(1, 3), words=(1, 3))
        img = photo_background(rng, w, h)
        light = rng.random() < 0.5
        fill = (250, 250, 245) if light else (15, 15, 20)
        # Half the signs sit on a panel (a label, a poster), half straight on the scene.
        box = None if rng.random() < 0.5 else ((30, 30, 40) if light else (235, 230, 220))
        draw_block(img, lines, font, fill, rng.randint(60, 400), rng.randint(80, 600), box=box)
    elif category == "screenshot":
        size = [13, 15, 17, 20][index % 4]
        font = ImageFont.truetype(FONTS[[0, 3, 2][index % 3]], size)
        dark = index % 2 == 0
        bg, fg, bar = ((30, 30, 34), (225, 225, 230), (50, 50, 58)) if dark else ((250, 250, 252), (30, 30, 35), (230, 232, 238))
        img = Image.new("RGB", (w, h), bg)
        d = ImageDraw.Draw(img)
        d.rectangle((0, 0, w, 48), fill=bar)
        lines = lines_for(rng, 10, words=(3, 7))
        d.text((16, 14), lines[0], font=font, fill=fg)
        for i, t in enumerate(lines[1:]):
            y = 80 + i * (size * 4)
            d.rounded_rectangle((40, y - 8, 40 + d.textlength(t, font=font) + 32, y + size + 10), 10, fill=bar)
            d.text((56, y), t, font=font, fill=fg)
    else:
        raise ValueError(category)
    return img, lines, {"category": category, "font": os.path.basename(font_path), "size": size, "rotation": rotation}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/obscura-search-spike"))
    ap.add_argument("--per-category", type=int, default=16)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--set", default="main", choices=["main", "small"],
                    help="main: the 96-image set; small: fine print at 1x and 2x decode (OUT/ocr-small)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = os.path.join(args.out, "ocr" if args.set == "main" else "ocr-small")
    os.makedirs(out, exist_ok=True)
    truth = []
    n = 0
    categories = ["document", "rotated", "skewed", "photo", "screenshot", "german"]
    if args.set == "small":
        categories = ["small", "small2x"]
    for category in categories:
        # The small set renders the same pages at both scales: one seed per page.
        for i in range(args.per_category if args.set == "main" else 12):
            page_rng = random.Random(f"{args.seed}-{i}") if args.set == "small" else rng
            img, lines, meta = render(page_rng, category, i)
            name = f"{n:03d}.ppm"
            img.convert("RGB").save(os.path.join(out, name))
            truth.append({"file": name, "lines": lines, **meta})
            n += 1
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, ensure_ascii=False)
    print(f"{n} images in {out}")


if __name__ == "__main__":
    main()
