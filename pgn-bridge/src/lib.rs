//! # pgn-bridge
//!
//! PGN text on one side, PGC records on the other:
//!
//! - [`reader::PgnReader`] and [`lexer`]: a streaming PGN import-format reader
//!   with a push [`visitor::Visitor`];
//! - [`encode::Encoder`]: PGN → PGC while reading, no game tree;
//! - [`decode::Decoder`] and [`export::ExportWriter`]: PGC → PGN export format;
//! - [`layout::Layout`]: the few layout facts kept for byte-identical round trips;
//! - [`convert`]: one-call helpers over the streaming parts.
//!
//! ```
//! let pgn = b"[Event \"Casual\"]\n\n1. e4 e5 2. Nf3 {A comment} Nc6 1-0\n\n";
//! let mut pgc = Vec::new();
//! let stats = pgn_bridge::pgn_to_pgc(&pgn[..], &mut pgc, None, &Default::default()).unwrap();
//! assert_eq!((stats.games, stats.rejected), (1, 0));
//! let mut back = Vec::new();
//! pgn_bridge::pgc_to_pgn(&pgc[..], &mut back, &Default::default()).unwrap();
//! assert_eq!(back, pgn);
//! ```

#![forbid(unsafe_code)]

pub mod commands;
pub mod convert;
pub mod decode;
pub mod encode;
pub mod export;
pub mod jsonl;
pub mod layout;
pub mod lexer;
pub mod pgn_error;
pub mod reader;
pub mod visitor;

pub use convert::{ConvertError, DecodeStats, EncodeStats, pgc_to_pgn, pgn_to_pgc};
