//! The start position of a game, from its FEN tag (section 16.1) or the
//! standard initial position.

use crate::variant::{Variant, VariantError, VariantPosition};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, PositionError, Setup, fen::Fen,
};

/// Why a FEN tag gives no playable position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The FEN text does not parse.
    #[error("FEN {fen:?} does not parse: {reason}")]
    Syntax {
        /// The FEN as found (lossily decoded).
        fen: String,
        /// What is wrong.
        reason: String,
    },
    /// The FEN parses but the position is not legal.
    #[error("FEN {fen:?} is not a legal position: {reason}")]
    Illegal {
        /// The FEN as found.
        fen: String,
        /// What is wrong.
        reason: String,
    },
    /// The `Variant` tag names no game pgc plays.
    #[error(transparent)]
    Variant(#[from] VariantError),
}

/// The start position: the FEN when given, else the initial position.
///
/// Castling rights are read in Chess960 mode, which accepts standard `KQkq`,
/// X-FEN and Shredder-FEN alike; SAN stays `O-O`/`O-O-O` either way. Castling
/// rights without a rook to castle with and an en passant square that no pawn
/// can use are dropped, as the major tools do, rather than rejecting the game.
///
/// # Errors
/// [`SetupError`] when the FEN is malformed or describes an impossible position.
// shakmaty's PositionError carries the position: large, but only on the error path.
#[allow(clippy::result_large_err)]
pub fn start_position(fen: Option<&[u8]>) -> Result<Chess, SetupError> {
    let Some(fen) = fen else {
        return Ok(Chess::default());
    };
    let text = || String::from_utf8_lossy(fen).into_owned();
    let trimmed = fen.trim_ascii();
    let parsed = Fen::from_ascii(trimmed).map_err(|e| SetupError::Syntax {
        fen: text(),
        reason: e.to_string(),
    })?;
    parsed
        .into_position::<Chess>(CastlingMode::Chess960)
        .or_else(|e| e.ignore_invalid_castling_rights())
        .or_else(|e| e.ignore_invalid_ep_square())
        .map_err(|e| SetupError::Illegal {
            fen: text(),
            reason: e.to_string(),
        })
}

/// The start position of a game of `variant`: the FEN when given, else the
/// variant's initial position.
///
/// The FEN is read as Lichess writes it: Crazyhouse pockets in brackets
/// after the board (`…/RNBQKBNR[Qn] w …`) or as a ninth rank, Three-check
/// counts as the remaining checks before the clocks (`3+3`) or as the checks
/// given after them (`+0+0`). Castling rights and en passant squares are
/// read as in [`start_position`].
///
/// # Errors
/// [`SetupError`] when the FEN is malformed or describes a position the
/// variant does not allow.
#[allow(clippy::result_large_err)]
pub fn variant_start_position(
    variant: Variant,
    fen: Option<&[u8]>,
) -> Result<VariantPosition, SetupError> {
    if variant == Variant::Chess {
        return start_position(fen).map(VariantPosition::Chess);
    }
    let Some(fen) = fen else {
        return Ok(VariantPosition::new(variant));
    };
    let text = || String::from_utf8_lossy(fen).into_owned();
    let parsed = Fen::from_ascii(fen.trim_ascii()).map_err(|e| SetupError::Syntax {
        fen: text(),
        reason: e.to_string(),
    })?;
    VariantPosition::from_setup(variant, parsed.into_setup(), CastlingMode::Chess960)
        .or_else(|e| e.ignore_invalid_castling_rights())
        .or_else(|e| e.ignore_invalid_ep_square())
        .map_err(|e| SetupError::Illegal {
            fen: text(),
            reason: e.to_string(),
        })
}

/// A null move (the side to move passes) in a game of any variant: the
/// other side to move, pockets and check counts kept. `None` when the side to move is in check (or the
/// variant refuses the position with the other side to move).
pub fn variant_null_move(pos: &VariantPosition) -> Option<VariantPosition> {
    if let VariantPosition::Chess(c) = pos {
        return null_move(c).ok().map(VariantPosition::Chess);
    }
    if pos.is_check() {
        return None;
    }
    let mode = pos.castles().mode();
    let setup = null_setup(pos.to_setup(EnPassantMode::Legal));
    VariantPosition::from_setup(pos.variant(), setup, mode).ok()
}

/// The setup after a null move from `setup`.
fn null_setup(mut setup: Setup) -> Setup {
    setup.ep_square = None;
    setup.halfmoves = setup.halfmoves.saturating_add(1);
    if setup.turn == Color::Black {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    setup.turn = !setup.turn;
    setup
}

/// The position after a null move (`--`, `Z0`): the other side to move, no
/// en passant square, the halfmove clock counting on and the move number
/// advancing when White is next, as after any move (shakmaty's `swap_turn`
/// keeps the move number).
///
/// # Errors
/// The side to move is in check: a null move cannot leave its king attacked.
// shakmaty's PositionError carries the position: large, but only on the error path.
#[allow(clippy::result_large_err)]
pub fn null_move(pos: &Chess) -> Result<Chess, PositionError<Chess>> {
    let mode = pos.castles().mode();
    Chess::from_setup(null_setup(pos.to_setup(EnPassantMode::Legal)), mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn standard_and_960() {
        assert_eq!(start_position(None).unwrap(), Chess::default());
        let p = start_position(Some(
            b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ))
        .unwrap();
        assert_eq!(p.legal_moves().len(), 20);
        // Shredder-FEN castling rights.
        let p = start_position(Some(
            b"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ))
        .unwrap();
        assert!(p.castles().any());
        assert!(start_position(Some(b"not a fen")).is_err());
    }

    #[test]
    fn null_moves_advance_the_move_number() {
        let after_white = null_move(&Chess::default()).unwrap();
        assert_eq!(
            (after_white.turn(), after_white.fullmoves().get()),
            (Color::Black, 1)
        );
        let after_black = null_move(&after_white).unwrap();
        assert_eq!(
            (after_black.turn(), after_black.fullmoves().get()),
            (Color::White, 2)
        );
        // In check: no null move.
        let check = start_position(Some(b"4k3/8/8/8/8/8/4q3/4K3 w - - 0 1")).unwrap();
        assert!(null_move(&check).is_err());
    }
}
