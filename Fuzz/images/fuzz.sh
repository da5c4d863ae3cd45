#!/usr/bin/env bash
# Builds and runs the image fuzz targets with libFuzzer, AddressSanitizer and UBSan from
# the Swift toolchain.
#   Fuzz/images/fuzz.sh [SECONDS] [TARGET...]     (default 60 s each, every target)
# Targets: jpeg_decode png_decode jpeg_scales icc (C, clang) and metadata (Swift).
# Seeds are generated into .build/fuzz-images/corpus/TARGET; findings land in
# .build/fuzz-images/findings and make the script exit 1. Prints executions per second
# and coverage (libFuzzer's cov: edges) per target.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-${FUZZ_SECONDS:-60}}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(jpeg_decode png_decode jpeg_scales icc metadata)
OUT=.build/fuzz-images
TOOLCHAIN=$(dirname "$(readlink -f "$(command -v swift)")")
CLANG=$TOOLCHAIN/clang
SWIFTC=$TOOLCHAIN/swiftc
C=Sources/CTroveImaging
FLAGS=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld)
mkdir -p "$OUT/findings" "$OUT/corpus"
BUILD_LOG=$OUT/build.log
: > "$BUILD_LOG"

"$CLANG" -O1 -I$C/include Fuzz/images/make_seeds.c $C/jpeg.c $C/png.c $C/imaging.c \
  -ljpeg -lpng16 -lz -o "$OUT/make_seeds"
"$OUT/make_seeds" "$OUT/corpus"

build() {
  local target=$1
  case $target in
    metadata)
      local objects=()
      for file in jpeg png imaging; do
        "$CLANG" -g -O1 -fsanitize=fuzzer-no-link,address,undefined -I$C/include -c \
          $C/$file.c -o "$OUT/$file.o"
        objects+=("$OUT/$file.o")
      done
      printf 'module CTroveImaging {\n  header "%s"\n  export *\n}\n' \
        "$PWD/$C/include/ctrove_imaging.h" > "$OUT/module.modulemap"
      "$SWIFTC" -O -parse-as-library -sanitize=fuzzer,address -module-name TroveImaging \
        -Xcc -fmodule-map-file="$OUT/module.modulemap" -I "$C/include" \
        Sources/TroveImaging/*.swift Fuzz/images/metadata.swift "${objects[@]}" \
        -ljpeg -lpng16 -lz -o "$OUT/metadata" >> "$BUILD_LOG" 2>&1
      ;;
    *)
      "$CLANG" "${FLAGS[@]}" -I$C/include -IFuzz/images Fuzz/images/$target.c \
        $C/jpeg.c $C/png.c $C/imaging.c -ljpeg -lpng16 -lz -o "$OUT/$target" >> "$BUILD_LOG" 2>&1
      ;;
  esac
}

status=0
for target in "${TARGETS[@]}"; do
  if ! build "$target"; then
    echo "FAIL $target: does not build (log $BUILD_LOG)"
    tail -20 "$BUILD_LOG"
    status=1
    continue
  fi
  mkdir -p "$OUT/corpus/$target"
  log=$OUT/$target.log
  if ! "$OUT/$target" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -rss_limit_mb=2048 \
    -artifact_prefix="$OUT/findings/$target-" "$OUT/corpus/$target" > "$log" 2>&1; then
    echo "FAIL $target: finding in $OUT/findings (log $log)"
    tail -30 "$log"
    status=1
    continue
  fi
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  printf '%-12s %8s runs  %6s exec/s  cov %s edges  PASS\n' "$target" "$execs" "$rate" "$cov"
done
exit $status
