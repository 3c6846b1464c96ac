#!/usr/bin/env bash
# Sizes of engine-game archives: PGN, PGC (engine notes typed), each under
# zstd -19 and xz -9, and SCID's si4 database of the same games (the three
# files together, and under zstd -19), one row per file, as Markdown.
#
# Usage: benches/engine_sizes.sh [PGC_BINARY]
#   PGC_CORPUS   corpus directory (default ../shared/corpus beside the checkout)
#   BENCH_INPUT  also a row for this file (e.g. the masters+TCEC input)
# Needs zstd and xz; tkscid (Debian package scid) for the SCID columns.
set -euo pipefail
# shellcheck source=tools/sizes_common.sh
source "$(dirname "$0")/tools/sizes_common.sh"
export PATH="$PATH:/usr/games"
files=("$corpus"/TCEC-Chess__tcecgames/master-archive/* \
       "$corpus"/niklasf__python-chess/data/pgn/cutechess-fischerrandom.pgn)
[ -n "${BENCH_INPUT:-}" ] && files+=("$BENCH_INPUT")
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f %%", 100 * a / b }'; }
echo "| file | games | PGN | PGC | PGN zstd -19 | PGC zstd -19 | PGN xz -9 | PGC xz -9 | SCID | SCID zstd -19 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in "${files[@]}"; do
  plain_pgn "$f" "$work/in.pgn"
  "$pgc" encode -q "$work/in.pgn" -o "$work/in.pgc" --force || true
  pgn=$(stat -c %s "$work/in.pgn"); pgcb=$(stat -c %s "$work/in.pgc")
  zp=$(zstd -19 -c "$work/in.pgn" | wc -c); zc=$(zstd -19 -c "$work/in.pgc" | wc -c)
  xp=$(xz -9 -c "$work/in.pgn" | wc -c); xc=$(xz -9 -c "$work/in.pgc" | wc -c)
  scid="-"; zscid="-"
  # SCID's column names the games it imported (it refuses Chess960 games).
  if command -v tkscid >/dev/null &&
     n=$(tkscid "$root/benches/tools/scid_import.tcl" "$work/db" "$work/in.pgn" 2>/dev/null); then
    scid="$(cat "$work"/db.si4 "$work"/db.sg4 "$work"/db.sn4 | wc -c) (${n#imported })"
    zscid=$(cat "$work"/db.si4 "$work"/db.sg4 "$work"/db.sn4 | zstd -19 -c | wc -c)
  fi
  games=$("$pgc" info "$work/in.pgc" | awk '/^  games/ { print $2 }')
  echo "| $(basename "$f") | $games | $pgn | $pgcb ($(pct "$pgcb" "$pgn")) | $zp | $zc ($(pct "$zc" "$zp")) | $xp | $xc ($(pct "$xc" "$xp")) | $scid | $zscid |"
done
