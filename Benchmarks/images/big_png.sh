#!/usr/bin/env bash
# Peak memory of `trove images` thumbnailing a 9999x9999 RGBA PNG with one worker, less
# what the same process holds before any image work; PASS under 160 MB. Twice: the file
# stored plainly (streamed row by row) and interlaced (Adam7, scattered pass by pass).
#   TROVE=.build/release/trove DATA=bench-data Benchmarks/images/big_png.sh
# bench.sh sources it; run alone it prints its own summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
TROVE=${TROVE:-$PWD/.build/release/trove}
DATA=${DATA:-$PWD/bench-data}
declare -F measure > /dev/null || source Benchmarks/lib.sh
mkdir -p "$DATA"
for layout in plain interlaced; do
  png=$DATA/big-9999-$layout.png
  if [ ! -f "$png" ]; then
    if [ $layout = interlaced ]; then
      python3 Benchmarks/images/big_png.py "$png" --interlaced
    else
      python3 Benchmarks/images/big_png.py "$png"
    fi
  fi
  ws=$DATA/images-big-$layout.sqlite
  rm -f "$ws" "$ws-wal" "$ws-shm"
  printf 'key,name,lat,lon,image\nbig,Big,40.7,-74.0,%s\n' "$png" > "$DATA/images-big-$layout.csv"
  "$TROVE" -w "$ws" init -q
  "$TROVE" -w "$ws" import treasures "$DATA/images-big-$layout.csv" -q
  measure "trove status (process baseline)" "$TROVE" -w "$ws" status
  big_baseline_kb=$LAST_KB
  rm -rf "$DATA/images-big-out-$layout"
  measure "trove images, 1 worker, 9999x9999 RGBA, $layout" "$TROVE" -w "$ws" images \
    --rendition thumb=256x256 --jobs 1 --out "$DATA/images-big-out-$layout" -q
  printf '%-44s %.1f MB (of which %.1f MB before any image work)\n' \
    "images 9999x9999 $layout PNG, whole process" "$(echo "$LAST_KB / 1024" | bc -l)" \
    "$(echo "$big_baseline_kb / 1024" | bc -l)"
  report_memory "images peak per worker, 9999x9999 $layout PNG" \
    "$((LAST_KB - big_baseline_kb))" 160
done
if [ "${BASH_SOURCE[0]}" = "$0" ]; then summary; fi
