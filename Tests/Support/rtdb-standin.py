#!/usr/bin/env python3
"""A local stand-in for the Firebase Realtime Database REST API, for tests.

Not an emulator: one database in memory, applying writes the way the Realtime Database
does, so a test can check what a publish leaves behind.

  PATCH /PATH.json   multi-path update: each member of the body object is a path under
                     PATH (slashes allowed); null or {} deletes; parents left empty vanish;
                     the whole update is applied or none of it (paths may not overlap,
                     keys may not hold . $ # [ ] or control characters)
  PUT /PATH.json     replaces the value at PATH
  GET /PATH.json     the value at PATH (null when there is none), keys sorted
  DELETE /PATH.json  removes the value at PATH
  ?print=silent      a write answers 204 with no body (else 200 with what was written)

Test controls (not part of the real API):
  POST /.standin/faults {"status": 503, "count": 2, "error": "..."}
                     the next COUNT writes answer STATUS with {"error": ERROR}
  GET /.standin/log  every request so far: [{"method", "path", "status", "authorized"}]

Usage: rtdb-standin.py [--port 0] [--require-token TOKEN] [--data FILE]
                       [--max-request-bytes N]
Prints "listening on http://127.0.0.1:PORT" when ready. With --require-token, requests
need "Authorization: Bearer TOKEN" (or ?access_token=TOKEN) and get 401 without it.
"""

import argparse
import copy
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

FORBIDDEN = set(".$#[]/")
MAX_KEY_BYTES = 768


class Refused(Exception):
    """A write the Realtime Database would refuse with 400."""


def check_key(key, where):
    if key == "":
        raise Refused(f"Invalid data; key can't be empty ({where})")
    if len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise Refused(f"Invalid data; key longer than {MAX_KEY_BYTES} bytes ({where})")
    for char in key:
        if char in FORBIDDEN or ord(char) < 32 or ord(char) == 127:
            raise Refused(
                f"Invalid data; key {key!r} can't contain . $ # [ ] / or control "
                f"characters ({where})")


def split_path(text):
    """The segments of a path; empty segments (doubled or outer slashes) are dropped."""
    segments = [segment for segment in text.split("/") if segment != ""]
    for segment in segments:
        check_key(segment, f"path {text!r}")
    return segments


def normalize(value, where):
    """The value as the database stores it: arrays become objects keyed by index, nulls
    and empty objects vanish (None for nothing at all)."""
    if isinstance(value, list):
        value = {str(index): item for index, item in enumerate(value)}
    if isinstance(value, dict):
        result = {}
        for key, child in value.items():
            # The database's own members of a value (GeoFire writes .priority).
            if key not in (".priority", ".value"):
                check_key(key, where)
            child = normalize(child, f"{where}/{key}")
            if child is not None:
                result[key] = child
        return result or None
    return value


def set_at(tree, segments, value):
    """The tree with VALUE at SEGMENTS (None deletes), empty parents pruned."""
    if not segments:
        return value
    node = dict(tree) if isinstance(tree, dict) else {}
    head, rest = segments[0], segments[1:]
    child = set_at(node.get(head), rest, value)
    if child is None:
        node.pop(head, None)
    else:
        node[head] = child
    return node or None


def get_at(tree, segments):
    for segment in segments:
        if not isinstance(tree, dict) or segment not in tree:
            return None
        tree = tree[segment]
    return tree


def exported(value):
    """Objects whose keys are mostly the indexes 0..n come back as arrays, as the
    Realtime Database returns them."""
    if not isinstance(value, dict):
        return value
    children = {key: exported(child) for key, child in value.items()}
    keys = list(children)
    if all(key.isdigit() and (key == "0" or not key.startswith("0")) for key in keys):
        top = max(int(key) for key in keys)
        if top < 2 * len(keys):
            return [children.get(str(index)) for index in range(top + 1)]
    return children


class Database:
    def __init__(self, tree=None):
        self.tree = normalize(tree, "data")
        self.lock = threading.Lock()
        self.faults = []
        self.log = []

    def update(self, segments, body):
        if not isinstance(body, dict):
            raise Refused("Invalid data; a multi-path update must be a JSON object")
        paths = []
        for key, value in body.items():
            path = split_path(key)
            if not path and not segments:
                raise Refused("Invalid data; an update can't write the root as a member")
            paths.append((path, normalize(value, key)))
        for index, (first, _) in enumerate(paths):
            for second, _ in paths[index + 1 :]:
                shorter, longer = sorted((first, second), key=len)
                if longer[: len(shorter)] == shorter:
                    raise Refused(
                        "Invalid data; path '/" + "/".join(shorter)
                        + "' is an ancestor of '/" + "/".join(longer) + "' in the same update")
        tree = copy.deepcopy(self.tree)
        for path, value in paths:
            tree = set_at(tree, segments + path, value)
        self.tree = tree


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "rtdb-standin"

    def log_message(self, *args):
        pass

    @property
    def database(self):
        return self.server.database

    def answer(self, status, value=None, raw=None, silent=False):
        body = b"" if silent else (raw if raw is not None else json.dumps(
            exported(value), sort_keys=True, separators=(",", ":")).encode())
        self.send_response(status)
        if body:
            self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return status

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length)

    def authorized(self, query):
        token = self.server.token
        if token is None:
            return True
        header = self.headers.get("Authorization", "")
        return header == f"Bearer {token}" or query.get("access_token") == [token] \
            or query.get("auth") == [token]

    def handle_request(self, method):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        path = unquote(url.path)
        body = self.read_body() if method in ("PATCH", "PUT", "POST") else b""
        authorized = self.authorized(query)
        with self.database.lock:
            status = self.dispatch(method, path, query, body, authorized)
            self.database.log.append(
                {"method": method, "path": path, "status": status, "authorized": authorized})

    def dispatch(self, method, path, query, body, authorized):
        database = self.database
        if path == "/.standin/faults" and method == "POST":
            fault = json.loads(body or b"{}")
            database.faults.extend([fault] * int(fault.get("count", 1)))
            return self.answer(204, silent=True)
        if path == "/.standin/log" and method == "GET":
            return self.answer(200, raw=json.dumps(database.log).encode())
        if not path.endswith(".json"):
            return self.answer(404, {"error": "Not found: the REST API's paths end in .json"})
        if not authorized:
            return self.answer(401, {"error": "Unauthorized request."})
        silent = query.get("print") == ["silent"]
        try:
            segments = split_path(path[: -len(".json")])
        except Refused as refused:
            return self.answer(400, {"error": str(refused)})
        if method == "GET":
            return self.answer(200, get_at(database.tree, segments))
        limit = self.server.max_request_bytes
        if limit is not None and len(body) > limit:
            return self.answer(413, {"error": "Request payload too large."})
        if database.faults:
            fault = database.faults.pop(0)
            return self.answer(int(fault.get("status", 503)),
                               {"error": fault.get("error", "Service Unavailable")})
        try:
            value = json.loads(body) if body else None
        except ValueError:
            return self.answer(400, {"error": "Invalid data; couldn't parse JSON object, "
                                              "array, or value."})
        try:
            if method == "PATCH":
                database.update(segments, value)
            elif method == "PUT":
                database.tree = set_at(database.tree, segments, normalize(value, path))
            elif method == "DELETE":
                database.tree = set_at(database.tree, segments, None)
                value = None
            else:
                return self.answer(405, {"error": f"{method} is not supported"})
        except Refused as refused:
            return self.answer(400, {"error": str(refused)})
        return self.answer(204 if silent else 200, value, silent=silent)

    def do_GET(self):
        self.handle_request("GET")

    def do_PATCH(self):
        self.handle_request("PATCH")

    def do_PUT(self):
        self.handle_request("PUT")

    def do_POST(self):
        self.handle_request("POST")

    def do_DELETE(self):
        self.handle_request("DELETE")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--require-token")
    parser.add_argument("--data", help="a JSON file the database starts with")
    parser.add_argument("--max-request-bytes", type=int)
    options = parser.parse_args()
    tree = None
    if options.data:
        with open(options.data, encoding="utf-8") as file:
            tree = json.load(file)
    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    server.database = Database(tree)
    server.token = options.require_token
    server.max_request_bytes = options.max_request_bytes
    # A test that dies does not leave the stand-in behind: it exits with its parent, and
    # answers SIGTERM even when started with the signal blocked.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
