#!/usr/bin/env bash
# `trove import posts --from URL` with nothing changed: POSTS posts in the database stand-in
# (Tests/Support/rtdb-standin.py), pulled once to fill the workspace, then pulled again
# against ONE `curl` of the same location from the same stand-in, alternating which goes
# first over RUNS runs. The pull reads the location in pages from both ends, compares
# each page with the last read and writes nothing; curl takes the whole location in one
# answer and does nothing with it. Target: at most 1.5x (median of the runs).
# Then memory: the peak of a pull of POSTS posts against one of POSTS/10, both with
# nothing changed; flat in the number of posts means the difference stays small.
# The posts carry no photos here (the bucket's listing is not part of the comparison).
# Usage: Benchmarks/posts/pull.sh  (TROVE=path/to/trove; PULL_POSTS, default 100000; RUNS)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/Benchmarks/lib.sh"
TROVE=${TROVE:-$ROOT/.build/release/trove}
POSTS=${PULL_POSTS:-100000}
RUNS=${RUNS:-5}
PYTHON=${PYTHON:-python3}

command -v curl > /dev/null || { echo "pull: curl not installed; skipped"; exit 0; }

WORK=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2> /dev/null; rm -rf "$WORK"' EXIT INT TERM

# The app's flat shape: push-key-like keys, the fields the app writes.
make_tree() {
  "$PYTHON" - "$1" "$2" <<'PY'
import json, random, sys
count, path = int(sys.argv[1]), sys.argv[2]
random.seed(33)
locations = {}
for index in range(count):
    locations[f"-Nx{index:07d}"] = {
        "uid": f"user{index % 997}",
        "Latitude": round(38 + random.random(), 6),
        "Longitude": round(-9.5 + random.random(), 6),
        "LocationDescription": f"Bottles and cans by the bench, report {index}",
        "Date": f"2024-{1 + index % 12:02d}-{1 + index % 28:02d}T10:{index % 60:02d}:00Z",
    }
with open(path, "w") as file:
    json.dump({"Locations": locations}, file)
PY
}

# start_server DATA: the stand-in on a free port, holding DATA; sets URL.
start_server() {
  [ -n "$server" ] && kill "$server" 2> /dev/null && wait "$server" 2> /dev/null || true
  local port
  port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$PYTHON" "$ROOT/Tests/Support/rtdb-standin.py" --port "$port" --data "$1" \
    > "$WORK/server.log" 2>&1 &
  server=$!
  for _ in $(seq 600); do
    curl -s -o /dev/null "http://127.0.0.1:$port/.json?shallow=true" && break
    sleep 0.1
  done
  URL="http://127.0.0.1:$port"
}
export CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True

now() { date +%s.%N; }

# pull WORKSPACE: one pull, timed (PULL_SECONDS); its summary must say nothing changed
# after the first.
pull() {
  local start; start=$(now)
  "$TROVE" -w "$1" import posts --from "$URL/Locations" --format json > "$WORK/pull.json"
  PULL_SECONDS=$(echo "$(now) - $start" | bc -l)
}
unchanged() { "$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["unchanged"])' "$WORK/pull.json"; }
fetch() {
  local start; start=$(now)
  curl -sf -o "$WORK/curl.json" "$URL/Locations.json"
  echo "$(now) - $start" | bc -l
}

make_tree "$POSTS" "$WORK/tree.json"
start_server "$WORK/tree.json"
WS="$WORK/pull.sqlite"
"$TROVE" -w "$WS" init -q
pull "$WS"
printf '%-44s %8.2f s\n' "first pull ($POSTS new posts)" "$PULL_SECONDS"

ratios=()
for run in $(seq "$RUNS"); do
  if [ $((run % 2)) = 1 ]; then
    pull "$WS"; peer=$(fetch)
  else
    peer=$(fetch); pull "$WS"
  fi
  [ "$(unchanged)" = "$POSTS" ] || { echo "pull: run $run did not find all $POSTS posts unchanged"; exit 1; }
  ratio=$(echo "$PULL_SECONDS / $peer" | bc -l)
  ratios+=("$ratio")
  printf 'run %d: trove pull %7.2f s, one curl %7.2f s, ratio %.2fx\n' \
    "$run" "$PULL_SECONDS" "$peer" "$ratio"
done
sorted=$(printf '%s\n' "${ratios[@]}" | sort -g)
median=$(sed -n "$(( (RUNS + 1) / 2 ))p" <<< "$sorted")
printf '%-44s median %.2fx, spread %.2fx-%.2fx over %d runs\n' \
  "pull, nothing changed ($POSTS posts)" "$median" "$(head -n 1 <<< "$sorted")" \
  "$(tail -n 1 <<< "$sorted")" "$RUNS"
report_ratio "pull, nothing changed, vs one curl" "$median" 1 1.5

# Memory: the same pull of POSTS posts, and of a tenth of them.
measure "pull, nothing changed ($POSTS posts)" \
  "$TROVE" -w "$WS" import posts --from "$URL/Locations" -q
large_kb=$LAST_KB
SMALL=$((POSTS / 10))
make_tree "$SMALL" "$WORK/small.json"
start_server "$WORK/small.json"
SMALL_WS="$WORK/small.sqlite"
"$TROVE" -w "$SMALL_WS" init -q
"$TROVE" -w "$SMALL_WS" import posts --from "$URL/Locations" -q
measure "pull, nothing changed ($SMALL posts)" \
  "$TROVE" -w "$SMALL_WS" import posts --from "$URL/Locations" -q
report_memory "pull memory, $POSTS over $SMALL posts" "$((large_kb - LAST_KB))" 32
