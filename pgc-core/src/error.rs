//! The crate's one error type, [`Error`], and where an error is,
//! [`Position`].

use crate::build::BuildError;
use crate::ext::ExtError;
use crate::index::IndexError;
use crate::ordinal::OrdinalError;
use crate::setup::SetupError;
use crate::stream::ReadError;
use crate::walk::WalkError;
use crate::writer::WriteError;
use std::fmt;

/// Where in the input an error is: the byte offset, the game and the ply,
/// as far as they are known. Game numbers are 0-based here (messages show
/// them 1-based); a ply is the number of plies played in the game's current
/// line before the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Position {
    /// Byte offset in the input.
    pub offset: Option<u64>,
    /// 1-based line, for text input.
    pub line: Option<u64>,
    /// 0-based game number.
    pub game: Option<u64>,
    /// Ply within the game.
    pub ply: Option<u32>,
}

impl Position {
    /// A position of `offset` alone.
    pub const fn at(offset: u64) -> Position {
        Position {
            offset: Some(offset),
            line: None,
            game: None,
            ply: None,
        }
    }
}

impl Position {
    /// A position of a byte inside game `game` at ply `ply`.
    pub const fn in_game(offset: u64, game: u64, ply: u32) -> Position {
        Position {
            offset: Some(offset),
            line: None,
            game: Some(game),
            ply: Some(ply),
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut part = |f: &mut fmt::Formatter<'_>, s: fmt::Arguments<'_>| {
            let r = write!(f, "{sep}{s}");
            sep = ", ";
            r
        };
        if let Some(o) = self.offset {
            part(f, format_args!("byte {o}"))?;
        }
        if let Some(l) = self.line {
            part(f, format_args!("line {l}"))?;
        }
        if let Some(g) = self.game {
            part(f, format_args!("game {}", g + 1))?;
        }
        if let Some(p) = self.ply {
            part(f, format_args!("ply {p}"))?;
        }
        Ok(())
    }
}

/// Any error of pgc-core, for callers that want one type: each entry
/// point returns its own error (a [`ReadError`], a [`WalkError`], …), and
/// each converts into this one with `?`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Records could not be read or framed.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A game could not be walked: framing, grammar, ordinal, FEN.
    #[error(transparent)]
    Walk(#[from] WalkError),
    /// An extension payload that its codec refuses.
    #[error(transparent)]
    Payload(#[from] ExtError),
    /// Writing records failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A game's records could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A game index could not be read or is stale.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A FEN gives no position.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A move or ordinal the codec refuses.
    #[error(transparent)]
    Ordinal(#[from] OrdinalError),
}

impl Error {
    /// Where the error is, when it concerns a place in the input.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Read(e) => Some(e.position()),
            Error::Walk(e) => Some(e.position()),
            Error::Payload(e) => Some(e.position()),
            Error::Write(_)
            | Error::Build(_)
            | Error::Index(_)
            | Error::Setup(_)
            | Error::Ordinal(_) => None,
        }
    }
}

impl ReadError {
    /// Where the error is: its byte offset.
    pub fn position(&self) -> Position {
        Position::at(self.offset())
    }
}

impl WalkError {
    /// Where the error is: byte offset, game and ply.
    pub fn position(&self) -> Position {
        Position::in_game(self.offset, self.game, self.ply)
    }
}

impl ExtError {
    /// Where the record is: byte offset, game and ply.
    pub fn position(&self) -> Position {
        Position::in_game(self.offset, self.game, self.ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameWalker;

    #[test]
    fn every_positioned_error_gives_its_place() {
        // A truncated record at byte 1 (a 0x03 claiming 5 ordinals).
        let bytes = [0x05, 0x03, 5, 13];
        let mut r = crate::Reader::new(&bytes[..]);
        r.next_record().unwrap();
        let e: Error = r.next_record().unwrap_err().into();
        assert_eq!(e.position(), Some(Position::at(1)));
        // An ordinal out of range at the second ply of the first game: the
        // walker reports the ordinal's own byte (4).
        let bytes = [0x05, 0x03, 2, 13, 20, 0x06];
        struct Nothing;
        impl crate::GameVisitor for Nothing {}
        let e: Error = GameWalker::new(&bytes[..])
            .walk_game(&mut Nothing)
            .unwrap_err()
            .into();
        let p = e.position().unwrap();
        assert_eq!((p.offset, p.game, p.ply), (Some(4), Some(0), Some(2)));
        assert_eq!(p.to_string(), "byte 4, game 1, ply 2");
        // An error with no place.
        let e: Error = OrdinalError::TooManyMoves { legal: 300 }.into();
        assert_eq!(e.position(), None);
    }
}
