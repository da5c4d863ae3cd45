#!/usr/bin/env bash
# What a first publish writes locally against what it sends (issue 35): ROWS treasures
# without images published to a database that counts the bytes of the requests it is sent
# and forgets them. Written locally is what the process and its children dirtied
# (getrusage's ru_oublock, in 512-byte blocks): the workspace, its write-ahead log and
# any temporary files. The workspace's own files are printed apart, from strace when it
# is installed. RUNS runs on fresh workspaces; min-median-max of each ratio.
# Target: the workspace's files at most what is sent.
# Usage: Benchmarks/publish/writes.sh  (TROVE=path/to/trove; ROWS, RUNS)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/Benchmarks/lib.sh"
TROVE=${TROVE:-$ROOT/.build/release/trove}
ROWS=${ROWS:-100000}
RUNS=${RUNS:-3}
WORK=$(mktemp -d)
sink_pid=
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2> /dev/null; rm -rf "$WORK"' EXIT INT TERM

python3 - "$WORK/t.csv" "$ROWS" <<'PY'
import random, sys
rng = random.Random(35)
with open(sys.argv[1], "w") as out:
    out.write("key,name,lat,lon\n")
    for index in range(int(sys.argv[2])):
        out.write(f"t{index:07d},Treasure {index},{rng.uniform(-60, 70):.6f},"
                  f"{rng.uniform(-180, 180):.6f}\n")
PY
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c '
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
received = 0
class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def answer(self):
        global received
        length = int(self.headers.get("Content-Length") or 0)
        received += len(self.rfile.read(length))
        with open(sys.argv[2], "w") as out: out.write(str(received))
        self.send_response(204); self.send_header("Content-Length", "0"); self.end_headers()
    do_PATCH = do_PUT = do_GET = do_POST = answer
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()' "$port" "$WORK/sent" &
sink_pid=$!
for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break; sleep 0.1; done

# written CMD...: bytes the command and its children dirtied.
written() {
  python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
sys.exit(print(usage.ru_oublock * 512) or os.waitstatus_to_exitcode(status))' "$@"
}

stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f-%.2f-%.2f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
all=(); own=()
# The stand-in needs no credentials, as the emulators do not.
export CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True
for run in $(seq "$RUNS"); do
  folder="$WORK/run$run"
  mkdir -p "$folder"
  export TROVE_WORKSPACE="$folder/trove.sqlite"
  "$TROVE" init -q && "$TROVE" import treasures "$WORK/t.csv" -q && "$TROVE" geohash -q
  "$TROVE" publish target add bench --database "http://127.0.0.1:$port" --bucket gs://bench \
    --layout flatirongo -q
  before=$(cat "$WORK/sent" 2> /dev/null || echo 0)
  if command -v strace > /dev/null; then
    bytes=$(cd "$folder" && written strace -f -y -e trace=pwrite64,write,pwritev -o "$folder/io" \
      "$TROVE" publish -q)
    workspace=$(awk -v ws="$folder/trove.sqlite" '
      index($0, "<" ws) && match($0, /= [0-9]+$/) { n += substr($0, RSTART + 2) }
      END { print n + 0 }' "$folder/io")
  else
    bytes=$(cd "$folder" && written "$TROVE" publish -q)
    workspace=$bytes
  fi
  sent=$(( $(cat "$WORK/sent") - before ))
  printf 'run %d: sent %6.1f MB, written %6.1f MB (%.2fx), the workspace %6.1f MB (%.2fx)\n' \
    "$run" "$(echo "$sent / 1000000" | bc -l)" "$(echo "$bytes / 1000000" | bc -l)" \
    "$(echo "$bytes / $sent" | bc -l)" "$(echo "$workspace / 1000000" | bc -l)" \
    "$(echo "$workspace / $sent" | bc -l)"
  all+=("$(echo "$bytes / $sent" | bc -l)"); own+=("$(echo "$workspace / $sent" | bc -l)")
  rm -rf "$folder"
done
printf '%-44s %sx (min-median-max)\n' "first publish of $ROWS, written / sent" "$(printf '%s\n' "${all[@]}" | stats)"
printf '%-44s %sx\n' "the workspace's files / sent" "$(printf '%s\n' "${own[@]}" | stats)"
median=$(printf '%s\n' "${own[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p")
report_ratio "first publish, workspace writes vs sent" "$median" 1 1
