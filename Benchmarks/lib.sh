# Shared by the benchmark scripts: timing with peak memory, and a verdict per target.
RESULTS=()

# measure LABEL CMD...: runs CMD once, sets LAST_SECONDS and LAST_KB (peak RSS).
measure() {
  local label=$1; shift
  local out; out=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$out" "$@" > /dev/null
  read -r LAST_SECONDS LAST_KB < "$out"
  rm -f "$out"
  printf '%-44s %8.2f s  %7.1f MB peak\n' "$label" "$LAST_SECONDS" "$(echo "$LAST_KB / 1024" | bc -l)"
}

verdict() { if [ "$1" = 1 ]; then echo PASS; else echo FAIL; fi; }

# report_ratio NAME OURS PEER MAX_RATIO
report_ratio() {
  local ratio; ratio=$(echo "$2 / $3" | bc -l)
  local ok; ok=$(echo "$ratio <= $4" | bc -l)
  local line; line=$(printf '%-44s ratio %.2fx (target <= %sx) %s' "$1" "$ratio" "$4" "$(verdict "$ok")")
  echo "$line"; RESULTS+=("$line")
}

# report_min_ratio NAME OURS FLOOR MIN_RATIO: for rates, where more is better.
report_min_ratio() {
  local ratio; ratio=$(echo "$2 / $3" | bc -l)
  local ok; ok=$(echo "$ratio >= $4" | bc -l)
  local line; line=$(printf '%-44s ratio %.2fx (target >= %sx) %s' "$1" "$ratio" "$4" "$(verdict "$ok")")
  echo "$line"; RESULTS+=("$line")
}

# report_limit NAME SECONDS MAX_SECONDS
report_limit() {
  local ok; ok=$(echo "$2 <= $3" | bc -l)
  local line; line=$(printf '%-44s %.3f s (target <= %s s) %s' "$1" "$2" "$3" "$(verdict "$ok")")
  echo "$line"; RESULTS+=("$line")
}

# report_memory NAME KB MAX_MB
report_memory() {
  local mb; mb=$(echo "$2 / 1024" | bc -l)
  local ok; ok=$(echo "$mb < $3" | bc -l)
  local line; line=$(printf '%-44s %.1f MB (target < %s MB) %s' "$1" "$mb" "$3" "$(verdict "$ok")")
  echo "$line"; RESULTS+=("$line")
}

# report_rate NAME PER_SECOND MIN_PER_SECOND
report_rate() {
  local ok; ok=$(echo "$2 >= $3" | bc -l)
  local line; line=$(printf '%-44s %.1f /s (target >= %s /s) %s' "$1" "$2" "$3" "$(verdict "$ok")")
  echo "$line"; RESULTS+=("$line")
}

summary() {
  echo "summary:"
  for line in "${RESULTS[@]}"; do echo "  $line"; done
}
