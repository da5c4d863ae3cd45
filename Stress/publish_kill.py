#!/usr/bin/env python3
"""Kill tests for `trove publish` (part of `make stress` once the transports are built in).

A publish of a workspace with images goes to fake-gcs-server (the Storage emulator `make
test-deps` installs) and to the Realtime Database stand-in (`Tests/Support/rtdb-standin.py`),
and is killed with SIGKILL at a random moment. Each trial then checks:

* at the moment of the kill, every download URL in the database resolves to an object in
  the bucket that holds its token (uploads first, deletions last);
* the next `trove publish` exits 0, and the bucket (names, tokens, bytes) and the database
  equal those of a clean publish of the same workspace;
* a publish after that has nothing to send.

Each trial publishes a copy of one workspace (so the tokens are the same) to a bucket and a
stand-in of its own. Without the emulator, the stand-in or a trove that can publish, it says
why and exits 0.

Usage: Stress/publish_kill.py --trove .build/release/trove [--trials 20] [--seed N] [--rows N]
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STANDIN = os.environ.get("RTDB_STANDIN") or os.path.join(REPO, "Tests", "Support", "rtdb-standin.py")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill import png  # noqa: E402  (the same generated images as the other kill tests)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http(method, url, body=None):
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        data = response.read()
        return json.loads(data) if data else None


class Services:
    """One fake-gcs-server for every trial's bucket, and a database stand-in per trial."""

    def __init__(self, root):
        self.root = root
        self.processes = []
        binary = os.environ.get("FAKE_GCS_SERVER") or os.path.join(
            REPO, ".build", "test-tools", "bin", "fake-gcs-server")
        port = free_port()
        data = os.path.join(root, "gcs-data")
        os.makedirs(data)
        self.start([binary, "-scheme", "http", "-host", "127.0.0.1", "-port", str(port),
                    "-backend", "memory", "-data", data, "-log-level", "error"])
        self.storage = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                http("GET", f"{self.storage}/storage/v1/b?project=test")
                break
            except OSError:
                time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError("fake-gcs-server did not start")

    def start(self, arguments, **options):
        process = subprocess.Popen(arguments, **options)
        self.processes.append(process)
        return process

    def bucket(self, name):
        http("POST", f"{self.storage}/storage/v1/b?project=test", json.dumps({"name": name}).encode())
        return name

    def database(self):
        # Its complaints about connections a killed trove dropped are no finding.
        process = self.start([sys.executable, STANDIN, "--port", "0"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        line = process.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise RuntimeError(f"the database stand-in said {line!r}")
        return line[len("listening on "):]

    def objects(self, bucket):
        """name -> (token, md5) of every object."""
        found, token = {}, None
        while True:
            query = "?maxResults=1000" + (f"&pageToken={token}" if token else "")
            page = http("GET", f"{self.storage}/storage/v1/b/{bucket}/o{query}") or {}
            for item in page.get("items", []):
                metadata = item.get("metadata") or {}
                found[item["name"]] = (metadata.get("firebaseStorageDownloadTokens"),
                                       item.get("md5Hash"))
            token = page.get("nextPageToken")
            if not token:
                return found

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait()


def urls(tree):
    """(bucket, object, token) of every Firebase download URL in the tree."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, str) and node.startswith("https://firebasestorage.googleapis.com/v0/b/"):
            parts = urllib.parse.urlsplit(node)
            segments = parts.path.split("/")
            query = urllib.parse.parse_qs(parts.query)
            found.append((segments[3], urllib.parse.unquote(segments[5]),
                          (query.get("token") or [None])[0]))

    walk(tree)
    return found


class Harness:
    def __init__(self, trove, trials, seed, rows):
        self.trove = os.path.abspath(trove)
        self.trials = trials
        self.random = random.Random(seed)
        self.rows = rows
        self.root = tempfile.mkdtemp(prefix="trove-publish-stress-")
        self.failures = []

    def env(self, folder):
        return dict(os.environ, TROVE_WORKSPACE=os.path.join(folder, "trove.sqlite"),
                    USER="stress", NO_COLOR="1", FIREBASE="",
                    CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE=self.services.storage + "/",
                    CLOUDSDK_AUTH_DISABLE_CREDENTIALS="True", CLOUDSDK_CORE_PROJECT="test")

    def run(self, folder, *arguments):
        result = subprocess.run([self.trove, *arguments], cwd=folder, env=self.env(folder),
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"trove {' '.join(arguments)}: exit {result.returncode}: "
                               f"{result.stderr}")
        return result

    def base(self):
        """Treasures, a tenth with images and their renditions: a first publish of a few
        hundred objects and a few database requests (the changes after a publish, with
        deletions, are covered in-process by the Publish tests)."""
        folder = os.path.join(self.root, "base")
        os.makedirs(folder)
        lines = ["key,name,lat,lon,image"]
        for index in range(self.rows):
            image = f"art/a{index % 40}.png" if index < 400 else ""
            lines.append(f"t{index},Treasure {index},{40.6 + index * 1e-5:.6f},"
                         f"{-74.0 + (index % 977) * 1e-4:.6f},{image}")
        for index in range(40):
            path = os.path.join(folder, "art", f"a{index}.png")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(png(120 + index, 100, index))
        with open(os.path.join(folder, "treasures.csv"), "w") as handle:
            handle.write("\n".join(lines) + "\n")
        self.run(folder, "init")
        self.run(folder, "import", "treasures", "treasures.csv")
        self.run(folder, "geohash")
        self.run(folder, "images", "--out", "build/images")
        return folder

    def publish_to(self, folder, name):
        """Adds a target for its own bucket and stand-in; returns (bucket, database URL)."""
        bucket = self.services.bucket(name)
        database = self.services.database()
        self.run(folder, "publish", "target", "add", "t", "--database", database, "--bucket",
                 f"gs://{bucket}", "--layout", "flatirongo")
        return bucket, database

    def state(self, bucket, database):
        tree = http("GET", f"{database}/.json")
        text = json.dumps(tree, sort_keys=True).replace(bucket, "BUCKET")
        return text, self.services.objects(bucket), tree

    def main(self):
        status = self.run_trials()
        if status == 0:
            shutil.rmtree(self.root, ignore_errors=True)
        return status

    def run_trials(self):
        if not os.path.exists(STANDIN):
            print(f"publish kill tests skipped: {STANDIN} is missing")
            return 0
        try:
            self.services = Services(self.root)
        except (OSError, RuntimeError) as error:
            print(f"publish kill tests skipped: fake-gcs-server cannot start ({error}); "
                  "run 'make test-deps'")
            return 0
        try:
            base = self.base()
            clean = os.path.join(self.root, "clean")
            shutil.copytree(base, clean)
            bucket, database = self.publish_to(clean, "clean")
            measured = time.monotonic()
            probe = subprocess.run([self.trove, "publish"], cwd=clean, env=self.env(clean),
                                   capture_output=True, text=True)
            duration = time.monotonic() - measured
            if "has no Storage or database client" in probe.stderr:
                print("publish kill tests skipped: this trove has no transports built in")
                return 0
            if probe.returncode != 0:
                raise RuntimeError(f"clean publish: {probe.stderr}")
            expected_tree, expected_objects, _ = self.state(bucket, database)
            print(f"a clean publish of {len(expected_objects)} objects: {duration:.2f} s",
                  flush=True)
            started = time.monotonic()
            for trial in range(self.trials):
                self.trial(base, trial, expected_tree, expected_objects,
                           self.random.uniform(0.02, duration))
            print(f"publish: {self.trials} trials in {time.monotonic() - started:.0f} s")
        finally:
            self.services.stop()
        if self.failures:
            print(f"{len(self.failures)} FAILURES (trial folders kept in {self.root})")
            return 1
        print("PASS: every killed publish kept its URLs whole and resumed to the clean result")
        return 0

    def trial(self, base, trial, expected_tree, expected_objects, delay):
        folder = os.path.join(self.root, f"trial-{trial}")
        shutil.copytree(base, folder)
        name = f"trial-{trial}"
        try:
            bucket, database = self.publish_to(folder, name)
            process = subprocess.Popen([self.trove, "publish"], cwd=folder, env=self.env(folder),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            killed = process.poll() is None
            if killed:
                process.send_signal(signal.SIGKILL)
            process.wait()
            _, objects, tree = self.state(bucket, database)
            for url_bucket, name_, token in urls(tree):
                held = objects.get(name_)
                if url_bucket != bucket or held is None or (
                        token and token not in (held[0] or "").split(",")):
                    raise AssertionError(f"after the kill, {name_} (token {token}) does not resolve")
            self.run(folder, "publish")
            tree_text, objects, _ = self.state(bucket, database)
            if tree_text != expected_tree:
                raise AssertionError("the database differs from a clean publish's")
            if objects != expected_objects:
                missing = set(expected_objects) ^ set(objects)
                raise AssertionError(f"the bucket differs from a clean publish's: {sorted(missing)[:3]}")
            again = self.run(folder, "publish")
            if "nothing to publish" not in again.stderr:
                raise AssertionError(f"a publish after the resume sent more: {again.stderr}")
            print(f"trial {trial}: {'killed' if killed else 'finished'} after {delay:.2f} s, "
                  "resumed to the clean result", flush=True)
        except (AssertionError, RuntimeError) as error:
            self.failures.append(f"trial {trial}: {error}")
            print(f"FAIL trial {trial}: {error}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trove", required=True)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--rows", type=int, default=2000)
    options = parser.parse_args()
    print(f"seed {options.seed}", flush=True)
    sys.exit(Harness(options.trove, options.trials, options.seed, options.rows).main())


if __name__ == "__main__":
    main()
