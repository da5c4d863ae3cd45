#!/usr/bin/env bash
# `trove publish --refresh --dry-run` of a target of ROWS treasures (IMAGED of them with an
# image, so that many objects) against its peer in the same run: ONE `curl` of the
# target's two database roots from the database stand-in, plus ONE listing of its bucket
# prefix from fake-gcs-server (the JSON API's pages, read by one Python process), the
# least a tool can read to compare the same things. Alternated over RUNS runs (which goes
# first alternates too); min, median and max of each and of the ratio. Target: median
# ratio <= 1.5x. Memory: the refresh's peak at ROWS against its peak at SMALL rows, which
# must stay flat (<= 1.25x).
#
# fake-gcs-server loads and lists objects in time that grows faster than their number (it
# did not come up in 12 minutes with 100,000 objects in its data folder), so the bucket
# holds IMAGED objects (10,000 by default), uploaded by trove's own publish; the database
# holds every treasure. The stand-in applies a multi-path update by copying the location
# it writes, so the first publish's database requests go to a sink that takes them and
# forgets them, and the stand-in then starts on the port the sink had, from the tree
# `export --target` previews: exactly what the publish sent.
# ROWS is 100,000 by default, so that `make bench` ends in reasonable time (the stand-in
# holds the whole tree in Python objects); ROWS=1000000 SMALL=100000 is the issue's size.
# Usage: Benchmarks/refresh/run.sh  (TROVE=path/to/trove; ROWS, SMALL, IMAGED, RUNS)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/Benchmarks/lib.sh"
TROVE=${TROVE:-$ROOT/.build/release/trove}
FAKE_GCS=${FAKE_GCS_SERVER:-$ROOT/.build/test-tools/bin/fake-gcs-server}
STANDIN="$ROOT/Tests/Support/rtdb-standin.py"
ROWS=${ROWS:-100000}
SMALL=${SMALL:-10000}
IMAGED=${IMAGED:-10000}
RUNS=${RUNS:-5}

[ -x "$FAKE_GCS" ] || { echo "refresh: fake-gcs-server not installed (make bench-deps); skipped"; exit 0; }

WORK=$(mktemp -d)
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done; rm -rf "$WORK"' EXIT INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 600); do (echo > "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0; sleep 0.1; done; return 1; }
seconds() { python3 -c 'import time; print(time.time())'; }

# One target: ROWS treasures, IMAGED with images, published to a bucket of its own and a
# stand-in holding exactly what was published. Sets FOLDER, DATABASE, GCS for it.
setup() {
  local rows=$1 name=$2
  FOLDER="$WORK/$name"
  mkdir -p "$FOLDER/gcs/bench"
  python3 - "$FOLDER" "$rows" "$IMAGED" <<'PY'
import os, random, struct, sys, zlib
folder, rows, imaged = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def png(seed):
    width, height = 120, 90
    raw = b"".join(b"\0" + bytes((x * seed + y) % 256 for x in range(width * 3))
                   for y in range(height))
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
os.makedirs(os.path.join(folder, "art"), exist_ok=True)
for seed in range(40):
    with open(os.path.join(folder, "art", f"a{seed}.png"), "wb") as handle:
        handle.write(png(seed + 1))
rng = random.Random(33)
with open(os.path.join(folder, "treasures.csv"), "w") as handle:
    handle.write("key,name,lat,lon,image\n")
    for index in range(rows):
        image = f"art/a{index % 40}.png" if index < imaged else ""
        handle.write(f"t{index:07d},Treasure {index},{rng.uniform(-60, 70):.6f},"
                     f"{rng.uniform(-180, 180):.6f},{image}\n")
PY
  export TROVE_WORKSPACE="$FOLDER/trove.sqlite"
  (cd "$FOLDER" && "$TROVE" init -q && "$TROVE" import treasures treasures.csv -q \
    && "$TROVE" geohash -q && "$TROVE" images -q --treasures --rendition full=128x128)
  local gcs_port; gcs_port=$(free_port)
  "$FAKE_GCS" -scheme http -host 127.0.0.1 -port "$gcs_port" -backend memory \
    -data "$FOLDER/gcs" -log-level error > "$FOLDER/gcs.log" 2>&1 &
  pids+=($!)
  wait_port "$gcs_port"
  GCS="http://127.0.0.1:$gcs_port"
  # The sink: answers every request 200 and forgets it.
  local db_port; db_port=$(free_port)
  python3 -c '
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(204); self.send_header("Content-Length", "0"); self.end_headers()
    do_PATCH = do_PUT = do_GET = answer
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()' "$db_port" &
  local sink=$!
  pids+=($sink)
  wait_port "$db_port"
  DATABASE="http://127.0.0.1:$db_port"
  export CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE="$GCS/" CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True \
    CLOUDSDK_CORE_PROJECT=test FIREBASE=
  (cd "$FOLDER" && "$TROVE" publish target add bench --database "$DATABASE" \
     --bucket gs://bench --layout flatirongo -q \
   && "$TROVE" publish -q && "$TROVE" export --target bench -q > "$FOLDER/tree.json")
  kill "$sink"; wait "$sink" 2> /dev/null || true
  python3 "$STANDIN" --port "$db_port" --data "$FOLDER/tree.json" > "$FOLDER/standin.log" 2>&1 &
  pids+=($!)
  wait_port "$db_port"
}

peer() {
  local start; start=$(seconds)
  curl -sf -o /dev/null "$DATABASE/treasureLocations.json" -o /dev/null "$DATABASE/treasureProfiles.json"
  python3 - "$GCS" <<'PY'
import json, sys, urllib.parse, urllib.request
endpoint, token, count = sys.argv[1], None, 0
while True:
    query = {"prefix": "treasures/", "maxResults": "1000"}
    if token:
        query["pageToken"] = token
    url = f"{endpoint}/storage/v1/b/bench/o?" + urllib.parse.urlencode(query)
    page = json.load(urllib.request.urlopen(url))
    count += len(page.get("items", []))
    token = page.get("nextPageToken")
    if not token:
        break
PY
  echo "$(seconds) - $start" | bc -l
}

ours() {
  local out; out=$(mktemp)
  (cd "$FOLDER" && /usr/bin/time -f '%e %M' -o "$out" "$TROVE" publish --refresh --dry-run -q \
     > /dev/null 2> "$FOLDER/refresh.err") \
    || { echo "refresh: the target differs from its record:" >&2; cat "$FOLDER/refresh.err" >&2; exit 1; }
  cat "$out"; rm -f "$out"
}

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f-%.2f-%.2f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

setup "$SMALL" small
small_kb=$(ours | awk '{ print $2 }')
printf '%-44s %7.1f MB peak\n' "refresh of $SMALL treasures" "$(echo "$small_kb / 1024" | bc -l)"

setup "$ROWS" large
times=(); peers=(); ratios=(); peak=0
for run in $(seq "$RUNS"); do
  if [ $((run % 2)) = 1 ]; then
    read -r t kb < <(ours); p=$(peer)
  else
    p=$(peer); read -r t kb < <(ours)
  fi
  times+=("$t"); peers+=("$p"); ratios+=("$(echo "$t / $p" | bc -l)")
  [ "$kb" -gt "$peak" ] && peak=$kb
  printf 'run %d: refresh %6.2f s (%5.1f MB), curl of the roots + bucket listing %6.2f s, ratio %.2fx\n' \
    "$run" "$t" "$(echo "$kb / 1024" | bc -l)" "$p" "$(echo "$t / $p" | bc -l)"
done
printf '%-44s %s s (min-median-max)\n' "refresh, $ROWS treasures, $IMAGED objects" "$(printf '%s\n' "${times[@]}" | stats)"
printf '%-44s %s s\n' "curl of the roots + one bucket listing" "$(printf '%s\n' "${peers[@]}" | stats)"
printf '%-44s %sx\n' "refresh / peer" "$(printf '%s\n' "${ratios[@]}" | stats)"
median=$(printf '%s\n' "${ratios[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p")
report_ratio "refresh vs one read of the roots and bucket" "$median" 1 1.5
report_ratio "refresh memory, $ROWS over $SMALL treasures" "$peak" "$small_kb" 1.25
