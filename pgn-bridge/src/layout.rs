//! Layout facts: the few choices of text layout that a PGN writer makes, kept
//! so that files in export or Lichess style round-trip byte for byte.
//!
//! The payload codec is [`pgc_core::ext::layout`]; the encoder decides a
//! game's layout by rendering it under candidate layouts with the export
//! writer.

pub use pgc_core::ext::layout::Layout;
