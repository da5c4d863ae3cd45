#!/usr/bin/env python3
"""A local stand-in for the Firebase Realtime Database REST API, for tests.

Not an emulator: one database in memory, answering the REST API the way the Realtime
Database's REST documentation says it does, so that code tested against it works
against the real thing. No emulator of the database can be installed on the test
machines (no npm, no Java downloads).

Writes
  PATCH /PATH.json   multi-path update: each member of the body object is a path under
                     PATH (slashes allowed); null or {} deletes; parents left empty vanish;
                     the whole update is applied or none of it (paths may not overlap,
                     keys may not hold . $ # [ ] or control characters)
  PUT /PATH.json     replaces the value at PATH
  POST /PATH.json    pushes: the value goes under a new push key (time-ordered, 20
                     characters), answered as {"name": KEY}
  DELETE /PATH.json  removes the value at PATH
  ?print=silent      a write answers 204 with no body (else 200 with what was written)

Reads
  GET /PATH.json     the value at PATH (null when there is none), keys sorted, objects
                     whose keys are the indexes 0..n as arrays
  ?print=silent      204 with no body; ?print=pretty indents the JSON
  ?shallow=true      each child of an object answers true (always an object, never an
                     array); a primitive answers itself
  ?orderBy=...       a query; every value is JSON: orderBy="$key", "$value", "$priority"
                     or "CHILD" (a child path, e.g. "date"), with startAt=V, endAt=V,
                     equalTo=V, limitToFirst=N, limitToLast=N. Children are ordered as
                     the database orders them: by "$key", keys that parse as 32-bit
                     integers first in numeric order (equal numbers: shorter key first),
                     then the other keys in lexicographic order (UTF-16 code units); by a
                     value, null < false < true < numbers < strings < objects, ties by
                     key. startAt, endAt and equalTo compare the ordered value only
                     (with "$key" they must be strings). The result is a JSON object of
                     the children that pass (printed with keys sorted, as the database
                     promises no order). A primitive location answers itself, or null
                     when a filter or a limit is given. Ordered by "$key", a page is
                     answered from an ordering of the location kept until the next
                     write, in time that grows with the page, as from the database's
                     index: paging through a location of a million children is not a
                     million sorts.
                     orderBy a CHILD or "$value" needs an index, as in the database's
                     rules: --index PATH=CHILD (CHILD ".value" for "$value"), else 400
                     'Index not defined, add ".indexOn": "CHILD", for path "/PATH", to
                     the rules'.
                     400 {"error": ...}, in the database's words, for: a filter or limit
                     without orderBy; orderBy that is not a JSON string naming a valid
                     path; a bound that is not a JSON primitive; a limit that is not a
                     positive integer; both limits; equalTo with startAt or endAt; a
                     "$key" bound that is not a string; shallow mixed with any of them.
                     startAfter and endBefore are refused (the stand-in lacks them).

Streaming (Accept: text/event-stream on a GET)
  200 Content-Type: text/event-stream, chunked, held open. Events, each "event: NAME",
  "data: JSON" and a blank line:
    put        first {"path": "/", "data": <the value at the location>}; then, for every
               PUT or DELETE at or under the location, {"path": "/REL", "data": <the
               value now at that path, null when deleted>}; a write above the location
               that reaches it is {"path": "/", "data": <the value now at the location>}
    patch      for a PATCH at or under the location: {"path": "/REL", "data": {MEMBER:
               VALUE}} with the update's members (paths relative to the PATCH, slashes
               kept, null for deletions); a PATCH above the location whose members lie
               under it: {"path": "/", "data": {MEMBER-RELATIVE-TO-LOCATION: VALUE}}
    keep-alive data null, every --keep-alive-seconds (default 30) since the stream opened
    cancel     data "Permission denied", then the stream ends (sent on demand, below)
    auth_revoked  data "credential is no longer valid", then the stream ends (on demand)
  Every write that reaches the location sends an event, whether or not it changed the
  value there; writes elsewhere send none. Streams are served beside other requests and
  hold no lock while they wait. Streams of queries or shallow reads answer 400 (the
  stand-in does not stream them). With --require-token, a stream needs the token too.

Test controls (not part of the real API; logged like any request)
  POST /.standin/faults {"status": 503, "count": 2, "error": "..."}
                     the next COUNT writes answer STATUS with {"error": ERROR}
  GET /.standin/log  every request so far: [{"method", "path", "query", "status",
                     "authorized"}], "stream": true on stream requests; "query" holds
                     each query parameter's value as sent (JSON text for a query's)
  GET /.standin/streams[?count=N&timeout=S]
                     the open streams, [{"id", "path"}]; with count, first waits (up to
                     TIMEOUT seconds, default 10) until at least N are open
  POST /.standin/streams/cancel [{"path": "/P"}]
                     open streams (those at or under P, if given) get "cancel" and end
  POST /.standin/streams/auth_revoked [{"path": "/P", "require_token": "NEW"}]
                     open streams get "auth_revoked" and end; with require_token, from now
                     on requests need NEW (as a token that expired would be refused)
  POST /.standin/streams/drop [{"path": "/P"}]
                     open streams' connections are reset (RST) with no closing chunk,
                     as a network blip would leave them
  POST /.standin/streams/redirect {"count": 1[, "host": "localhost"]}
                     the next COUNT stream requests answer 307 with Location the same URL
                     (on HOST if given), as the database sends a stream to another server
  The stream controls answer {"streams": N} once the N streams they ended have closed.

Usage: rtdb-standin.py [--port 0] [--require-token TOKEN] [--data FILE] [--state FILE]
                       [--max-request-bytes N] [--keep-alive-seconds 30]
                       [--index PATH=CHILD ...]
Prints "listening on http://127.0.0.1:PORT" when ready. With --require-token, requests
need "Authorization: Bearer TOKEN" (or ?access_token=TOKEN or ?auth=TOKEN) and get 401
without it. --data FILE is a JSON tree to start with. --state FILE keeps the tree across
restarts: it is loaded from FILE when FILE exists (else from --data) and saved to it
atomically at start and after every write, so a stand-in stopped (even killed) and started
again with the same options and --port holds the same data (the port is bound with
SO_REUSEADDR). The request log, faults and streams are not kept. In --index, PATH segments
starting with $ match any key (as in the rules: Users/$uid/TaggedLocations=date).
"""

import argparse
import bisect
import json
import os
import queue
import random
import select
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

FORBIDDEN = set(".$#[]/")
MAX_KEY_BYTES = 768
# The members of a stored value that belong to the database, not to its children.
META_KEYS = (".priority", ".value")


class Refused(Exception):
    """A request the Realtime Database would refuse with 400."""


# MARK: - Keys, paths and values


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


def slashed(segments):
    return "/" + "/".join(segments)


def normalize(value, where):
    """The value as the database stores it: arrays become objects keyed by index, nulls
    and empty objects vanish (None for nothing at all)."""
    if isinstance(value, list):
        value = {str(index): item for index, item in enumerate(value)}
    if isinstance(value, dict):
        result = {}
        for key, child in value.items():
            # The database's own members of a value (GeoFire writes .priority).
            if key not in META_KEYS:
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


def children(node):
    """The children of a stored object, without the database's own members."""
    return [(key, child) for key, child in node.items() if key not in META_KEYS]


def exported(value):
    """Objects whose keys are mostly the indexes 0..n come back as arrays, as the
    Realtime Database returns them."""
    if not isinstance(value, dict):
        return value
    children = {key: exported(child) for key, child in value.items()}
    keys = list(children)
    if keys and all(key.isdigit() and (key == "0" or not key.startswith("0")) for key in keys):
        top = max(int(key) for key in keys)
        if top < 2 * len(keys):
            return [children.get(str(index)) for index in range(top + 1)]
    return children


def encoded(value, pretty=False):
    """JSON text as the database prints it: compact, or indented with " : " between a
    key and its value (print=pretty)."""
    if pretty:
        return (json.dumps(value, sort_keys=True, indent=2, separators=(",", " : "))
                + "\n").encode()
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"


class PushKeys:
    """Push keys as the clients make them: 8 characters of milliseconds, then 12 random
    ones incremented within one millisecond, so later keys sort after earlier ones."""

    def __init__(self):
        self.last_time = 0
        self.last_random = [0] * 12

    def next(self):
        now = int(time.time() * 1000)
        if now == self.last_time:
            index = 11
            while index >= 0 and self.last_random[index] == 63:
                self.last_random[index] = 0
                index -= 1
            if index >= 0:
                self.last_random[index] += 1
        else:
            self.last_random = [random.randrange(64) for _ in range(12)]
        self.last_time = now
        stamp = []
        for _ in range(8):
            stamp.append(PUSH_CHARS[now % 64])
            now //= 64
        return "".join(reversed(stamp)) + "".join(PUSH_CHARS[i] for i in self.last_random)


# MARK: - Ordering


def integer_key(key):
    """The key's value when it parses as a 32-bit integer (an optional minus sign and
    digits, leading zeros allowed), as the database's clients parse keys; else None."""
    digits = key[1:] if key.startswith("-") else key
    if not digits or len(key) > 11 or not all("0" <= char <= "9" for char in digits):
        return None
    number = int(key)
    return number if -2**31 <= number <= 2**31 - 1 else None


def utf16(text):
    """Text that compares as Java strings do, by UTF-16 code unit."""
    return text.encode("utf-16-be", "surrogatepass")


def key_order(key):
    number = integer_key(key)
    if number is not None:
        return (0, number, len(key))
    return (1, utf16(key))


def value_order(value):
    """Where a value sorts: null, false, true, numbers, strings, then objects (which tie,
    to be ordered by key)."""
    if value is None:
        return (0,)
    if value is False:
        return (1,)
    if value is True:
        return (2,)
    if isinstance(value, (int, float)):
        return (3, value)
    if isinstance(value, str):
        return (4, utf16(value))
    return (5,)


# MARK: - Queries

QUERY_PARAMETERS = ("orderBy", "startAt", "endAt", "equalTo", "limitToFirst", "limitToLast")
FILTERS = ("startAt", "endAt", "equalTo", "limitToFirst", "limitToLast")
UNSUPPORTED = ("startAfter", "endBefore")


def parse_json(text):
    def refuse(constant):
        raise ValueError(constant)
    return json.loads(text, parse_constant=refuse)


class Query:
    """A GET's orderBy and its filters, checked as the database checks them."""

    def __init__(self, parameters, segments, indexes):
        given = {name: parameters[name] for name in QUERY_PARAMETERS if name in parameters}
        for name in UNSUPPORTED:
            if name in parameters:
                raise Refused(f"{name} is not supported by the stand-in")
        if "orderBy" not in given:
            raise Refused("orderBy must be defined when other query parameters are defined")
        try:
            order = parse_json(given["orderBy"])
        except ValueError:
            order = None
        if not isinstance(order, str):
            raise Refused("orderBy must be a valid JSON encoded path")
        if order in ("$key", "$value", "$priority"):
            self.order, self.child = order, None
        else:
            try:
                self.child = split_path(order)
            except Refused:
                self.child = []
            if not self.child:
                raise Refused("orderBy must be a valid JSON encoded path")
            self.order = "child"
        self.limits = {}
        for name in ("limitToFirst", "limitToLast"):
            if name in given:
                try:
                    limit = parse_json(given[name])
                except ValueError:
                    limit = None
                if not isinstance(limit, int) or isinstance(limit, bool):
                    raise Refused(f"{name} must be an integer")
                if limit <= 0:
                    raise Refused(f"{name} must be positive")
                self.limits[name] = limit
        if len(self.limits) == 2:
            raise Refused("Only one of limitToFirst and limitToLast may be specified")
        bounds = {}
        for name in ("startAt", "endAt", "equalTo"):
            if name in given:
                try:
                    bound = parse_json(given[name])
                except ValueError:
                    raise Refused("Constraint index field must be a JSON primitive")
                if isinstance(bound, (list, dict)):
                    raise Refused("Constraint index field must be a JSON primitive")
                bounds[name] = bound
        if "equalTo" in bounds and ("startAt" in bounds or "endAt" in bounds):
            raise Refused("equalTo cannot be specified in addition to startAfter, startAt, "
                          "endAt, or endBefore")
        if self.order == "$key" and not all(isinstance(b, str) for b in bounds.values()):
            raise Refused("Provided key index type is invalid, must be string")
        if "equalTo" in bounds:
            bounds = {"startAt": bounds["equalTo"], "endAt": bounds["equalTo"]}
        self.bounds = bounds
        self.filtered = bool(bounds or self.limits)
        if self.order in ("child", "$value"):
            indexed = ".value" if self.order == "$value" else "/".join(self.child)
            if not any(indexed == child and matches(pattern, segments)
                       for pattern, child in indexes):
                raise Refused(f'Index not defined, add ".indexOn": "{indexed}", for path '
                              f'"{slashed(segments)}", to the rules')

    def ordered(self, key, value):
        """What a child is ordered and filtered by."""
        if self.order == "$key":
            return key_order(key)
        if self.order == "$value":
            return value_order(value)
        if self.order == "$priority":
            return value_order(value.get(".priority") if isinstance(value, dict) else None)
        return value_order(get_at(value, self.child) if isinstance(value, dict) else None)

    def bound(self, value):
        return key_order(value) if self.order == "$key" else value_order(value)

    def run(self, node, ordering=None):
        """The children of NODE that pass, as an object (None when none do). ORDERING, when
        given, returns NODE's children ordered by key, kept between writes."""
        if not isinstance(node, dict):
            return None if self.filtered else node
        if self.order == "$key" and ordering is not None:
            orders, keys = ordering(node)
            start, end = 0, len(keys)
            if "startAt" in self.bounds:
                start = bisect.bisect_left(orders, self.bound(self.bounds["startAt"]))
            if "endAt" in self.bounds:
                end = bisect.bisect_right(orders, self.bound(self.bounds["endAt"]))
            end = max(start, end)
            if "limitToFirst" in self.limits:
                end = min(end, start + self.limits["limitToFirst"])
            if "limitToLast" in self.limits:
                start = max(start, end - self.limits["limitToLast"])
            return {key: node[key] for key in keys[start:end]} or None
        items = [(self.ordered(key, child), key_order(key), key, child)
                 for key, child in children(node)]
        items.sort(key=lambda item: (item[0], item[1]))
        if "startAt" in self.bounds:
            low = self.bound(self.bounds["startAt"])
            items = [item for item in items if item[0] >= low]
        if "endAt" in self.bounds:
            high = self.bound(self.bounds["endAt"])
            items = [item for item in items if item[0] <= high]
        if "limitToFirst" in self.limits:
            items = items[: self.limits["limitToFirst"]]
        if "limitToLast" in self.limits:
            items = items[-self.limits["limitToLast"]:]
        return {key: child for _, _, key, child in items} or None


def matches(pattern, segments):
    """Whether an index's path (segments starting with $ match any key) names SEGMENTS."""
    return len(pattern) == len(segments) and all(
        wanted.startswith("$") or wanted == segment for wanted, segment in zip(pattern, segments))


def parse_index(text):
    path, separator, child = text.partition("=")
    if not separator or not child:
        raise argparse.ArgumentTypeError(f"--index {text!r} is not PATH=CHILD")
    return ([segment for segment in path.split("/") if segment], child.strip("/"))


# MARK: - Streams


class Stream:
    """One open stream: the events for its location, queued in the order the writes were
    applied, for its own thread to send."""

    def __init__(self, identifier, segments):
        self.id = identifier
        self.segments = segments
        self.events = queue.Queue()
        self.finished = threading.Event()

    def under(self, segments):
        return self.segments[: len(segments)] == segments


def stream_event(location, base, kind, members, tree):
    """The event a write sends to a stream at LOCATION, or None when the write does not
    reach it. BASE is where the write was sent; MEMBERS are (path relative to BASE,
    stored value) pairs; KIND is "put" (one member, at BASE) or "patch"."""
    if not members:
        return None  # an empty update changes nothing
    if base[: len(location)] == location:
        relative = base[len(location):]
        if kind == "put" or any(not path for path, _ in members):
            return "put", {"path": slashed(relative), "data": exported(get_at(tree, base))}
        return "patch", {"path": slashed(relative),
                         "data": {"/".join(path): exported(value) for path, value in members}}
    if location[: len(base)] != base:
        return None
    rest = location[len(base):]
    under = {}
    for path, value in members:
        if rest[: len(path)] == path:
            # This member replaces the location (or an ancestor of it) outright.
            return "put", {"path": "/", "data": exported(get_at(tree, location))}
        if path[: len(rest)] == rest:
            under["/".join(path[len(rest):])] = exported(value)
    return ("patch", {"path": "/", "data": under}) if under else None


# MARK: - The database


class Database:
    def __init__(self, tree=None, state=None, indexes=()):
        self.tree = normalize(tree, "data")
        self.lock = threading.Lock()
        # Signalled (with the lock) when a stream opens.
        self.opened = threading.Condition(self.lock)
        self.faults = []
        self.log = []
        self.streams = {}
        self.stream_ids = 0
        self.redirects = []
        self.state = state
        self.indexes = list(indexes)
        self.push_keys = PushKeys()
        # The children of the location last queried by key, ordered, until the next write:
        # the database answers a page of a large location from its index, not by sorting
        # it again for every page.
        self.version = 0
        # Per location queried by key, its children ordered by key, as the database keeps
        # them indexed: {id(node): (node, orders, keys)}, of the tree at ordered_version.
        self.ordered_by_key = {}
        self.ordered_version = 0
        self.save()

    def ordering(self, node):
        """NODE's children ordered by key: their orders and their keys."""
        if self.ordered_version != self.version:
            self.ordered_by_key.clear()
            self.ordered_version = self.version
        cached = self.ordered_by_key.get(id(node))
        if cached is None or cached[0] is not node:
            pairs = sorted((key_order(key), key) for key, _ in children(node))
            cached = (node, [order for order, _ in pairs], [key for _, key in pairs])
            self.ordered_by_key[id(node)] = cached
        return cached[1], cached[2]

    def save(self):
        """Writes the tree to the state file, whole or not at all (written aside, then
        renamed over it: a killed stand-in leaves the old tree or the new one)."""
        if self.state is None:
            return
        temporary = f"{self.state}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(self.tree, file, sort_keys=True, separators=(",", ":"))
        os.replace(temporary, self.state)

    def update(self, segments, body):
        """Applies a multi-path update; returns its members (path, stored value)."""
        if not isinstance(body, dict):
            raise Refused("Invalid data; a multi-path update must be a JSON object")
        paths = []
        for key, value in body.items():
            path = split_path(key)
            if not path and not segments:
                raise Refused("Invalid data; an update can't write the root as a member")
            paths.append((path, normalize(value, key)))
        for index, (first, _) in enumerate(paths):
            for second, _ in paths[index + 1:]:
                shorter, longer = sorted((first, second), key=len)
                if longer[: len(shorter)] == shorter:
                    raise Refused(
                        "Invalid data; path '/" + "/".join(shorter)
                        + "' is an ancestor of '/" + "/".join(longer) + "' in the same update")
        tree = self.tree
        for path, value in paths:
            tree = set_at(tree, segments + path, value)
        self.tree = tree
        return paths

    def write(self, method, segments, value, where):
        """Applies a write (the lock held), saves, and queues its events for the open
        streams it reaches. Returns what to answer with."""
        self.version += 1
        if method == "PATCH":
            members, kind, answer = self.update(segments, value), "patch", value
        elif method == "PUT":
            stored = normalize(value, where)
            self.tree = set_at(self.tree, segments, stored)
            members, kind, answer = [([], stored)], "put", value
        elif method == "POST":
            key = self.push_keys.next()
            stored = normalize(value, where)
            segments = segments + [key]
            self.tree = set_at(self.tree, segments, stored)
            members, kind, answer = [([], stored)], "put", {"name": key}
        else:
            self.tree = set_at(self.tree, segments, None)
            members, kind, answer = [([], None)], "put", None
        self.save()
        for stream in self.streams.values():
            event = stream_event(stream.segments, segments, kind, members, self.tree)
            if event is not None:
                stream.events.put(event)
        return answer

    def open_stream(self, segments):
        """A new stream whose first event holds the value now at its location (the lock
        held, so no write falls between that value and the stream's first event)."""
        self.stream_ids += 1
        stream = Stream(self.stream_ids, segments)
        stream.events.put(("put", {"path": "/", "data": exported(get_at(self.tree, segments))}))
        self.streams[stream.id] = stream
        self.opened.notify_all()
        return stream


# MARK: - HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "rtdb-standin"

    def log_message(self, *args):
        pass

    @property
    def database(self):
        return self.server.database

    def answer(self, status, value=None, raw=None, silent=False, pretty=False):
        """A response: (status, headers, body)."""
        body = b"" if silent else (raw if raw is not None else encoded(exported(value), pretty))
        headers = [("Content-Type", "application/json; charset=utf-8")] if body else []
        return status, headers, body

    def send(self, status, headers, body):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

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
        query = parse_qs(url.query, keep_blank_values=True)
        path = unquote(url.path)
        body = self.read_body() if method in ("PATCH", "PUT", "POST") else b""
        if path.startswith("/.standin/streams"):
            response = self.stream_control(method, path, query, body)
        elif method == "GET" and "text/event-stream" in self.headers.get("Accept", ""):
            response = self.stream(path, query, url.query)
        else:
            with self.database.lock:
                authorized = self.authorized(query)
                response = self.dispatch(method, path, query, body, authorized)
                self.record(method, path, query, response[0], authorized)
        if response is not None:
            self.send(*response)

    def record(self, method, path, query, status, authorized, stream=False):
        entry = {"method": method, "path": path,
                 "query": {name: values[0] for name, values in query.items()},
                 "status": status, "authorized": authorized}
        if stream:
            entry["stream"] = True
        self.database.log.append(entry)

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
        printed = query.get("print", [None])[0]
        silent, pretty = printed == "silent", printed == "pretty"
        try:
            segments = split_path(path[: -len(".json")])
        except Refused as refused:
            return self.answer(400, {"error": str(refused)})
        if method == "GET":
            return self.read(segments, query, silent, pretty)
        if method not in ("PATCH", "PUT", "POST", "DELETE"):
            return self.answer(405, {"error": f"{method} is not supported"})
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
            written = database.write(method, segments, value, path)
        except Refused as refused:
            return self.answer(400, {"error": str(refused)})
        return self.answer(204 if silent else 200, written, silent=silent, pretty=pretty)

    def read(self, segments, query, silent, pretty):
        """A GET: the value, a shallow listing or a query's result."""
        node = get_at(self.database.tree, segments)
        querying = any(name in query for name in QUERY_PARAMETERS + UNSUPPORTED)
        shallow = query.get("shallow", [None])[0] == "true"
        try:
            if shallow and querying:
                raise Refused("Mixing 'shallow' and querying parameters is not supported")
            if querying:
                parameters = {name: values[0] for name, values in query.items()}
                node = Query(parameters, segments, self.database.indexes).run(
                    node, self.database.ordering)
        except Refused as refused:
            return self.answer(400, {"error": str(refused)})
        if silent:
            return self.answer(204, silent=True)
        if shallow and isinstance(node, dict):
            return self.answer(200, raw=encoded({key: True for key, _ in children(node)}, pretty))
        return self.answer(200, node, pretty=pretty)

    # MARK: - Streams

    def stream(self, path, query, raw_query):
        """Serves a stream until it is cancelled, revoked, dropped or its client leaves;
        returns a response instead when the request is refused or redirected."""
        database = self.database
        with database.lock:
            authorized = self.authorized(query)
            response = None
            if not path.endswith(".json"):
                response = self.answer(404, {"error": "Not found: the REST API's paths end "
                                                      "in .json"})
            elif not authorized:
                response = self.answer(401, {"error": "Unauthorized request."})
            elif any(name in query for name in QUERY_PARAMETERS + UNSUPPORTED + ("shallow",)):
                response = self.answer(400, {"error": "the stand-in does not stream queries "
                                                      "or shallow reads"})
            elif database.redirects:
                host = database.redirects.pop(0) or self.headers.get("Host", "127.0.0.1")
                if ":" not in host:
                    host = f"{host}:{self.server.server_address[1]}"
                location = f"http://{host}{self.path}"
                response = (307, [("Location", location)], b"")
            if response is None:
                try:
                    segments = split_path(path[: -len(".json")])
                except Refused as refused:
                    response = self.answer(400, {"error": str(refused)})
            if response is not None:
                self.record("GET", path, query, response[0], authorized, stream=True)
                return response
            stream = database.open_stream(segments)
            self.record("GET", path, query, 200, authorized, stream=True)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            self.pump(stream)
        except OSError:
            pass  # the client went away
        finally:
            with database.lock:
                database.streams.pop(stream.id, None)
            stream.finished.set()
        return None

    def pump(self, stream):
        """Sends the stream's events as they come, and a keep-alive every period; ends
        when its client leaves."""
        period = self.server.keep_alive_seconds
        due = time.monotonic() + period
        while True:
            try:
                kind, data = stream.events.get(timeout=min(0.1, max(0.0, due - time.monotonic())))
            except queue.Empty:
                if self.client_left():
                    return
                if time.monotonic() >= due:
                    self.send_event("keep-alive", None)
                    due += period
                continue
            if kind == "drop":
                # Closed with a reset and no closing chunk: the connection just breaks.
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.rfile.close()
                self.connection.close()
                return
            self.send_event(kind, data)
            if kind in ("cancel", "auth_revoked"):
                self.wfile.write(b"0\r\n\r\n")
                return

    def client_left(self):
        """Whether the client closed its end (a stream's client sends nothing more)."""
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def send_event(self, kind, data):
        if kind in ("put", "patch"):
            # "path" first, as the database prints it; the value's keys sorted.
            payload = b'{"path":%s,"data":%s}' % (encoded(data["path"]), encoded(data["data"]))
        else:
            payload = encoded(data)
        text = b"event: %s\ndata: %s\n\n" % (kind.encode(), payload)
        self.wfile.write(b"%x\r\n%s\r\n" % (len(text), text))

    def stream_control(self, method, path, query, body):
        """The stream controls; they wait for the streams they end outside the lock."""
        database = self.database
        try:
            options = json.loads(body) if body else {}
        except ValueError:
            options = None
        if not isinstance(options, dict):
            return self.answer(400, {"error": "a control's body is a JSON object"})
        action = path[len("/.standin/streams"):]
        if method == "GET" and action == "":
            count = int(query.get("count", ["0"])[0])
            deadline = time.monotonic() + float(query.get("timeout", ["10"])[0])
            with database.lock:
                while len(database.streams) < count and time.monotonic() < deadline:
                    database.opened.wait(max(0.0, deadline - time.monotonic()))
                listing = [{"id": stream.id, "path": slashed(stream.segments)}
                           for stream in database.streams.values()]
                status = 200 if len(listing) >= count else 408
                self.record(method, path, query, status, True)
            return self.answer(status, raw=json.dumps(listing).encode())
        events = {"/cancel": ("cancel", "Permission denied"),
                  "/auth_revoked": ("auth_revoked", "credential is no longer valid"),
                  "/drop": ("drop", None)}
        with database.lock:
            if method == "POST" and action == "/redirect":
                database.redirects.extend([options.get("host")] * int(options.get("count", 1)))
                self.record(method, path, query, 204, True)
                return self.answer(204, silent=True)
            if method != "POST" or action not in events:
                self.record(method, path, query, 404, True)
                return self.answer(404, {"error": f"no control {method} {path}"})
            within = split_path(options.get("path", "/"))
            ended = [stream for stream in database.streams.values() if stream.under(within)]
            for stream in ended:
                stream.events.put(events[action])
            if action == "/auth_revoked" and "require_token" in options:
                self.server.token = options["require_token"]
            self.record(method, path, query, 200, True)
        for stream in ended:
            stream.finished.wait(10)
        return self.answer(200, {"streams": len(ended)})

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


class StandInServer(ThreadingHTTPServer):
    # A stand-in started again on its port binds it while the old connections wait.
    allow_reuse_address = True
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--require-token")
    parser.add_argument("--data", help="a JSON file the database starts with")
    parser.add_argument("--state", help="a JSON file the tree is kept in across restarts")
    parser.add_argument("--max-request-bytes", type=int)
    parser.add_argument("--keep-alive-seconds", type=float, default=30.0)
    parser.add_argument("--index", type=parse_index, action="append", default=[],
                        metavar="PATH=CHILD")
    options = parser.parse_args()
    tree = None
    source = options.state if options.state and os.path.exists(options.state) else options.data
    if source:
        with open(source, encoding="utf-8") as file:
            tree = json.load(file)
    server = StandInServer(("127.0.0.1", options.port), Handler)
    server.database = Database(tree, state=options.state, indexes=options.index)
    server.token = options.require_token
    server.max_request_bytes = options.max_request_bytes
    server.keep_alive_seconds = options.keep_alive_seconds
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
