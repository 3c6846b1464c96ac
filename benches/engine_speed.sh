#!/usr/bin/env bash
# Encoding speed of engine games against master games, a byte each: for
# every TCEC file of the corpus, `pgc encode -j 1` of the file and of the
# same number of bytes from the start of the master-games benchmark input,
# medians of hyperfine runs, one row per file and build, as Markdown.
#
# Usage: benches/engine_speed.sh [PGC_BINARY...]   (default: the release build)
#   PGC_CORPUS   corpus directory (default ../shared/corpus beside the checkout)
#   MASTERS      master games (default target/bench-inputs/clean-30m.pgn,
#                made by benches/tools/make_inputs.py)
#   ROUNDS       hyperfine runs per command (default 15)
# Needs hyperfine and zstd.
set -euo pipefail
# shellcheck source=tools/sizes_common.sh
source "$(dirname "$0")/tools/sizes_common.sh"
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=("$pgc")
masters="${MASTERS:-$root/target/bench-inputs/clean-30m.pgn}"
rounds="${ROUNDS:-15}"
[ -f "$masters" ] || { echo "benches/engine_speed.sh: no $masters (run benches/tools/make_inputs.py)" >&2; exit 2; }
median_ms() {
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["results"]; print(" ".join("%.1f" % (x["median"] * 1000) for x in r))' "$1"
}
echo "| file | bytes | build | TCEC ms | master games ms | TCEC / master |"
echo "|---|---:|---|---:|---:|---:|"
for f in "$corpus"/TCEC-Chess__tcecgames/master-archive/*; do
  plain_pgn "$f" "$work/tcec.pgn"
  n=$(stat -c %s "$work/tcec.pgn")
  head -c "$n" "$masters" > "$work/masters.pgn"
  for bin in "${bins[@]}"; do
    # A game cut at the end of the master bytes is rejected (exit 1): -i.
    hyperfine -N -i -w 2 -r "$rounds" --export-json "$work/h.json" \
      "$bin encode -q -j 1 $work/tcec.pgn -o $work/a.pgc --force" \
      "$bin encode -q -j 1 $work/masters.pgn -o $work/b.pgc --force" >/dev/null 2>&1
    read -r t m <<< "$(median_ms "$work/h.json")"
    ratio=$(awk -v a="$t" -v b="$m" 'BEGIN { printf "%.2f", a / b }')
    echo "| $(basename "$f" .zst) | $n | $bin | $t | $m | $ratio × |"
  done
done
