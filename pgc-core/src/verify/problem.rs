//! One problem the verifier found, positioned.

use crate::record::Marker;
use std::fmt;

/// One problem found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Byte offset: of the record's marker, or of the ordinal byte for a bad
    /// move ordinal.
    pub offset: u64,
    /// 0-based index of the game it is in (displayed 1-based), if any.
    pub game: Option<u64>,
    /// Ply within the game (1-based for moves), once the movetext began.
    pub ply: Option<u32>,
    /// The record's marker, when the problem is about one record.
    pub marker: Option<Marker>,
    /// What the standard (or this project's extension format) expects.
    pub expected: String,
    /// What the input holds instead.
    pub found: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}", self.offset)?;
        if let Some(g) = self.game {
            write!(f, ", game {}", g.saturating_add(1))?;
        }
        if let Some(p) = self.ply {
            write!(f, ", ply {p}")?;
        }
        if let Some(m) = self.marker {
            write!(f, ", {m}")?;
        }
        write!(f, ": expected {}, found {}", self.expected, self.found)
    }
}
