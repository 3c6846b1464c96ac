//! The reference path: the legal moves of a position from shakmaty's move
//! list, each given its SAN sort key, ordered. It serves listings
//! ([`OrdinalTable`]), the import-spelling path of the encoder, and
//! positions beyond the census bound.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Move, MoveList, Position};

use super::error::OrdinalError;
use super::key::{
    CLASSES, INDEX_MASK, KeyBuilder, MAX_ORDINALS, MoveText, class_of, class_of_first, key_text,
    san_key, san_key_plain,
};

/// The legal moves of a position with their SAN sort keys: the ordinal table.
///
/// Build it once per position and use it for any number of look-ups. It lives
/// on the stack (about 4 KiB) and allocates nothing.
#[derive(Clone)]
pub struct OrdinalTable {
    moves: MoveList,
    /// `san_key | index`, in move-list order until [`OrdinalTable::sort`].
    keys: ArrayVec<u64, MAX_ORDINALS>,
    sorted: bool,
}

impl OrdinalTable {
    /// Generates the legal moves of `pos` and their keys.
    ///
    /// # Errors
    /// [`OrdinalError::TooManyMoves`] if the position has more than 256 legal
    /// moves (no legal chess position has; a set-up position might).
    pub fn new<P: Position>(pos: &P) -> Result<OrdinalTable, OrdinalError> {
        OrdinalTable::from_moves(pos, pos.legal_moves())
    }

    /// Builds the table from `moves`, which must be the legal moves of `pos`.
    ///
    /// # Errors
    /// [`OrdinalError::TooManyMoves`] as for [`OrdinalTable::new`].
    pub fn from_moves<P: Position>(pos: &P, moves: MoveList) -> Result<OrdinalTable, OrdinalError> {
        if moves.len() > MAX_ORDINALS {
            return Err(OrdinalError::TooManyMoves { legal: moves.len() });
        }
        let mut keys = ArrayVec::new();
        for (i, &m) in moves.iter().enumerate() {
            keys.push(san_key(pos, &moves, m) | i as u64);
        }
        Ok(OrdinalTable {
            moves,
            keys,
            sorted: false,
        })
    }

    /// Number of legal moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether the position has no legal move (mate or stalemate).
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The legal moves, in generation order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    fn rank_of_key(&self, key: u64) -> u8 {
        // Keys are distinct (SAN strings of legal moves are), so the count of
        // smaller keys is the move's index in sorted order. n <= 256 and the
        // move itself is not counted, so the count is at most 255.
        let below = self.keys.iter().filter(|&&k| k < key).count();
        below as u8
    }

    /// The ordinal of `m`, or `None` if `m` is not legal here.
    pub fn ordinal_of(&self, m: Move) -> Option<u8> {
        let i = self.moves.iter().position(|&x| x == m)?;
        let key = self
            .keys
            .iter()
            .find(|&&k| (k & INDEX_MASK) as usize == i)?;
        Some(self.rank_of_key(*key))
    }

    /// Sorts the table; afterwards [`Self::sorted_entries`] lists the moves
    /// in ordinal order.
    pub fn sort(&mut self) {
        if !self.sorted {
            self.keys.sort_unstable();
            self.sorted = true;
        }
    }

    /// All `(ordinal, move, SAN body)` in ordinal order.
    pub fn sorted_entries(&mut self) -> impl Iterator<Item = (u8, Move, MoveText)> + '_ {
        self.sort();
        self.keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (i as u8, self.moves[(k & INDEX_MASK) as usize], key_text(k)))
    }
}

/// Counts the moves of classes before `c` and finds the squares that two or
/// more moves of class `c` reach: only moves to those squares can need
/// disambiguation (all moves of one piece type share a class).
#[inline]
fn scan_class(moves: &[Move], c: usize) -> ClassScan {
    let mut scan = ClassScan {
        below: 0,
        dup: Bitboard::EMPTY,
        same: ArrayVec::new(),
    };
    for (i, &m) in moves.iter().enumerate() {
        let d = class_of(m);
        scan.below += usize::from(d < c);
        if d == c {
            // `moves.len() <= 256` is checked by every caller.
            let _ = scan.same.try_push(i as u8);
        }
    }
    let mut seen = Bitboard::EMPTY;
    for &i in &scan.same {
        let to = moves[usize::from(i)].to();
        if seen.contains(to) {
            scan.dup.add(to);
        }
        seen.add(to);
    }
    scan
}

/// What [`scan_class`] finds.
struct ClassScan {
    /// Moves of earlier classes.
    below: usize,
    /// Squares two or more moves of the class reach.
    dup: Bitboard,
    /// Indices of the moves of the class.
    same: ArrayVec<u8, MAX_ORDINALS>,
}

/// The key of `m`, knowing which destination squares are shared (`dup`).
#[inline]
fn class_key<P: Position>(pos: &P, moves: &[Move], m: Move, dup: Bitboard) -> u64 {
    if dup.contains(m.to()) {
        san_key(pos, moves, m)
    } else {
        san_key_plain(m)
    }
}

/// The SAN body (no `+`/`#`) of a legal move, as computed for ordinals.
///
/// `moves` must be the legal moves of `pos` (they decide disambiguation).
pub fn san_body<P: Position>(pos: &P, moves: &[Move], m: Move) -> MoveText {
    key_text(san_key(pos, moves, m))
}

/// The ordinal of `moves[index]` in `pos`, where `moves` are the legal moves
/// of `pos`. Counts the moves whose SAN sorts first; only moves whose SAN
/// starts with the same character get a full key.
///
/// # Errors
/// [`OrdinalError::TooManyMoves`] beyond 256 legal moves;
/// [`OrdinalError::IllegalMove`] if `index` is out of bounds.
pub fn rank_of<P: Position>(pos: &P, moves: &[Move], index: usize) -> Result<u8, OrdinalError> {
    let Some(&m) = moves.get(index) else {
        return Err(OrdinalError::IllegalMove {
            uci: MoveText::new(),
        });
    };
    if moves.len() > MAX_ORDINALS {
        return Err(OrdinalError::TooManyMoves { legal: moves.len() });
    }
    let scan = scan_class(moves, class_of(m));
    let key = class_key(pos, moves, m, scan.dup);
    let below = scan.below
        + scan
            .same
            .iter()
            .map(|&i| moves[usize::from(i)])
            .filter(|&o| o != m && class_key(pos, moves, o, scan.dup) < key)
            .count();
    // At most 255 moves precede one of at most 256.
    Ok(below as u8)
}

/// Finds the legal move whose canonical SAN body is exactly `san` and its
/// ordinal, in one pass: moves of an earlier first-character class are
/// counted, moves of the same class get a full key. `None` when no legal move
/// has this canonical SAN (the caller then tries import-format spellings).
pub fn find_canonical<P: Position>(pos: &P, moves: &[Move], san: &[u8]) -> Option<(usize, u8)> {
    if san.is_empty() || san.len() > 6 || moves.len() > MAX_ORDINALS {
        return None;
    }
    let c = class_of_first(san[0])?;
    let mut k = KeyBuilder::new();
    for &b in san {
        k.push(b);
    }
    let want = k.key;
    let scan = scan_class(moves, c);
    let mut below = scan.below;
    let mut found = None;
    for &i in &scan.same {
        let key = class_key(pos, moves, moves[usize::from(i)], scan.dup);
        if key == want {
            found = Some(usize::from(i));
        } else if key < want {
            below += 1;
        }
    }
    found.map(|i| (i, below as u8))
}

/// The move with ordinal `ordinal` among `moves` (the legal moves of `pos`)
/// and its SAN body. Counts moves per first-character class to find the class
/// holding the ordinal, then orders that class alone.
///
/// # Errors
/// [`OrdinalError::OutOfRange`] if `ordinal` is not below `moves.len()`;
/// [`OrdinalError::TooManyMoves`] beyond 256 legal moves.
pub fn select<P: Position>(
    pos: &P,
    moves: &[Move],
    ordinal: u8,
) -> Result<(Move, MoveText), OrdinalError> {
    let n = moves.len();
    if n > MAX_ORDINALS {
        return Err(OrdinalError::TooManyMoves { legal: n });
    }
    if usize::from(ordinal) >= n {
        return Err(OrdinalError::OutOfRange {
            ordinal: ordinal.into(),
            legal: n,
        });
    }
    // One pass: each move's class, and the count per class.
    // `class` returns 0..CLASSES (6 + a file index at most 13), and
    // `n <= MAX_ORDINALS` was checked above: the indexing cannot fail.
    let mut counts = [0usize; CLASSES];
    let mut classes = [0u8; MAX_ORDINALS];
    for (slot, &m) in classes.iter_mut().zip(moves) {
        let c = class_of(m);
        counts[c] += 1;
        *slot = c as u8;
    }
    let mut rest = usize::from(ordinal);
    let mut c = 0;
    while c < CLASSES && rest >= counts[c] {
        rest -= counts[c];
        c += 1;
    }
    // The moves of class `c`; disambiguation only for shared squares.
    let mut same: ArrayVec<u8, MAX_ORDINALS> = ArrayVec::new();
    let mut seen = Bitboard::EMPTY;
    let mut dup = Bitboard::EMPTY;
    for (i, &k) in classes[..n].iter().enumerate() {
        if usize::from(k) == c {
            let to = moves[i].to();
            if seen.contains(to) {
                dup.add(to);
            }
            seen.add(to);
            let _ = same.try_push(i as u8);
        }
    }
    let mut keys: ArrayVec<u64, MAX_ORDINALS> = ArrayVec::new();
    for &i in &same {
        let m = moves[usize::from(i)];
        let _ = keys.try_push(class_key(pos, moves, m, dup) | u64::from(i));
    }
    // `rest < counts[c] == keys.len()` by the loop above.
    let key = *keys.select_nth_unstable(rest).1;
    Ok((moves[(key & INDEX_MASK) as usize], key_text(key)))
}
