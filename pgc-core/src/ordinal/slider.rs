//! Bishop, rook and queen attacks from tables small enough to stay in the
//! L1 cache, for the census's counting.
//!
//! shakmaty's magic attack table (`shakmaty::attacks::rook_attacks` and
//! `bishop_attacks`) holds 88,772 entries, 710 KB: a census touches several
//! of its cache lines per position, and each look-up waits on the L2 cache
//! before the count it feeds can decide where the ordinal falls. Here the
//! same attacks come from 2 KB: a diagonal, an anti-diagonal and a file
//! hold one square per rank, and a byte swap reverses their order, so
//! subtracting the slider's bit from the occupancy of the line, once forward
//! and once reversed, gives the squares up to the first blocker each way
//! (the "hyperbola quintessence" of the chess programming wiki). A rank is
//! looked up in a 512-byte table of a rook's attacks along one rank.
//!
//! The empty-board lines of bishops and rooks (`BISHOP_LINES`,
//! `ROOK_LINES`, 1 KB) are here too: the census finds the enemy sliders that
//! could pin, check or guard a square next to the king with them.
//!
//! Every table is built at compile time from shakmaty's own attack
//! functions, so the attacks stay shakmaty's; the tests compare these
//! functions with shakmaty's for every square and every occupancy of the
//! squares that can block.

use shakmaty::{Bitboard, Square, attacks};

/// The squares a bishop on each square attacks on an empty board
/// (shakmaty's attack tables, read at compile time).
pub(crate) static BISHOP_LINES: [u64; 64] = empty_board_attacks(false);

/// The squares a rook on each square attacks on an empty board.
pub(crate) static ROOK_LINES: [u64; 64] = empty_board_attacks(true);

/// A rook's (`rook`) or a bishop's empty-board attacks from every square.
const fn empty_board_attacks(rook: bool) -> [u64; 64] {
    let mut t = [0; 64];
    let mut i = 0;
    while i < 64 {
        let sq = Square::new(i as u32);
        t[i] = if rook {
            attacks::rook_attacks(sq, Bitboard::EMPTY).0
        } else {
            attacks::bishop_attacks(sq, Bitboard::EMPTY).0
        };
        i += 1;
    }
    t
}

/// The lines through one square, the square itself excluded.
#[derive(Clone, Copy)]
struct Lines {
    /// The a1–h8 direction.
    diagonal: u64,
    /// The a8–h1 direction.
    anti_diagonal: u64,
    /// The file.
    file: u64,
}

/// The lines through each square (1.5 KB): the empty-board lines split by
/// direction.
static LINES: [Lines; 64] = {
    let mut t = [Lines {
        diagonal: 0,
        anti_diagonal: 0,
        file: 0,
    }; 64];
    let mut i = 0;
    while i < 64 {
        let (bishop, rook) = (BISHOP_LINES[i], ROOK_LINES[i]);
        let (mut diagonal, mut anti_diagonal) = (0, 0);
        let mut j: usize = 0;
        while j < 64 {
            let (f, r) = ((j % 8) as i32, (j / 8) as i32);
            let (sf, sr) = ((i % 8) as i32, (i / 8) as i32);
            if f - r == sf - sr {
                diagonal |= 1u64 << j;
            }
            if f + r == sf + sr {
                anti_diagonal |= 1u64 << j;
            }
            j += 1;
        }
        t[i] = Lines {
            diagonal: bishop & diagonal,
            anti_diagonal: bishop & anti_diagonal,
            file: rook & (0x0101_0101_0101_0101 << (i % 8)),
        };
        i += 1;
    }
    t
};

/// A rook's attacks along the first rank, by its file and the occupancy of
/// the six inner squares b1–g1 (the end squares never block anything
/// beyond them): 512 bytes.
static RANK_ATTACKS: [[u8; 64]; 8] = {
    let mut t = [[0; 64]; 8];
    let mut file = 0;
    while file < 8 {
        let mut inner = 0;
        while inner < 64 {
            let occupied = Bitboard((inner as u64) << 1);
            t[file][inner] = attacks::rook_attacks(Square::new(file as u32), occupied).0 as u8;
            inner += 1;
        }
        file += 1;
    }
    t
};

/// The squares of `line` (one square per rank, `sq` not on it) that a
/// slider on `sq` reaches with `occupied` squares.
#[inline(always)]
fn line_attacks(sq: Square, occupied: Bitboard, line: u64) -> u64 {
    let bit = 1u64 << (sq as u32);
    let o = occupied.0 & line;
    let forward = o.wrapping_sub(bit);
    let reverse = o.swap_bytes().wrapping_sub(bit.swap_bytes());
    (forward ^ reverse.swap_bytes()) & line
}

/// The squares a bishop on `sq` attacks with `occupied` squares; equal to
/// `shakmaty::attacks::bishop_attacks`.
#[inline(always)]
pub(crate) fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let l = &LINES[sq as usize];
    Bitboard(line_attacks(sq, occupied, l.diagonal) | line_attacks(sq, occupied, l.anti_diagonal))
}

/// The squares a rook on `sq` attacks with `occupied` squares; equal to
/// `shakmaty::attacks::rook_attacks`.
#[inline(always)]
pub(crate) fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let shift = (sq as u32) & 56;
    let inner = ((occupied.0 >> (shift + 1)) & 63) as usize;
    let rank = u64::from(RANK_ATTACKS[sq as usize & 7][inner]) << shift;
    Bitboard(line_attacks(sq, occupied, LINES[sq as usize].file) | rank)
}

/// The squares a queen on `sq` attacks with `occupied` squares; equal to
/// `shakmaty::attacks::queen_attacks`.
#[inline(always)]
pub(crate) fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    bishop_attacks(sq, occupied) | rook_attacks(sq, occupied)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subset of `mask`, by the carry-rippler.
    fn subsets(mask: u64) -> impl Iterator<Item = u64> {
        let mut next = Some(0u64);
        std::iter::from_fn(move || {
            let cur = next?;
            let n = cur.wrapping_sub(mask) & mask;
            next = (n != 0).then_some(n);
            Some(cur)
        })
    }

    #[test]
    fn equal_to_shakmaty_for_every_square_and_blocker_set() {
        // Squares off a slider's lines cannot change its attacks; a fixed
        // scatter of them is added to show they are ignored.
        let noise = 0x9248_2491_2449_1224u64;
        type Attacks = fn(Square, Bitboard) -> Bitboard;
        let pairs: [(&str, Attacks, Attacks); 2] = [
            ("rook", rook_attacks, attacks::rook_attacks),
            ("bishop", bishop_attacks, attacks::bishop_attacks),
        ];
        for (name, ours, theirs) in pairs {
            for i in 0..64 {
                let sq = Square::new(i);
                let lines = theirs(sq, Bitboard::EMPTY).0;
                for occ in subsets(lines) {
                    for o in [occ, occ | (noise & !lines)] {
                        let o = Bitboard(o);
                        assert_eq!(ours(sq, o), theirs(sq, o), "{name} {sq} {o:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn queen_is_rook_and_bishop_on_random_boards() {
        // A fixed xorshift sequence: the slider's own square set or not.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let sq = Square::new((x >> 58) as u32);
            let o = Bitboard(x);
            assert_eq!(queen_attacks(sq, o), attacks::queen_attacks(sq, o));
        }
    }
}
