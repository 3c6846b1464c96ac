//! # pgn-bridge
//!
//! PGN text on one side, PGC records on the other, streaming both ways with
//! no game tree:
//!
//! - [`PgnReader`] with a push [`Visitor`]: a PGN import-format reader;
//!   callbacks return `ControlFlow`, [`Visitor::begin_variation`] may
//!   return [`Skip`];
//! - [`Encoder`]: PGN → PGC while reading, each game written or rejected
//!   with a [`RejectReason`];
//! - [`Decoder`] with [`ExportWriter`] (PGN export format) or
//!   [`JsonlWriter`] (one JSON object per game): PGC → text;
//! - [`pgn_to_pgc`] / [`pgc_to_pgn`]: one-call conversions over the
//!   streaming parts, with [`EncodeStats`] / [`DecodeStats`];
//! - [`Layout`]: the few layout facts kept for byte-identical round trips.
//!
//! One module is public: [`commands`], the PGN comment commands
//! (`[%clk 0:05:00]`, `[%eval 0.3]` …) as text, whose PGC payload codec is
//! `pgc_core::ext::commands`.
//!
//! # PGN → PGC → PGN
//!
//! ```
//! use pgn_bridge::{pgc_to_pgn, pgn_to_pgc};
//!
//! let pgn = b"[Event \"Casual\"]\n\n1. e4 e5 2. Nf3 {A comment} Nc6 1-0\n\n";
//! let mut pgc = Vec::new();
//! let stats = pgn_to_pgc(&pgn[..], &mut pgc, None, &Default::default())?;
//! assert_eq!((stats.games, stats.rejected), (1, 0));
//! let mut back = Vec::new();
//! pgc_to_pgn(&pgc[..], &mut back, &Default::default())?;
//! assert_eq!(back, pgn);
//! # Ok::<(), pgn_bridge::Error>(())
//! ```
//!
//! # Reading PGN with a visitor
//!
//! ```
//! use pgn_bridge::{GameStart, PgnReader, Skip, Visitor};
//! use std::ops::ControlFlow;
//!
//! /// Counts the main-line moves of each game, skipping variations.
//! #[derive(Default)]
//! struct MainLine {
//!     moves: usize,
//!     games: Vec<usize>,
//! }
//! impl Visitor for MainLine {
//!     type Output = ();
//!     fn begin_game(&mut self, _start: GameStart) -> ControlFlow<()> {
//!         self.moves = 0;
//!         ControlFlow::Continue(())
//!     }
//!     fn san(&mut self, _san: &[u8]) -> ControlFlow<()> {
//!         self.moves += 1;
//!         ControlFlow::Continue(())
//!     }
//!     fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
//!         ControlFlow::Continue(Skip(true))
//!     }
//!     fn end_game(&mut self, _raw: &[u8]) {
//!         self.games.push(self.moves);
//!     }
//! }
//!
//! let pgn = b"1. e4 (1. d4 d5) e5 2. Nf3 *\n\n1. c4 *\n";
//! let mut reader = PgnReader::new(&pgn[..]);
//! let mut v = MainLine::default();
//! while reader.read_game(&mut v)?.is_some() {}
//! assert_eq!(v.games, [3, 1]);
//! # Ok::<(), pgn_bridge::PgnError>(())
//! ```

#![forbid(unsafe_code)]

pub mod commands;

mod convert;
mod decode;
mod encode;
mod error;
mod export;
mod jsonl;
mod layout;
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
mod lexer;
pub mod notes;
mod pgn_error;
mod reader;
pub mod sniff;
mod verify;
mod visitor;

pub use convert::{DecodeStats, EncodeStats, PgnToPgc, pgc_to_pgn, pgn_to_pgc, write_reject};
pub use decode::{CommentStats, DecodeOptions, Decoder};
pub use encode::{EncodeOptions, Encoder, GameOutput, Losses, Reject, RejectReason, TokenPlace};
pub use error::Error;
pub use export::ExportWriter;
pub use jsonl::JsonlWriter;
pub use layout::Layout;
pub use lexer::first_tag_pair;
pub use pgn_error::PgnError;
pub use reader::{DEFAULT_MAX_GAME_BYTES, PgnReader};
pub use verify::{Renderer, verify};
pub use visitor::{GameStart, Skip, Visitor};

/// The PGN lexer's game scanner, shared with this workspace's tests.
///
/// Enabled by the `internals` cargo feature. Unstable: not part of the API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::lexer::{GameEnd, LexContext, NeedMore, lex_game, lex_games, scan_game};
}
