#!/usr/bin/env python3
"""Draws the example treasures' artwork: 512x512 RGBA PNGs, deterministic, stdlib only."""
import math
import struct
import sys
import zlib
from pathlib import Path

SIZE = 512


def png(path, width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    data = (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))
    Path(path).write_bytes(data)


def artwork(colour, spikes):
    """A star-shaped badge with a soft shadow on a transparent background."""
    cx = cy = SIZE / 2
    rows = []
    for y in range(SIZE):
        row = []
        for x in range(SIZE):
            dx, dy = x - cx, y - cy
            angle = math.atan2(dy, dx)
            radius = 170 + 40 * math.cos(spikes * angle)
            distance = math.hypot(dx, dy)
            if distance <= radius:
                shade = 1.0 - 0.35 * distance / radius
                r, g, b = (int(c * shade) for c in colour)
                row += [r, g, b, 255]
            elif distance <= radius + 12:
                row += [0, 0, 0, int(90 * (1 - (distance - radius) / 12))]
            else:
                row += [0, 0, 0, 0]
        rows.append(row)
    return rows


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "artwork")
    out.mkdir(exist_ok=True)
    for name, colour, spikes in [
        ("hairy-harry", (196, 120, 60), 5),
        ("flatiron-fred", (70, 130, 200), 6),
        ("wall-street-wanda", (60, 170, 90), 7),
        ("battery-bella", (200, 70, 120), 8),
    ]:
        png(out / f"{name}.png", SIZE, SIZE, artwork(colour, spikes))
