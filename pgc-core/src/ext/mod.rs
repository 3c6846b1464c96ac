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
//! - [`simple`]: termination, long tag, long NAG and move spelling.
//!
//! ```
//! use pgc_core::ext::{ExtKind, check};
//!
//! assert!(check(ExtKind::LONG_NAG, &[0xac, 0x02]).is_ok()); // $300
//! let e = check(ExtKind::TERMINATION, &[9]).unwrap_err();
//! assert_eq!(e.at, 0);
//! assert_eq!(e.to_string(), "payload byte 0: expected an outcome code 0..=4, found 0x09");
//! ```

use std::fmt;

pub mod commands;
pub mod layout;
pub mod simple;

/// A brace comment `{…}`: payload = the bytes between the braces, exactly.
pub const COMMENT: u8 = 0x01;
/// A rest-of-line comment `;…`: payload = the bytes after `;` up to the line end.
pub const LINE_COMMENT: u8 = 0x02;
/// The game termination marker, when it differs from the Result tag or there
/// is no Result tag: payload = one byte (see [`Outcome`]).
pub const TERMINATION: u8 = 0x03;
/// A null move (`--`, `Z0`): payload = empty for `--`, else the spelling.
pub const NULL_MOVE: u8 = 0x04;
/// A tag whose name or value exceeds 255 bytes: payload = LEB128 name length,
/// name, value.
pub const LONG_TAG: u8 = 0x05;
/// A NAG above 255: payload = LEB128 value.
pub const LONG_NAG: u8 = 0x06;
/// Layout facts for a byte-identical PGN round trip (`spec/extensions.md`).
pub const LAYOUT: u8 = 0x07;
/// A move written in a non-canonical spelling (`0-0`, `Nge2`, `e8Q`):
/// payload = the token as written. It applies to the next move.
pub const MOVE_SPELLING: u8 = 0x08;
/// Text the PGN reader could not parse (`<br />`, a malformed tag), kept
/// verbatim at its place: payload = the bytes.
pub const JUNK: u8 = 0x09;
/// The game's comments made only of typed embedded commands (`[%clk]`,
/// `[%eval]`, `[%cal]`, `[%csl]`, …): one record per game, right after 0x05
/// and any LAYOUT record, with clock and evaluation columns
/// (`spec/extensions-commands.md`).
pub const CLOCKS: u8 = 0x10;
/// Reserved (not written by format version 1).
pub const EVALS: u8 = 0x11;
/// Reserved (not written by format version 1).
pub const COMMAND_COMMENT: u8 = 0x12;

/// A game termination marker (section 8.2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// No termination marker at all.
    Missing = 0,
    /// `1-0`.
    WhiteWins = 1,
    /// `0-1`.
    BlackWins = 2,
    /// `1/2-1/2`.
    Draw = 3,
    /// `*`.
    Unknown = 4,
}

impl Outcome {
    /// The marker's text (`""` for [`Outcome::Missing`]).
    pub const fn as_bytes(self) -> &'static [u8] {
        match self {
            Outcome::Missing => b"",
            Outcome::WhiteWins => b"1-0",
            Outcome::BlackWins => b"0-1",
            Outcome::Draw => b"1/2-1/2",
            Outcome::Unknown => b"*",
        }
    }

    /// Parses a marker's text.
    pub fn from_bytes(b: &[u8]) -> Option<Outcome> {
        Some(match b {
            b"1-0" => Outcome::WhiteWins,
            b"0-1" => Outcome::BlackWins,
            b"1/2-1/2" => Outcome::Draw,
            b"*" => Outcome::Unknown,
            _ => return None,
        })
    }

    /// From the payload byte of a [`TERMINATION`] record.
    pub const fn from_code(c: u8) -> Option<Outcome> {
        Some(match c {
            0 => Outcome::Missing,
            1 => Outcome::WhiteWins,
            2 => Outcome::BlackWins,
            3 => Outcome::Draw,
            4 => Outcome::Unknown,
            _ => return None,
        })
    }
}

/// A human name for an extension kind (`"unknown"` for a kind this version
/// does not know).
pub const fn kind_name(kind: u8) -> &'static str {
    ExtKind(kind).name()
}

/// The kind byte of an extension record. Every byte is a kind: those this
/// version knows have a constant and a [name](ExtKind::name); any other is
/// skipped by readers ([`ExtKind::is_known`] is false).
///
/// A newtype rather than an enum, so that reading a kind is free and an
/// unknown kind keeps its byte: `match` on the constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExtKind(pub u8);

impl ExtKind {
    /// [`COMMENT`].
    pub const COMMENT: ExtKind = ExtKind(COMMENT);
    /// [`LINE_COMMENT`].
    pub const LINE_COMMENT: ExtKind = ExtKind(LINE_COMMENT);
    /// [`TERMINATION`].
    pub const TERMINATION: ExtKind = ExtKind(TERMINATION);
    /// [`NULL_MOVE`].
    pub const NULL_MOVE: ExtKind = ExtKind(NULL_MOVE);
    /// [`LONG_TAG`].
    pub const LONG_TAG: ExtKind = ExtKind(LONG_TAG);
    /// [`LONG_NAG`].
    pub const LONG_NAG: ExtKind = ExtKind(LONG_NAG);
    /// [`LAYOUT`].
    pub const LAYOUT: ExtKind = ExtKind(LAYOUT);
    /// [`MOVE_SPELLING`].
    pub const MOVE_SPELLING: ExtKind = ExtKind(MOVE_SPELLING);
    /// [`JUNK`].
    pub const JUNK: ExtKind = ExtKind(JUNK);
    /// [`CLOCKS`]: the typed commands record.
    pub const COMMANDS: ExtKind = ExtKind(CLOCKS);
    /// [`EVALS`].
    pub const EVALS: ExtKind = ExtKind(EVALS);
    /// [`COMMAND_COMMENT`].
    pub const COMMAND_COMMENT: ExtKind = ExtKind(COMMAND_COMMENT);

    /// The kind of a kind byte.
    pub const fn from_byte(b: u8) -> ExtKind {
        ExtKind(b)
    }

    /// The kind byte.
    pub const fn as_byte(self) -> u8 {
        self.0
    }

    /// Whether this version knows the kind.
    pub const fn is_known(self) -> bool {
        matches!(self.0, COMMENT..=JUNK | CLOCKS..=COMMAND_COMMENT)
    }

    /// Its name in `spec/extensions.md` (`"unknown"` for an unknown kind).
    pub const fn name(self) -> &'static str {
        match self.0 {
            COMMENT => "comment",
            LINE_COMMENT => "line-comment",
            TERMINATION => "termination",
            NULL_MOVE => "null-move",
            LONG_TAG => "long-tag",
            LONG_NAG => "long-nag",
            LAYOUT => "layout",
            MOVE_SPELLING => "move-spelling",
            JUNK => "junk",
            CLOCKS => "commands",
            EVALS => "evals",
            COMMAND_COMMENT => "command-comment",
            _ => "unknown",
        }
    }

    /// Whether an item of this kind is an anchor of typed comments (see
    /// [`commands::Anchors`]): a null move, a long NAG, a text comment.
    pub const fn is_anchor(self) -> bool {
        matches!(self.0, COMMENT | NULL_MOVE | LONG_NAG)
    }
}

impl fmt::Display for ExtKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:02x} {}", self.0, self.name())
    }
}

/// What a payload held where its codec expected something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The payload ended.
    End,
    /// This byte.
    Byte(u8),
    /// This decoded number (a count, a value, a length).
    Value(u64),
    /// This many bytes after the end of the payload's content.
    Trailing(usize),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::End => f.write_str("the end of the payload"),
            Found::Byte(b) => write!(f, "0x{b:02x}"),
            Found::Value(v) => write!(f, "{v}"),
            Found::Trailing(n) => write!(f, "{n} more byte(s)"),
        }
    }
}

/// A payload that its kind's codec refuses, positioned within the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("payload byte {at}: expected {expected}, found {found}")]
pub struct PayloadError {
    /// Byte index in the payload where the problem was found.
    pub at: usize,
    /// What the codec expected there.
    pub expected: &'static str,
    /// What it found.
    pub found: Found,
}

impl PayloadError {
    /// The error placed at its record: `offset` is the byte offset of the
    /// record (its 0x80 marker) in the input.
    pub const fn at_record(self, kind: ExtKind, offset: u64, game: u64, ply: u32) -> ExtError {
        ExtError {
            offset,
            game,
            ply,
            kind,
            error: self,
        }
    }
}

/// A refused payload with its record's place in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}, game {}, ply {ply}, extension {kind}: {error}", game + 1)]
pub struct ExtError {
    /// Byte offset of the record (its 0x80 marker).
    pub offset: u64,
    /// 0-based game number.
    pub game: u64,
    /// Plies read in the game before the record.
    pub ply: u32,
    /// The record's kind.
    pub kind: ExtKind,
    /// What the codec found wrong, positioned within the payload.
    pub error: PayloadError,
}

/// Validates the payload of an extension record of kind `kind`.
///
/// Kinds with free-form payloads (comment, line comment, null move, junk),
/// the reserved kinds 0x11 and 0x12 and unknown kinds accept any bytes; the
/// others are read whole by their codec, which refuses what it could not
/// decode (see `spec/extensions.md`). For the commands record this builds a
/// reader; a caller that checks many records reuses a [`PayloadChecker`].
///
/// # Errors
/// A [`PayloadError`] positioned within the payload.
pub fn check(kind: ExtKind, payload: &[u8]) -> Result<(), PayloadError> {
    PayloadChecker::default().check(kind, payload)
}

/// [`check`] with buffers kept from record to record, so that checking a
/// file's commands records allocates nothing once warm.
#[derive(Debug, Clone, Default)]
pub struct PayloadChecker {
    commands: commands::GameCommandsReader,
}

impl PayloadChecker {
    /// A checker.
    pub fn new() -> PayloadChecker {
        PayloadChecker::default()
    }

    /// See [`check`].
    ///
    /// # Errors
    /// A [`PayloadError`] positioned within the payload.
    pub fn check(&mut self, kind: ExtKind, payload: &[u8]) -> Result<(), PayloadError> {
        match kind {
            ExtKind::TERMINATION => simple::termination(payload).map(|_| ()),
            ExtKind::LONG_TAG => simple::long_tag(payload).map(|_| ()),
            ExtKind::LONG_NAG => simple::long_nag(payload).map(|_| ()),
            ExtKind::MOVE_SPELLING => simple::move_spelling(payload),
            ExtKind::LAYOUT => layout::Layout::from_payload(payload).map(|_| ()),
            ExtKind::COMMANDS => self.commands.load(payload),
            _ => Ok(()),
        }
    }
}
