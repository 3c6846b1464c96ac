//! Inputs and outputs.
//!
//! - `-` or no file is stdin/stdout.
//! - Inputs compressed with zstd, gzip or bzip2 are recognised by their magic
//!   bytes (whatever their name) and decompressed; concatenated frames or
//!   members are all read, so `cat a.pgc.zst b.pgc.zst` works. A regular
//!   file in zstd's seekable format can also be read frame by frame, from
//!   any frame, on several threads ([`Input::open_seekable`]).
//! - The data is then sniffed: PGC or PGN text ([`Format`]). `.pgc` is also
//!   used by other programs, so the name alone decides nothing.
//! - An output file is written to an unnamed temporary file (`O_TMPFILE`)
//!   in the target's directory, made durable and linked into place only at
//!   the end ([`Output::commit`]); on any error, or if the process dies
//!   (even by `kill -9`), the target is untouched and nothing is left
//!   behind. Where the file system has no `O_TMPFILE`, a named temporary
//!   file takes its place (removed on errors and on SIGINT/SIGTERM). An
//!   existing output is kept unless `--force`, and an output is never one
//!   of the inputs.
//! - An output that is not a regular file (a device, a FIFO, `/dev/stdout`,
//!   `/dev/fd/N`, `/proc/self/fd/N`, or a link to one) is written in place.
//! - Outputs ending in `.zst`, `.gz` or `.bz2` are compressed; a `.zst`
//!   output is written in zstd's seekable format ([`seekable`]), its frames
//!   ending where the command says a game ends ([`Sink::put_games`]).

pub mod frame_index;
mod input;
mod output;
pub mod seekable;

pub use input::{DamageWatch, Input, Opened};
pub use output::{
    Output, Sink, is_stdout, refuse_binary_terminal, refuse_two_on_stdout, remove_temps,
};
pub use pgn_bridge::sniff::Format;
