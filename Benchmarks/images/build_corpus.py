#!/usr/bin/env python3
"""Builds the deterministic image corpus for thumbnail benchmarks.

    build_corpus.py OUT_DIR [--photos 32] [--artwork 8]

OUT_DIR/jpeg-baseline/  12 MP (4032x3024) JPEG, quality 90, from Debian's mate-backgrounds
OUT_DIR/jpeg-progressive/  the same kind, progressive (a quarter of all photos)
OUT_DIR/png-rgba/  2048x2048 RGBA PNG artwork with hard and soft alpha edges

The same arguments and the same Pillow version give byte-identical files.
"""

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bootstrap  # noqa: E402

PHOTO_SIZE = (4032, 3024)
ART_SIZE = 2048


def source_photos():
    """Real photographs shipped by mate-backgrounds in a fixed order, one file per picture.

    Some pictures ship at several resolutions (Name.jpg, Name_3840x2160.jpg); the largest
    stands for all of them.
    """
    best = {}
    for path in sorted(_bootstrap.BACKGROUNDS.rglob("*.jpg")):
        key = path.stem.split("_")[0].lower()
        if key not in best or path.stat().st_size > best[key].stat().st_size:
            best[key] = path
    files = [best[key] for key in sorted(best)]
    if not files:
        sys.exit(f"no JPEG photographs under {_bootstrap.BACKGROUNDS}")
    return files


def cover(image, size, shift):
    """Scales to cover `size` and crops; `shift` in [-1, 1] slides the crop window."""
    from PIL import Image

    width, height = image.size
    scale = max(size[0] / width, size[1] / height)
    scaled = image.resize(
        (max(size[0], round(width * scale)), max(size[1], round(height * scale))),
        Image.Resampling.LANCZOS,
    )
    spare_x = scaled.width - size[0]
    spare_y = scaled.height - size[1]
    left = round(spare_x * (0.5 + 0.5 * shift))
    top = round(spare_y * (0.5 - 0.5 * shift))
    return scaled.crop((left, top, left + size[0], top + size[1]))


def build_photos(out, count):
    from PIL import Image, ImageOps

    baseline = out / "jpeg-baseline"
    progressive = out / "jpeg-progressive"
    baseline.mkdir(parents=True, exist_ok=True)
    progressive.mkdir(parents=True, exist_ok=True)
    sources = source_photos()
    for index in range(count):
        source = sources[index % len(sources)]
        round_ = index // len(sources)
        with Image.open(source) as image:
            image = image.convert("RGB")
            # Later rounds over the same sources differ by mirror and crop position.
            if round_ % 2 == 1:
                image = ImageOps.mirror(image)
            shift = [0.0, -0.8, 0.8, -0.4, 0.4][round_ % 5]
            photo = cover(image, PHOTO_SIZE, shift)
        # A quarter progressive, rotating through the sources from round to round.
        is_progressive = (index + round_) % 4 == 3
        folder = progressive if is_progressive else baseline
        name = f"photo-{index:03d}-{source.stem.lower()}.jpg"
        photo.save(folder / name, "JPEG", quality=90, progressive=is_progressive)
        print(f"{folder.name}/{name}")


def build_artwork(out, count):
    from PIL import Image, ImageDraw, ImageFilter

    folder = out / "png-rgba"
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        rng = random.Random(1000 + index)
        art = Image.new("RGBA", (ART_SIZE, ART_SIZE), (0, 0, 0, 0))
        draw = ImageDraw.Draw(art)
        for _ in range(40):
            colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256), 255)
            x, y = rng.randrange(ART_SIZE), rng.randrange(ART_SIZE)
            radius = rng.randrange(60, 420)
            if rng.random() < 0.5:
                draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)
            else:
                sides = rng.randrange(3, 8)
                points = [
                    (
                        x + radius * math.cos(2 * math.pi * k / sides + index),
                        y + radius * math.sin(2 * math.pi * k / sides + index),
                    )
                    for k in range(sides)
                ]
                draw.polygon(points, fill=colour)
        # A soft glow layer below the hard-edged shapes, with partial alpha.
        glow = art.filter(ImageFilter.GaussianBlur(24))
        glow.putalpha(glow.getchannel("A").point(lambda a: a // 2))
        # Shading so the colour planes are not flat.
        shade = Image.linear_gradient("L").resize((ART_SIZE, ART_SIZE))
        tinted = Image.composite(art, Image.new("RGBA", art.size, (255, 255, 255, 0)), shade)
        result = Image.alpha_composite(glow, art)
        result = Image.blend(result, tinted, 0.25)
        # Fine grain, as painted or scanned artwork has; flat planes would flatter zlib.
        noise = Image.frombytes("RGB", art.size, rng.randbytes(ART_SIZE * ART_SIZE * 3))
        grain = Image.blend(result.convert("RGB"), noise, 0.05)
        grain.putalpha(result.getchannel("A"))
        result = grain
        name = f"art-{index:03d}.png"
        result.save(folder / name, "PNG", compress_level=6)
        print(f"{folder.name}/{name}")


def main():
    _bootstrap.ensure_system_packages()
    _bootstrap.ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--photos", type=int, default=32)
    parser.add_argument("--artwork", type=int, default=8)
    args = parser.parse_args()
    build_photos(args.out, args.photos)
    build_artwork(args.out, args.artwork)


if __name__ == "__main__":
    main()
