//! # pgc-arrow
//!
//! PGC games as Apache Arrow record batches, and as Parquet files and
//! Arrow IPC files and streams, one row per game:
//!
//! - typed columns for the tags people query, named as in the Lichess
//!   Parquet dataset (`WhiteElo` int16, `UTCDate` date32, …), every other
//!   tag in the `other_tags` map, in input order ([`Column`] lists them
//!   all; the names are a contract);
//! - the main line: `plies`, `ordinals`, and on request `uci` and `san`;
//!   `clocks`, `evals` and `mates` from the typed `[%clk]` and `[%eval]`
//!   commands;
//! - the game itself: its PGC records in the `pgc` column, so that the
//!   column, concatenated ([`append_pgc`]), is the PGC input byte for byte.
//!
//! Games are read with pgc-core's [`BulkReader`](pgc_core::BulkReader) and
//! appended column by column by a [`GamesBuilder`] (nothing is allocated
//! per move); [`convert_par`] converts batches of games on several threads,
//! with the same output for every number of threads.
//!
//! ```
//! use pgc_arrow::{ExportOptions, append_pgc, convert_par};
//!
//! // 0x05, the tag pair WhiteElo "2400", the moves 1. e4 e5, 0x06 (twice).
//! let game: &[u8] = &[0x05, 0x02, 8, b'W', b'h', b'i', b't', b'e', b'E', b'l', b'o', 4,
//!                     b'2', b'4', b'0', b'0', 0x03, 2, 13, 12, 0x06];
//! let pgc = game.repeat(2);
//! let batches = convert_par(&pgc, 2, &ExportOptions::default())?;
//! assert_eq!(batches[0].num_rows(), 2);
//!
//! let mut back = Vec::new();
//! for b in &batches {
//!     append_pgc(b, &mut back)?;
//! }
//! assert_eq!(back, pgc);
//! # Ok::<(), pgc_arrow::Error>(())
//! ```
//!
//! [`lichess`] reads tables in the Lichess dataset's layout (tag columns and
//! a `movetext` string) back to PGN text.

#![forbid(unsafe_code)]

mod build;
mod convert;
mod error;
mod file;
pub mod lichess;
mod schema;
mod uci;

pub use build::GamesBuilder;
pub use convert::{
    Converted, Joiner, PAR_BATCH_BYTES, append_pgc, bulk_options, check_pgc_cell, convert,
    convert_par,
};
pub use error::Error;
pub use file::{FileFormat, TableReader, TableWriter, WriteOptions};
pub use schema::{Column, ExportOptions};
