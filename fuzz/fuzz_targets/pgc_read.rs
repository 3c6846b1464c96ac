//! Fuzz target: see `pgc_fuzz::checks::check_pgc`.

#![no_main]

pgc_fuzz::target!(pgc_fuzz::checks::check_pgc);
