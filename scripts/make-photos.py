#!/usr/bin/env python3
"""Writes N camera-like JPEGs (4000x3000, EXIF DateTimeOriginal and Orientation) to DIR.

    scripts/make-photos.py N DIR [WIDTH HEIGHT]

One plasma image is rendered with ImageMagick (/usr/bin/convert); each copy gets its
own EXIF block (a different capture date), so every file has distinct content.
Used by scripts/acceptance-media and the imaging benchmark.
"""
import os
import struct
import subprocess
import sys
from datetime import datetime, timedelta


def exif_segment(date: str, orientation: int) -> bytes:
    """APP1 Exif: little-endian TIFF, IFD0 {Orientation, ExifIFD}, ExifIFD {DateTimeOriginal}."""
    tiff = b"II*\x00" + struct.pack("<I", 8)
    tiff += struct.pack("<H", 2)
    tiff += struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff += struct.pack("<HHII", 0x8769, 4, 1, 38)
    tiff += struct.pack("<I", 0)
    tiff += struct.pack("<H", 1)
    tiff += struct.pack("<HHII", 0x9003, 2, 20, 56)
    tiff += struct.pack("<I", 0)
    tiff += date.encode()[:19] + b"\x00"
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def main() -> None:
    count, out = int(sys.argv[1]), sys.argv[2]
    width, height = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (4000, 3000)
    os.makedirs(out, exist_ok=True)
    base = subprocess.run(
        ["/usr/bin/convert", "-size", f"{width}x{height}", "plasma:fractal", "-quality", "90", "jpg:-"],
        check=True, capture_output=True).stdout
    start = datetime(2023, 7, 14, 18, 32, 5)
    for i in range(count):
        date = (start + timedelta(days=i, minutes=i)).strftime("%Y:%m:%d %H:%M:%S")
        with open(os.path.join(out, f"IMG_{i:04d}.jpg"), "wb") as f:
            f.write(base[:2] + exif_segment(date, 1) + base[2:])


if __name__ == "__main__":
    main()
