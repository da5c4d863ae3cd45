#!/usr/bin/env bash
# What validate's image check costs: `trove validate` over 1,000 treasures whose images
# are the mixed 12 MP JPEG corpus (each a path of its own, so nothing is read twice),
# beside a thumbnail pass of `trove images` over the same photos in the same run.
#   TROVE=.build/release/trove DATA=bench-data Benchmarks/images/validate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TROVE=${TROVE:-$PWD/.build/release/trove}
DATA=${DATA:-$PWD/bench-data}
CORPUS=$DATA/image-corpus
COUNT=${VALIDATE_PHOTOS:-1000}
source Benchmarks/lib.sh

[ -d "$CORPUS/jpeg-baseline" ] || python3 Benchmarks/images/build_corpus.py "$CORPUS" >&2
links=$DATA/validate-photos
rm -rf "$links"; mkdir -p "$links"
mapfile -t photos < <(ls "$CORPUS"/jpeg-baseline/* "$CORPUS"/jpeg-progressive/*)
csv=$DATA/validate-photos.csv
echo "key,name,lat,lon,image" > "$csv"
for ((i = 0; i < COUNT; i++)); do
  ln -s "${photos[i % ${#photos[@]}]}" "$links/photo-$i.jpg"
  echo "p-$i,Photo $i,40.7,-74.0,$links/photo-$i.jpg" >> "$csv"
done
ws=$DATA/validate-photos.sqlite
rm -f "$ws" "$ws-wal" "$ws-shm"
"$TROVE" -w "$ws" init -q
"$TROVE" -w "$ws" import treasures "$csv" -q

# validate exits 1 on its warnings (no geohashes yet): only the time counts here.
measure "trove validate ($COUNT 12 MP photos)" sh -c "'$TROVE' -w '$ws' validate -q || true"
validate=$LAST_SECONDS
printf '%-44s %8.1f ms a photo\n' "validate image check" "$(echo "$validate * 1000 / $COUNT" | bc -l)"
measure "trove images, thumbnails of the same photos" "$TROVE" -w "$ws" images \
  --rendition thumb=256x256 --jobs 2 --out "$DATA/validate-out" -q
rm -rf "$DATA/validate-out" "$links"
# Not a target: how the check compares with the work it predicts.
printf '%-44s %8.2fx a thumbnail pass (2 workers)\n' "validate vs images" \
  "$(echo "$validate / $LAST_SECONDS" | bc -l)"
