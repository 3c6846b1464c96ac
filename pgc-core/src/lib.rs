//! # pgc-core
//!
//! PGC, the binary "PGN Game Coding" of section 20 of the 1994 PGN standard,
//! with no PGN text and no command line. Data flows one way: bytes → items →
//! records → games → moves.
//!
//! The main entry points are at the crate root:
//!
//! - [`Reader`] / [`Writer`]: records over `Read` / `Write` (a
//!   [`ReadMode::Resync`] reader goes on after a framing error);
//! - [`GameWalker`] with a [`GameVisitor`]: each game's tags, moves (as
//!   shakmaty `Move`s with their ordinals), NAGs, variations and extensions;
//! - [`BulkReader`] and [`par_map`]: bulk loading for engines and training
//!   (tags, start position, moves, positions on request), in parallel, and
//!   the [`GameIndex`] sidecar for random access;
//! - [`verify`](fn@verify) / [`Verifier`]: structure and legality checks
//!   that report every problem, positioned, in a [`Report`];
//! - [`GameBuilder`]: one game's records, written as a reduced record (0x01)
//!   or a general game (0x05 … 0x06);
//! - [`Limits`]: bounds checked before any allocation or recursion;
//! - [`Error`]: every error of the crate in one type (each entry point's
//!   own error converts into it with `?`), with [`Error::position`]: the
//!   byte offset, game and ply it is about.
//!
//! Six modules are public, for the format's vocabulary a user names:
//!
//! - [`item`]: the items of 20.1–20.3 (int-1/2/4, string-1/2/4, mvseq-1/2,
//!   mvset-1), for reading or writing them one by one;
//! - [`record`]: the records of markers 0x00–0x0a (20.4) as [`Marker`],
//!   owned [`Record`] and borrowed [`RecordRef`];
//! - [`ext`]: the extension record's kinds ([`ext::ExtKind`]) and the codec of
//!   each payload (layout, typed commands, clocks, outcomes …);
//! - [`ordinal`]: the move-ordinal codec of 20.2, [`ordinal::encode`] and
//!   [`ordinal::decode`], and the [`OrdinalTable`] of a whole position;
//! - [`filter`]: the filter language that chooses games by their tags
//!   and length ([`filter::Filter`]);
//! - [`game`]: the game grammar, a state machine over records yielding
//!   structure events or positioned errors, for tools that want the
//!   structure without the moves.
//!
//! # Reading records
//!
//! ```
//! use pgc_core::{Marker, Reader};
//!
//! // A general game: 0x05, the moves 1. e4 e5 (mvseq-1 of ordinals 13, 12), 0x06.
//! let pgc: &[u8] = &[0x05, 0x03, 2, 13, 12, 0x06];
//! let mut reader = Reader::new(pgc);
//! let mut markers = Vec::new();
//! while let Some((offset, record)) = reader.next_record()? {
//!     markers.push((offset, record.marker()));
//! }
//! assert_eq!(markers, [(0, Marker::GameBegin), (1, Marker::ShortMoves), (5, Marker::GameEnd)]);
//! # Ok::<(), pgc_core::ReadError>(())
//! ```
//!
//! # Walking games with a visitor
//!
//! ```
//! use pgc_core::{GameVisitor, GameWalker, Ply};
//! use std::ops::ControlFlow;
//!
//! // 0x05, the tag pair Event "?", the moves 1. e4 e5, 0x06; twice.
//! let game = [0x05, 0x02, 5, b'E', b'v', b'e', b'n', b't', 1, b'?', 0x03, 2, 13, 12, 0x06];
//! let pgc = game.repeat(2);
//!
//! /// The first move of each game: `Break` skips the rest of the game.
//! #[derive(Default)]
//! struct FirstMoves(Vec<String>);
//! impl GameVisitor for FirstMoves {
//!     fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
//!         self.0.push(ply.san.to_string());
//!         ControlFlow::Break(())
//!     }
//! }
//!
//! let mut walker = GameWalker::new(&pgc[..]);
//! let mut firsts = FirstMoves::default();
//! while walker.walk_game(&mut firsts)? {}
//! assert_eq!(firsts.0, ["e4", "e4"]);
//! # Ok::<(), pgc_core::WalkError>(())
//! ```
//!
//! # Bulk loading
//!
//! ```
//! use pgc_core::{BulkOptions, BulkReader, par_map};
//!
//! let pgc: Vec<u8> = [0x05, 0x03, 2, 13, 12, 0x06].repeat(10);
//! let mut reader = BulkReader::new(&pgc[..], BulkOptions::default());
//! let mut plies = 0;
//! while let Some(game) = reader.next_game()? {
//!     plies += game.moves().len();
//! }
//! assert_eq!(plies, 20);
//!
//! // The same on two threads, one result per game in input order.
//! let per_game = par_map(&pgc, 2, BulkOptions::default(), |g| g.moves().len())?;
//! assert_eq!(per_game, vec![2; 10]);
//! # Ok::<(), pgc_core::WalkError>(())
//! ```
//!
//! # Verifying
//!
//! ```
//! use pgc_core::{Limits, verify};
//!
//! let good: &[u8] = &[0x05, 0x03, 2, 13, 12, 0x06];
//! let report = verify(good, Limits::default())?;
//! assert!(report.is_ok());
//! assert_eq!((report.games, report.plies), (1, 2));
//!
//! // Ordinal 20 is out of range in the start position (20 legal moves).
//! let bad: &[u8] = &[0x05, 0x03, 1, 20, 0x06];
//! let report = verify(bad, Limits::default())?;
//! assert!(!report.is_ok());
//! assert_eq!(report.games_with_problems, 1);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Move ordinals
//!
//! ```
//! use pgc_core::ordinal::{decode, encode};
//! use shakmaty::{Chess, Position, Square};
//!
//! let start = Chess::default();
//! let e4 = decode(&start, 13)?;
//! assert_eq!((e4.from(), e4.to()), (Some(Square::E2), Square::E4));
//! assert_eq!(encode(&start, e4)?, 13);
//! // `Na3` sorts first among the 20 moves of the start position.
//! assert_eq!(encode(&start, decode(&start, 0)?)?, 0);
//! assert_eq!(start.legal_moves().len(), 20);
//! # Ok::<(), pgc_core::OrdinalError>(())
//! ```
//!
//! # Building a game
//!
//! ```
//! use pgc_core::{GameBuilder, GameForm, Marker, Reader};
//!
//! let mut game = GameBuilder::new();
//! for (name, value) in [("Event", "?"), ("Site", "?"), ("Date", "????.??.??"), ("Round", "?"),
//!                       ("White", "?"), ("Black", "?"), ("Result", "*")] {
//!     game.tag(name.as_bytes(), value.as_bytes())?;
//! }
//! game.push_move(13); // 1. e4
//! game.nag(1)?; // a NAG makes it a general game
//! let mut out = Vec::new();
//! assert_eq!(game.finish(&[], &mut out)?, GameForm::General);
//!
//! let mut reader = Reader::new(&out[..]);
//! let (_, first) = reader.next_record()?.unwrap();
//! assert_eq!(first.marker(), Marker::GameBegin);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! `internals` exposes speed internals (refill buffer, census-based ordinal
//! entry points, opening cache, batch bounds) to this workspace's other
//! crates, benches and tests. It is unstable and not part of the API.

#![forbid(unsafe_code)]

pub mod ext;
pub mod filter;
pub mod game;
pub mod item;
pub mod ordinal;
pub mod record;
pub mod variant;

mod buffer;
mod build;
mod bulk;
mod error;
mod index;
mod limits;
mod setup;
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
mod split;
mod stream;
mod trail;
mod uci;
mod verify;
mod walk;
mod writer;

pub use build::{BuildError, GameBuilder, GameForm};
pub use bulk::{
    BulkGame, BulkOptions, BulkReader, EngineValues, Event as BulkEvent, PositionAt, Positions,
    TagList, par_map,
};
pub use error::{Error, Position};
pub use game::GameInfo;
pub use index::{GameIndex, IndexError};
pub use limits::{Limits, MAX_THREADS, worker_threads};
pub use ordinal::{OrdinalError, OrdinalTable};
pub use record::{Marker, Record, RecordRef};
pub use setup::{SetupError, start_position, variant_null_move, variant_start_position};
pub use stream::{FramedRecord, Mode as ReadMode, RawRecord, ReadError, Reader};
pub use uci::UciText;
pub use variant::{Variant, VariantError, VariantPosition, variant_of_tag};
pub use verify::{DEFAULT_MAX_PROBLEMS, Problem, RenderCheck, Report, Verifier, verify};
pub use walk::{GameVisitor, GameWalker, Ply, Skip, WalkError, WalkErrorKind};
pub use writer::{WriteError, Writer};

pub(crate) use ordinal::opening;

/// Speed internals shared with the other crates of this workspace, its
/// benches and tests: batch bounds, the opening cache and
/// the ordinal entry points beside [`ordinal::encode`] and
/// [`ordinal::decode`].
///
/// Enabled by the `internals` cargo feature. Unstable: not part of the API,
/// any release may change or remove any of it.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::bulk::{castling_mode_of, names_chess960, result_of, split_points};
    pub use crate::index::{FINGERPRINT_SPAN, INDEX_MAGIC, fingerprint};
    pub use crate::ordinal::list::{find_canonical, rank_of, san_body, select};
    pub use crate::ordinal::memo::{CensusMemo, check_suffix_memo, find_canonical_memo};
    pub use crate::ordinal::opening::{
        CAPACITY as OPENING_CAPACITY, MAX_DEPTH as OPENING_MAX_DEPTH, OpeningCache,
    };
    pub use crate::ordinal::san_cache::{NO_NODE as NO_SAN_NODE, SanCache, SanHit};

    use crate::ordinal::{MoveText, OrdinalError};
    use shakmaty::{Move, Position};

    /// The move of `ordinal` in `pos` with its SAN body, from the census
    /// (no move list).
    #[inline]
    pub fn select_in<P: Position>(pos: &P, ordinal: u8) -> Result<(Move, MoveText), OrdinalError> {
        crate::ordinal::select_in(pos, ordinal)
    }

    /// The legal move whose canonical SAN body is `san`, with its ordinal,
    /// from the census (no move list).
    #[inline]
    pub fn find_canonical_in<P: Position>(pos: &P, san: &[u8]) -> Option<(Move, u8)> {
        crate::ordinal::find_canonical_in(pos, san)
    }
    pub use crate::setup::null_move;
    pub use crate::split::Bounds;
    pub use crate::writer::{write_moves, write_tag_pair};
}
