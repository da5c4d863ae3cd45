#!/usr/bin/env python3
"""Writes a 9999x9999 RGBA PNG (under trove's 100 MP limit) of a few hundred KB.

Rows repeat in bands, so the Up filter makes them nearly all zeros: the file is small
while the decoded image is 400 MB, the case where decoding whole shows in memory.
    python3 Benchmarks/images/big_png.py OUT.png
"""
import struct
import sys
import zlib

SIZE = 9999


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def main():
    out = sys.argv[1]
    compressor = zlib.compressobj(6)
    parts = []
    for band in range(0, SIZE, 1000):
        first = bytearray(1 + SIZE * 4)
        for x in range(SIZE):
            base = 1 + x * 4
            first[base] = (x * 255 // SIZE) & 0xFF
            first[base + 1] = (band // 40) & 0xFF
            first[base + 2] = (x // 37 * 16) & 0xFF
            first[base + 3] = 255 if (x // 500) % 2 == 0 else 96
        repeat = bytes([2]) + bytes(SIZE * 4)  # filter Up: the same as the row above
        for y in range(band, min(SIZE, band + 1000)):
            parts.append(compressor.compress(bytes(first) if y == band else repeat))
    parts.append(compressor.flush())
    ihdr = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    with open(out, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr))
        file.write(chunk(b"IDAT", b"".join(parts)))
        file.write(chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
