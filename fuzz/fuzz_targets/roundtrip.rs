//! Fuzz target: see `pgc_fuzz::checks::check_roundtrip`.

#![no_main]

pgc_fuzz::target!(pgc_fuzz::checks::check_roundtrip);
