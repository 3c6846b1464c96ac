#!/usr/bin/env bash
# Choosing games, side by side with pgn-extract (BENCHMARKS.md, "Choosing
# games"): on the benchmark input (clean-30m, made by benches/compare.sh),
#   1. `pgc decode --where EXPR` selecting about 10 % by tags, against
#      decoding everything and against pgn-extract's tag criteria (-t) doing
#      the same selection on the PGN;
#   2. `pgc encode --dedup` of the input concatenated with itself, against
#      pgn-extract -D on the same file;
#   3. peak memory of `pgc decode --dedup` over 1 M games (the PGC repeated).
# Medians of ROUNDS runs (default 5) with hyperfine; release build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-5}"
PGC="${PGC:-target/release/pgc}"
INPUT="${INPUT:-target/bench-inputs/clean-30m.pgn}"
WORK="${WORK:-target/bench-work/select}"
export PATH="$PATH:/usr/games"
for tool in hyperfine pgn-extract /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "benches/select.sh: $tool is missing" >&2; exit 2; }
done
[ -f "$INPUT" ] || { echo "benches/select.sh: $INPUT is missing; run benches/compare.sh first" >&2; exit 2; }
mkdir -p "$WORK"
"$PGC" encode -q "$INPUT" -o "$WORK/in.pgc" --force

# 1. The same selection in both languages: both players rated 2700 or more,
#    White won (pgn-extract ANDs criteria on different tags).
EXPR='WhiteElo>=2700 and BlackElo>=2700 and Result="1-0"'
printf 'WhiteElo >= "2700"\nBlackElo >= "2700"\nResult "1-0"\n' >"$WORK/tags.txt"
"$PGC" decode -q --where "$EXPR" "$WORK/in.pgc" -o "$WORK/sel.pgn" --force
pgn-extract -s -t "$WORK/tags.txt" "$INPUT" -o "$WORK/sel-pe.pgn" 2>/dev/null
n_pgc=$(grep -c '^\[Event ' "$WORK/sel.pgn")
n_pe=$(grep -c '^\[Event ' "$WORK/sel-pe.pgn")
n_all=$("$PGC" info "$WORK/in.pgc" | awk '$1 == "games" {print $2}')
echo "selection: $EXPR: pgc $n_pgc games, pgn-extract $n_pe games, of $n_all"
hyperfine -N -w 1 -r "$ROUNDS" --export-json "$WORK/select.json" \
  -n "pgc decode (all)" "$PGC decode -q -j 1 $WORK/in.pgc -o $WORK/all.pgn --force" \
  -n "pgc decode --where" "$PGC decode -q -j 1 --where '$EXPR' $WORK/in.pgc -o $WORK/sel.pgn --force" \
  -n "pgn-extract -t" "pgn-extract -s -t $WORK/tags.txt $INPUT -o $WORK/sel-pe.pgn"

# 2. Duplicates: the input twice.
cat "$INPUT" "$INPUT" >"$WORK/twice.pgn"
hyperfine -N -w 1 -r "$ROUNDS" --export-json "$WORK/dedup.json" \
  -n "pgc encode" "$PGC encode -q -j 1 $WORK/twice.pgn -o $WORK/twice.pgc --force" \
  -n "pgc encode --dedup" "$PGC encode -q -j 1 --dedup $WORK/twice.pgn -o $WORK/dedup.pgc --force" \
  -n "pgn-extract -D" "pgn-extract -s -D $WORK/twice.pgn -o $WORK/dedup-pe.pgn"
echo "dedup: pgc keeps $("$PGC" info "$WORK/dedup.pgc" | awk '$1 == "games" {print $2}') games," \
  "pgn-extract $(grep -c '^\[Event ' "$WORK/dedup-pe.pgn")"

# 3. Memory over 1 M games.
rm -f "$WORK/many.pgc"
for _ in $(seq 24); do cat "$WORK/in.pgc" >>"$WORK/many.pgc"; done
/usr/bin/time -f "pgc decode --dedup -j 2 of $((n_all * 24)) games: %e s, peak %M KiB" \
  "$PGC" decode -q -j 2 --dedup "$WORK/many.pgc" -o /dev/null --force
rm -f "$WORK/many.pgc" "$WORK/twice.pgn"
python3 - "$WORK" <<'PY'
import json
import statistics
import sys

for name in ("select", "dedup"):
    with open(f"{sys.argv[1]}/{name}.json") as f:
        for r in json.load(f)["results"]:
            print(f"{r['command']}: median {statistics.median(r['times']):.3f} s")
PY
