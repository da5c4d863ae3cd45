#!/usr/bin/env bash
# Benchmark: `trove import treasures FILE --sync` of an unchanged file and of one with 1%
# of its rows removed, each against a plain re-import of the same file in the same run
# (best of two each). A plain import also finds what the file no longer holds, to say
# so; --sync adds removing it.
#
#   TROVE=.build/release/trove ROWS=100000 Benchmarks/treasures/sync.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${ROWS:-${BENCH_ROWS:-1000000}}
DATA=${DATA:-${BENCH_DATA:-$PWD/bench-data}}
TROVE=${TROVE:-$PWD/.build/release/trove}
mkdir -p "$DATA"
source Benchmarks/lib.sh

FULL="$DATA/treasures-$ROWS.csv"
[ -f "$FULL" ] || python3 Benchmarks/treasures/make-csv.py "$ROWS" "$FULL"
# Every hundredth row gone, spread over the file: the lines of the rows after each move.
FEWER="$DATA/treasures-$ROWS-fewer.csv"
awk 'NR == 1 || (NR - 2) % 100 != 50' "$FULL" > "$FEWER"
# The designer's file is one path whose content changes: trove knows it by its path.
CSV="$DATA/sync-treasures.csv"
cp "$FULL" "$CSV"

WS="$DATA/sync.sqlite"
rm -f "$WS" "$WS-wal" "$WS-shm"
"$TROVE" -w "$WS" init -q
"$TROVE" -w "$WS" import treasures "$CSV" -q

# best LABEL CMD...: the faster of two runs, in BEST_SECONDS.
best() {
  local label=$1; shift
  measure "$label" "$@"; BEST_SECONDS=$LAST_SECONDS
  measure "$label" "$@"
  if (( $(echo "$LAST_SECONDS < $BEST_SECONDS" | bc -l) )); then BEST_SECONDS=$LAST_SECONDS; fi
}

best "re-import, unchanged ($ROWS rows)" "$TROVE" -w "$WS" import treasures "$CSV" -q
plain_unchanged=$BEST_SECONDS
best "import --sync, unchanged" "$TROVE" -w "$WS" import treasures "$CSV" --sync -q
report_ratio "import --sync unchanged vs re-import" "$BEST_SECONDS" "$plain_unchanged" 1.2

# The plain import of the shorter file leaves the removed rows in place, so each run of
# either kind starts from the full file's import.
restore() {
  cp "$FULL" "$CSV"
  "$TROVE" -w "$WS" import treasures "$CSV" -q
  cp "$FEWER" "$CSV"
}
measure_from_full() {
  local label=$1; shift
  restore; measure "$label" "$@"; BEST_SECONDS=$LAST_SECONDS
  restore; measure "$label" "$@"
  if (( $(echo "$LAST_SECONDS < $BEST_SECONDS" | bc -l) )); then BEST_SECONDS=$LAST_SECONDS; fi
}
measure_from_full "re-import, 1% of rows removed" "$TROVE" -w "$WS" import treasures "$CSV" -q
plain_fewer=$BEST_SECONDS
measure_from_full "import --sync, 1% of rows removed" \
  "$TROVE" -w "$WS" import treasures "$CSV" --sync -q
report_ratio "import --sync 1% removed vs re-import" "$BEST_SECONDS" "$plain_fewer" 1.2
left=$("$TROVE" -w "$WS" status --format json | sed -E 's/.*"treasures": ([0-9]+).*/\1/')
expected=$(( $(wc -l < "$FEWER") - 1 ))
[ "$left" = "$expected" ] || { echo "sync left $left treasures, expected $expected" >&2; exit 1; }
