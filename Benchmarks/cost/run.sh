#!/usr/bin/env bash
# Cost per distinct thing, not per record (issue 35): each case beside its peer or floor
# in the same run, the two sides alternated, RUNS runs each, min-median-max printed and
# the ratio taken of the medians.
#
#   posts growth     import posts at GROWTH sizes over 5 photos: time per doubling
#   posts distinct   DISTINCT_POSTS posts over DISTINCT_PHOTOS photos, beside decoding
#                    each distinct photo once (djpeg -scale 1/8, on every core) plus
#                    sqlite3 json_each of the same posts
#   small import     a 3-row CSV into SMALL_BASES treasures (each run new rows)
#   validate         VALIDATE_ROWS treasures over 5 images, beside the same without images
#   images           IMAGES_ROWS treasures over 5 artworks, beside rendering the 5 alone
#                    plus sqlite3 writing their rendition rows (3 a treasure)
#   import           IMPORT_ROWS treasures with an image column over 5 files into a new
#                    workspace, beside sqlite3 .import of the same CSV into a new database
#
# The defaults finish in a few minutes; the issue's sizes:
#   GROWTH="4000 8000 16000 100000" DISTINCT_POSTS=100000 DISTINCT_PHOTOS=1000 \
#   SMALL_BASES="100000 1000000" VALIDATE_ROWS=100000 IMAGES_ROWS=1000000 \
#   IMPORT_ROWS=1000000 Benchmarks/cost/run.sh
# CASES="growth distinct small validate images import" picks some.
set -euo pipefail
cd "$(dirname "$0")/../.."
TROVE=${TROVE:-$PWD/.build/release/trove}
DATA=${DATA:-${BENCH_DATA:-$PWD/bench-data}}/cost
RUNS=${RUNS:-3}
GROWTH=${GROWTH:-4000 8000 16000}
DISTINCT_POSTS=${DISTINCT_POSTS:-10000}
DISTINCT_PHOTOS=${DISTINCT_PHOTOS:-100}
SMALL_BASES=${SMALL_BASES:-50000 500000}
VALIDATE_ROWS=${VALIDATE_ROWS:-100000}
IMAGES_ROWS=${IMAGES_ROWS:-20000}
IMPORT_ROWS=${IMPORT_ROWS:-200000}
CASES=${CASES:-growth distinct small validate images import}
mkdir -p "$DATA"
source Benchmarks/lib.sh

# seconds CMD...: wall-clock seconds of CMD, its output discarded (exit 1, "problems
# found", counts as a run: photos without GPS are findings).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || [ $? -eq 1 ]
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# spread V...: min-median-max with two decimals.
spread() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { printf "%.2f-%.2f-%.2f s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
has() { [[ " $CASES " == *" $1 "* ]]; }

# photos DIR COUNT WIDTH HEIGHT: COUNT distinct JPEG photos (quality 90) of that size.
photos() {
  python3 Benchmarks/cost/make-photos.py "$@"
  local ppm
  for ppm in "$1"/*.ppm; do
    [ -e "$ppm" ] || continue
    cjpeg -quality 90 "$ppm" > "${ppm%.ppm}.jpg"
    rm -f "$ppm"
  done
}

# posts OUT.csv OUT.json COUNT PHOTOS: COUNT posts cycling over PHOTOS photos, as CSV
# for trove and as a JSON array of the same posts for the sqlite3 peer.
posts() {
  awk -v n="$3" -v p="$4" 'BEGIN {
    print "id,user,lat,lon,description,date,photo"
    for (i = 0; i < n; i++)
      printf "post%d,user%d,%.6f,%.6f,Litter report %d,2024-05-%02dT10:00:00Z,p%d.jpg\n",
        i, i % 97, 40 + (i % 1000) / 1000, -74 + int(i / 1000) / 1000, i, 1 + i % 28, i % p
  }' > "$1"
  awk -F, 'NR == 1 { printf "["; next }
    { printf "%s{\"id\":\"%s\",\"user\":\"%s\",\"lat\":%s,\"lon\":%s,\"description\":\"%s\",\"date\":\"%s\",\"photo\":\"%s\"}",
        (NR > 2 ? "," : ""), $1, $2, $3, $4, $5, $6, $7 }
    END { print "]" }' "$1" > "$2"
}

import_posts() {  # import_posts CSV PHOTOS: into a fresh workspace
  rm -f "$DATA/posts.sqlite" "$DATA/posts.sqlite-wal" "$DATA/posts.sqlite-shm"
  "$TROVE" -w "$DATA/posts.sqlite" init -q
  "$TROVE" -w "$DATA/posts.sqlite" import posts "$1" --photos "$2" -q
}

echo "trove cost benchmarks on $(nproc) cores, $RUNS runs a side; data in $DATA"

# --- posts: growth per doubling -----------------------------------------------------
if has growth; then
  photos "$DATA/photos5" 5 1600 1200
  previous=
  for size in $GROWTH; do
    posts "$DATA/growth-$size.csv" "$DATA/growth-$size.json" "$size" 5
    ours=(); peer=()
    for _ in $(seq "$RUNS"); do
      ours+=("$(seconds import_posts "$DATA/growth-$size.csv" "$DATA/photos5")")
      peer+=("$(seconds sqlite3 :memory: "SELECT count(*) FROM json_each(readfile('$DATA/growth-$size.json'))")")
    done
    printf '%-44s %s (sqlite3 json_each %s)\n' "import posts, $size over 5 photos" \
      "$(spread "${ours[@]}")" "$(spread "${peer[@]}")"
    now=$(median "${ours[@]}")
    if [ -n "$previous" ]; then
      # The cost of a post may grow 1.3x per doubling (1.3^log2 of the size ratio): the
      # ratio is of the time per post.
      target=$(printf '%.2f' "$(echo "e(l(1.3) * l($size / $previous_size) / l(2))" | bc -l)")
      printf '%-44s ratio %.2fx in all\n' "posts growth $previous_size -> $size" \
        "$(echo "$now / $previous" | bc -l)"
      report_ratio "time per post, $previous_size -> $size" \
        "$(echo "$now / $size" | bc -l)" "$(echo "$previous / $previous_size" | bc -l)" "$target"
    fi
    previous=$now; previous_size=$size
  done
fi

# --- posts: many over fewer distinct photos -----------------------------------------
if has distinct; then
  dir="$DATA/photos$DISTINCT_PHOTOS"
  photos "$dir" "$DISTINCT_PHOTOS" 1600 1200
  posts "$DATA/distinct.csv" "$DATA/distinct.json" "$DISTINCT_POSTS" "$DISTINCT_PHOTOS"
  floor() {
    find "$dir" -name '*.jpg' -print0 | xargs -0 -P "$(nproc)" -n 8 sh -c \
      'for f in "$@"; do djpeg -scale 1/8 "$f" > /dev/null; done' sh
    sqlite3 :memory: "SELECT count(*) FROM json_each(readfile('$DATA/distinct.json'))" > /dev/null
  }
  ours=(); peer=()
  for _ in $(seq "$RUNS"); do
    ours+=("$(seconds import_posts "$DATA/distinct.csv" "$dir")")
    peer+=("$(seconds floor)")
  done
  printf '%-44s %s\n' "import $DISTINCT_POSTS posts, $DISTINCT_PHOTOS photos" "$(spread "${ours[@]}")"
  printf '%-44s %s\n' "djpeg -scale 1/8 each photo + json_each" "$(spread "${peer[@]}")"
  report_ratio "posts over distinct photos vs decode floor" \
    "$(median "${ours[@]}")" "$(median "${peer[@]}")" 1.5
fi

# --- a 3-row import into a big workspace --------------------------------------------
if has small; then
  declare -A small_median
  for base in $SMALL_BASES; do
    csv="$DATA/treasures-$base.csv"
    [ -f "$csv" ] || python3 Benchmarks/treasures/make-csv.py "$base" "$csv"
    ws="$DATA/small-$base.sqlite"
    rm -f "$ws" "$ws-wal" "$ws-shm"
    "$TROVE" -w "$ws" init -q
    "$TROVE" -w "$ws" import treasures "$csv" -q
    sqlite3 "$ws" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
  done
  declare -A runs
  for run in $(seq "$RUNS"); do
    for base in $SMALL_BASES; do
      ws="$DATA/small-$base.sqlite"
      printf 'key,name,lat,lon,description,points\n' > "$DATA/three.csv"
      for row in 1 2 3; do
        printf 'n%s-%s,New %s,%s.5,%s.5,"Three rows",1\n' "$run" "$row" "$row" "$row" "$row" >> "$DATA/three.csv"
      done
      runs[$base]+=" $(seconds "$TROVE" -w "$ws" import treasures "$DATA/three.csv" -q)"
      runs[peer-$base]+=" $(seconds sqlite3 "$ws" "UPDATE treasures SET name = name || '' WHERE key IN ('t0000001', 't0000002', 't0000003')")"
    done
  done
  for base in $SMALL_BASES; do
    # shellcheck disable=SC2086
    printf '%-44s %s (sqlite3 UPDATE of 3 rows %s)\n' "import of 3 rows into $base" \
      "$(spread ${runs[$base]})" "$(spread ${runs[peer-$base]})"
    # shellcheck disable=SC2086
    small_median[$base]=$(median ${runs[$base]})
  done
  read -r small_first small_last <<< "$(echo $SMALL_BASES | awk '{ print $1, $NF }')"
  report_ratio "3-row import at $small_last vs at $small_first" \
    "${small_median[$small_last]}" "${small_median[$small_first]}" 1.5
fi

# --- validate with images and without ----------------------------------------------
if has validate; then
  photos "$DATA/photos5" 5 1600 1200
  awk -F, -v OFS=, -v n="$VALIDATE_ROWS" -v dir="$DATA/photos5" 'BEGIN {
    print "key,name,lat,lon,image" > "/dev/stderr"
    print "key,name,lat,lon"
    for (i = 0; i < n; i++) {
      lat = -60 + (i * 7919 % 130000) / 1000; lon = -180 + (i * 104729 % 360000) / 1000
      print "v" i, "Treasure " i, lat, lon
      print "v" i, "Treasure " i, lat, lon, dir "/p" (i % 5) ".jpg" > "/dev/stderr"
    }
  }' > "$DATA/validate-plain.csv" 2> "$DATA/validate-images.csv"
  for kind in plain images; do
    ws="$DATA/validate-$kind.sqlite"
    rm -f "$ws" "$ws-wal" "$ws-shm"
    "$TROVE" -w "$ws" init -q
    "$TROVE" -w "$ws" import treasures "$DATA/validate-$kind.csv" -q
    "$TROVE" -w "$ws" geohash -q
  done
  ours=(); peer=()
  for _ in $(seq "$RUNS"); do
    ours+=("$(seconds "$TROVE" -w "$DATA/validate-images.sqlite" validate -q)")
    peer+=("$(seconds "$TROVE" -w "$DATA/validate-plain.sqlite" validate -q)")
  done
  printf '%-44s %s\n' "validate $VALIDATE_ROWS, 5 distinct images" "$(spread "${ours[@]}")"
  printf '%-44s %s\n' "validate $VALIDATE_ROWS without images" "$(spread "${peer[@]}")"
  report_ratio "validate with images vs without" "$(median "${ours[@]}")" "$(median "${peer[@]}")" 1.5
fi

# --- images of many records over 5 artworks ----------------------------------------
if has images; then
  photos "$DATA/photos5" 5 1600 1200
  make_ws() {  # make_ws NAME ROWS
    awk -F, -v OFS=, -v n="$2" -v dir="$DATA/photos5" 'BEGIN {
      print "key,name,lat,lon,image"
      for (i = 0; i < n; i++) print "i" i, "Treasure " i, (i % 170) - 85, int(i / 170) % 360 - 180, dir "/p" (i % 5) ".jpg"
    }' > "$DATA/$1.csv"
    rm -f "$DATA/$1.sqlite"*
    "$TROVE" -w "$DATA/$1.sqlite" init -q
    "$TROVE" -w "$DATA/$1.sqlite" import treasures "$DATA/$1.csv" -q
    sqlite3 "$DATA/$1.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
  }
  make_ws images-many "$IMAGES_ROWS"
  make_ws images-five 5
  fresh() {  # fresh NAME: a copy of the prepared workspace and no output folder (untimed)
    rm -rf "$DATA/$1-run.sqlite"* "$DATA/$1-out"
    cp "$DATA/$1.sqlite" "$DATA/$1-run.sqlite"
  }
  render() {  # render NAME: on the fresh copy, into an empty folder
    "$TROVE" -w "$DATA/$1-run.sqlite" images --treasures --out "$DATA/$1-out" -q
  }
  # rows: what sqlite3 needs to write the records' rendition rows, 3 a record, in one
  # transaction, into a copy of the same workspace (the same table, indexes and
  # triggers: a Storage token a path, a change mark a record).
  rows() {
    sqlite3 "$DATA/images-rows.sqlite" "INSERT INTO renditions (owner_kind, owner_key, name,
        source, source_hash, settings, path, width, height, bytes, hash, made_at)
      SELECT 'treasure', t.key, n.name, t.image, '0123456789abcdef', n.name || ':q80:v1',
        'treasures/' || t.key || '/' || n.name || '-0123abcd.jpg', 256, 192, 12345,
        '0123456789abcdef', '2026-01-01T00:00:00Z'
      FROM treasures AS t, (SELECT 'full' AS name UNION ALL SELECT 'thumb' UNION ALL SELECT 'pin') AS n"
  }
  # names: what the file system needs for the records' own paths (SPEC 4:
  # treasures/KEY/NAME-HASH.EXT), a folder and 3 hard links a record to 15 shared files,
  # into an empty folder: not in the issue's floor, shown beside it.
  names() {
    python3 - "$DATA/images-names" "$IMAGES_ROWS" <<'PY'
import os, sys
out, rows = sys.argv[1], int(sys.argv[2])
shared = [f"{out}/s{artwork}-{name}" for artwork in range(5) for name in ("full", "thumb", "pin")]
os.makedirs(f"{out}/treasures")
for path in shared:
    with open(path, "wb") as file:
        file.write(b"x")
for record in range(rows):
    folder = f"{out}/treasures/i{record}"
    os.mkdir(folder)
    for index, name in enumerate(("full", "thumb", "pin")):
        os.link(shared[(record % 5) * 3 + index], f"{folder}/{name}-0123abcd.jpg")
PY
  }
  ours=(); five=(); writes=(); peer=(); named=(); whole=()
  for _ in $(seq "$RUNS"); do
    fresh images-many; ours+=("$(seconds render images-many)")
    fresh images-five; five+=("$(seconds render images-five)")
    rm -f "$DATA/images-rows.sqlite"*
    cp "$DATA/images-many.sqlite" "$DATA/images-rows.sqlite"
    writes+=("$(seconds rows)")
    peer+=("$(echo "${five[-1]} + ${writes[-1]}" | bc -l)")
    rm -rf "$DATA/images-names"
    named+=("$(seconds names)")
    whole+=("$(echo "${peer[-1]} + ${named[-1]}" | bc -l)")
  done
  rm -rf "$DATA/images-names"
  printf '%-44s %s\n' "images, $IMAGES_ROWS treasures over 5 artworks" "$(spread "${ours[@]}")"
  printf '%-44s %s\n' "images, the 5 artworks alone" "$(spread "${five[@]}")"
  printf '%-44s %s\n' "sqlite3 writing the $((IMAGES_ROWS * 3)) rows" "$(spread "${writes[@]}")"
  printf '%-44s %s\n' "floor: the 5 alone + the rows" "$(spread "${peer[@]}")"
  printf '%-44s %.1f us a record beyond the floor\n' "bookkeeping" \
    "$(echo "($(median "${ours[@]}") - $(median "${peer[@]}")) * 1000000 / $IMAGES_ROWS" | bc -l)"
  report_ratio "images over 5 artworks vs the 5 alone + rows" \
    "$(median "${ours[@]}")" "$(median "${peer[@]}")" 1.5
  printf '%-44s %s\n' "a folder and 3 links a record (python3)" "$(spread "${named[@]}")"
  printf '%-44s %s\n' "floor with the records' own paths" "$(spread "${whole[@]}")"
  printf '%-44s ratio %.2fx (no target: the floor of the issue has no paths)\n' \
    "images vs the 5 alone + rows + paths" \
    "$(echo "$(median "${ours[@]}") / $(median "${whole[@]}")" | bc -l)"
fi

summary

# --- import with an image column over 5 files ----------------------------------------
if has import; then
  photos "$DATA/photos5" 5 1600 1200
  awk -v n="$IMPORT_ROWS" -v dir="$DATA/photos5" 'BEGIN {
    print "key,name,lat,lon,description,image"
    for (i = 0; i < n; i++) {
      lat = -60 + (i * 7919 % 130000) / 1000; lon = -180 + (i * 104729 % 360000) / 1000
      printf "m%d,Treasure %d,%s,%s,\"A chest, the %dth\",%s/p%d.jpg\n", i, i, lat, lon, i, dir, i % 5
    }
  }' > "$DATA/import-images.csv"
  fresh() { rm -f "$1" "$1-wal" "$1-shm"; }
  ours=(); peer=()
  for _ in $(seq "$RUNS"); do
    fresh "$DATA/import-ours.sqlite"
    "$TROVE" -w "$DATA/import-ours.sqlite" init -q
    ours+=("$(seconds "$TROVE" -w "$DATA/import-ours.sqlite" import treasures "$DATA/import-images.csv" -q)")
    fresh "$DATA/import-peer.sqlite"
    peer+=("$(seconds sqlite3 "$DATA/import-peer.sqlite" ".import --csv $DATA/import-images.csv treasures")")
  done
  rows=$(sqlite3 "$DATA/import-ours.sqlite" "SELECT count(*) FROM treasures")
  [ "$rows" = "$IMPORT_ROWS" ] || { echo "import stored $rows of $IMPORT_ROWS rows" >&2; exit 1; }
  printf '%-44s %s\n' "import $IMPORT_ROWS rows, image column over 5" "$(spread "${ours[@]}")"
  printf '%-44s %s\n' "sqlite3 .import of the same CSV" "$(spread "${peer[@]}")"
  report_ratio "import with images vs sqlite3 .import" "$(median "${ours[@]}")" "$(median "${peer[@]}")" 1.5
fi
