#!/usr/bin/env bash
# Sizes of `pgc export`'s Parquet (every column of the default table but
# `ordinals`: the tag columns, `plies`, `clocks`, `evals`, `mates`, `pgc`)
# at zstd levels 3 and 19, against the PGC of the same games under
# `zstd -3` and `zstd -19`, and against the Lichess-layout Parquet (tag
# columns and `movetext`) that pyarrow writes with zstd
# (tests/python/lichess_layout.py), one row per file, as Markdown.
#
# Usage: benches/table_sizes.sh [PGC_BINARY]
#   PGC_CORPUS   corpus directory (default ../shared/corpus beside the checkout)
#   BENCH_INPUT  also a row for this file (e.g. target/bench-inputs/clean-30m.pgn)
# Needs zstd and pyarrow.
set -euo pipefail
# shellcheck source=tools/sizes_common.sh
source "$(dirname "$0")/tools/sizes_common.sh"
files=("$corpus"/lichess-org__database/2017-05.pgn.zst)
[ -n "${BENCH_INPUT:-}" ] && files+=("$BENCH_INPUT")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f ×", a / b }'; }
echo "| input | export, zstd 3 | / \`.pgc.zst\` -3 | export, zstd 19 | / \`.pgc.zst\` -19 | pyarrow Lichess layout |"
echo "|---|---:|---:|---:|---:|---:|"
for f in "${files[@]}"; do
  plain_pgn "$f" "$work/in.pgn"
  "$pgc" encode -q "$work/in.pgn" -o "$work/in.pgc" --force
  "$pgc" export -q "$work/in.pgc" -o "$work/default.parquet" --force
  columns=$(python3 -c 'import sys, pyarrow.parquet as pq
print(",".join(n for n in pq.read_schema(sys.argv[1]).names if n != "ordinals"))' "$work/default.parquet")
  for level in 3 19; do
    "$pgc" export -q "$work/in.pgc" -o "$work/t$level.parquet" --force \
      --columns "$columns" --zstd-level "$level"
  done
  t3=$(stat -c %s "$work/t3.parquet"); t19=$(stat -c %s "$work/t19.parquet")
  z3=$(zstd -3 -c "$work/in.pgc" | wc -c); z19=$(zstd -19 -c "$work/in.pgc" | wc -c)
  python3 "$root/tests/python/lichess_layout.py" "$work/in.pgn" "$work/lichess.parquet" > /dev/null
  lichess=$(stat -c %s "$work/lichess.parquet")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$(basename "$f")" \
    "$t3" "$(ratio "$t3" "$z3")" "$t19" "$(ratio "$t19" "$z19")" "$lichess"
done
