//! Engine notes (kind 0x14, `spec/extensions-engine.md`): the comments
//! that chess engines and their match runners write after every move
//! (TCEC's `{d=40, mt=142203, …, pv=c4 c6 …}`, cutechess-cli's
//! `{+0.52/23 2.1s}`), kept as templates of literal text with typed
//! slots: numbers as integers with the format they were written in, and
//! move lists as ordinals replayed from a position of the line.
//!
//! A note is a sequence of [`NotePart`]s: literal bytes, numbers and move
//! lists. [`GameNotes`] collects a game's notes into one record (templates
//! shared by the notes that have the same literals and formats, values in
//! streams); [`GameNotesReader`] reads and checks it and hands the notes
//! out anchor by anchor, as the commands record does
//! ([`super::commands::Anchors`]). [`render_note`] writes a note as text,
//! replaying its move lists from the [`LinePositions`] of the move it
//! follows.
//!
//! ```
//! use pgc_core::ext::engine::*;
//! use pgc_core::VariantPosition;
//!
//! let start = VariantPosition::default();
//! let line = LinePositions { before: Some(&start), ..LinePositions::default() };
//! let mut note = EngineNote::new();
//! note.push_literal(b"d=");
//! note.push_number(23, NumberFormat::INTEGER);
//! note.push_literal(b", pv=");
//! assert!(note.push_moves_text(b"e4 e5 Nf3", &line));
//! let mut text = Vec::new();
//! render_note(&note, &line, &mut text).unwrap();
//! assert_eq!(text, b"d=23, pv=e4 e5 Nf3");
//!
//! let mut game = GameNotes::new();
//! assert!(game.push(0, &note));
//! let mut payload = Vec::new();
//! game.to_payload(&mut payload);
//! let mut reader = GameNotesReader::from_payload(&payload).unwrap();
//! let mut back = EngineNote::new();
//! assert!(reader.note_at(0, &mut back));
//! assert_eq!(back, note);
//! ```

pub use crate::trail::{LinePositions, LineTrail};

mod limits;
mod moves;
mod note;
mod number;
mod predictor;
mod reader;
mod stream;
mod writer;

pub use limits::*;
pub use moves::*;
pub use note::*;
pub use number::*;
pub use reader::GameNotesReader;
pub use writer::GameNotes;

mod list_memo;
#[cfg(test)]
mod tests;
