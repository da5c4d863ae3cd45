#!/usr/bin/env python3
"""Writes a 9999x9999 PNG (under trove's 100 MP limit) of a few hundred KB.

Rows repeat in bands, so the Up filter makes them nearly all zeros: the file is small
while the decoded image is 400 MB (RGBA), the case where decoding whole shows in memory.
    python3 Benchmarks/images/big_png.py OUT.png [--interlaced] [--kind KIND]
KIND: rgba (default), rgba16, palette (with tRNS), grey-alpha. --interlaced writes the
same pixels as seven Adam7 passes.
"""
import argparse
import struct
import zlib

SIZE = 9999
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]
# kind: (bit depth, colour type, bytes per pixel)
KINDS = {"rgba": (8, 6, 4), "rgba16": (16, 6, 8), "palette": (8, 3, 1), "grey-alpha": (8, 4, 2)}


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def pixel(kind, x, band):
    alpha = 255 if (x // 500) % 2 == 0 else 96
    if kind == "rgba":
        return bytes(((x * 255 // SIZE) & 0xFF, (band // 40) & 0xFF, (x // 37 * 16) & 0xFF,
                      alpha))
    if kind == "rgba16":
        return struct.pack(">HHHH", x * 65535 // SIZE, band * 6, (x // 37 * 4099) & 0xFFFF,
                           alpha * 257)
    if kind == "palette":
        return bytes(((x // 40 + band // 1000) % 256,))
    return bytes(((x * 255 // SIZE) & 0xFF, alpha))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--interlaced", action="store_true")
    parser.add_argument("--kind", choices=sorted(KINDS), default="rgba")
    args = parser.parse_args()
    depth, colour, size = KINDS[args.kind]
    passes = ADAM7 if args.interlaced else [(0, 0, 1, 1)]
    compressor = zlib.compressobj(6)
    parts = []
    for x0, y0, dx, dy in passes:
        columns = list(range(x0, SIZE, dx))
        if not columns:
            continue
        repeat = bytes([2]) + bytes(len(columns) * size)  # filter Up: the row above again
        band_of_previous = None
        for y in range(y0, SIZE, dy):
            band = y // 1000 * 1000
            if band != band_of_previous:
                row = b"\0" + b"".join(pixel(args.kind, x, band) for x in columns)
                parts.append(compressor.compress(row))
                band_of_previous = band
            else:
                parts.append(compressor.compress(repeat))
    parts.append(compressor.flush())
    ihdr = struct.pack(">IIBBBBB", SIZE, SIZE, depth, colour, 0, 0, 1 if args.interlaced else 0)
    with open(args.out, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr))
        if args.kind == "palette":
            colours = b"".join(bytes((i, 255 - i, i * 7 % 256)) for i in range(256))
            file.write(chunk(b"PLTE", colours))
            file.write(chunk(b"tRNS", bytes(255 if i % 3 else 80 for i in range(256))))
        file.write(chunk(b"IDAT", b"".join(parts)))
        file.write(chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
