//! Shared helpers for the benchmarks and peer programs.

use std::fs::File;
use std::io::{self, Read};

/// Opens `path` for reading (`-`: stdin), through a zstd decoder if it ends
/// in `.zst`: the inputs of the peer programs.
///
/// # Errors
/// Opening the file or starting the decoder.
pub fn open(path: &str) -> io::Result<Box<dyn Read>> {
    let raw: Box<dyn Read> = if path == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path)?)
    };
    if path.ends_with(".zst") {
        Ok(Box::new(zstd::Decoder::new(raw)?))
    } else {
        Ok(raw)
    }
}
