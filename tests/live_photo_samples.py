"""Live Photo halves for the Python suites (interop and browser), made as a phone makes
them: a JPEG whose EXIF holds Apple's MakerNote with the content identifier, and an
HEVC movie carrying the same identifier as its QuickTime `keys` entry."""

import struct
import subprocess


def still(identifier, width=96, height=64, colour="#3366cc"):
    """A Live Photo's still: a JPEG whose EXIF holds Apple's MakerNote as an iPhone lays it
    out (IFD0 -> Exif IFD -> MakerNote "Apple iOS\\0", version 1, "MM", a big-endian IFD
    whose offsets count from the MakerNote's start), its tag 0x0011 the content
    identifier. exiftool reads it (MediaGroupUUID) but cannot create a MakerNote."""
    text = identifier.encode() + b"\0"
    note = b"Apple iOS\0" + struct.pack(">H", 1) + b"MM"
    note += struct.pack(">H", 1) + struct.pack(">HHII", 0x0011, 2, len(text), 14 + 2 + 12 + 4) + struct.pack(">I", 0) + text
    tiff = b"MM\x00*" + struct.pack(">I", 8)
    tiff += struct.pack(">H", 1) + struct.pack(">HHII", 0x8769, 4, 1, 26) + struct.pack(">I", 0)
    tiff += struct.pack(">H", 1) + struct.pack(">HHII", 0x927C, 7, len(note), 44) + struct.pack(">I", 0) + note
    payload = b"Exif\x00\x00" + tiff
    body = subprocess.run(["/usr/bin/convert", "-size", f"{width}x{height}", f"xc:{colour}", "jpg:-"],
                          check=True, capture_output=True).stdout
    return body[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + body[2:]


def movie(path, identifier, seconds=3):
    """Writes a Live Photo's motion to PATH: HEVC (`hvc1`) in a QuickTime file, 320x240,
    with `com.apple.quicktime.content.identifier` set (ffmpeg writes it as a `keys` entry
    with `use_metadata_tags`; exiftool 12.57 reads that tag but cannot write it)."""
    subprocess.run(["/usr/bin/ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=duration={seconds}:size=320x240:rate=30",
                    "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                    "-pix_fmt", "yuv420p", "-movflags", "use_metadata_tags",
                    "-metadata", "com.apple.quicktime.content.identifier=" + identifier, "-y", str(path)], check=True)


def exiftool(tag, path):
    """What exiftool reads as TAG in PATH: the second reader of both halves."""
    return subprocess.run(["/usr/bin/exiftool", "-s3", tag, str(path)], check=True, capture_output=True, text=True).stdout.strip()
