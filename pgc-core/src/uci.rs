//! A move's UCI text spelled on the stack, for the writers that append
//! millions of moves (`pgc moves`, the `uci` column of a games table):
//! the text of shakmaty's `UciMove` (castling as the king's move to its
//! target square in standard chess and to the rook's square in Chess960;
//! a drop as `N@f3`), without its formatting machinery or a push per
//! byte.

use shakmaty::{CastlingMode, CastlingSide, Move, Role, Square};

/// A move in UCI: at most five bytes (`e2e4`, `e7e8q`, `N@f3`), kept in
/// six followed by spaces, so that a writer can copy all six at once and
/// keep [`UciText::len`] of them (or one more, for a space after).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UciText {
    bytes: [u8; 6],
    len: u8,
}

/// Square names as two little-endian bytes (`e4` is `b'e' | b'4' << 8`).
const SQUARE_NAMES: [u16; 64] = {
    let mut t = [0u16; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = (b'a' + (sq % 8) as u8) as u16 | ((b'1' + (sq / 8) as u8) as u16) << 8;
        sq += 1;
    }
    t
};

impl UciText {
    /// The UCI text of `m`, castling written as `mode` says.
    #[inline(always)]
    pub fn of(m: Move, mode: CastlingMode) -> UciText {
        let mut bytes = [b' '; 6];
        let name = |s: Square| SQUARE_NAMES[s as usize].to_le_bytes();
        let (from, to, promotion) = match m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => (from, to, promotion),
            Move::EnPassant { from, to } => (from, to, None),
            Move::Castle { king, rook } => match mode {
                CastlingMode::Chess960 => (king, rook, None),
                CastlingMode::Standard => {
                    let side = CastlingSide::from_king_side(king < rook);
                    let to = Square::from_coords(side.king_to_file(), king.rank());
                    (king, to, None)
                }
            },
            Move::Put { role, to } => {
                bytes[0] = role.upper_char() as u8;
                bytes[1] = b'@';
                bytes[2..4].copy_from_slice(&name(to));
                return UciText { bytes, len: 4 };
            }
        };
        bytes[..2].copy_from_slice(&name(from));
        bytes[2..4].copy_from_slice(&name(to));
        let len = match promotion {
            Some(role) => {
                bytes[4] = Role::char(role) as u8;
                5
            }
            None => 4,
        };
        UciText { bytes, len }
    }

    /// The text.
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The text followed by spaces, six bytes in all.
    #[inline(always)]
    pub fn padded(&self) -> &[u8; 6] {
        &self.bytes
    }

    /// The length of the text: 4, or 5 with a promotion.
    #[inline(always)]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::variant::{Crazyhouse, VariantPosition};

    fn position<P: shakmaty::FromSetup + Position>(fen: &str, mode: CastlingMode) -> P {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    #[test]
    fn the_text_is_shakmatys_uci() {
        // Promotions with and without captures and castling; en passant;
        // Chess960 castling with the king between its rooks; drops.
        let positions = [
            VariantPosition::Chess(position(
                "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            )),
            VariantPosition::Chess(position(
                "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
                CastlingMode::Standard,
            )),
            VariantPosition::Chess(position(
                "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
                CastlingMode::Chess960,
            )),
            VariantPosition::Crazyhouse(position::<Crazyhouse>(
                "r3k2r/8/8/8/8/8/8/R3K2R[QNp] w KQkq - 0 1",
                CastlingMode::Standard,
            )),
        ];
        let mut texts = Vec::new();
        for pos in &positions {
            for m in pos.legal_moves() {
                for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
                    let want = UciMove::from_move(m, mode).to_string();
                    let t = UciText::of(m, mode);
                    assert_eq!(t.as_bytes(), want.as_bytes(), "{m:?} {mode:?}");
                    assert_eq!(t.len(), want.len());
                    assert!(t.padded()[t.len()..].iter().all(|&b| b == b' '));
                    texts.push(want);
                }
            }
        }
        for t in [
            "b7b8q", "b7b8n", "e1g1", "e1h1", "e1c1", "e1a1", "e5d6", "e1b1", "e1g1",
        ] {
            assert!(
                texts.iter().any(|x| x == t),
                "{t} not among the moves tried"
            );
        }
        for t in ["N@e4", "Q@d5"] {
            assert!(
                texts.iter().any(|x| x == t),
                "{t} not among the moves tried"
            );
        }
    }
}
