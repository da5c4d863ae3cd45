#!/usr/bin/env bash
# Benchmark: importing the same treasures as CSV, as a GeoJSON FeatureCollection and as
# newline-delimited GeoJSON, each into a new workspace. GeoJSON is read a feature at a
# time, so its peak memory stays flat with the file's size: at most the CSV's.
#
#   TROVE=.build/release/trove ROWS=100000 Benchmarks/treasures/geojson.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${ROWS:-${BENCH_ROWS:-1000000}}
DATA=${DATA:-${BENCH_DATA:-$PWD/bench-data}}
TROVE=${TROVE:-$PWD/.build/release/trove}
mkdir -p "$DATA"
source Benchmarks/lib.sh

CSV="$DATA/treasures-$ROWS.csv"
[ -f "$CSV" ] || python3 Benchmarks/treasures/make-csv.py "$ROWS" "$CSV"
FC="$DATA/treasures-$ROWS.geojson"
ND="$DATA/treasures-$ROWS.ndjson"
[ -f "$FC" ] && [ -f "$ND" ] || python3 Benchmarks/treasures/make-geojson.py "$CSV" "$FC" "$ND"
printf 'files: CSV %s MB, FeatureCollection %s MB, NDJSON %s MB\n' \
  "$(( $(stat -c %s "$CSV") >> 20 ))" "$(( $(stat -c %s "$FC") >> 20 ))" \
  "$(( $(stat -c %s "$ND") >> 20 ))"

WS="$DATA/geojson-bench.sqlite"
fresh() { rm -f "$WS" "$WS-wal" "$WS-shm"; "$TROVE" -w "$WS" init -q; }

fresh
measure "import CSV ($ROWS rows)" "$TROVE" -w "$WS" import treasures "$CSV" -q
csv_seconds=$LAST_SECONDS
csv_kb=$LAST_KB
fresh
measure "import FeatureCollection ($ROWS features)" "$TROVE" -w "$WS" import treasures "$FC" -q
fc_seconds=$LAST_SECONDS
fc_kb=$LAST_KB
count=$(sqlite3 "$WS" "SELECT count(*) FROM treasures")
[ "$count" = "$ROWS" ] || { echo "FeatureCollection import stored $count treasures"; exit 1; }
fresh
measure "import NDJSON ($ROWS features)" "$TROVE" -w "$WS" import treasures "$ND" -q
nd_kb=$LAST_KB
rm -f "$WS" "$WS-wal" "$WS-shm"

report_ratio "FeatureCollection import memory vs CSV" "$fc_kb" "$csv_kb" 1.0
report_ratio "NDJSON import memory vs CSV" "$nd_kb" "$csv_kb" 1.0
printf '%-44s ratio %.2fx (no target)\n' "FeatureCollection import time vs CSV" \
  "$(echo "$fc_seconds / $csv_seconds" | bc -l)"
summary
