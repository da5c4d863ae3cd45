#!/usr/bin/env bash
# Publishing's Storage uploads against the peer: COUNT new small objects, each with its own
# download token, sent to fake-gcs-server through trove's Storage transport (libcurl, the
# JSON API), against ONE `gcloud storage cp -I` of the same files without metadata, in the
# same run, alternating which goes first over RUNS runs. Then a few objects sent the way
# the old plan script sends them, one `gcloud storage cp` each, to show what that costs.
# Target: the transport within 2x of the single gcloud run (median of the runs).
# Usage: Benchmarks/publish/run.sh  (TROVE=path/to/trove; COUNT, RUNS, PER_OBJECT)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/Benchmarks/lib.sh"
TROVE=${TROVE:-$ROOT/.build/release/trove}
TROVE_BENCH=${TROVE_BENCH:-$(dirname "$TROVE")/trove-bench}
FAKE_GCS=${FAKE_GCS_SERVER:-$ROOT/.build/test-tools/bin/fake-gcs-server}
GCLOUD=${GCLOUD:-gcloud}
COUNT=${COUNT:-10000}
RUNS=${RUNS:-3}
PER_OBJECT=${PER_OBJECT:-5}

[ -x "$FAKE_GCS" ] || { echo "publish: fake-gcs-server not installed (make bench-deps); skipped"; exit 0; }
command -v "$GCLOUD" > /dev/null || { echo "publish: gcloud not installed; skipped"; exit 0; }

WORK=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2> /dev/null; rm -rf "$WORK"' EXIT INT TERM

# Small renditions: 1-4 KB of random bytes each.
python3 - "$WORK/files" "$COUNT" <<'PY'
import os, random, sys
folder, count = sys.argv[1], int(sys.argv[2])
os.makedirs(folder)
random.seed(18)
for index in range(count):
    with open(os.path.join(folder, f"thumb-{index:06d}.png"), "wb") as file:
        file.write(os.urandom(random.randint(1024, 4096)))
PY

# A fresh emulator for each run (its memory backend slows as it fills), shared by both.
start_server() {
  [ -n "$server" ] && kill "$server" 2> /dev/null && wait "$server" 2> /dev/null || true
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  rm -rf "$WORK/data"; mkdir -p "$WORK/data/bench"
  "$FAKE_GCS" -scheme http -host 127.0.0.1 -port "$port" -backend memory -data "$WORK/data" \
    -log-level error > "$WORK/server.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break; sleep 0.1; done
  export CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE="http://127.0.0.1:$port/"
}
export CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True CLOUDSDK_CORE_PROJECT=test

seconds() { python3 -c 'import time; print(time.time())'; }
run_trove() {
  local start; start=$(seconds)
  "$TROVE_BENCH" storage-upload "$WORK/files" bench "trove-$1" > /dev/null
  echo "$(seconds) - $start" | bc -l
}
run_gcloud() {
  local start; start=$(seconds)
  ls -d "$WORK/files/"* | "$GCLOUD" storage cp -I "gs://bench/gcloud-$1/" > /dev/null 2>&1
  echo "$(seconds) - $start" | bc -l
}

ratios=()
for run in $(seq "$RUNS"); do
  start_server
  if [ $((run % 2)) = 1 ]; then
    ours=$(run_trove "$run"); peer=$(run_gcloud "$run")
  else
    peer=$(run_gcloud "$run"); ours=$(run_trove "$run")
  fi
  ratio=$(echo "$ours / $peer" | bc -l)
  ratios+=("$ratio")
  printf 'run %d: trove transport %7.2f s, gcloud storage cp -I %7.2f s, ratio %.2fx\n' \
    "$run" "$ours" "$peer" "$ratio"
done
sorted=$(printf '%s\n' "${ratios[@]}" | sort -g)
median=$(sed -n "$(( (RUNS + 1) / 2 ))p" <<< "$sorted")
printf '%-44s median %.2fx, spread %.2fx-%.2fx over %d runs\n' \
  "publish upload ($COUNT objects, own tokens)" "$median" "$(head -n 1 <<< "$sorted")" \
  "$(tail -n 1 <<< "$sorted")" "$RUNS"
report_ratio "publish upload vs one gcloud cp -I" "$median" 1 2.0

# Memory stays flat whatever the size: one large object, streamed from disk, costs no
# more than one tiny object.
BIG_MB=${BIG_MB:-64}
mkdir -p "$WORK/big" "$WORK/tiny"
head -c "$((BIG_MB * 1024 * 1024))" /dev/urandom > "$WORK/big/full.png"
echo tiny > "$WORK/tiny/thumb.png"
start_server
measure "publish upload (one tiny object)" "$TROVE_BENCH" storage-upload "$WORK/tiny" bench tiny
tiny_kb=$LAST_KB
measure "publish upload (one $BIG_MB MB object)" "$TROVE_BENCH" storage-upload "$WORK/big" bench big
report_memory "publish upload memory, $BIG_MB MB over tiny" "$((LAST_KB - tiny_kb))" 16

# What one gcloud process per object costs (the old plan script's way).
start_server
start=$(seconds)
for index in $(seq "$PER_OBJECT"); do
  "$GCLOUD" storage cp --content-type=image/png --cache-control="public, max-age=31536000" \
    --custom-metadata="firebaseStorageDownloadTokens=token-$index" \
    "$WORK/files/thumb-$(printf %06d "$index").png" "gs://bench/one-by-one/$index.png" \
    > /dev/null 2>&1
done
per_object=$(echo "($(seconds) - $start) / $PER_OBJECT" | bc -l)
printf '%-44s %.2f s an object (%d timed), %.0f s for %d\n' "gcloud storage cp per object" \
  "$per_object" "$PER_OBJECT" "$(echo "$per_object * $COUNT" | bc -l)" "$COUNT"
