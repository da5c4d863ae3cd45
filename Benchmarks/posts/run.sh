#!/bin/sh
# Times `trove review list --format json` over 100,000 posts (target: under 100 ms).
# Usage: Benchmarks/posts/run.sh  (TROVE=path/to/trove, default the release build)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TROVE=${TROVE:-$ROOT/.build/release/trove}
COUNT=${COUNT:-100000}
RUNS=${RUNS:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
WS="$WORK/bench.sqlite"

"$TROVE" -w "$WS" init -q
sqlite3 "$WS" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $COUNT)
INSERT INTO posts (id, user, lat, lon, description, date, content_hash, status,
                   signals, signal_names, imported_at, updated_at)
SELECT printf('post%06d', i), 'user' || (i % 500),
       40.7 + (i % 1000) * 0.0001, -74.0 + (i / 1000) * 0.0001,
       'Litter report number ' || i || ': bottles, cans and a "sofa"',
       printf('2022-%02d-%02dT10:%02d:00Z', 1 + i % 12, 1 + i % 28, i % 60),
       hex(randomblob(16)),
       CASE WHEN i % 10 = 0 THEN 'approved' ELSE 'pending' END,
       '[]', CASE WHEN i % 7 = 0 THEN 'text-link,no-exif-gps' ELSE '' END,
       '2022-01-01T00:00:00Z', '2022-01-01T00:00:00Z'
FROM n;
SQL
# Warm the page cache once, then time each run.
"$TROVE" -w "$WS" review list --format json > /dev/null
rows=$("$TROVE" -w "$WS" review list --format json | grep -c '"id"')
best=""
for run in $(seq "$RUNS"); do
    start=$(date +%s%N)
    "$TROVE" -w "$WS" review list --format json > /dev/null
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
done
echo "review list --format json: $rows pending of $COUNT posts in $best ms (best of $RUNS)"
if [ "$best" -lt 100 ]; then verdict=PASS; else verdict=FAIL; fi
printf '%-44s %d ms (target < 100 ms) %s\n' "review list over $COUNT posts" "$best" "$verdict"
