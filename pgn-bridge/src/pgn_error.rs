//! Errors of the PGN reader ([`crate::reader::PgnReader`]).
//!
//! Lexing itself never fails: bytes the lexer does not understand are
//! reported to [`crate::visitor::Visitor::junk`]. What can fail is reading the
//! input and the limit on the size of one game.

use std::io;

/// An error while reading PGN games.
///
/// Every variant says which game it concerns (`game` is the 0-based game
/// number, as in [`crate::visitor::GameStart::index`]; the message shows it
/// 1-based) and where it is in the input. After an error the reader must not
/// be used any further.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PgnError {
    /// The underlying reader failed.
    #[error(
        "I/O error while reading PGN game #{} (game starts at byte {game_offset}, line {line}; {offset} bytes read so far): {source}",
        game + 1
    )]
    Io {
        /// 0-based number of the game being read.
        game: u64,
        /// Byte offset of that game's first byte.
        game_offset: u64,
        /// 1-based line of that game's first byte.
        line: u64,
        /// Number of input bytes read successfully before the failure.
        offset: u64,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// One game is larger than the configured limit.
    #[error(
        "PGN game #{} starting at byte {offset} (line {line}) is larger than the limit of {limit} bytes (max_game_bytes); \
         check the input near that line for an unterminated `{{` comment or tag string, \
         or raise the limit (`EncodeOptions::max_game_bytes`, `PgnReader::with_max_game_bytes`)",
        game + 1
    )]
    GameTooLarge {
        /// 0-based number of the game.
        game: u64,
        /// Byte offset of the game's first byte.
        offset: u64,
        /// 1-based line of the game's first byte.
        line: u64,
        /// The limit that was exceeded, in bytes.
        limit: usize,
    },
}

impl PgnError {
    /// 0-based number of the game the error concerns.
    pub fn game(&self) -> u64 {
        match self {
            PgnError::Io { game, .. } | PgnError::GameTooLarge { game, .. } => *game,
        }
    }
}
