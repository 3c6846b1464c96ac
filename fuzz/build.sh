#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer on stable Rust (no nightly, no
# cargo-fuzz): SanitizerCoverage is enabled with stable -C flags, and
# libfuzzer-sys compiles libFuzzer itself with the system C++ compiler.
# Binaries: fuzz/target/x86_64-unknown-linux-gnu/release/<target>.
set -euo pipefail
cd "$(dirname "$0")"
# The binaries go to fuzz/target, where run.sh looks for them.
unset CARGO_TARGET_DIR
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 -Cdebug-assertions -Coverflow-checks"
cargo build --release --target x86_64-unknown-linux-gnu --bins "$@"
