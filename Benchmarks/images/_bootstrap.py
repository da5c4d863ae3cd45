"""Shared set-up for the image benchmark scripts: system packages and a Pillow venv."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

VENV = Path(os.environ.get("TROVE_BENCH_VENV", Path.home() / ".cache" / "trove-bench-venv"))
BACKGROUNDS = Path("/usr/share/backgrounds/mate")


def _run_privileged(command):
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            sys.exit("need root or sudo to run: " + " ".join(command))
        command = ["sudo"] + command
    subprocess.run(command, check=True)


def ensure_system_packages():
    """Installs mate-backgrounds and libvips-tools with apt-get when they are missing."""
    missing = []
    if not BACKGROUNDS.is_dir():
        missing.append("mate-backgrounds")
    if shutil.which("vipsthumbnail") is None:
        missing.append("libvips-tools")
    if missing:
        print("installing " + " ".join(missing), file=sys.stderr)
        _run_privileged(["apt-get", "update"])
        _run_privileged(["apt-get", "install", "-y"] + missing)


def ensure_pillow():
    """Re-runs the current script inside a venv that has Pillow, creating it if needed."""
    try:
        import PIL  # noqa: F401

        return
    except ImportError:
        pass
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} with Pillow", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "pillow"], check=True)
    if os.environ.get("TROVE_BENCH_IN_VENV") == "1":
        sys.exit("Pillow is still missing from " + str(VENV))
    # The venv's python is a symlink to this interpreter, so mark the re-run explicitly.
    os.environ["TROVE_BENCH_IN_VENV"] = "1"
    os.execv(str(python), [str(python)] + sys.argv)
