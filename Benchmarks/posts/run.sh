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
# Beside it, for reference, the sqlite3 shell running the listing's query to /dev/null and
# trove's own start-up (`trove --version`), alternating with trove's runs.
SQL="SELECT id, user, lat, lon, date, description, status, signal_names FROM posts
     WHERE status = 'pending' ORDER BY date, id"
ms_of() {  # ms_of CMD...: wall-clock milliseconds of CMD, its output discarded
    start=$(date +%s%N)
    "$@" > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000000 ))
}
best=""; worst=""; peer=""; startup=""
for run in $(seq "$RUNS"); do
    ms=$(ms_of "$TROVE" -w "$WS" review list --format json)
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    if [ -z "$worst" ] || [ "$ms" -gt "$worst" ]; then worst=$ms; fi
    ms=$(ms_of sqlite3 "$WS" "$SQL")
    if [ -z "$peer" ] || [ "$ms" -lt "$peer" ]; then peer=$ms; fi
    ms=$(ms_of "$TROVE" --version)
    if [ -z "$startup" ] || [ "$ms" -lt "$startup" ]; then startup=$ms; fi
done
echo "review list --format json: $rows pending of $COUNT posts in $best ms (best of $RUNS, worst $worst ms)"
echo "  beside it: sqlite3 shell, same query, $peer ms; trove --version $startup ms (best of $RUNS)"
if [ "$best" -lt 100 ]; then verdict=PASS; else verdict=FAIL; fi
printf '%-44s %d ms (target < 100 ms) %s\n' "review list over $COUNT posts" "$best" "$verdict"
