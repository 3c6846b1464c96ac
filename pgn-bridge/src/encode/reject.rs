//! Why a game was not converted.

use pgc_core::BuildError;
use pgc_core::SetupError;
use pgc_core::ordinal::OrdinalError;

/// Why a game was not converted (the game is kept verbatim in the rejects).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RejectReason {
    /// The Variant tag names a game other than chess or Chess960.
    #[error("unsupported variant {variant:?}")]
    UnsupportedVariant {
        /// The tag's value (lossily decoded).
        variant: String,
    },
    /// The FEN tag gives no playable position.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A SAN token that names no legal move, or more than one.
    #[error("illegal or ambiguous move {token:?} (expected a legal SAN move)")]
    IllegalMove {
        /// The token as written (lossily decoded).
        token: String,
    },
    /// A token in a move's place that is not a move at all.
    #[error("not a move {token:?} (expected a legal SAN move)")]
    NotAMove {
        /// The token as written (lossily decoded).
        token: String,
    },
    /// The move has no ordinal (a position with more than 256 legal moves).
    #[error(transparent)]
    Ordinal(#[from] OrdinalError),
    /// A null move by the side in check.
    #[error("null move {token:?} while in check")]
    NullMoveInCheck {
        /// The token as written (lossily decoded).
        token: String,
    },
    /// Variations nested deeper than the limit.
    #[error("variations nested deeper than the limit of {limit} (raise it with --max-rav-depth)")]
    VariationsTooDeep {
        /// The limit.
        limit: u32,
    },
    /// A `(` before the line has a move to vary.
    #[error("a variation before any move (expected a move first)")]
    VariationBeforeMove,
    /// Only text that is not PGN, no tag and no move.
    #[error("no PGN game here, only text that is not PGN")]
    NotPgn,
    /// A record of the game cannot be written (an escape line over 65,535
    /// bytes, which no string-2 holds).
    #[error("the game cannot be written as PGC: {0}")]
    Unwritable(#[from] BuildError),
}
