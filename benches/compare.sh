#!/usr/bin/env bash
# compare.sh: time pgc against its peers on the same real PGN, in one run.
#
#   benches/compare.sh                  # sizes 10k 1m 30m, 5 rounds
#   SIZES="1m" ROUNDS=3 benches/compare.sh
#   SKIP=python-chess,scid-import,scid-export SIZES=30m benches/compare.sh
#   BASELINE=/tmp/pgc-before SIZES=30m benches/compare.sh   # before/after in one run
#
# Steps:
#  1. builds `pgc` (crate pgc-cli), `pgc-peer` and `pgc-peer-uci` (crate pgc-benches) in release
#     mode; a failed build is reported and the other rows are still measured;
#  2. installs the peers when missing: Debian packages pgn-extract, scid
#     (tkscid), time (/usr/bin/time), zstd; python-chess via pip;
#  3. cuts the inputs from /work/shared/corpus (CORPUS=) into
#     target/bench-inputs: per size, "clean" master games and "commented"
#     games (a comment on every move), at game boundaries
#     (benches/tools/make_inputs.py);
#  4. runs every tool on every input, alternating, ROUNDS times, and prints a
#     Markdown report (median wall time, games/s, MB/s, peak RSS, output size,
#     ratio to the pgn-reader validating reader), also saved under
#     target/bench-results/ (benches/tools/run_bench.py).
#
# Environment: SIZES (default "10k 1m 30m"), STYLES (default "clean
# commented"), ROUNDS (default 5), SKIP (row keys: cat pgc-encode pgc-decode
# pgc-encode-j2 pgc-decode-j2 pgc-moves pgc-moves-j2 pgn-extract scid-import scid-export python-chess
# peer-validate peer-uci peer-naive), TIMEOUT (seconds per run, default 900), BUDGET
# (seconds of runs after which a tool is not repeated, default 60),
# CORPUS, NO_BUILD=1 (use the binaries as they are), NO_INSTALL=1,
# PGC_BIN (the `pgc` to measure instead of target/release/pgc, e.g. the
# profile-guided build of scripts/build-pgo, target/pgo/release/pgc).
#
# BASELINE=DIR: DIR holds another build of `pgc` (say, of the commit before
# a change) and maybe of `pgc-peer`. Every pgc row is then also run with
# DIR/pgc, as a row of its own right after it: `pgc encode -j 1` (baseline),
# `pgc decode -j 1` (baseline), `pgc moves -j 1` (baseline) and the -j 2 rows'
# twins (keys: the row's key + "-baseline", e.g. pgc-moves-baseline), in the
# same rounds as the others, alternating with its twin; with DIR/pgc-peer, a
# `pgc-peer validate` (baseline) row too (key peer-validate-baseline). The
# baseline rows read the same inputs and reference PGC; their notes say
# whether their output is the same bytes as the current row's and give the
# current row's median over theirs. The baseline is not built here: copy the
# binaries of the older build into DIR (e.g. from its target/release/).
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

SIZES=${SIZES:-"10k 1m 30m"}
STYLES=${STYLES:-"clean commented"}
ROUNDS=${ROUNDS:-5}
CORPUS=${CORPUS:-/work/shared/corpus}
export PATH="$PATH:/usr/games"   # Debian puts pgn-extract and tkscid there

log() { printf 'compare.sh: %s\n' "$*" >&2; }

# 1. Build. Cargo waits for other builds' locks on its own.
if [ "${NO_BUILD:-0}" != 1 ]; then
    log "building pgc (release)"
    cargo build --release -p pgc-cli --bin pgc >&2 || log "pgc did not build; its rows will say so"
    log "building pgc-peer and pgc-peer-uci (release)"
    cargo build --release -p pgc-benches --bin pgc-peer --bin pgc-peer-uci >&2 ||
        log "pgc-peer or pgc-peer-uci did not build; its rows will say so"
fi
target_dir=${CARGO_TARGET_DIR:-$root/target}
PGC="${PGC_BIN:-$target_dir/release/pgc}"
PGC_PEER="$target_dir/release/pgc-peer"
PGC_PEER_UCI="$target_dir/release/pgc-peer-uci"
PGC_BASELINE=""
PGC_PEER_BASELINE=""
if [ -n "${BASELINE:-}" ]; then
    BASELINE=$(cd "$BASELINE" 2>/dev/null && pwd) || {
        log "BASELINE is not a directory"
        exit 2
    }
    PGC_BASELINE="$BASELINE/pgc"
    [ -x "$PGC_BASELINE" ] || log "no executable $PGC_BASELINE; the baseline rows will say so"
    [ -x "$BASELINE/pgc-peer" ] && PGC_PEER_BASELINE="$BASELINE/pgc-peer"
fi

# 2. Peers.
apt_install() {
    # apt-get update only when the first attempt fails (stale lists).
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 ||
        { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2; } ||
        log "could not install $*; those rows will say so"
}
if [ "${NO_INSTALL:-0}" != 1 ]; then
    missing=()
    command -v pgn-extract >/dev/null || missing+=(pgn-extract)
    command -v tkscid >/dev/null || missing+=(scid)
    [ -x /usr/bin/time ] || missing+=(time)
    command -v zstd >/dev/null || missing+=(zstd)
    if [ ${#missing[@]} -gt 0 ]; then
        if command -v apt-get >/dev/null; then
            log "installing ${missing[*]}"
            apt_install "${missing[@]}"
        else
            log "no apt-get; missing: ${missing[*]}"
        fi
    fi
    python3 -c 'import chess' 2>/dev/null ||
        { log "installing python-chess"; python3 -m pip install -q chess >&2; } ||
        log "could not install python-chess; its row will say so"
fi
if [ ! -x /usr/bin/time ]; then
    log "/usr/bin/time is required (package 'time')"
    exit 2
fi

# 3. Inputs.
inputs_dir="$root/target/bench-inputs"
read -r -a sizes <<<"$SIZES"
python3 "$here/tools/make_inputs.py" "$CORPUS" "$inputs_dir" "${sizes[@]}" || {
    log "could not build the inputs from $CORPUS"
    exit 2
}
names=()
for size in "${sizes[@]}"; do
    for style in $STYLES; do names+=("$style-$size"); done
done

# 4. Measure.
BENCH_INPUTS="$inputs_dir/inputs.json" \
BENCH_NAMES="${names[*]}" \
BENCH_WORK="$root/target/bench-work" \
BENCH_RESULTS="$root/target/bench-results" \
BENCH_TOOLS="$here/tools" \
BENCH_COMMAND="SIZES=\"$SIZES\" ROUNDS=$ROUNDS${SKIP:+ SKIP=$SKIP}${BUDGET:+ BUDGET=$BUDGET}${BASELINE:+ BASELINE=$BASELINE} benches/compare.sh" \
PGC="$PGC" PGC_PEER="$PGC_PEER" PGC_PEER_UCI="$PGC_PEER_UCI" ROUNDS="$ROUNDS" \
PGC_BASELINE="$PGC_BASELINE" PGC_PEER_BASELINE="$PGC_PEER_BASELINE" \
    python3 "$here/tools/run_bench.py"
