//! The extension kinds (`spec/extensions.md`) and the termination outcome.

use std::fmt;

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
/// Text kept exactly as it was read, standing between games: a game that
/// could not be converted (an illegal move, a variant), or bytes that are
/// no game. payload = the bytes; the decoder writes them as they are.
pub const VERBATIM: u8 = 0x0a;
/// Edits that turn the decoder's rendering of a game into the game's text
/// as it was read (`spec/extensions.md`, codec [`super::patch`]): at most
/// one record per game, among the records that lead it (after 0x05 and any
/// layout, commands and engine-notes records; the game grammar's rule), for
/// text that the layout facts alone do not give back.
pub const TEXT_PATCH: u8 = 0x0b;
/// The game's comments made only of typed embedded commands (`[%clk]`,
/// `[%eval]`, `[%cal]`, `[%csl]`, …): one record per game, right after 0x05
/// and any LAYOUT record, with clock and evaluation columns
/// (`spec/extensions-commands.md`).
pub const CLOCKS: u8 = 0x10;
/// Reserved (not written by format version 1).
pub const EVALS: u8 = 0x11;
/// Reserved (not written by format version 1).
pub const COMMAND_COMMENT: u8 = 0x12;
/// A move whose ordinal is 256 or more, in a position of a variant with
/// more than 256 legal moves (Crazyhouse with full pockets): payload = the
/// ordinal as two bytes, big-endian (codec [`super::simple::wide_move`]). It
/// is a ply, at the move's place (`spec/extensions.md`).
pub const WIDE_MOVE: u8 = 0x13;
/// The game's engine notes (`{d=40, mt=142203, …, pv=c4 c6 …}`,
/// `{+0.52/23 2.1s}`): one record per game, right after 0x05 and any
/// LAYOUT and CLOCKS records, holding templates, numbers and move lists as
/// ordinals (`spec/extensions-engine.md`, codec [`super::engine`]).
pub const ENGINE_NOTES: u8 = 0x14;

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
    /// [`VERBATIM`].
    pub const VERBATIM: ExtKind = ExtKind(VERBATIM);
    /// [`TEXT_PATCH`].
    pub const TEXT_PATCH: ExtKind = ExtKind(TEXT_PATCH);
    /// [`CLOCKS`]: the typed commands record.
    pub const COMMANDS: ExtKind = ExtKind(CLOCKS);
    /// [`EVALS`].
    pub const EVALS: ExtKind = ExtKind(EVALS);
    /// [`COMMAND_COMMENT`].
    pub const COMMAND_COMMENT: ExtKind = ExtKind(COMMAND_COMMENT);
    /// [`WIDE_MOVE`].
    pub const WIDE_MOVE: ExtKind = ExtKind(WIDE_MOVE);
    /// [`ENGINE_NOTES`].
    pub const ENGINE_NOTES: ExtKind = ExtKind(ENGINE_NOTES);

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
        matches!(self.0, COMMENT..=TEXT_PATCH | CLOCKS..=ENGINE_NOTES)
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
            VERBATIM => "verbatim",
            TEXT_PATCH => "text-patch",
            CLOCKS => "commands",
            EVALS => "evals",
            COMMAND_COMMENT => "command-comment",
            WIDE_MOVE => "wide-move",
            ENGINE_NOTES => "engine-notes",
            _ => "unknown",
        }
    }

    /// Whether an item of this kind is an anchor of typed comments (see
    /// [`Anchors`](super::commands::Anchors)): a null move, a wide move, a
    /// long NAG, a text comment.
    pub const fn is_anchor(self) -> bool {
        matches!(self.0, COMMENT | NULL_MOVE | LONG_NAG | WIDE_MOVE)
    }
}

impl fmt::Display for ExtKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:02x} {}", self.0, self.name())
    }
}
