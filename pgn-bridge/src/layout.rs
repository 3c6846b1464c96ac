//! Layout facts: the few choices of text layout that a PGN writer makes, kept
//! so that files in export or Lichess style round-trip byte for byte.
//!
//! The payload codec is [`pgc_core::ext::layout`]; the encoder finds a
//! game's layout in one pass, reading each fact from the text as the export
//! writer, rendering the game token by token, first needs it.

pub use pgc_core::ext::layout::Layout;
