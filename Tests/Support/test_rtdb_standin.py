"""Self-test of rtdb-standin.py, the Realtime Database REST stand-in the Swift tests use.

Run from the repository root:
    python3 -m unittest discover -s Tests/Support -p 'test_*.py'

Each test case starts the stand-in as a process of its own on a free port and waits for
its "listening on" line; streams are read until the event a test expects arrives, under
one generous deadline, so nothing here waits a fixed time.
"""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rtdb-standin.py")
# The most any one test waits for a line, an event or an answer.
TIMEOUT = 20


class StandIn:
    """The stand-in running in a process of its own."""

    def __init__(self, *options, port=0):
        self.options = list(options)
        # A file, not a pipe: a pipe nobody reads could fill and stall the stand-in.
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, SCRIPT, "--port", str(port)] + self.options,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.errors, text=True)
        readable, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        line = self.process.stdout.readline() if readable else ""
        if not line.startswith("listening on "):
            self.stop()
            raise AssertionError(f"the stand-in did not start: {line!r} {self.complaint!r}")
        self.url = line[len("listening on "):].strip()
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        """Killed outright, as a test harness stops it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(TIMEOUT)
        self.process.stdout.close()
        self.errors.seek(0)
        self.complaint = self.errors.read().decode(errors="replace")
        self.errors.close()

    def request(self, method, path, body=None, headers=None):
        """(status, parsed JSON body or None, raw body)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return status, (json.loads(raw) if raw else None), raw

    def get(self, path, **parameters):
        """GET PATH.json with the parameters given, each query value JSON-encoded."""
        query = urllib.parse.urlencode(
            {name: json.dumps(value) if name in ("orderBy", "startAt", "endAt", "equalTo")
             else value for name, value in parameters.items()})
        return self.request("GET", f"{path}.json" + (f"?{query}" if query else ""))

    def stream(self, path, token=None):
        return EventStream(self.port, path, token)


class StreamEnded(Exception):
    """The stream's response ended with its closing chunk."""


class EventStream:
    """A GET with Accept: text/event-stream read straight off its socket, so that a
    closing chunk (a stream ended) and a reset connection (a dropped one) tell apart."""

    def __init__(self, port, path, token=None):
        self.deadline = time.monotonic() + TIMEOUT
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        headers = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}",
                   "Accept: text/event-stream"]
        if token:
            headers.append(f"Authorization: Bearer {token}")
        self.socket.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
        self.buffer = b""
        self.text = b""
        status_line = self.line()
        self.status = int(status_line.split()[1])
        self.headers = {}
        while True:
            line = self.line()
            if not line:
                break
            name, _, value = line.partition(b":")
            self.headers[name.decode().lower()] = value.strip().decode()

    def close(self):
        self.socket.close()

    def fill(self):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError("no event in time")
        self.socket.settimeout(remaining)
        data = self.socket.recv(65536)
        if not data:
            raise EOFError("the connection closed without a closing chunk")
        self.buffer += data

    def line(self):
        while b"\r\n" not in self.buffer:
            self.fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def chunk(self):
        size = int(self.line(), 16)
        while len(self.buffer) < size + 2:
            self.fill()
        data, self.buffer = self.buffer[:size], self.buffer[size + 2:]
        if size == 0:
            raise StreamEnded()
        return data

    def event(self):
        """The next event: (name, data parsed as JSON)."""
        while b"\n\n" not in self.text:
            self.text += self.chunk()
        block, self.text = self.text.split(b"\n\n", 1)
        fields = dict(line.split(": ", 1) for line in block.decode().split("\n"))
        return fields["event"], json.loads(fields["data"])

    def until(self, name):
        """Events up to the first called NAME (keep-alives skipped unless asked for);
        returns that one's data."""
        while True:
            event, data = self.event()
            if event == name:
                return data
            if event != "keep-alive":
                raise AssertionError(f"expected {name}, got {event} {data}")


def ordered_keys(standin, path, count, **parameters):
    """The children's keys in the query's order, one limitToFirst at a time."""
    keys = []
    for limit in range(1, count + 1):
        status, page, _ = standin.get(path, limitToFirst=limit, **parameters)
        assert status == 200, page
        new = set(page or {}) - set(keys)
        assert len(new) <= 1, new
        keys.extend(new)
    return keys


# MARK: - Queries, shallow, print


class QueryTests(unittest.TestCase):
    KEYS = ["k1", "a", "B", "10", "2", "007", "1", "-5", "2147483648", "k100"]

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        locations = {f"p{index:03d}-{'x' * (index % 7)}": {"n": index, "date": index % 10}
                     for index in range(237)}
        locations.update({str(index): {"n": index} for index in range(0, 60, 7)})
        keyed = {key: position for position, key in enumerate(cls.KEYS)}
        dated = {"nul": {"x": 1}, "fal": {"date": False}, "tru": {"date": True},
                 "n2a": {"date": 2}, "n2b": {"date": 2}, "n10": {"date": 10},
                 "s10": {"date": "10"}, "sab": {"date": "ab"}, "obj": {"date": {"y": 1}},
                 "neg": {"date": -1.5}}
        scores = {"x": 3, "y": "three", "z": 1, "w": True}
        seed = os.path.join(cls.folder.name, "seed.json")
        with open(seed, "w") as file:
            json.dump({"Locations": locations, "keyed": keyed, "dated": dated,
                       "scores": scores, "leaf": "hello", "message": {"user": {"name": "C"},
                                                                      "body": "Hello!"}}, file)
        cls.standin = StandIn("--data", seed, "--index", "dated=date",
                              "--index", "scores=.value", "--index", "users/$uid/posts=date")
        cls.locations = locations

    @classmethod
    def tearDownClass(cls):
        cls.standin.stop()
        cls.folder.cleanup()

    def refused(self, path, message, **parameters):
        status, body, _ = self.standin.get(path, **parameters)
        self.assertEqual((status, body), (400, {"error": message}))

    def test_pages_walked_by_key_reassemble_the_whole_location(self):
        status, whole, _ = self.standin.get("/Locations")
        self.assertEqual(status, 200)
        self.assertEqual(whole, self.locations)
        gathered, cursor, pages, size = {}, None, 0, 25
        while True:
            parameters = {"orderBy": "$key", "limitToFirst": size + 1}
            if cursor is not None:
                parameters["startAt"] = cursor
            status, page, _ = self.standin.get("/Locations", **parameters)
            self.assertEqual(status, 200)
            pages += 1
            self.assertLessEqual(len(page), size + 1)
            fresh = {key: value for key, value in page.items() if key != cursor}
            self.assertFalse(set(fresh) & set(gathered), "a key came back on a later page")
            gathered.update(fresh)
            if len(page) < size + 1:
                break
            # The page's last key in the database's order: numbered keys first.
            cursor = max(page, key=lambda key: (0, int(key), "") if key.isdigit()
                         else (1, 0, key))
        self.assertEqual(gathered, whole)
        self.assertGreater(pages, len(whole) // (size + 1))

    def test_keys_that_parse_as_32_bit_integers_come_first_in_numeric_order(self):
        self.assertEqual(
            ordered_keys(self.standin, "/keyed", len(self.KEYS), orderBy="$key"),
            ["-5", "1", "2", "007", "10", "2147483648", "B", "a", "k1", "k100"])

    def test_limit_to_last_takes_the_end_of_the_order(self):
        status, page, _ = self.standin.get("/keyed", orderBy="$key", limitToLast=3)
        self.assertEqual((status, sorted(page)), (200, ["a", "k1", "k100"]))

    def test_start_at_and_end_at_bound_keys_in_the_database_order(self):
        status, page, _ = self.standin.get("/keyed", orderBy="$key", endAt="10")
        self.assertEqual((status, sorted(page)), (200, sorted(["-5", "1", "2", "007", "10"])))
        status, page, _ = self.standin.get("/keyed", orderBy="$key", startAt="2", endAt="B")
        self.assertEqual(sorted(page), sorted(["2", "007", "10", "2147483648", "B"]))
        status, page, _ = self.standin.get("/keyed", orderBy="$key", startAt="k1",
                                           limitToFirst=1)
        self.assertEqual(page, {"k1": self.KEYS.index("k1")})
        status, page, _ = self.standin.get("/keyed", orderBy="$key", equalTo="a")
        self.assertEqual(page, {"a": self.KEYS.index("a")})
        status, page, _ = self.standin.get("/keyed", orderBy="$key", startAt="zzz")
        self.assertEqual((status, page), (200, None))

    def test_a_child_orders_null_false_true_numbers_strings_objects_ties_by_key(self):
        self.assertEqual(
            ordered_keys(self.standin, "/dated", 10, orderBy="date"),
            ["nul", "fal", "tru", "neg", "n2a", "n2b", "n10", "s10", "sab", "obj"])
        status, page, _ = self.standin.get("/dated", orderBy="date", startAt=2, endAt="10")
        self.assertEqual(sorted(page), ["n10", "n2a", "n2b", "s10"])
        status, page, _ = self.standin.get("/dated", orderBy="date", equalTo=2)
        self.assertEqual(sorted(page), ["n2a", "n2b"])
        status, page, _ = self.standin.get("/dated", orderBy="date", limitToLast=2)
        self.assertEqual(sorted(page), ["obj", "sab"])

    def test_value_ordering_with_its_index(self):
        self.assertEqual(ordered_keys(self.standin, "/scores", 4, orderBy="$value"),
                         ["w", "z", "x", "y"])

    def test_an_index_path_may_hold_wildcards(self):
        status, page, _ = self.standin.get("/users/u1/posts", orderBy="date")
        self.assertEqual((status, page), (200, None))

    def test_a_primitive_answers_itself_unless_filtered(self):
        self.assertEqual(self.standin.get("/leaf", orderBy="$key")[:2], (200, "hello"))
        self.assertEqual(self.standin.get("/leaf", orderBy="$key", limitToFirst=1)[:2],
                         (200, None))

    def test_queries_are_refused_in_the_database_words(self):
        self.refused("/keyed", "orderBy must be defined when other query parameters are "
                     "defined", limitToFirst=2)
        status, body, _ = self.standin.request("GET", "/keyed.json?orderBy=$key")
        self.assertEqual((status, body),
                         (400, {"error": "orderBy must be a valid JSON encoded path"}))
        status, body, _ = self.standin.request(
            "GET", "/keyed.json?orderBy=%22%24key%22&startAt=k1")
        self.assertEqual((status, body),
                         (400, {"error": "Constraint index field must be a JSON primitive"}))
        self.refused("/keyed", "Constraint index field must be a JSON primitive",
                     orderBy="$key", startAt=["k1"])
        self.refused("/keyed", "limitToFirst must be an integer", orderBy="$key",
                     limitToFirst="two")
        self.refused("/keyed", "limitToLast must be positive", orderBy="$key", limitToLast=0)
        self.refused("/keyed", "Only one of limitToFirst and limitToLast may be specified",
                     orderBy="$key", limitToFirst=1, limitToLast=1)
        self.refused("/keyed", "equalTo cannot be specified in addition to startAfter, "
                     "startAt, endAt, or endBefore", orderBy="$key", equalTo="a", startAt="a")
        self.refused("/keyed", "Provided key index type is invalid, must be string",
                     orderBy="$key", startAt=10)
        self.refused("/keyed", "orderBy must be a valid JSON encoded path", orderBy="$nope")
        self.refused("/Locations", 'Index not defined, add ".indexOn": "n", for path '
                     '"/Locations", to the rules', orderBy="n")
        self.refused("/keyed", 'Index not defined, add ".indexOn": ".value", for path '
                     '"/keyed", to the rules', orderBy="$value")
        self.refused("/keyed", "Mixing 'shallow' and querying parameters is not supported",
                     shallow="true", orderBy="$key")

    def test_shallow_answers_true_for_each_child_and_a_primitive_as_itself(self):
        self.assertEqual(self.standin.get("/message", shallow="true")[:2],
                         (200, {"user": True, "body": True}))
        self.assertEqual(self.standin.get("/message/body", shallow="true")[:2],
                         (200, "Hello!"))
        self.assertEqual(self.standin.get("/nothing", shallow="true")[:2], (200, None))
        status, listing, _ = self.standin.get("/keyed", shallow="true")
        self.assertEqual(listing, {key: True for key in self.KEYS})

    def test_print_silent_answers_204_and_print_pretty_indents(self):
        status, body, raw = self.standin.get("/message", print="silent")
        self.assertEqual((status, raw), (204, b""))
        status, body, raw = self.standin.get("/message", print="pretty")
        self.assertEqual(body, {"user": {"name": "C"}, "body": "Hello!"})
        self.assertIn(b'\n  "body" : "Hello!"', raw)


# MARK: - Writes


class WriteTests(unittest.TestCase):
    def setUp(self):
        self.standin = StandIn()

    def tearDown(self):
        self.standin.stop()

    def test_a_multi_path_update_with_a_path_and_its_ancestor_is_refused_whole(self):
        self.standin.request("PUT", "/.json", {"t": {"a": 1}})
        status, body, _ = self.standin.request("PATCH", "/.json", {"t/c": 2, "t": None})
        self.assertEqual((status, body), (400, {"error": "Invalid data; path '/t' is an "
                                                "ancestor of '/t/c' in the same update"}))
        self.assertEqual(self.standin.get("/")[1], {"t": {"a": 1}})

    def test_print_silent_writes_answer_204_and_the_log_has_each_request(self):
        status, _, raw = self.standin.request("PUT", "/a.json?print=silent", {"b": 1})
        self.assertEqual((status, raw), (204, b""))
        self.standin.get("/a", orderBy="$key", limitToFirst=1)
        _, log, _ = self.standin.request("GET", "/.standin/log")
        self.assertEqual([(entry["method"], entry["path"], entry["status"]) for entry in log],
                         [("PUT", "/a.json", 204), ("GET", "/a.json", 200)])
        self.assertEqual(log[1]["query"], {"orderBy": '"$key"', "limitToFirst": "1"})

    def test_a_push_adds_a_key_that_sorts_after_the_earlier_ones(self):
        names = [self.standin.request("POST", "/list.json", {"n": n})[1]["name"]
                 for n in range(5)]
        self.assertEqual(names, sorted(names))
        self.assertTrue(all(len(name) == 20 for name in names))
        self.assertEqual(self.standin.get("/list")[1],
                         {name: {"n": n} for n, name in enumerate(names)})


# MARK: - Streams


class StreamTests(unittest.TestCase):
    def setUp(self):
        self.standin = StandIn("--keep-alive-seconds", "0.2")
        self.standin.request("PUT", "/.json",
                             {"Locations": {"a": {"d": 1}, "b": {"d": 2}}, "other": 1})
        self.streams = []

    def tearDown(self):
        for stream in self.streams:
            stream.close()
        self.standin.stop()

    def open(self, path="/Locations.json", token=None):
        stream = self.standin.stream(path, token)
        self.streams.append(stream)
        return stream

    def test_a_stream_starts_with_the_value_and_follows_every_write_that_reaches_it(self):
        stream = self.open()
        self.assertEqual(stream.status, 200)
        self.assertEqual(stream.headers["content-type"], "text/event-stream")
        self.assertEqual(stream.until("put"),
                         {"path": "/", "data": {"a": {"d": 1}, "b": {"d": 2}}})
        # Served beside the open stream.
        self.assertEqual(self.standin.get("/other")[:2], (200, 1))
        # The app writes a post.
        self.standin.request("PUT", "/Locations/c.json", {"d": 3})
        self.assertEqual(stream.until("put"), {"path": "/c", "data": {"d": 3}})
        # A multi-path update under the location, and one above it.
        self.standin.request("PATCH", "/Locations.json", {"a/d": 10, "b": None})
        self.assertEqual(stream.until("patch"), {"path": "/", "data": {"a/d": 10, "b": None}})
        self.standin.request("PATCH", "/Locations/c.json", {"e": [1, 2]})
        self.assertEqual(stream.until("patch"), {"path": "/c", "data": {"e": [1, 2]}})
        self.standin.request("PATCH", "/.json", {"other": 2, "Locations/a/d": 11})
        self.assertEqual(stream.until("patch"), {"path": "/", "data": {"a/d": 11}})
        # A write elsewhere, or an empty update, sends nothing: the next event is the
        # delete's.
        self.standin.request("PUT", "/other.json", 3)
        self.standin.request("PATCH", "/Locations.json", {})
        self.standin.request("DELETE", "/Locations/c.json")
        self.assertEqual(stream.until("put"), {"path": "/c", "data": None})
        # A write above the location that replaces it.
        self.standin.request("PATCH", "/.json", {"Locations": {"z": 1}})
        self.assertEqual(stream.until("put"), {"path": "/", "data": {"z": 1}})
        self.standin.request("PUT", "/.json", {"other": 4})
        self.assertEqual(stream.until("put"), {"path": "/", "data": None})

    def test_keep_alive_comes_every_period_with_null_data(self):
        stream = self.open()
        stream.until("put")
        self.assertEqual(stream.event(), ("keep-alive", None))
        self.assertEqual(stream.event(), ("keep-alive", None))

    def test_cancel_sends_permission_denied_and_ends_the_stream(self):
        stream = self.open()
        other = self.open("/other.json")
        stream.until("put")
        other.until("put")
        status, body, _ = self.standin.request("POST", "/.standin/streams/cancel",
                                               {"path": "/Locations"})
        self.assertEqual((status, body), (200, {"streams": 1}))
        self.assertEqual(stream.until("cancel"), "Permission denied")
        with self.assertRaises(StreamEnded):
            stream.event()
        self.standin.request("PUT", "/other.json", 5)
        self.assertEqual(other.until("put"), {"path": "/", "data": 5})

    def test_a_dropped_stream_is_reset_without_its_closing_chunk(self):
        first, second = self.open(), self.open("/.json")
        first.until("put")
        second.until("put")
        _, listing, _ = self.standin.request("GET", "/.standin/streams?count=2")
        self.assertEqual(sorted(entry["path"] for entry in listing), ["/", "/Locations"])
        status, body, _ = self.standin.request("POST", "/.standin/streams/drop")
        self.assertEqual((status, body), (200, {"streams": 2}))
        for stream in (first, second):
            with self.assertRaises((ConnectionResetError, EOFError)):
                while True:
                    stream.event()
        self.assertEqual(self.standin.request("GET", "/.standin/streams")[1], [])
        again = self.open()
        self.assertEqual(again.until("put")["data"], {"a": {"d": 1}, "b": {"d": 2}})

    def test_a_stream_may_be_redirected_to_the_same_url(self):
        self.standin.request("POST", "/.standin/streams/redirect", {"count": 1})
        redirected = self.open()
        self.assertEqual(redirected.status, 307)
        location = redirected.headers["location"]
        self.assertEqual(location, f"{self.standin.url}/Locations.json")
        followed = self.open(urllib.parse.urlsplit(location).path)
        self.assertEqual(followed.status, 200)
        self.assertEqual(followed.until("put")["path"], "/")

    def test_a_stream_of_a_query_is_refused(self):
        stream = self.open('/Locations.json?orderBy="$key"')
        self.assertEqual(stream.status, 400)


class TokenStreamTests(unittest.TestCase):
    def setUp(self):
        self.standin = StandIn("--require-token", "old")

    def tearDown(self):
        self.standin.stop()

    def status(self, path, token=None):
        stream = self.standin.stream(path, token)
        stream.close()
        return stream.status

    def test_auth_revoked_ends_the_stream_and_a_new_token_is_needed(self):
        self.assertEqual(self.status("/.json"), 401)
        stream = self.standin.stream("/.json", token="old")
        self.assertEqual(stream.until("put"), {"path": "/", "data": None})
        status, body, _ = self.standin.request("POST", "/.standin/streams/auth_revoked",
                                               {"require_token": "new"})
        self.assertEqual((status, body), (200, {"streams": 1}))
        self.assertEqual(stream.until("auth_revoked"), "credential is no longer valid")
        with self.assertRaises(StreamEnded):
            stream.event()
        stream.close()
        self.assertEqual(self.status("/.json", token="old"), 401)
        self.assertEqual(self.status("/.json", token="new"), 200)


# MARK: - Restart


class RestartTests(unittest.TestCase):
    def test_a_restart_on_the_same_port_with_its_state_keeps_the_data(self):
        with tempfile.TemporaryDirectory() as folder:
            state = os.path.join(folder, "state.json")
            seed = os.path.join(folder, "seed.json")
            with open(seed, "w") as file:
                json.dump({"seeded": True}, file)
            first = StandIn("--data", seed, "--state", state)
            try:
                first.request("PATCH", "/.json", {"Locations/a": {"d": 1}})
                stream = first.stream("/Locations.json")
                stream.until("put")
            finally:
                first.stop()
            with self.assertRaises((ConnectionResetError, EOFError)):
                while True:
                    stream.event()
            stream.close()
            second = StandIn("--data", seed, "--state", state, port=first.port)
            try:
                self.assertEqual(second.url, first.url)
                self.assertEqual(second.get("/")[1],
                                 {"seeded": True, "Locations": {"a": {"d": 1}}})
                stream = second.stream("/Locations.json")
                self.assertEqual(stream.until("put"), {"path": "/", "data": {"a": {"d": 1}}})
                stream.close()
            finally:
                second.stop()


if __name__ == "__main__":
    unittest.main()
