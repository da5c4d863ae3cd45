#!/usr/bin/env python3
"""Kill tests for trove's writing commands (`make stress`).

Every writing command runs from a known "before" state and is killed (SIGKILL, or SIGINT
as Ctrl-C sends it) at a random moment. Each trial then checks, against the release binary:

* the workspace passes SQLite's integrity check and its canonical dump equals the
  before-state or the after-state (never a half-applied change);
* every output file holds its old bytes or its new bytes, a `--max-bytes` manifest lists
  parts that exist and together are the old set or the new one, and an export's files
  (tree or manifest, rules, Storage plan) are all old or all new, unless a kill fell
  between their renames: then the commit journal stands beside them and the plan's
  script refuses to run;
* the next run of the same command completes, reaches the after-state, and leaves no
  temporary file behind (`.NAME.trove-PID-XXXXXX`, Foundation's `.dat.nosync*`, spill
  files in $TMPDIR).

Two writers started together, and two started a second apart, must both succeed and
never corrupt anything. Outputs aimed at the workspace or an input are refused with
nothing changed, and hostile images (a sparse 20 GB file, /dev/zero, /dev/urandom, a
FIFO) are read under `prlimit --as`, so a regression fails the case, not the machine.

Usage: Stress/kill.py --trove .build/release/trove [--trials 20] [--seed N] [--rows N]
"""

import argparse
import hashlib
import hmac
import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import zlib

# Columns whose value is the wall clock at the time of writing, not content, or random per
# run (Storage download tokens: a trial's run draws other tokens than the measured one).
VOLATILE = {"at", "imported_at", "updated_at", "made_at", "applied_at", "token", "seen_at",
            "decided_at", "added_at", "published_at", "planned_at", "created_at"}


def png(width, height, seed):
    """A small RGBA PNG with a gradient that differs per seed."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes(((x * 7 + seed * 31) & 255, (y * 5 + seed * 17) & 255,
                           ((x + y) * 3 + seed) & 255, 255))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))


def canonical_dump(path):
    """Every table's rows, sorted, without wall-clock columns, with the workspace's own
    folder written as <here> (imports store absolute paths)."""
    here = os.path.dirname(os.path.abspath(path))
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = connection.execute("PRAGMA integrity_check").fetchall()
        if problems != [("ok",)]:
            raise AssertionError(f"integrity check: {problems[:3]}")
        dump = {}
        tables = [r[0] for r in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        for table in tables:
            columns = [r[1] for r in connection.execute(f'PRAGMA table_info("{table}")')]
            # Shared state blocks are compared by content: which id a block got is not.
            keep = [c for c in columns if c not in VOLATILE
                    and not (table == "schema_migrations" and c == "seq")
                    and not (table == "state_blocks" and c == "id")
                    and not (table in ("export_state", "publish_state") and c == "block")
                    # Clock values order changes; a command rerun after a kill may take
                    # more of them than one clean run, for the same content.
                    and not (table in ("change_clock", "record_changes", "change_consumers")
                             and c == "seq")
                    and c != "change_seq"]
            select = ", ".join(f'"{c}"' for c in keep)
            rows = connection.execute(f'SELECT {select} FROM "{table}"').fetchall()
            dump[table] = sorted(repr(r).replace(here, "<here>") for r in rows)
        schema = sorted(r[0] or "" for r in connection.execute("SELECT sql FROM sqlite_master"))
        dump["<schema>"] = schema
        dump["<application_id>"] = connection.execute("PRAGMA application_id").fetchone()[0]
        return dump
    finally:
        connection.close()


def files_under(folder):
    """{relative path: sha256} of every file under `folder`."""
    result = {}
    for root, _, names in os.walk(folder):
        for name in names:
            full = os.path.join(root, name)
            with open(full, "rb") as handle:
                result[os.path.relpath(full, folder)] = hashlib.sha256(handle.read()).hexdigest()
    return result


def is_temporary(name):
    return ".trove-" in name or name.startswith(".dat.nosync") or name.startswith("trove-spill") \
        or name.startswith("trove-export-")


# The --max-bytes manifest and the Storage plan beside it: one set.
PARTS_SET = ("out/parts.manifest.json", "out/parts.storage.json", "out/parts.storage.sh")


class Scenario:
    """One writing command, with its before-state folder and its after-state."""

    def __init__(self, name, arguments, setup, outputs=("out",), stdin=None, manifest=None,
                 output_set=(), journal=None):
        self.name = name
        self.arguments = arguments
        self.setup = setup
        self.outputs = outputs
        self.stdin = stdin
        self.manifest = manifest
        # Files that must be all old or all new together, unless the commit journal
        # (`journal`) says their renames were cut short, when the plan's script must refuse.
        self.output_set = output_set
        self.journal = journal


class Harness:
    def __init__(self, trove, trials, seed, rows):
        self.trove = os.path.abspath(trove)
        self.trials = trials
        self.random = random.Random(seed)
        self.rows = rows
        self.root = tempfile.mkdtemp(prefix="trove-stress-")
        self.failures = []
        self.counts = {}
        self.journals = 0

    # MARK: running trove

    def env(self, folder):
        tmp = os.path.join(folder, "tmp")
        os.makedirs(tmp, exist_ok=True)
        return dict(os.environ, TROVE_WORKSPACE=os.path.join(folder, "trove.sqlite"),
                    TMPDIR=tmp, USER="stress", NO_COLOR="1")

    def run(self, folder, arguments, stdin=None, check=True):
        result = subprocess.run([self.trove] + arguments, cwd=folder, env=self.env(folder),
                                input=stdin, capture_output=True)
        if check and result.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(arguments)} in {folder}: exit {result.returncode}: "
                               f"{result.stderr.decode(errors='replace')}")
        return result

    # MARK: states

    def write(self, folder, name, data):
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(data, bytes) else "w") as handle:
            handle.write(data)

    def treasures_csv(self, rows, variant):
        lines = ["key,name,lat,lon,image,description,points"]
        for index in range(rows):
            image = f"art/a{index % 6}.png" if index < 40 else ""
            lines.append(f"t{index},Treasure {index} {variant},{40.6 + index * 1e-5:.6f},"
                         f"{-74.0 + (index % 977) * 1e-4:.6f},{image},\"row {index}, v{variant}\",{index % 50}")
        return "\n".join(lines) + "\n"

    def posts_ndjson(self, count):
        lines = []
        for index in range(count):
            lines.append(json.dumps({
                "id": f"p{index}", "user": f"u{index % 7}", "lat": 40.7 + index * 1e-4,
                "lon": -74.0 - index * 1e-4, "description": f"litter {index}",
                "date": "2024-01-%02dT10:00:00Z" % (1 + index % 28),
                "photo": f"p{index % 5}.png"}))
        return "\n".join(lines) + "\n"

    def base(self):
        """A workspace with treasures, geohashes, renditions, posts, decisions, exports."""
        folder = os.path.join(self.root, "base")
        os.makedirs(folder)
        for index in range(6):
            self.write(folder, f"art/a{index}.png", png(300 + index * 20, 280, index))
        for index in range(5):
            self.write(folder, f"photos/p{index}.png", png(260, 300 + index * 10, 10 + index))
        self.write(folder, "treasures.csv", self.treasures_csv(self.rows, 1))
        self.write(folder, "changed.csv", self.treasures_csv(self.rows, 2))
        self.write(folder, "more.csv", self.treasures_csv(self.rows // 2, 3).replace("\nt", "\nm"))
        self.write(folder, "posts.ndjson", self.posts_ndjson(60))
        self.run(folder, ["init"])
        self.run(folder, ["config", "set", "storage.bucket", "stress.appspot.com"])
        return folder

    def signed_decisions(self, folder):
        """decisions.json as the page of sheet.html downloads it, signed with its secret."""
        with open(os.path.join(folder, "sheet.html"), encoding="utf-8") as handle:
            page = handle.read()
        start = page.index('id="sheet-data">') + len('id="sheet-data">')
        data = json.loads(page[start:page.index("</script>", start)])
        versions = {post["id"]: post["version"] for post in data["posts"]}
        decisions = []
        for i in range(20, 40):
            decision = {"id": f"p{i}", "version": versions[f"p{i}"], "seen": "pending",
                        "action": "approve" if i % 3 else "reject", "note": f"note {i}",
                        "at": "2026-01-01T10:00:00.000Z"}
            if i % 3 == 0:
                decision["reason"] = "spam"
            decisions.append(decision)
        signed = json.dumps(
            ["trove-review-decisions/2", data["sheet"], data["workspace"], data["moderator"],
             [[d["id"], d["version"], d["seen"], d["action"], d.get("reason"), d.get("note"),
               d["at"], False] for d in decisions]], separators=(",", ":"), ensure_ascii=False)
        signature = hmac.new(bytes.fromhex(data["secret"]), signed.encode("utf-8"),
                             hashlib.sha256).hexdigest()
        self.write(folder, "decisions.json", json.dumps({
            "format": "trove-review-decisions", "sheet": data["sheet"],
            "workspace": data["workspace"], "moderator": data["moderator"],
            "decisions": decisions, "signature": signature}))

    def snapshot(self, source, name):
        target = os.path.join(self.root, name)
        # The workspace is closed between commands; copy it whole with its outputs.
        shutil.copytree(source, target, symlinks=True)
        return target

    # MARK: checks

    def outputs_state(self, folder, scenario):
        state = {}
        for output in scenario.outputs:
            path = os.path.join(folder, output)
            state[output] = files_under(path) if os.path.isdir(path) else {}
        return state

    def leftovers(self, folder):
        found = []
        for root, _, names in os.walk(folder):
            found += [os.path.join(root, n) for n in names if is_temporary(n)]
        return found

    def manifest_set(self, folder, scenario):
        """The part set the manifest names: {name: sha}, or None without a manifest."""
        if not scenario.manifest:
            return None
        path = os.path.join(folder, scenario.manifest)
        if not os.path.exists(path):
            return None
        with open(path) as handle:
            parts = json.load(handle)["parts"]
        folder_of = os.path.dirname(path)
        result = {}
        for part in parts:
            part_path = os.path.join(folder_of, part)
            if not os.path.exists(part_path):
                raise AssertionError(f"manifest lists {part}, which does not exist")
            with open(part_path, "rb") as handle:
                result[part] = hashlib.sha256(handle.read()).hexdigest()
        return result

    def digests(self, folder, names):
        result = []
        for name in names:
            path = os.path.join(folder, name)
            if os.path.exists(path):
                with open(path, "rb") as handle:
                    result.append(hashlib.sha256(handle.read()).hexdigest())
            else:
                result.append(None)
        return result

    def check_set(self, trial, scenario, before, after):
        """The output set is the old one or the new one, or a journal stands beside it and
        the Storage plan's script refuses to run. Returns whether a journal was there."""
        if not scenario.output_set:
            return False
        now = self.digests(trial, scenario.output_set)
        if now in (before, after):
            return False
        if not os.path.exists(os.path.join(trial, scenario.journal)):
            raise AssertionError("the output set is neither the old nor the new one, and no "
                                 "commit journal says so")
        script = [n for n in scenario.output_set if n.endswith(".storage.sh")][0]
        refused = subprocess.run(["/bin/sh", os.path.join(trial, script), "upload"],
                                 env=dict(os.environ, GCLOUD="true"), capture_output=True)
        if refused.returncode != 1 or b"was interrupted" not in refused.stderr:
            raise AssertionError("the Storage plan's script ran beside a set cut short")
        return True

    def check_outputs(self, trial, scenario, before, after):
        now = self.outputs_state(trial, scenario)
        for output, files in now.items():
            old, new = before[output], after[output]
            for name, digest in files.items():
                if is_temporary(os.path.basename(name)):
                    continue  # removed by the next run, checked below
                if digest not in (old.get(name), new.get(name)):
                    raise AssertionError(f"{output}/{name} is neither its old nor its new content")

    # MARK: trials

    def scenario_run(self, scenario, before_folder, after_dump, after_outputs, after_manifest,
                     before_dump, before_outputs, before_manifest, duration, twice_dump,
                     twice_outputs, before_set, after_set):
        # Trials go on until `trials` of them were SIGKILLed mid-run; every fourth sends
        # SIGINT instead, and a run that finished before its moment counts as a trial too.
        # Each finished one narrows the window the moments are drawn from, since the
        # measured run can be slower than the trials (a busy machine, a cold cache).
        sigkills = 0
        trial_index = -1
        window = duration
        while sigkills < self.trials and trial_index < self.trials * 10:
            trial_index += 1
            trial = os.path.join(self.root, f"{scenario.name}-{trial_index}")
            shutil.copytree(before_folder, trial, symlinks=True)
            sig = signal.SIGINT if trial_index % 4 == 3 else signal.SIGKILL
            delay = self.random.uniform(0, window)
            process = subprocess.Popen(
                [self.trove] + scenario.arguments, cwd=trial, env=self.env(trial),
                stdin=subprocess.PIPE if scenario.stdin else subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if scenario.stdin:
                try:
                    process.stdin.write(scenario.stdin)
                    process.stdin.close()
                except BrokenPipeError:
                    pass
            time.sleep(delay)
            killed = process.poll() is None
            if killed:
                process.send_signal(sig)
            else:
                window *= 0.8
            process.wait()
            label = f"{scenario.name} trial {trial_index} ({sig.name if killed else 'finished'} at {delay * 1000:.0f} ms)"
            try:
                dump = canonical_dump(os.path.join(trial, "trove.sqlite"))
                if dump != before_dump and dump != after_dump:
                    diff = [t for t in dump if dump.get(t) not in (before_dump.get(t), after_dump.get(t))]
                    raise AssertionError(f"workspace is neither before nor after (tables {diff})")
                self.check_outputs(trial, scenario, before_outputs, after_outputs)
                parts = self.manifest_set(trial, scenario)
                if scenario.manifest and parts not in (before_manifest, after_manifest):
                    raise AssertionError("the manifest's part set is neither the old nor the new one")
                if self.check_set(trial, scenario, before_set, after_set):
                    self.journals += 1
                # The next run completes the work and cleans up after the killed one.
                rerun = self.run(trial, scenario.arguments, stdin=scenario.stdin, check=False)
                if rerun.returncode not in (0, 1):
                    raise AssertionError(f"next run exit {rerun.returncode}: {rerun.stderr.decode(errors='replace')}")
                # A run that had finished before the kill is then run twice (an export
                # logs each run), which is the state of running it twice.
                if canonical_dump(os.path.join(trial, "trove.sqlite")) not in (after_dump, twice_dump):
                    raise AssertionError("the next run did not reach the after-state")
                left = self.leftovers(trial)
                if left:
                    raise AssertionError(f"temporary files left after the next run: {left[:3]}")
                if scenario.manifest and self.manifest_set(trial, scenario) != after_manifest:
                    raise AssertionError("after the next run the manifest's set is not the new one")
                # After a run that had finished, the next is a second run: an export's Storage
                # plan then finds every object uploaded already.
                outputs = self.outputs_state(trial, scenario)
                if outputs not in (after_outputs, twice_outputs):
                    stale = {o: sorted(set(outputs[o]) ^ set(after_outputs[o]))[:3] for o in outputs}
                    raise AssertionError(f"after the next run the outputs differ: {stale}")
                if killed:
                    counts = self.counts.setdefault(scenario.name, [0, 0, 0])
                    counts[0 if sig == signal.SIGKILL else 1] += 1
                self.counts.setdefault(scenario.name, [0, 0, 0])[2] += 1
            except AssertionError as error:
                self.failures.append(f"{label}: {error}")
                print(f"FAIL {label}: {error}", flush=True)
            else:
                shutil.rmtree(trial, ignore_errors=True)
            if killed and sig == signal.SIGKILL:
                sigkills += 1

    def measure(self, scenario, before_folder, suffix="-after", runs=1):
        """Runs the command to completion (`runs` times in one folder): the state it
        leaves and how long one run takes."""
        folder = self.snapshot(before_folder, scenario.name + suffix)
        for _ in range(runs):
            started = time.monotonic()
            result = self.run(folder, scenario.arguments, stdin=scenario.stdin, check=False)
            duration = time.monotonic() - started
        if result.returncode not in (0, 1):
            raise RuntimeError(f"{scenario.name}: exit {result.returncode}: {result.stderr.decode(errors='replace')}")
        return folder, duration

    def main(self):
        state = self.base()
        scenarios = [
            Scenario("import-treasures", ["import", "treasures", "treasures.csv"], None),
            Scenario("geohash", ["geohash"], None),
            Scenario("images", ["images", "--out", "out/images", "--jobs", "2"], None),
            Scenario("import-posts", ["import", "posts", "posts.ndjson", "--photos", "photos"], None),
            Scenario("review-approve", ["review", "approve", "p1", "p2", "p3"], None),
            Scenario("review-apply", ["review", "apply", "decisions.json"], None),
            # Renditions are made for approved posts only: after the decisions.
            Scenario("images-posts", ["images", "--posts", "--out", "out/images"], None),
            Scenario("export", ["export", "--layout", "flatirongo", "--out", "out/firebase.json",
                                "--rules", "out/rules.json"], None,
                     output_set=("out/firebase.json", "out/rules.json", "out/firebase.storage.json",
                                 "out/firebase.storage.sh"),
                     journal="out/.firebase.json.trove-commit"),
            Scenario("reimport-changed", ["import", "treasures", "changed.csv"], None),
            Scenario("export-update-stdout", ["export", "--layout", "flatirongo", "--update"], None),
            Scenario("geohash-again", ["geohash"], None),
            Scenario("export-max-bytes", ["export", "--layout", "flatirongo", "--max-bytes", "60000",
                                          "--out", "out/parts.json"], None,
                     manifest="out/parts.manifest.json", output_set=PARTS_SET,
                     journal="out/.parts.json.trove-commit"),
            Scenario("export-max-bytes-again", ["export", "--layout", "flatirongo", "--update",
                                                "--max-bytes", "60000", "--out", "out/parts.json"], None,
                     manifest="out/parts.manifest.json", output_set=PARTS_SET,
                     journal="out/.parts.json.trove-commit"),
            Scenario("config-set", ["config", "set", "geohash.precision", "8"], None),
        ]
        prepare = {
            # The decisions come from a sheet of this workspace, signed as its page signs.
            "review-apply": [["review", "sheet", "--out", "sheet.html", "--for", "stress"],
                             self.signed_decisions],
            # Before the second --max-bytes run the treasures change, so its set differs.
            "export-max-bytes-again": [["import", "treasures", "more.csv"], ["geohash"]],
        }
        for scenario in scenarios:
            for arguments in prepare.get(scenario.name, []):
                if callable(arguments):
                    arguments(state)
                else:
                    self.run(state, arguments)
            before_folder = self.snapshot(state, scenario.name + "-before")
            before_dump = canonical_dump(os.path.join(before_folder, "trove.sqlite"))
            before_outputs = self.outputs_state(before_folder, scenario)
            before_manifest = self.manifest_set(before_folder, scenario)
            before_set = self.digests(before_folder, scenario.output_set)
            after_folder, duration = self.measure(scenario, before_folder)
            after_dump = canonical_dump(os.path.join(after_folder, "trove.sqlite"))
            after_outputs = self.outputs_state(after_folder, scenario)
            after_manifest = self.manifest_set(after_folder, scenario)
            after_set = self.digests(after_folder, scenario.output_set)
            twice_folder, _ = self.measure(scenario, before_folder, "-twice", runs=2)
            twice_dump = canonical_dump(os.path.join(twice_folder, "trove.sqlite"))
            twice_outputs = self.outputs_state(twice_folder, scenario)
            print(f"{scenario.name}: {duration * 1000:.0f} ms a run", flush=True)
            self.scenario_run(scenario, before_folder, after_dump, after_outputs, after_manifest,
                              before_dump, before_outputs, before_manifest, duration, twice_dump,
                              twice_outputs, before_set, after_set)
            state = after_folder
        self.concurrent_writers(state)
        self.clobber_cases(state)
        self.memory_cases(state)
        return self.report()

    def clobber_cases(self, state):
        """Outputs that would replace the workspace or an input are refused (exit 2) and
        leave the workspace and every input byte for byte as they were."""
        folder = self.snapshot(state, "clobber")
        shutil.copy(os.path.join(folder, "treasures.csv"), os.path.join(folder, "u.csv"))
        self.run(folder, ["template", "copy", "layouts/flatirongo.json", "my.json"])
        os.symlink("trove.sqlite", os.path.join(folder, "link.json"))
        cases = [
            ["export", "--layout", "flatirongo", "--out", "trove.sqlite"],
            ["export", "--layout", "flatirongo", "--out", "link.json"],
            ["export", "--layout", "flatirongo", "--out", "trove.sqlite-wal"],
            ["review", "sheet", "--out", "trove.sqlite"],
            ["import", "treasures", "u.csv", "--skip-invalid", "--rejects", "trove.sqlite"],
            ["import", "treasures", "u.csv", "--skip-invalid", "--rejects", "u.csv"],
            ["export", "--layout", "my.json", "--out", "my.json"],
            ["export", "--layout", "flatirongo", "--out", "o.json", "--rules", "o.json"],
        ]
        watched = ["trove.sqlite", "u.csv", "my.json"]
        for arguments in cases:
            label = "clobber " + " ".join(arguments)
            before = self.digests(folder, watched)
            dump = canonical_dump(os.path.join(folder, "trove.sqlite"))
            result = self.run(folder, arguments, check=False)
            try:
                if result.returncode != 2:
                    raise AssertionError(f"exit {result.returncode}, expected 2: "
                                         f"{result.stderr.decode(errors='replace')}")
                if self.digests(folder, watched) != before:
                    raise AssertionError("the workspace or an input changed")
                if canonical_dump(os.path.join(folder, "trove.sqlite")) != dump:
                    raise AssertionError("the workspace's rows changed")
                print(f"{label}: refused", flush=True)
            except AssertionError as error:
                self.failures.append(f"{label}: {error}")
                print(f"FAIL {label}: {error}", flush=True)

    # Address space for one run under `prlimit`: far below what reading a 20 GB or
    # endless file needs, so a regression fails the case instead of filling the machine.
    MEMORY_LIMIT = 400 << 20

    def memory_cases(self, _state):
        """A sparse 20 GB image, /dev/zero, /dev/urandom and a FIFO cost validate, images
        and import posts a bounded amount: each run under prlimit --as and timeout."""
        # A workspace of its own: only the hostile files, none of the state's images.
        folder = os.path.join(self.root, "memory")
        os.makedirs(folder)
        self.run(folder, ["init"])
        for name in ("hostile/zero.jpg", "hostile/header.jpg"):
            os.makedirs(os.path.join(folder, "hostile"), exist_ok=True)
            with open(os.path.join(folder, name), "wb") as handle:
                if name.endswith("header.jpg"):
                    handle.write(b"\x89PNG\r\n\x1a\n" + png(8, 8, 1)[8:])
                handle.truncate(20 << 30)
        os.mkfifo(os.path.join(folder, "hostile/fifo.jpg"))
        self.write(folder, "hostile.csv", "name,lat,lon,image\n" + "".join(
            f"H{index},1.{index},2.{index},{image}\n" for index, image in enumerate(
                ["hostile/zero.jpg", "hostile/header.jpg", "hostile/fifo.jpg", "/dev/zero",
                 "/dev/urandom"])))
        self.write(folder, "hostile.ndjson", "".join(
            json.dumps({"id": f"h{index}", "lat": 1, "lon": index, "photo": name}) + "\n"
            for index, name in enumerate(["zero.jpg", "header.jpg", "fifo.jpg"])))
        self.run(folder, ["import", "treasures", "hostile.csv"])
        cases = [
            (["validate", "hostile.csv"], 5),
            (["images", "--out", "out/hostile", "--jobs", "2"], 5),
            (["import", "posts", "hostile.ndjson", "--photos", "hostile"], 3),
        ]
        for arguments, refused in cases:
            label = "memory " + " ".join(arguments)
            result = subprocess.run(
                ["prlimit", f"--as={self.MEMORY_LIMIT}", "--", "timeout", "60", self.trove]
                + arguments, cwd=folder, env=self.env(folder), capture_output=True)
            text = (result.stdout + result.stderr).decode(errors="replace")
            try:
                if result.returncode not in (0, 1):
                    raise AssertionError(f"exit {result.returncode} (124: timed out; signal: "
                                         f"out of memory): {text[-500:]}")
                found = sum(text.count(reason) for reason in (
                    "not a JPEG or PNG image", "neither JPEG nor PNG", "more than an image of",
                    "it is a FIFO",
                    "it is a device"))
                if found < refused:
                    raise AssertionError(f"{found} of {refused} files refused: {text[-800:]}")
                print(f"{label}: {refused} files refused within the limit", flush=True)
            except AssertionError as error:
                self.failures.append(f"{label}: {error}")
                print(f"FAIL {label}: {error}", flush=True)

    def concurrent_writers(self, state):
        """Two imports at once, and two a second apart behind a slow one: both succeed."""
        for label, gap in (("together", 0.0), ("a second apart", 1.0)):
            folder = self.snapshot(state, "writers-" + label.replace(" ", "-"))
            self.write(folder, "big.csv", self.treasures_csv(self.rows * 4, 9).replace("\nt", "\nb"))
            self.write(folder, "small.csv", self.treasures_csv(50, 8).replace("\nt", "\ns"))
            first = subprocess.Popen([self.trove, "import", "treasures", "big.csv"], cwd=folder,
                                     env=self.env(folder), stderr=subprocess.PIPE)
            time.sleep(gap)
            second = subprocess.run([self.trove, "import", "treasures", "small.csv"], cwd=folder,
                                    env=self.env(folder), capture_output=True)
            first.wait()
            try:
                if first.returncode != 0 or second.returncode != 0:
                    raise AssertionError(f"exits {first.returncode}, {second.returncode}: "
                                         f"{second.stderr.decode(errors='replace')}")
                connection = sqlite3.connect(os.path.join(folder, "trove.sqlite"))
                if connection.execute("PRAGMA integrity_check").fetchone() != ("ok",):
                    raise AssertionError("integrity check failed")
                counts = connection.execute(
                    "SELECT sum(key LIKE 'b%'), sum(key LIKE 's%') FROM treasures").fetchone()
                connection.close()
                if counts != (self.rows * 4, 50):
                    raise AssertionError(f"rows {counts}, expected {(self.rows * 4, 50)}")
                print(f"two writers {label}: both succeeded", flush=True)
            except AssertionError as error:
                self.failures.append(f"two writers {label}: {error}")
                print(f"FAIL two writers {label}: {error}", flush=True)

    def report(self):
        for name, (sigkills, sigints, trials) in self.counts.items():
            print(f"{name}: {trials} trials, {sigkills} SIGKILLs and {sigints} SIGINTs mid-run")
        print(f"kills between the renames of an output set (journal completed by the next run): "
              f"{self.journals}")
        if self.failures:
            print(f"{len(self.failures)} FAILURES (trial folders kept in {self.root})")
            return 1
        shutil.rmtree(self.root, ignore_errors=True)
        print("PASS: every trial left the before- or the after-state, whole outputs, no temporaries")
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trove", required=True)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--rows", type=int, default=20000)
    options = parser.parse_args()
    print(f"seed {options.seed}", flush=True)
    sys.exit(Harness(options.trove, options.trials, options.seed, options.rows).main())


if __name__ == "__main__":
    main()
