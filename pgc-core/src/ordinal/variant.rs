//! The move ordinal in the variants other than standard chess
//! (`spec/ordinal.md` section 8): the index of a move among the SAN bodies
//! of all legal moves of the variant, sorted in ASCII order, as in standard
//! chess. Drops are written as shakmaty and python-chess write them
//! (`N@f3`, and `@e4` for a pawn), a king promotion in Antichess `=K`, and
//! disambiguation covers every piece type but the pawn (Antichess can have
//! several kings).
//!
//! The SAN of each move is packed into a sort key as in the standard codec
//! (`key.rs`), disambiguated over the variant's legal moves: no `String` is
//! made, the move list and the keys live on the stack. A Crazyhouse position can have
//! more than 256 legal moves: ordinals here are `u16`, and the record layer
//! writes those of 256 or more as a wide-move record
//! (`spec/extensions.md`, kind 0x13).
//!
//! For [`VariantPosition::Chess`] (standard chess and Chess960) the
//! functions taking a [`VariantPosition`] use the census codec of the parent
//! module; the generic ones compute the same ordinals from the move list.

use arrayvec::ArrayVec;
use shakmaty::variant::VariantPosition;
use shakmaty::{Move, MoveList, Position};

use super::error::OrdinalError;
use super::key::{INDEX_MASK, KeyBuilder, MoveText, key_text, san_key_variant};

/// The most legal moves a position of any variant can have (shakmaty's
/// move list capacity).
const MAX_MOVES: usize = 512;

/// The keys of all legal moves, `san_key | index`, in move-list order.
fn keys<P: Position>(pos: &P, moves: &MoveList) -> ArrayVec<u64, MAX_MOVES> {
    let mut keys = ArrayVec::new();
    for (i, &m) in moves.iter().enumerate() {
        // `MoveList` holds fewer than `MAX_MOVES` moves.
        let _ = keys.try_push(san_key_variant(pos, moves, m) | i as u64);
    }
    keys
}

/// The ordinal of `m` in `pos`.
///
/// # Errors
/// [`OrdinalError::IllegalMove`] if `m` is not legal in `pos`.
pub fn encode_generic<P: Position>(pos: &P, m: Move) -> Result<u16, OrdinalError> {
    let moves = pos.legal_moves();
    let index = moves
        .iter()
        .position(|&x| x == m)
        .ok_or(OrdinalError::IllegalMove {
            uci: MoveText::uci(m),
        })?;
    let keys = keys(pos, &moves);
    let mine = keys[index] & !INDEX_MASK;
    let below = keys.iter().filter(|&&k| k & !INDEX_MASK < mine).count();
    // At most `MAX_MOVES` moves.
    Ok(below as u16)
}

/// The move with ordinal `ordinal` in `pos` and its SAN body.
///
/// # Errors
/// [`OrdinalError::OutOfRange`] if `ordinal` is not below the number of
/// legal moves.
pub fn select_generic<P: Position>(
    pos: &P,
    ordinal: u16,
) -> Result<(Move, MoveText), OrdinalError> {
    let moves = pos.legal_moves();
    if usize::from(ordinal) >= moves.len() {
        return Err(OrdinalError::OutOfRange {
            ordinal,
            legal: moves.len(),
        });
    }
    let mut keys = keys(pos, &moves);
    let key = *keys.select_nth_unstable(usize::from(ordinal)).1;
    Ok((moves[(key & INDEX_MASK) as usize], key_text(key)))
}

/// The legal move whose SAN body is exactly `san`, and its ordinal.
pub fn find_generic<P: Position>(pos: &P, san: &[u8]) -> Option<(Move, u16)> {
    if san.is_empty() || san.len() > 6 {
        return None;
    }
    let mut want = KeyBuilder::new();
    san.iter().for_each(|&b| want.push(b));
    let moves = pos.legal_moves();
    let keys = keys(pos, &moves);
    let found = keys.iter().find(|&&k| k & !INDEX_MASK == want.key)?;
    let below = keys.iter().filter(|&&k| k & !INDEX_MASK < want.key).count();
    Some((moves[(found & INDEX_MASK) as usize], below as u16))
}

/// Calls `$f` with the position inside a [`VariantPosition`], statically
/// typed.
macro_rules! with_arm {
    ($pos:expr, $p:ident => $e:expr) => {
        match $pos {
            VariantPosition::Chess($p) => $e,
            VariantPosition::Atomic($p) => $e,
            VariantPosition::Antichess($p) => $e,
            VariantPosition::KingOfTheHill($p) => $e,
            VariantPosition::ThreeCheck($p) => $e,
            VariantPosition::Crazyhouse($p) => $e,
            VariantPosition::RacingKings($p) => $e,
            VariantPosition::Horde($p) => $e,
        }
    };
}

/// The ordinal of `m`, played in `pos`, by the rules of `pos`'s variant.
///
/// # Errors
/// [`OrdinalError::IllegalMove`] if `m` is not legal in `pos`.
pub fn encode_in(pos: &VariantPosition, m: Move) -> Result<u16, OrdinalError> {
    match pos {
        VariantPosition::Chess(c) => super::encode(c, m).map(u16::from),
        other => with_arm!(other, p => encode_generic(p, m)),
    }
}

/// The move with ordinal `ordinal` in `pos` and its SAN body (no `+`/`#`),
/// by the rules of `pos`'s variant.
///
/// # Errors
/// [`OrdinalError::OutOfRange`] if `ordinal` is not below the number of
/// legal moves.
pub fn select_in(pos: &VariantPosition, ordinal: u16) -> Result<(Move, MoveText), OrdinalError> {
    match pos {
        VariantPosition::Chess(c) => match u8::try_from(ordinal) {
            Ok(o) => super::select_in(c, o),
            Err(_) => select_generic(c, ordinal),
        },
        other => with_arm!(other, p => select_generic(p, ordinal)),
    }
}

/// The move with ordinal `ordinal` in `pos`.
///
/// # Errors
/// [`OrdinalError::OutOfRange`] as for [`select_in`].
pub fn decode_in(pos: &VariantPosition, ordinal: u8) -> Result<Move, OrdinalError> {
    match pos {
        VariantPosition::Chess(c) => super::decode(c, ordinal),
        other => select_in(other, ordinal.into()).map(|(m, _)| m),
    }
}

/// The legal move of `pos` whose canonical SAN body (no `+`/`#`) is `san`,
/// and its ordinal.
pub fn find_in(pos: &VariantPosition, san: &[u8]) -> Option<(Move, u16)> {
    match pos {
        VariantPosition::Chess(c) => super::find_canonical_in(c, san).map(|(m, o)| (m, o.into())),
        other => with_arm!(other, p => find_generic(p, san)),
    }
}

/// The SAN body of the legal move `m` in `pos`, as the ordinal sorts it.
pub fn san_body_in(pos: &VariantPosition, m: Move) -> MoveText {
    with_arm!(pos, p => key_text(san_key_variant(p, &p.legal_moves(), m)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;
    use shakmaty::variant::Variant;

    fn sorted(pos: &VariantPosition) -> Vec<(String, Move)> {
        let mut v: Vec<(String, Move)> = pos
            .legal_moves()
            .into_iter()
            .map(|m| (San::from_move(pos, m).to_string(), m))
            .collect();
        v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        v
    }

    #[test]
    fn every_variant_start_position() {
        for v in Variant::ALL {
            let pos = VariantPosition::new(v);
            for (i, (san, m)) in sorted(&pos).into_iter().enumerate() {
                assert_eq!(encode_in(&pos, m).unwrap(), i as u16, "{v} {san}");
                let (sm, text) = select_in(&pos, i as u16).unwrap();
                assert_eq!((sm, text.as_str()), (m, san.as_str()), "{v}");
                assert_eq!(find_in(&pos, san.as_bytes()), Some((m, i as u16)));
            }
        }
    }
}
