#!/usr/bin/env bash
# Benchmark: `trove validate` of 1M treasures with a finding each (peak memory beside the
# same treasures with almost none), and `trove validate --changed` after 3 rows of 1M
# were edited and imported (beside sqlite3 reading the columns it compares, in the same
# order, and beside a full validate). The two sides of each ratio alternate, three runs
# each; the ratio is of the medians.
#
#   TROVE=.build/release/trove ROWS=100000 Benchmarks/treasures/validate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${ROWS:-${BENCH_ROWS:-1000000}}
DATA=${DATA:-${BENCH_DATA:-$PWD/bench-data}}
TROVE=${TROVE:-$PWD/.build/release/trove}
RUNS=${RUNS:-3}
mkdir -p "$DATA"
source Benchmarks/lib.sh

FULL="$DATA/treasures-$ROWS.csv"
[ -f "$FULL" ] || python3 Benchmarks/treasures/make-csv.py "$ROWS" "$FULL"

# median V...: the middle value.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# spread V...: lowest–highest, for the record.
spread() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

workspace() {  # workspace PATH CSV: imported, with geohashes
  rm -f "$1" "$1-wal" "$1-shm"
  "$TROVE" -w "$1" init -q
  "$TROVE" -w "$1" import treasures "$2" -q
  "$TROVE" -w "$1" geohash -q
}

# --- a finding for every treasure ---------------------------------------------------
# The same rows, each name with a trailing space (T201, surrounding spaces).
SPACED="$DATA/treasures-$ROWS-spaced.csv"
awk -F, -v OFS=, 'NR == 1 { print; next } { $2 = $2 " "; print }' "$FULL" > "$SPACED"
FEW="$DATA/validate-few.sqlite"
MANY="$DATA/validate-many.sqlite"
workspace "$FEW" "$FULL"
workspace "$MANY" "$SPACED"
findings=$("$TROVE" -w "$MANY" validate --format json 2>/dev/null | grep -o '"warnings": [0-9]*' || true)
echo "findings on the spaced workspace: ${findings#*: } warnings"

few_kb=(); many_kb=(); few_s=(); many_s=(); json_kb=()
for _ in $(seq "$RUNS"); do
  measure "trove validate ($ROWS treasures, few findings)" "$TROVE" -w "$FEW" validate -q
  few_kb+=("$LAST_KB"); few_s+=("$LAST_SECONDS")
  measure "trove validate ($ROWS findings)" "$TROVE" -w "$MANY" validate -q
  many_kb+=("$LAST_KB"); many_s+=("$LAST_SECONDS")
  measure "trove validate --format json ($ROWS findings)" \
    "$TROVE" -w "$MANY" validate -q --format json
  json_kb+=("$LAST_KB")
done
echo "peaks (KB): few $(spread "${few_kb[@]}"), many $(spread "${many_kb[@]}"), json $(spread "${json_kb[@]}")"
report_ratio "validate 1M findings vs few: peak memory" \
  "$(median "${many_kb[@]}")" "$(median "${few_kb[@]}")" 1.25
report_ratio "validate --format json 1M findings vs few: peak" \
  "$(median "${json_kb[@]}")" "$(median "${few_kb[@]}")" 1.25
printf '%-44s ratio %.2fx (no target: printing 1M lines)\n' "validate 1M findings vs few: time" \
  "$(echo "$(median "${many_s[@]}") / $(median "${few_s[@]}")" | bc -l)"
rm -f "$MANY" "$MANY-wal" "$MANY-shm"

# --- validate --changed after editing 3 rows ----------------------------------------
# The designer's file is one path whose content changes: trove knows it by its path.
CSV="$DATA/validate-treasures.csv"
cp "$FULL" "$CSV"
WS="$DATA/validate-changed.sqlite"
workspace "$WS" "$CSV"
"$TROVE" -w "$WS" validate -q || true
"$TROVE" -w "$WS" validate --changed -q  # passes: the clock is recorded
# Three rows moved a little, one of them onto the row after it (a near-duplicate pair).
awk -F, -v OFS=, -v rows="$ROWS" '
  NR == int(rows / 4) || NR == int(rows / 2) { $3 = $3 + 0.0001 }
  NR == int(3 * rows / 4) { keep = 1 }
  NR == int(3 * rows / 4) + 1 && keep { $3 = last3; $4 = last4 }
  { last3 = $3; last4 = $4; print }' "$FULL" > "$CSV"
"$TROVE" -w "$WS" import treasures "$CSV" -q
sqlite3 "$WS" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
mark=$(sqlite3 "$WS" "SELECT seq FROM change_consumers WHERE name = 'validate'")
echo "changed since the last validate: $(sqlite3 "$WS" \
  "SELECT count(*) FROM record_changes WHERE kind = 'treasure' AND seq > $mark") treasures"
"$TROVE" -w "$WS" validate --changed 2>&1 >/dev/null | head -1

changed_s=(); scan_s=(); full_s=(); status_s=()
for _ in $(seq "$RUNS"); do
  # Each run sees the same three changes: the mark a passing run records is put back.
  measure "trove validate --changed (3 of $ROWS changed)" "$TROVE" -w "$WS" validate --changed -q
  changed_s+=("$LAST_SECONDS")
  sqlite3 "$WS" "UPDATE change_consumers SET seq = $mark WHERE name = 'validate'"
  measure "sqlite3 reading key, name, position, line" sqlite3 "$WS" \
    "SELECT key, name, lat, lon, source, source_line FROM treasures
     ORDER BY source, source_line, key"
  scan_s+=("$LAST_SECONDS")
  measure "trove status ($ROWS treasures)" "$TROVE" -w "$WS" status -q
  status_s+=("$LAST_SECONDS")
  measure "trove validate ($ROWS treasures)" "$TROVE" -w "$WS" validate -q
  full_s+=("$LAST_SECONDS")
  sqlite3 "$WS" "UPDATE change_consumers SET seq = $mark WHERE name = 'validate'"
done
echo "seconds: --changed $(spread "${changed_s[@]}"), sqlite3 scan $(spread "${scan_s[@]}")," \
  "status $(spread "${status_s[@]}"), full validate $(spread "${full_s[@]}")"
report_ratio "validate --changed vs sqlite3 reading the rows" \
  "$(median "${changed_s[@]}")" "$(median "${scan_s[@]}")" 2.0
report_ratio "validate --changed vs full validate" \
  "$(median "${changed_s[@]}")" "$(median "${full_s[@]}")" 0.5
printf '%-44s ratio %.2fx (no target)\n' "validate --changed vs trove status" \
  "$(echo "$(median "${changed_s[@]}") / $(median "${status_s[@]}")" | bc -l)"
rm -f "$WS" "$WS-wal" "$WS-shm" "$FEW" "$FEW-wal" "$FEW-shm" "$SPACED" "$CSV"
