//! Shared helpers for the benchmarks and peer programs.
