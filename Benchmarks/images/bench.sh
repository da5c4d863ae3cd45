#!/usr/bin/env bash
# Thumbnail throughput: `trove images` beside vipsthumbnail and Pillow (draft) on the same
# deterministic corpus, 256 px box, JPEG quality 80, two workers each, ratios printed; the
# PNG set also beside libpng's decode-only floor on the same files.
#   TROVE=.build/release/trove DATA=bench-data Benchmarks/images/bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TROVE=${TROVE:-$PWD/.build/release/trove}
DATA=${DATA:-$PWD/bench-data}
CORPUS=$DATA/image-corpus
source Benchmarks/lib.sh

[ -d "$CORPUS/png-rgba" ] || python3 Benchmarks/images/build_corpus.py "$CORPUS" >&2
python3 Benchmarks/images/run_peers.py "$CORPUS" --jobs 2 --repeat 2 | tee "$DATA/peers.txt"
peer() { awk -v set="$1" -v col="$2" '$1 == set { print $col }' "$DATA/peers.txt"; }

# trove_rate SET FOLDER...: images/s of `trove images` over the files, best of two runs.
trove_rate() {
  local set=$1; shift
  local ws=$DATA/images-$set.sqlite csv=$DATA/images-$set.csv
  rm -f "$ws" "$ws-wal" "$ws-shm"
  echo "key,name,lat,lon,image" > "$csv"
  local n=0
  for folder in "$@"; do
    for file in "$CORPUS/$folder"/*; do
      n=$((n + 1)); echo "img-$n,Image $n,40.7,-74.0,$file" >> "$csv"
    done
  done
  "$TROVE" -w "$ws" init -q
  "$TROVE" -w "$ws" import treasures "$csv" -q
  local best=0
  for run in 1 2; do
    rm -rf "$DATA/images-out"
    sqlite3 "$ws" "DELETE FROM renditions"
    local start end rate
    start=$(date +%s.%N)
    "$TROVE" -w "$ws" images --rendition thumb=256x256 --quality 80 --jobs 2 \
      --out "$DATA/images-out" -q
    end=$(date +%s.%N)
    rate=$(echo "$n / ($end - $start)" | bc -l)
    if [ "$(echo "$rate > $best" | bc -l)" = 1 ]; then best=$rate; fi
  done
  echo "$best"
}

echo
printf '%-22s %10s %16s %15s %12s %12s\n' set "trove/s" "vipsthumbnail/s" "pillow-draft/s" "vs vips" "vs pillow"
for spec in "jpeg-mixed:jpeg-baseline jpeg-progressive:40" "jpeg-baseline:jpeg-baseline:65" \
  "png-rgba:png-rgba:13"; do
  IFS=: read -r set folders target <<< "$spec"
  # shellcheck disable=SC2086
  ours=$(trove_rate "$set" $folders)
  vips=$(peer "$set" 3); pillow=$(peer "$set" 4)
  printf '%-22s %10.1f %16.1f %15.1f %11.2fx %11.2fx\n' "$set" "$ours" "$vips" "$pillow" \
    "$(echo "$ours / $vips" | bc -l)" "$(echo "$ours / $pillow" | bc -l)"
  report_rate "images $set (2 workers)" "$ours" "$target"
  if [ "$set" = png-rgba ]; then png_rate=$ours; fi
done

# PNG thumbnails against their floor: libpng decoding the same files to rows in as many
# processes, with nothing else done (Benchmarks/images/png_decode_floor.c), best of
# three, measured right after trove's runs.
floor_bin=$DATA/png-decode-floor
"${CC:-cc}" -O2 -o "$floor_bin" Benchmarks/images/png_decode_floor.c -lpng
png_floor=$("$floor_bin" 2 3 "$CORPUS"/png-rgba/*)
printf '%-44s %8.1f images/s (trove %.1f images/s)\n' "libpng decode-only floor (2 processes)" \
  "$png_floor" "$png_rate"
report_min_ratio "PNG thumbnails vs libpng decode-only floor" "$png_rate" "$png_floor" 0.85

# Peak memory of one worker on 12 MP input: one thread over the mixed set, less what the
# same process holds before any image work (runtime, Foundation, the workspace).
ws=$DATA/images-jpeg-mixed.sqlite
measure "trove status (process baseline)" "$TROVE" -w "$ws" status
baseline_kb=$LAST_KB
sqlite3 "$ws" "DELETE FROM renditions"
rm -rf "$DATA/images-out"
measure "trove images, 1 worker, mixed 12 MP" "$TROVE" -w "$ws" images \
  --rendition thumb=256x256 --jobs 1 --out "$DATA/images-out" -q
# The target is per worker; the whole process is shown for reference only.
printf '%-44s %.1f MB (of which %.1f MB before any image work)\n' \
  "images peak memory, whole process" "$(echo "$LAST_KB / 1024" | bc -l)" \
  "$(echo "$baseline_kb / 1024" | bc -l)"
report_memory "images peak memory per worker" "$((LAST_KB - baseline_kb))" 64

# The same per worker for a 9999x9999 RGBA PNG (400 MB decoded), plain and interlaced:
# neither is ever decoded whole.
source Benchmarks/images/big_png.sh
summary
