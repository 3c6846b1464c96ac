//! The crate's one error type, [`Error`].

use crate::pgn_error::PgnError;
use pgc_core::ext::ExtError;
use pgc_core::{Position, WalkError};
use std::io;

/// Errors of pgn-bridge: reading PGN, reading or walking PGC, a refused
/// extension payload, writing. (A single game that cannot be converted is
/// a reject, not an error.)
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading PGN failed.
    #[error(transparent)]
    Pgn(#[from] PgnError),
    /// Reading PGC failed or the PGC is not valid.
    #[error(transparent)]
    Walk(#[from] WalkError),
    /// An extension payload that its codec refused (a corrupt comment,
    /// clock, layout, …), positioned.
    #[error(transparent)]
    Payload(#[from] ExtError),
    /// Writing failed.
    #[error("write failed: {0}")]
    Io(#[from] io::Error),
}

impl Error {
    /// Where the error is in the input (byte offset, line for PGN, game,
    /// ply), when it concerns a place in it.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Pgn(e) => Some(e.position()),
            Error::Walk(e) => Some(e.position()),
            Error::Payload(e) => Some(e.position()),
            Error::Io(_) => None,
        }
    }
}

impl PgnError {
    /// Where the error is: the game's first byte and line, and its number.
    pub fn position(&self) -> Position {
        let (game, offset, line) = match *self {
            PgnError::Io {
                game,
                game_offset,
                line,
                ..
            } => (game, game_offset, line),
            PgnError::GameTooLarge {
                game, offset, line, ..
            } => (game, offset, line),
        };
        Position {
            offset: Some(offset),
            line: Some(line),
            game: Some(game),
            ply: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_give_their_place() {
        // A game over the size limit: its first byte, line and number.
        let pgn = b"1. e4 e5 *\n\n[Event \"x\"]\n\n1. d4 d5 2. c4 c6 3. Nc3 Nf6 *\n";
        let mut reader = crate::PgnReader::new(&pgn[..]).with_max_game_bytes(16);
        let mut encoder = crate::Encoder::new(crate::EncodeOptions::default());
        let e = loop {
            match reader.read_game(&mut encoder) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the second game is over the limit"),
                Err(e) => break Error::from(e),
            }
        };
        let p = e.position().expect("a PGN error has a place");
        assert_eq!(
            (p.offset, p.line, p.game),
            (Some(12), Some(3), Some(1)),
            "{e}"
        );
        // An I/O error of the output has none.
        let e = Error::from(io::Error::other("disk full"));
        assert_eq!(e.position(), None);
    }
}
