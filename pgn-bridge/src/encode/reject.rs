//! Why a game was not converted.

use pgc_core::BuildError;
use pgc_core::SetupError;
use pgc_core::ordinal::OrdinalError;

/// The most bytes of a token a reason quotes.
const QUOTED: usize = 64;

/// A token as a reason quotes it: lossily decoded, and a long one cut at
/// [`QUOTED`] bytes with its length said (a 50 MB token makes a one-line
/// message, not a 50 MB one).
pub(crate) fn quoted(token: &[u8]) -> String {
    if token.len() <= QUOTED {
        return String::from_utf8_lossy(token).into_owned();
    }
    format!(
        "{}… ({} bytes)",
        String::from_utf8_lossy(&token[..QUOTED]),
        token.len()
    )
}

/// Why a game was not converted (the game is kept verbatim in the rejects).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RejectReason {
    /// The Variant tag names no game pgc plays (`pgc_core::variant`).
    #[error(transparent)]
    UnsupportedVariant(pgc_core::VariantError),
    /// The FEN tag gives no playable position.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A SAN token that names no legal move, or more than one.
    #[error("illegal or ambiguous move {token:?} (expected a legal SAN move)")]
    IllegalMove {
        /// The token as written (lossily decoded; a long one cut, see `quoted`).
        token: String,
    },
    /// A token in a move's place that is not a move at all.
    #[error("not a move {token:?} (expected a legal SAN move)")]
    NotAMove {
        /// The token as written (lossily decoded; a long one cut, see `quoted`).
        token: String,
    },
    /// A move that cannot be played after a move number lower than the move
    /// it stood before on the main line (`1.` at move 31): most likely the
    /// next game, with no result marker between the two.
    #[error(
        "{reason}; the move number {number} at move {at} may begin another game: end each game \
         with a result marker (*, 1-0, 0-1 or 1/2-1/2)"
    )]
    AfterRestart {
        /// Why the move cannot be played.
        reason: Box<RejectReason>,
        /// The move number read.
        number: u32,
        /// The move it stood before.
        at: u32,
    },
    /// The move has no ordinal (a position with more than 256 legal moves).
    #[error(transparent)]
    Ordinal(#[from] OrdinalError),
    /// A null move by the side in check.
    #[error("null move {token:?} while in check")]
    NullMoveInCheck {
        /// The token as written (lossily decoded; a long one cut, see `quoted`).
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
    /// A payload longer than the encoder writes
    /// ([`crate::EncodeOptions::max_string`], by default what PGC readers
    /// accept by default, [`pgc_core::Limits::DEFAULT`]`.max_string`):
    /// written, the game could not be decoded or verified without raising
    /// the readers' limit as far.
    #[error(
        "{what} of {len} bytes is over the {limit}-byte string limit of PGC readers \
         (--max-string); shorten it, split the game, or raise the limit to write it and to read \
         the output"
    )]
    OverReadLimit {
        /// What is too long: a tag, a comment, the game's clock data…
        what: &'static str,
        /// Its length as a PGC payload.
        len: u64,
        /// The limit ([`crate::EncodeOptions::max_string`]; by default the
        /// readers' default limit).
        limit: u32,
    },
    /// A NAG whose number does not fit in 32 bits (`$99999999999999999999`).
    #[error("NAG {token:?} is larger than {max}, the largest NAG PGC holds")]
    NagOverflow {
        /// The token as written (lossily decoded; a long one cut, see `quoted`).
        token: String,
        /// The largest NAG.
        max: u32,
    },
    /// The input ends inside the game: in a tag, a `{` comment or a
    /// variation (a file cut short).
    #[error("the input ends inside {inside} (a truncated file?); the game is kept verbatim")]
    Truncated {
        /// Where: "a tag", "a { comment", "a variation".
        inside: &'static str,
    },
    /// The input's compressed data is damaged where the game stands: the
    /// game is cut there (or may be), so it is not converted.
    #[error("the compressed input is damaged inside this game: {what}")]
    DamagedInput {
        /// Where and what the decompressor said.
        what: String,
    },
    /// The game is larger than the reader's limit: it is not read, its
    /// text runs to the next tag section after a blank line.
    #[error(
        "the game is larger than the limit of {limit} bytes ({size} bytes up to the next tag \
         section after a blank line); look for an unterminated {{ comment or tag string, or \
         raise the limit with --max-game-bytes"
    )]
    TooLarge {
        /// The limit (`--max-game-bytes`).
        limit: usize,
        /// The bytes skipped.
        size: u64,
    },
    /// Only text that is not PGN, no tag and no move.
    #[error("no PGN game here, only text that is not PGN")]
    NotPgn,
    /// A record of the game cannot be written (an escape line over 65,535
    /// bytes, which no string-2 holds).
    #[error("the game cannot be written as PGC: {0}")]
    Unwritable(#[from] BuildError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_token_is_quoted_cut_with_its_length() {
        assert_eq!(quoted(b"Ke3"), "Ke3");
        let long = vec![b'x'; 50_000_000];
        let q = quoted(&long);
        assert_eq!(q, format!("{}… (50000000 bytes)", "x".repeat(64)));
        let r = RejectReason::NotAMove { token: q };
        assert!(r.to_string().len() < 200, "{r}");
    }
}
