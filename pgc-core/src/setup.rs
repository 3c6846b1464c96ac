//! The start position of a game, from its FEN tag (section 16.1) or the
//! standard initial position.

use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, PositionError, fen::Fen,
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
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.ep_square = None;
    setup.halfmoves = setup.halfmoves.saturating_add(1);
    if setup.turn == Color::Black {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    setup.turn = !setup.turn;
    Chess::from_setup(setup, mode)
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
