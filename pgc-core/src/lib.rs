//! # pgc-core
//!
//! PGC, the binary "PGN Game Coding" of section 20 of the 1994 PGN standard,
//! with no PGN text and no command line:
//!
//! - [`item`]: int-1/2/4, string-1/2/4, mvseq-1/2 and mvset-1 (20.1–20.3);
//! - [`record`]: the records of markers 0x00–0x0a (20.4), read and written
//!   with binrw, plus this project's extension marker ([`ext`]);
//! - [`ordinal`]: the move-ordinal codec (20.2) on shakmaty positions;
//! - [`stream`] / [`writer`]: streaming framing over `Read`/`Write` (a
//!   [`stream::Mode::Resync`] reader goes on after a framing error);
//! - [`game`]: the game grammar, once: a state machine over records that
//!   yields structure events or positioned errors;
//! - [`split`]: game boundaries for batches and the index, from [`game`];
//! - [`build`]: one game's records, written as a reduced record (0x01) or
//!   a general game (0x05 … 0x06);
//! - [`visit`]: walking a game's moves as shakmaty `Move`s, with the
//!   [`opening`] cache of moves already decoded for the first plies;
//! - [`bulk`]: bulk loading for engines and training: per game, tags, start
//!   position and moves (positions on request), in parallel, and the game
//!   index sidecar for random access;
//! - [`verify`](mod@verify): structure and legality checks that report every problem;
//! - [`limits`]: bounds checked before any allocation or recursion.
//!
//! Data flows one way: bytes → items → records → moves.
//!
//! ```
//! use pgc_core::{GameWalker, GameVisitor, visit::Ply};
//!
//! // A general game: 0x05, tag pair, the moves 1. e4 e5 (ordinals 13, 12), 0x06.
//! let pgc: &[u8] = &[0x05, 0x02, 5, b'E', b'v', b'e', b'n', b't', 1, b'?', 0x03, 2, 13, 12, 0x06];
//!
//! struct Count(usize);
//! impl GameVisitor for Count {
//!     fn wants_san(&self) -> bool { false }
//!     fn play(&mut self, _ply: &Ply<'_>) { self.0 += 1; }
//! }
//!
//! let mut walker = GameWalker::new(pgc);
//! let mut count = Count(0);
//! while walker.walk_game(&mut count).unwrap() {}
//! assert_eq!(count.0, 2);
//! ```

#![forbid(unsafe_code)]

pub mod buffer;
pub mod build;
pub mod bulk;
pub mod ext;
pub mod game;
pub mod item;
pub mod limits;
pub mod ordinal;
pub mod record;
pub mod setup;
pub mod split;
pub mod stream;
pub mod verify;
pub mod visit;
pub mod writer;

pub use build::GameBuilder;
pub use bulk::{BulkGame, BulkOptions, BulkReader};
pub use limits::Limits;
pub use ordinal::opening;
pub use ordinal::{OrdinalError, OrdinalTable};
pub use record::{Marker, Record, RecordRef};
/// The record stream under its earlier name.
pub use stream as reader;
pub use stream::{PgcReader, ReadError};
pub use verify::{Problem, Report, verify};
pub use visit::{GameVisitor, GameWalker};
pub use writer::PgcWriter;
