#!/usr/bin/env bash
# Runs fuzz targets for SECONDS each, two at a time (after ./build.sh).
# Usage: fuzz/run.sh SECONDS target...   (default: all four targets)
# Working corpora go to fuzz/work/<target> (not committed); crashes to
# fuzz/artifacts/; logs to fuzz/work/<target>.log.
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-60}; shift || true
targets=("${@:-pgc_read pgn_read roundtrip byte_at_a_time}")
read -r -a targets <<<"${targets[*]}"
bin=target/x86_64-unknown-linux-gnu/release
mkdir -p artifacts work
for t in "${targets[@]}"; do
  if [ ! -x "$bin/$t" ]; then
    echo "fuzz/run.sh: $bin/$t is missing; run fuzz/build.sh first" >&2
    exit 1
  fi
done
run() {
  mkdir -p "work/$1"
  "$bin/$1" -max_total_time="$secs" -rss_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="artifacts/$1-" \
    "work/$1" "corpus/$1" >"work/$1.log" 2>&1
  echo "$1: exit $? after $secs s; $(grep -o 'stat::number_of_executed_units: *[0-9]*' "work/$1.log")"
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  run "${targets[i]}" &
  if ((i + 1 < ${#targets[@]})); then run "${targets[i + 1]}" & fi
  wait
done
