#!/usr/bin/env bash
# Benchmark: what three changed treasures cost at a million. On the export benchmark's
# workspace (WS, a million treasures with renditions), after a recorded export and a
# publish target that holds it (`publish --mark-applied`), three treasures are edited
# (`import treasures` of three rows) and then:
#   - `export --update --out` runs: its time and the bytes it writes;
#   - `publish --dry-run` plans the same change against the target.
# Peers in the same run, over RUNS rounds: the same update with every record rendered
# (through a copy of the layout whose text differs each round, which makes its update
# render everything and diff it), and the sqlite3 shell reading the three rows, the
# floor of any tool that looks at the change, alternated with the update. Prints the
# spread of every measurement.
#
#   WS=path/to/trove.sqlite TROVE=... Benchmarks/export/changes.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/lib.sh
: "${WS:?WS names the workspace of the export benchmark}"
TROVE=${TROVE:-$PWD/.build/release/trove}
RUNS=${RUNS:-5}
WORK=$(dirname "$WS")/changes
rm -rf "$WORK"
mkdir -p "$WORK"
count=$("$TROVE" -w "$WS" status --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["treasures"])')

seconds_of() { awk '{print $1}' "$1"; }
run_timed() { # OUT-FILE CMD...: elapsed seconds into OUT-FILE, to the microsecond
  local out=$1; shift
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l > "$out"
}
bytes_of() { cat "$@" 2>/dev/null | wc -c; }

"$TROVE" -w "$WS" export --layout flatirongo --out "$WORK/base.json" --images "$WORK/images" -q
# The peer's layout: flatirongo's own text, whose last line changes every round (a space
# more or less), which makes each of its updates render every record and diff them.
"$TROVE" template show layouts/flatirongo.json > "$WORK/layout.json"
"$TROVE" -w "$WS" export --layout "$WORK/layout.json" --out "$WORK/peer-base.json" \
  --images "$WORK/images" -q
"$TROVE" -w "$WS" publish target add bench --database https://bench.firebaseio.com \
  --bucket flatiron-go.appspot.com --layout flatirongo > /dev/null 2>&1 || true
"$TROVE" -w "$WS" publish --target bench --mark-applied "$WORK/base.json" > /dev/null 2>&1

update_times=(); full_times=(); floor_times=(); publish_times=(); update_bytes=(); full_bytes=()
for round in $(seq "$RUNS"); do
  # Three treasures renamed, as a designer's three-row edit reaches the workspace.
  keys=$(printf "t%07d t%07d t%07d" $((round * 7)) $((round * 7919 % count + 1)) $((count - round)))
  {
    echo "key,name,lat,lon,image"
    for key in $keys; do
      sqlite3 -csv "$WS" "SELECT key, 'Edited $round ' || key, lat, lon, image FROM treasures WHERE key = '$key'"
    done
  } > "$WORK/edit.csv"
  "$TROVE" -w "$WS" import treasures "$WORK/edit.csv" -q
  list=$(printf "'%s'," $keys); list=${list%,}
  # Alternate which side goes first.
  if [ $((round % 2)) = 1 ]; then order="update floor"; else order="floor update"; fi
  for side in $order; do
    case $side in
      update)
        rm -f "$WORK"/u.*
        run_timed "$WORK/t" "$TROVE" -w "$WS" export --layout flatirongo --update \
          --out "$WORK/u.json" --images "$WORK/images" -q
        update_times+=("$(seconds_of "$WORK/t")")
        update_bytes+=("$(bytes_of "$WORK"/u.json "$WORK"/u.storage.json "$WORK"/u.storage.sh)")
        run_timed "$WORK/t" "$TROVE" -w "$WS" publish --target bench --dry-run -q
        publish_times+=("$(seconds_of "$WORK/t")")
        ;;
      floor)
        run_timed "$WORK/t" sqlite3 "$WS" "SELECT * FROM treasures WHERE key IN ($list)"
        floor_times+=("$(seconds_of "$WORK/t")")
        ;;
    esac
  done
  # The same update with every record rendered (its layout's text differs each round).
  if [ $((round % 2)) = 1 ]; then printf ' ' >> "$WORK/layout.json"; else sed -i '$ s/ *$//' "$WORK/layout.json"; fi
  rm -f "$WORK"/f.*
  # It lists every object in its Storage plan, as every update did before plans listed
  # only what changes: the bytes a plan of everything writes.
  run_timed "$WORK/t" "$TROVE" -w "$WS" export --layout "$WORK/layout.json" --update \
    --out "$WORK/f.json" --images "$WORK/images" --all-objects -q
  full_times+=("$(seconds_of "$WORK/t")")
  full_bytes+=("$(bytes_of "$WORK"/f.json "$WORK"/f.storage.json "$WORK"/f.storage.sh)")
  # The target takes in this round's update, so the next plan holds three changes again.
  "$TROVE" -w "$WS" publish --target bench --mark-applied "$WORK/u.json" > /dev/null 2>&1
done

spread() { printf '%s\n' "$@" | sort -g | awk 'NR==1{lo=$1} {hi=$1; n++} END {printf "%.3f–%.3f s over %d runs", lo, hi, n}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "export --update, 3 of $count changed:        $(spread "${update_times[@]}"), $(median "${update_bytes[@]}") bytes written"
echo "the same, every record rendered and listed:  $(spread "${full_times[@]}"), $(median "${full_bytes[@]}") bytes written"
echo "publish --dry-run, 3 changed:                $(spread "${publish_times[@]}")"
echo "sqlite3 reading the 3 rows (floor):          $(spread "${floor_times[@]}")"
report_ratio "update of 3 vs every record rendered" "$(median "${update_times[@]}")" "$(median "${full_times[@]}")" 0.05
report_ratio "update of 3: bytes vs listing every object" "$(median "${update_bytes[@]}")" "$(median "${full_bytes[@]}")" 0.001
report_ratio "publish --dry-run of 3 vs every record" "$(median "${publish_times[@]}")" "$(median "${full_times[@]}")" 0.05
report_ratio "update of 3 vs the sqlite3 floor" "$(median "${update_times[@]}")" "$(median "${floor_times[@]}")" 25
