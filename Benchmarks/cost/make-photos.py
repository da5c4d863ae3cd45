#!/usr/bin/env python3
"""Writes COUNT distinct, deterministic photographic-looking PPM images to stdout-named
files for cjpeg: smooth gradients with noise and a per-photo pattern.

    make-photos.py DIR COUNT WIDTH HEIGHT   (writes DIR/pN.ppm for missing DIR/pN.jpg)
"""
import os
import sys

import numpy as np

folder, count, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(folder, exist_ok=True)
y, x = np.mgrid[0:height, 0:width].astype(np.float32)
for n in range(count):
    if os.path.exists(os.path.join(folder, f"p{n}.jpg")):
        continue
    rng = np.random.default_rng(n)
    a, b, c = rng.uniform(0.5, 3.0, 3)
    r = 128 + 100 * np.sin(x / width * a * 6.28 + n)
    g = 128 + 100 * np.cos(y / height * b * 6.28 + n * 0.7)
    bl = 128 + 100 * np.sin((x + y) / (width + height) * c * 6.28)
    image = np.stack([r, g, bl], axis=-1) + rng.normal(0, 6, (height, width, 3))
    pixels = np.clip(image, 0, 255).astype(np.uint8)
    with open(os.path.join(folder, f"p{n}.ppm"), "wb") as f:
        f.write(f"P6 {width} {height} 255\n".encode())
        f.write(pixels.tobytes())
