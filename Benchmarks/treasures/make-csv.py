#!/usr/bin/env python3
"""Writes N deterministic treasures as CSV (key-less rows get keys derived by trove)."""
import random
import sys

count = int(sys.argv[1])
out = sys.argv[2]
rng = random.Random(42)
words = ["Golden", "Rusty", "Hidden", "Lucky", "Brave", "Jolly", "Misty", "Copper",
         "Pigeon", "Lantern", "Anchor", "Pretzel", "Ferry", "Bagel", "Kite", "Crown"]
with open(out, "w", newline="") as f:
    f.write("key,name,lat,lon,description,points\n")
    for i in range(count):
        lat = rng.uniform(-60, 70)
        lon = rng.uniform(-180, 180)
        name = f"{rng.choice(words)} {rng.choice(words)} {i}"
        f.write(f"t{i:07d},{name},{lat:.6f},{lon:.6f},\"Treasure {i}, somewhere\",{i % 100}\n")
