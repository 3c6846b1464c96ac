//! The errors of the ordinal codec.

use super::key::MoveText;

/// Errors of the ordinal codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OrdinalError {
    /// The move is not legal in the position.
    #[error("move {uci} is not legal in this position")]
    IllegalMove {
        /// The move in UCI-like long algebraic notation.
        uci: MoveText,
    },
    /// The ordinal is not below the number of legal moves.
    #[error("ordinal {ordinal} is out of range: the position has {legal} legal moves (expected 0..={max})", max = legal.saturating_sub(1))]
    OutOfRange {
        /// The ordinal found (above 255 only in a wide-move record).
        ordinal: u16,
        /// The number of legal moves in the position.
        legal: usize,
    },
    /// The position has more legal moves than one byte can index.
    #[error("the position has {legal} legal moves; a move ordinal can index at most 256")]
    TooManyMoves {
        /// The number of legal moves in the position.
        legal: usize,
    },
}
