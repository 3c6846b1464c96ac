//! The typed-commands payload (kind 0x10, `spec/extensions-commands.md`):
//! the values of embedded commands (clocks, evaluations, arrows, square
//! marks) with the formats they were written in, a game's typed comments
//! ([`TypedComment`]), the per-game column record ([`GameCommands`] to write
//! it, [`GameCommandsReader`] to read and check it) and the anchor counting
//! that places each typed comment in the game ([`Anchors`]).
//!
//! The comment syntax (`[%clk 0:03:00]` inside `{…}`) is PGN text and lives
//! in pgn-bridge (`commands::syntax`); this module holds values, and the
//! spelling of each value (`Clock::parse`, `Eval::render`, …) that its
//! format byte describes.
//!
//! ```
//! use pgc_core::ext::commands::*;
//!
//! // `[%eval 0.17] [%clk 0:03:00]` after anchor 0.
//! let mut c = TypedComment::new();
//! c.push_eval(Separator::Space, Eval::Centipawns(17), EvalFormat::LICHESS);
//! c.push_space(b" ");
//! c.push_time(Separator::Space, TimeKind::Clk, Clock { millis: 180_000 }, ClockFormat::HMS);
//! let mut game = GameCommands::new();
//! assert!(game.push(0, &c));
//! let mut payload = Vec::new();
//! game.to_payload(&mut payload);
//!
//! let mut reader = GameCommandsReader::from_payload(&payload).unwrap();
//! let mut back = TypedComment::new();
//! assert!(reader.typed_at(0, &mut back));
//! assert_eq!(back, c);
//! assert_eq!((back.clk(), back.eval()), (Some(Clock { millis: 180_000 }), Some(Eval::Centipawns(17))));
//!
//! // A corrupt payload is refused at its byte.
//! payload[1] = 0x7f; // the template's piece count
//! let e = GameCommandsReader::from_payload(&payload).unwrap_err();
//! assert_eq!(e.at, 1);
//! ```

mod anchors;
mod columns;
mod comment;
mod record;
mod values;

pub use anchors::Anchors;
pub use columns::{ClockColumn, EvalColumn, MAX_TEMPLATES};
pub use comment::*;
pub use record::{GameCommands, GameCommandsReader};
pub use values::*;

pub mod syntax;

#[cfg(test)]
mod tests;
