# Sourced by benches/table_sizes.sh and benches/engine_sizes.sh (bash, with
# `set -euo pipefail`): the checkout's root, the `pgc` binary ($1, default
# the release build), the corpus ($PGC_CORPUS, default ../shared/corpus
# beside the checkout), a work directory removed on exit, and `plain_pgn
# FILE OUT`, which writes FILE as plain PGN (decompressing a .zst).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pgc="${1:-$root/target/release/pgc}"
corpus="${PGC_CORPUS:-$root/../shared/corpus}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
plain_pgn() {
  case "$1" in *.zst) zstd -qdc "$1" > "$2" ;; *) cp "$1" "$2" ;; esac
}
