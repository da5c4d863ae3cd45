#!/usr/bin/env bash
# Benchmark: `trove export --layout flatirongo --out FILE` on 1,000,000 treasures (each
# with a `full` rendition), the way users publish: the tree, its export state and the
# Storage plan beside it (FILE.storage.json, FILE.storage.sh), against the sqlite3 shell
# building the same tree with its JSON functions. Prints both times (best of three runs
# each), the ratio and trove's peak RSS. Each `--out` run alternates with the sqlite3
# shell scanning the columns and joins the export reads (SCAN_SQL), and `--out` with its
# plan is reported against that scan, best against best (target 1.5x). The same export
# to stdout (which records nothing and writes no plan) is measured beside the same scan
# to /dev/null, on one core and on all, and the two ratios are reported.
#
#   Benchmarks/export/run.sh            # builds release, uses a fresh folder
#   TROVE=/path/to/trove COUNT=100000 Benchmarks/export/run.sh
#   VERIFY=1 Benchmarks/export/run.sh   # also checks both outputs hold the same tree
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNT=${COUNT:-1000000}
WORK=${WORK:-$(mktemp -d /tmp/trove-export-bench.XXXXXX)}
mkdir -p "$WORK"
if [ -z "${TROVE:-}" ]; then
  swift build -c release >&2
  TROVE=$PWD/.build/release/trove
fi
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 shell (apt-get install sqlite3)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }

WS=$WORK/trove.sqlite
rm -f "$WS" "$WS-wal" "$WS-shm"
"$TROVE" -w "$WS" init >/dev/null 2>&1
"$TROVE" -w "$WS" config set storage.bucket flatiron-go.appspot.com
echo "generating $COUNT treasures in $WS" >&2
sqlite3 "$WS" <<SQL
PRAGMA journal_mode = WAL;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $COUNT)
INSERT INTO treasures (key, name, lat, lon, image)
SELECT printf('t%07d', i), 'Treasure ' || i,
       round(40.5 + ((i * 7919) % 1000003) / 2000006.0, 6),
       round(-74.25 + ((i * 104729) % 999983) / 1999966.0, 6),
       printf('/art/t%07d.png', i)
FROM n;
INSERT INTO renditions (owner_kind, owner_key, name, source, source_hash, settings, path,
                        width, height, bytes, hash, made_at)
SELECT 'treasure', key, 'full', image, 'h', 'full=1024x1024',
       'treasures/' || key || '/full-' || substr(hex(key), 1, 8) || '.png',
       1024, 1024, 100000, 'h', '2026-01-01T00:00:00Z'
FROM treasures;
COMMIT;
SQL
"$TROVE" -w "$WS" geohash >&2

# Warm the page cache so both contenders read the same way, and let the setup's writes
# reach the disk first so that neither pays for them. Each contender runs three times and
# its best time counts (trove's export state, recorded Storage plan and output are cleared
# between its runs, so every run does a first export's work); all times are printed.
cat "$WS" > /dev/null
sync
SCAN_SQL="SELECT t.key, t.name, t.lat, t.lon, t.image, g.geohash, r.path, r.width, r.height,
  k.token FROM treasures AS t LEFT JOIN treasure_geohashes AS g ON g.key = t.key
  LEFT JOIN renditions AS r ON r.owner_kind = 'treasure' AND r.owner_key = t.key
   AND r.name = 'full' AND r.source = t.image
  LEFT JOIN storage_tokens AS k ON k.path = r.path ORDER BY t.key;"
elapsed() {  # elapsed SECONDS-VAR CMD...: wall-clock seconds of CMD, its stdout discarded
  local var=$1; shift
  local start end; start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  printf -v "$var" '%.3f' "$(echo "$end - $start" | bc -l)"
}
RUNS=${RUNS:-3}
TROVE_SECONDS=
TROVE_RSS_KB=0
OUT_RUNS=(); OUT_SCANS=()
echo "trove export (release), peak RSS via /usr/bin/time -v, each beside the sqlite3 scan" >&2
for run in $(seq "$RUNS"); do
  sqlite3 "$WS" "DELETE FROM export_state; DELETE FROM export_objects; DELETE FROM export_log; DELETE FROM state_blocks WHERE id NOT IN (SELECT block FROM publish_state); DELETE FROM exports;"
  rm -f "$WORK/firebase.json" "$WORK/firebase.storage.json" "$WORK/firebase.storage.sh"
  /usr/bin/time -v -o "$WORK/time.txt" "$TROVE" -w "$WS" export --layout flatirongo \
    --out "$WORK/firebase.json" --images "$WORK/images" -q
  # The plan must have been written, with every object in it.
  planned=$(grep -c '"state": "new"' "$WORK/firebase.storage.json")
  [ "$planned" = "$COUNT" ] || { echo "the Storage plan lists $planned objects, not $COUNT" >&2; exit 1; }
  seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (length(t) == 3 ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2])}' "$WORK/time.txt")
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  elapsed out_scan sqlite3 "$WS" "$SCAN_SQL"
  OUT_SCANS+=("$out_scan")
  echo "  trove run $run: $seconds s, $kb KB; sqlite3 scan $out_scan s" >&2
  OUT_RUNS+=("$seconds")
  if [ -z "$TROVE_SECONDS" ] || [ "$(echo "$seconds < $TROVE_SECONDS" | bc)" = 1 ]; then
    TROVE_SECONDS=$seconds
  fi
  [ "$kb" -gt "$TROVE_RSS_KB" ] && TROVE_RSS_KB=$kb
done

# The full export to stdout (which records nothing and writes no plan) beside its floor:
# the sqlite3 shell reading the same columns in key order (with the geohash, rendition
# and download-token joins the tree needs). Both print to /dev/null, so neither pays for
# a file system the other does not. Both run on one
# core (taskset -c 0) and on every core, alternating, RUNS times each; the best times
# count and the spread is printed.
best_of() { printf '%s\n' "$@" | sort -g | head -1; }
spread() { printf '%s-%s' "$(printf '%s\n' "$@" | sort -g | head -1)" "$(printf '%s\n' "$@" | sort -g | tail -1)"; }
echo "trove export to stdout (no state recorded, no Storage plan) beside the sqlite3 scan" >&2
CORES=one
command -v taskset > /dev/null && CORES="one all"
STDOUT_RSS_KB=0
for cores in $CORES; do
  pin=()
  [ "$cores" = one ] && pin=(taskset -c 0)
  ours=(); peer=()
  for run in $(seq "$RUNS"); do
    /usr/bin/time -v -o "$WORK/time.txt" "${pin[@]}" "$TROVE" -w "$WS" export \
      --layout flatirongo -q > /dev/null
    seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (length(t) == 3 ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2])}' "$WORK/time.txt")
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
    [ "$kb" -gt "$STDOUT_RSS_KB" ] && STDOUT_RSS_KB=$kb
    elapsed scan "${pin[@]}" sqlite3 "$WS" "$SCAN_SQL"
    echo "  $cores core(s), run $run: trove $seconds s, sqlite3 scan $scan s" >&2
    ours+=("$seconds"); peer+=("$scan")
  done
  if [ "$cores" = one ]; then
    STDOUT_ONE=$(best_of "${ours[@]}"); SCAN_ONE=$(best_of "${peer[@]}")
    SPREAD_ONE="trove $(spread "${ours[@]}") s, scan $(spread "${peer[@]}") s"
  else
    STDOUT_ALL=$(best_of "${ours[@]}"); SCAN_ALL=$(best_of "${peer[@]}")
    SPREAD_ALL="trove $(spread "${ours[@]}") s, scan $(spread "${peer[@]}") s"
  fi
done
STDOUT_SECONDS=${STDOUT_ALL:-$STDOUT_ONE}
# The ratios above send both contenders' output to the same place, /dev/null. One more run
# sends trove's into a file, to check it against --out and to show what a file costs.
into_file() { "$@" > "$WORK/stdout.json"; }
pin=()
command -v taskset > /dev/null && pin=(taskset -c 0)
elapsed TO_FILE_ONE into_file "${pin[@]}" "$TROVE" -w "$WS" export --layout flatirongo -q
cmp -s "$WORK/stdout.json" "$WORK/firebase.json" || { echo "stdout and --out trees differ" >&2; exit 1; }

echo "sqlite3 shell with json_group_object" >&2
SQLITE_SECONDS=
for run in $(seq "$RUNS"); do
  START=$(date +%s.%N)
  sqlite3 "$WS" > "$WORK/sqlite.json" <<'SQL'
SELECT json_object(
  'treasureLocations', (
    SELECT json_group_object(key, json_object('.priority', geohash, 'g', geohash,
                                              'l', json_array(lat, lon)))
    FROM (SELECT t.key, g.geohash, t.lat, t.lon FROM treasures AS t
          JOIN treasure_geohashes AS g ON g.key = t.key ORDER BY t.key)),
  'treasureProfiles', (
    SELECT json_group_object(t.key, json_object(
      'imageURL', 'https://firebasestorage.googleapis.com/v0/b/flatiron-go.appspot.com/o/'
                  || replace(r.path, '/', '%2F') || '?alt=media',
      'name', t.name))
    FROM (SELECT key, name, image FROM treasures ORDER BY key) AS t
    JOIN renditions AS r ON r.owner_kind = 'treasure' AND r.owner_key = t.key
     AND r.name = 'full' AND r.source = t.image));
SQL
  END=$(date +%s.%N)
  seconds=$(echo "$END - $START" | bc -l)
  printf '  sqlite3 run %d: %.2f s\n' "$run" "$seconds" >&2
  if [ -z "$SQLITE_SECONDS" ] || [ "$(echo "$seconds < $SQLITE_SECONDS" | bc)" = 1 ]; then
    SQLITE_SECONDS=$seconds
  fi
done

BYTES=$(stat -c %s "$WORK/firebase.json")
printf 'treasures:        %d\n' "$COUNT"
printf 'trove export:     %.2f s (best of %d), peak RSS %.1f MB, %d bytes + plan %d + %d bytes\n' \
  "$TROVE_SECONDS" "$RUNS" "$(echo "$TROVE_RSS_KB / 1024" | bc -l)" "$BYTES" \
  "$(stat -c %s "$WORK/firebase.storage.json")" "$(stat -c %s "$WORK/firebase.storage.sh")"
printf 'beside the scan:  --out %s s, sqlite3 scan %s s (alternated)\n' "$(spread "${OUT_RUNS[@]}")" \
  "$(spread "${OUT_SCANS[@]}")"
printf 'to stdout:        %.2f s (best of %d), peak RSS %.1f MB\n' "$STDOUT_SECONDS" "$RUNS" \
  "$(echo "$STDOUT_RSS_KB / 1024" | bc -l)"
printf 'sqlite3 scan:     %.2f s on one core (%s), %s\n' "$SCAN_ONE" "$SPREAD_ONE" \
  "${SCAN_ALL:+$SCAN_ALL s on $(nproc) cores ($SPREAD_ALL)}"
printf 'to a file:        %.2f s on one core (once; the ratios send both to /dev/null)\n' \
  "$TO_FILE_ONE"
printf 'sqlite3 JSON:     %.2f s (best of %d), %d bytes (compact)\n' "$SQLITE_SECONDS" "$RUNS" \
  "$(stat -c %s "$WORK/sqlite.json")"
printf 'ratio trove/sqlite3: %.2f\n' "$(echo "$TROVE_SECONDS / $SQLITE_SECONDS" | bc -l)"

if [ "${VERIFY:-0}" = 1 ]; then
  python3 - "$WORK/firebase.json" "$WORK/sqlite.json" <<'PY'
import json, sys
import math
# sqlite3 prints reals with 15 significant digits, which does not always read back as
# the stored double; trove prints the shortest text that does. Compare numbers closely.
def same(x, y):
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(map(same, x, y))
    if isinstance(x, float) or isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-14)
    return x == y
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
print("same tree:", same(a, b))
sys.exit(0 if same(a, b) else 1)
PY
fi
[ -n "${KEEP:-}" ] || rm -rf "$WORK"
source Benchmarks/lib.sh
report_limit "export --out $COUNT treasures (flatirongo)" "$TROVE_SECONDS" 3.0
report_memory "export --out peak memory" "$TROVE_RSS_KB" 150
report_ratio "export --out + Storage plan vs sqlite3 scan" "$TROVE_SECONDS" \
  "$(best_of "${OUT_SCANS[@]}")" 1.5
report_ratio "export to stdout vs sqlite3 scan, 1 core" "$STDOUT_ONE" "$SCAN_ONE" 1.5
if [ -n "${STDOUT_ALL:-}" ]; then
  report_ratio "export to stdout vs sqlite3 scan, $(nproc) cores" "$STDOUT_ALL" "$SCAN_ALL" 1.5
fi
summary
