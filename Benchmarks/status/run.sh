#!/usr/bin/env bash
# Benchmark: `trove status` on a copy of the benchmark workspace (1,000,000 treasures,
# imported and geohashed) after images and an export have run, then again with POSTS posts
# (default 1,000,000) imported and geohashed. Its floor is the same binary's
# `trove --version`: the process start every command pays, measured in the same loop,
# alternating with status. Status answers from counters, so it should cost little more
# than the start; the issue's limit, 50 ms, is checked too.
#
#   TROVE=.build/release/trove WS=bench-data/bench.sqlite Benchmarks/status/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/lib.sh
TROVE=${TROVE:-$PWD/.build/release/trove}
DATA=${DATA:-$PWD/bench-data}
WS=${WS:-$DATA/bench.sqlite}
POSTS=${POSTS:-1000000}
RUNS=${RUNS:-21}
STATUS_WS="$DATA/status.sqlite"

sqlite3 "$WS" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
rm -f "$STATUS_WS" "$STATUS_WS-wal" "$STATUS_WS-shm"
cp "$WS" "$STATUS_WS"
treasures=$(sqlite3 "$STATUS_WS" "SELECT count(*) FROM treasures")
"$TROVE" -w "$STATUS_WS" images --out "$DATA/status-images" -q
"$TROVE" -w "$STATUS_WS" export --layout flatirongo --out "$DATA/status-export.json" -q

# median_pair CMD...: the median wall time of RUNS runs of CMD, in seconds, alternating each
# run with the floor; sets MEDIAN and FLOOR_MEDIAN.
median_pair() {
  local ours=() floor=()
  for run in $(seq "$RUNS"); do
    local start end
    start=$(date +%s%N); "$@" > /dev/null; end=$(date +%s%N)
    ours+=($(( end - start )))
    start=$(date +%s%N); "$TROVE" --version > /dev/null; end=$(date +%s%N)
    floor+=($(( end - start )))
  done
  MEDIAN=$(printf '%s\n' "${ours[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] / 1e9 }')
  FLOOR_MEDIAN=$(printf '%s\n' "${floor[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] / 1e9 }')
}

report_status() {
  local label=$1
  # The first status after the writes may count what they changed and record it; the
  # runs measured after it are the glance a user gets.
  measure "first status ($label)" "$TROVE" -w "$STATUS_WS" status
  median_pair "$TROVE" -w "$STATUS_WS" status
  printf '%-44s %8.1f ms (median of %d; trove --version %.1f ms)\n' "status ($label)" \
    "$(echo "$MEDIAN * 1000" | bc -l)" "$RUNS" "$(echo "$FLOOR_MEDIAN * 1000" | bc -l)"
  report_ratio "status ($label) vs --version" "$MEDIAN" "$FLOOR_MEDIAN" 3.0
  report_limit "status ($label)" "$MEDIAN" 0.050
}

report_status "$treasures treasures"

# Posts as a moderation backlog has them: a tenth approved, a tenth rejected.
sqlite3 "$STATUS_WS" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $POSTS)
INSERT INTO posts (id, user, lat, lon, description, date, content_hash, status,
                   signals, signal_names, imported_at, updated_at)
SELECT printf('post%08d', i), 'user' || (i % 500),
       40.7 + (i % 1000) * 0.0001, -74.0 + (i / 1000) * 0.00001,
       'Litter report number ' || i,
       printf('2022-%02d-%02dT10:%02d:00Z', 1 + i % 12, 1 + i % 28, i % 60),
       hex(randomblob(16)),
       CASE i % 10 WHEN 0 THEN 'approved' WHEN 1 THEN 'rejected' ELSE 'pending' END,
       '[]', '', '2022-01-01T00:00:00Z', '2022-01-01T00:00:00Z'
FROM n;
COMMIT;
SQL
"$TROVE" -w "$STATUS_WS" geohash -q
report_status "+$POSTS posts"

rm -rf "$STATUS_WS" "$STATUS_WS-wal" "$STATUS_WS-shm" "$DATA/status-images" \
  "$DATA/status-export.json" "$DATA/status-export.storage.json" "$DATA/status-export.storage.sh"
summary
