//! SAN sort keys: a legal move's SAN body (no check suffix) packed
//! big-endian into the top six bytes of a `u64`, zero padded, with the move's
//! index or code in the low 16 bits, so that comparing keys as integers
//! compares the SAN strings in ASCII order; and the SAN first-character
//! classes (`B K N O Q R a … h`) that the census counts.

use shakmaty::{Bitboard, Color, Move, Piece, Position, Role, Square, attacks};

/// Most legal moves a position can have for its moves to fit in one ordinal byte.
pub const MAX_ORDINALS: usize = 256;

/// A short, stack-held text (a SAN or UCI move), at most 15 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveText {
    bytes: [u8; 15],
    len: u8,
}

impl MoveText {
    /// An empty text.
    pub const fn new() -> MoveText {
        MoveText {
            bytes: [0; 15],
            len: 0,
        }
    }

    /// Appends one byte; bytes beyond the capacity are dropped.
    pub fn push(&mut self, b: u8) {
        if (self.len as usize) < self.bytes.len() {
            self.bytes[self.len as usize] = b;
            self.len += 1;
        }
    }

    /// The text as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// The text as a `&str` (always ASCII).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or("?")
    }

    /// The long algebraic form of a move (`e2e4`, `e7e8q`, castling as king to rook).
    pub fn uci(m: Move) -> MoveText {
        let mut t = MoveText::new();
        if let Some(from) = m.from() {
            push_square(&mut t, from);
        }
        push_square(&mut t, m.to());
        if let Some(p) = m.promotion() {
            t.push(p.char() as u8);
        }
        t
    }
}

impl Default for MoveText {
    fn default() -> Self {
        MoveText::new()
    }
}

impl std::fmt::Display for MoveText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for MoveText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

fn push_square(t: &mut MoveText, sq: Square) {
    t.push(b'a' + sq.file() as u8);
    t.push(b'1' + sq.rank() as u8);
}

/// Bits of a key that hold the move's index in its move list (or, for keys
/// made by the census, the move's code).
pub(crate) const INDEX_MASK: u64 = 0xffff;

/// Packs SAN bytes into the top of a `u64`, most significant byte first.
#[derive(Clone, Copy)]
pub(crate) struct KeyBuilder {
    pub(crate) key: u64,
    shift: u32,
}

impl KeyBuilder {
    #[inline(always)]
    pub(crate) const fn new() -> KeyBuilder {
        KeyBuilder { key: 0, shift: 56 }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, b: u8) {
        // At most six pushes: 56, 48, 40, 32, 24, 16. The low 16 bits stay
        // free for the move index.
        self.key |= u64::from(b) << self.shift;
        self.shift = self.shift.saturating_sub(8);
    }

    #[inline(always)]
    pub(crate) fn square(&mut self, sq: Square) {
        self.push(b'a' + sq.file() as u8);
        self.push(b'1' + sq.rank() as u8);
    }
}

#[inline(always)]
pub(crate) fn role_char(role: Role) -> u8 {
    match role {
        Role::Pawn => b'P',
        Role::Knight => b'N',
        Role::Bishop => b'B',
        Role::Rook => b'R',
        Role::Queen => b'Q',
        Role::King => b'K',
    }
}

/// The SAN body bytes (no suffix) packed into a key, without index bits.
///
/// `moves` must be the legal moves of `pos`; they decide disambiguation.
#[inline]
pub(super) fn san_key<P: Position>(pos: &P, moves: &[Move], m: Move) -> u64 {
    san_key_with::<false>(m, |role, from, to| rivals(pos, moves, role, from, to))
}

/// [`san_key`] in any variant: king moves are disambiguated too (an
/// Antichess side can have several kings).
#[inline]
pub(super) fn san_key_variant<P: Position>(pos: &P, moves: &[Move], m: Move) -> u64 {
    san_key_with::<true>(m, |role, from, to| rivals(pos, moves, role, from, to))
}

/// The key of `m`; `others(role, from, to)` gives the origins of the other
/// legal moves of that piece type to `to`, which decide disambiguation
/// (for a king only when `KINGS`: standard chess has one king a side).
#[inline(always)]
fn san_key_with<const KINGS: bool>(
    m: Move,
    others: impl FnOnce(Role, Square, Square) -> Bitboard,
) -> u64 {
    let mut k = KeyBuilder::new();
    match m {
        Move::Castle { king, rook } => {
            k.push(b'O');
            k.push(b'-');
            k.push(b'O');
            if rook.file() < king.file() {
                k.push(b'-');
                k.push(b'O');
            }
        }
        Move::EnPassant { from, to } => {
            k.push(b'a' + from.file() as u8);
            k.push(b'x');
            k.square(to);
        }
        Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion,
        } => {
            if capture.is_some() {
                k.push(b'a' + from.file() as u8);
                k.push(b'x');
            }
            k.square(to);
            if let Some(p) = promotion {
                k.push(b'=');
                k.push(role_char(p));
            }
        }
        Move::Normal {
            role,
            from,
            capture,
            to,
            ..
        } => {
            k.push(role_char(role));
            if KINGS || role != Role::King {
                let others = others(role, from, to);
                if others.any() {
                    let file = Bitboard::from_file(from.file());
                    let rank = Bitboard::from_rank(from.rank());
                    if !(others & file).any() {
                        k.push(b'a' + from.file() as u8);
                    } else if !(others & rank).any() {
                        k.push(b'1' + from.rank() as u8);
                    } else {
                        k.square(from);
                    }
                }
            }
            if capture.is_some() {
                k.push(b'x');
            }
            k.square(to);
        }
        Move::Put { role, to } => {
            // Not reachable in standard chess; keyed like Crazyhouse SAN.
            if role != Role::Pawn {
                k.push(role_char(role));
            }
            k.push(b'@');
            k.square(to);
        }
    }
    k.key
}

/// The key of a move that needs no disambiguation (no other legal move of the
/// same piece type reaches its square).
#[inline]
pub(super) fn san_key_plain(m: Move) -> u64 {
    san_key_with::<false>(m, |_, _, _| Bitboard::EMPTY)
}

/// Origins of other *legal* moves of the same role to the same square.
#[inline]
fn rivals<P: Position>(pos: &P, moves: &[Move], role: Role, from: Square, to: Square) -> Bitboard {
    let board = pos.board();
    let turn: Color = pos.turn();
    let piece = Piece { color: turn, role };
    // Cheap pseudo-legal screen: which of our pieces of this role attack `to`?
    // Only when there is one do we consult the legal move list.
    let attackers = attacks::attacks(to, piece, board.occupied()) & board.by_piece(piece);
    if !(attackers.without(from)).any() {
        return Bitboard::EMPTY;
    }
    let mut others = Bitboard::EMPTY;
    for &o in moves {
        if let Move::Normal {
            role: r,
            from: f,
            to: t,
            ..
        } = o
            && r == role
            && t == to
            && f != from
        {
            others.add(f);
        }
    }
    others
}

/// The SAN bytes of a key (body only, no check suffix).
#[inline]
pub(crate) fn key_text(key: u64) -> MoveText {
    // The text's bytes stand from the key's top byte down, none of them
    // NUL, with NULs after them: one byte swap places them all, and the
    // NUL bytes at the low end give the length.
    let text = key & !INDEX_MASK;
    let len = 8 - (text.trailing_zeros() / 8) as u8;
    let mut t = MoveText::new();
    t.bytes[..8].copy_from_slice(&text.to_be_bytes());
    t.len = len;
    t
}

/// Number of SAN first-character classes: `B K N O Q R a b c d e f g h`, in
/// ASCII order.
pub(crate) const CLASSES: usize = 14;

/// The class of castling moves (`O`).
pub(super) const CASTLE: usize = 3;

/// The first pawn class (`a`); file `f` is `PAWNS + f`.
pub(super) const PAWNS: usize = 6;

/// The class of a SAN string's first character, if it can start a move.
#[inline]
pub(crate) const fn class_of_first(b: u8) -> Option<usize> {
    Some(match b {
        b'B' => 0,
        b'K' => 1,
        b'N' => 2,
        b'O' => CASTLE,
        b'Q' => 4,
        b'R' => 5,
        b'a'..=b'h' => PAWNS + (b - b'a') as usize,
        _ => return None,
    })
}

/// The class of a move's SAN first character.
#[inline(always)]
pub(crate) fn class_of(m: Move) -> usize {
    match m {
        Move::Normal {
            role: Role::Pawn,
            from,
            ..
        }
        | Move::EnPassant { from, .. } => PAWNS + from.file() as usize,
        Move::Castle { .. } => CASTLE,
        Move::Normal { role, .. } | Move::Put { role, .. } => match role {
            Role::Bishop => 0,
            Role::King => 1,
            Role::Knight => 2,
            Role::Queen => 4,
            Role::Rook => 5,
            // A pawn drop (`@e4`, Crazyhouse only) sorts before letters; it
            // never occurs in standard chess or Chess960.
            Role::Pawn => 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_text_gives_back_the_bytes_a_key_was_built_from() {
        for san in [
            "", "e4", "Nf3", "O-O", "exd5", "Nbd7", "O-O-O", "Qh4xe1", "exd8=Q",
        ] {
            let mut k = KeyBuilder::new();
            san.bytes().for_each(|b| k.push(b));
            // The low bits hold a move's index or code, never text.
            for index in [0, 1, INDEX_MASK] {
                assert_eq!(key_text(k.key | index).as_bytes(), san.as_bytes(), "{san}");
            }
        }
    }
}
