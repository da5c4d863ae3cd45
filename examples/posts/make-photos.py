#!/usr/bin/env python3
"""Draws the example posts' photos: small RGB PNGs with EXIF GPS (eXIf), stdlib only.

Deterministic: running it again writes the same bytes.
"""
import math
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def exif_gps(lat, lon):
    """A little-endian TIFF block whose IFD0 points to a GPS IFD with the position."""
    def entry(tag, kind, count, value):
        return struct.pack("<HHI", tag, kind, count) + value.ljust(4, b"\0")

    def dms(value):
        value = abs(value)
        degrees = int(value)
        minutes = int((value - degrees) * 60)
        seconds = round(((value - degrees) * 60 - minutes) * 60 * 10000)
        return struct.pack("<IIIIII", degrees, 1, minutes, 1, seconds, 10000)

    block = b"II*\0" + struct.pack("<I", 8)
    block += struct.pack("<H", 1) + entry(0x8825, 4, 1, struct.pack("<I", 26)) + b"\0" * 4
    block += struct.pack("<H", 4)
    block += entry(1, 2, 2, b"S\0" if lat < 0 else b"N\0")
    block += entry(2, 5, 3, struct.pack("<I", 80))
    block += entry(3, 2, 2, b"W\0" if lon < 0 else b"E\0")
    block += entry(4, 5, 3, struct.pack("<I", 104))
    block += b"\0" * 4
    return block + dms(lat) + dms(lon)


def png(path, width, height, pixel, gps=None):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = bytearray()
    for y in range(height):
        row = [channel for x in range(width) for channel in pixel(x, y)]
        # Filter "Sub": each byte minus the one three to its left, which smooth scenes
        # turn into long runs that compress well.
        raw.append(1)
        raw += bytes((row[i] - (row[i - 3] if i >= 3 else 0)) & 0xFF for i in range(len(row)))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    if gps is not None:
        data += chunk(b"eXIf", exif_gps(*gps))
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    path.write_bytes(data)


def scene(seed, width, height):
    """Grass or pavement with a few bright pieces of litter."""
    ground = [(70, 120, 50), (120, 120, 115), (150, 130, 90)][seed % 3]
    items = [((seed * 97 + k * 53) % width, (seed * 61 + k * 89) % height, 10 + (seed + k) % 14,
              [(220, 40, 40), (40, 90, 220), (240, 240, 240), (240, 200, 40)][(seed + k) % 4])
             for k in range(4)]

    def pixel(x, y):
        shade = 0.8 + 0.2 * math.sin(x / 37 + seed) * math.cos(y / 29)
        for cx, cy, radius, colour in items:
            if (x - cx) ** 2 + ((y - cy) * 2) ** 2 <= radius * radius * 4:
                return colour
        return tuple(int(c * shade) for c in ground)

    return pixel


def main():
    photos = HERE / "photos"
    photos.mkdir(exist_ok=True)
    # (file, seed, size, EXIF position)
    specs = [
        ("bench.png", 1, (400, 300), (40.70740, -74.01130)),
        ("river.png", 2, (400, 300), (40.70220, -74.01600)),   # 1 km from its claim
        ("corner.png", 3, (400, 300), None),                    # no GPS
        ("tiny.png", 4, (160, 120), (40.71270, -74.00590)),     # too small
    ]
    for name, seed, (width, height), gps in specs:
        png(photos / name, width, height, scene(seed, width, height), gps)


if __name__ == "__main__":
    main()
