//! Extension records (marker 0x80), as documented in `spec/extensions.md`:
//! the kinds ([`ExtKind`]), and one codec per payload that has a shape.
//!
//! An extension record is `0x80, kind: int-1, length: LEB128, payload`. A
//! reader that does not know a kind skips `length` bytes. A file with no
//! extension record is a pure 1994 PGC file.
//!
//! [`check`] validates the payload of every known kind; each codec reports a
//! [`PayloadError`] positioned within the payload, to which a reader adds
//! the record's place ([`ExtError`]):
//!
//! - [`commands`]: the typed embedded commands of a game (kind 0x10): clock
//!   and evaluation values, templates, the column record, and the anchor
//!   counting that places each typed comment;
//! - [`layout`]: the layout facts of a game (kind 0x07);
//! - [`patch`]: the text patch of a game (kind 0x0b), edits from the
//!   decoder's rendering to the text as read;
//! - [`simple`]: termination, long tag, long NAG and move spelling;
//! - [`verbatim`]: text kept as read between games (kind 0x0a).
//!
//! ```
//! use pgc_core::ext::{ExtKind, check};
//!
//! assert!(check(ExtKind::LONG_NAG, &[0xac, 0x02]).is_ok()); // $300
//! let e = check(ExtKind::TERMINATION, &[9]).unwrap_err();
//! assert_eq!(e.at, 0);
//! assert_eq!(e.to_string(), "payload byte 0: expected an outcome code 0..=4, found 0x09");
//! ```

mod check;
pub mod commands;
mod cursor;
pub mod engine;
mod error;
mod kind;
pub mod layout;
pub mod patch;
mod placement;
pub mod simple;
pub mod verbatim;

pub use check::{PayloadChecker, check};
pub use error::{ExtError, Found, PayloadError};
pub use kind::*;
