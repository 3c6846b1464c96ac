//! What a payload codec refuses, and where.

use super::kind::ExtKind;
use std::fmt;

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
    /// What a reader expected of a payload of `kind`, in the words problem
    /// reports use (`a 0x0b text-patch payload with … at payload byte 3`).
    pub fn expectation(&self, kind: ExtKind) -> String {
        format!(
            "a {kind} payload with {} at payload byte {}",
            self.expected, self.at
        )
    }

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
