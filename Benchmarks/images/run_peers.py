#!/usr/bin/env python3
"""Times peer thumbnailers on a corpus made by build_corpus.py.

    run_peers.py CORPUS [--jobs 2] [--size 256] [--quality 80] [--repeat 3]

For each set (baseline JPEG, progressive JPEG, the mixed JPEG set, RGBA PNG) it runs
`vipsthumbnail` in --jobs processes (xargs -P) and Pillow with draft() in --jobs worker
processes, JPEG in -> JPEG out at the given quality, PNG in -> PNG out, and prints the best
images/s over --repeat runs. Outputs go to a temporary folder that is removed afterwards.
"""

import argparse
import multiprocessing
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bootstrap  # noqa: E402

SETS = {
    "jpeg-baseline": ["jpeg-baseline"],
    "jpeg-progressive": ["jpeg-progressive"],
    "jpeg-mixed": ["jpeg-baseline", "jpeg-progressive"],
    "png-rgba": ["png-rgba"],
}


def files_of(corpus, folders):
    files = []
    for folder in folders:
        files += sorted((corpus / folder).glob("*.jpg")) + sorted((corpus / folder).glob("*.png"))
    return files


def run_vips(files, out, jobs, size, quality):
    suffix = ".png" if files[0].suffix == ".png" else f".jpg[Q={quality}]"
    listing = "\0".join(str(f) for f in files).encode()
    subprocess.run(
        ["xargs", "-0", f"-P{jobs}", "-n", str(max(1, len(files) // (jobs * 4))),
         "vipsthumbnail", "--size", str(size), "-o", f"{out}/%s{suffix}"],
        input=listing, check=True)


def pillow_one(task):
    path, out, size, quality = task
    from PIL import Image, ImageOps

    with Image.open(path) as image:
        # draft() asks libjpeg for DCT scaling: the cheapest decode that still covers size.
        image.draft("RGB", (size, size))
        image = ImageOps.exif_transpose(image)
        image.thumbnail((size, size), Image.Resampling.LANCZOS)
        target = Path(out) / Path(path).name
        if target.suffix == ".png":
            image.save(target, "PNG", compress_level=2)
        else:
            image.convert("RGB").save(target, "JPEG", quality=quality)


def run_pillow(files, out, jobs, size, quality):
    tasks = [(str(f), str(out), size, quality) for f in files]
    with multiprocessing.Pool(jobs) as pool:
        for _ in pool.imap_unordered(pillow_one, tasks, chunksize=1):
            pass


def best_rate(runner, files, jobs, size, quality, repeat):
    best = 0.0
    for _ in range(repeat):
        out = Path(tempfile.mkdtemp(prefix="trove-bench-"))
        try:
            start = time.perf_counter()
            runner(files, out, jobs, size, quality)
            elapsed = time.perf_counter() - start
        finally:
            shutil.rmtree(out, ignore_errors=True)
        best = max(best, len(files) / elapsed)
    return best


def main():
    _bootstrap.ensure_system_packages()
    _bootstrap.ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--quality", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    vips_version = subprocess.run(["vips", "--version"], capture_output=True, text=True)
    import PIL

    print(f"# {vips_version.stdout.strip()}, Pillow {PIL.__version__}, "
          f"{args.jobs} processes, --size {args.size}, Q={args.quality}")
    print(f"{'set':<18}{'images':>7}{'vipsthumbnail/s':>17}{'pillow-draft/s':>16}")
    for name, folders in SETS.items():
        files = files_of(args.corpus, folders)
        if not files:
            continue
        for f in files:  # warm the page cache so that both tools read from memory
            f.read_bytes()
        vips = best_rate(run_vips, files, args.jobs, args.size, args.quality, args.repeat)
        pillow = best_rate(run_pillow, files, args.jobs, args.size, args.quality, args.repeat)
        print(f"{name:<18}{len(files):>7}{vips:>17.1f}{pillow:>16.1f}", flush=True)


if __name__ == "__main__":
    main()
