//! The move-ordinal codec of section 20.2.
//!
//! A move is stored as one byte: its index among all legal moves of the
//! position, each given its SAN string, sorted in ascending ASCII order.
//! From the start position `Na3` is 0, `Nc3` 1, `Nf3` 2, `Nh3` 3, `a3` 4 …
//! `h4` 19.
//!
//! # How it is fast
//!
//! Each legal move gets a *sort key*: its SAN body (without check suffix)
//! packed big-endian into the top six bytes of a `u64`, zero padded, with the
//! move's index or code in the low 16 bits. Comparing two keys as integers
//! compares the SAN strings in ASCII order (a zero pad byte sorts before
//! every SAN character, so a prefix sorts first, as in `strcmp`). No
//! `String` is ever made.
//!
//! [`encode`], [`decode`], [`select_in`] and [`find_canonical_in`] do not
//! generate the legal moves: SAN strings with different first characters
//! compare by that character alone, so they count the legal moves of each
//! earlier first-character class from bitboards (the *census*, in
//! `census.rs`) and order one class only, often straight from its target
//! bitboard. The move-list functions ([`select`], [`rank_of`],
//! [`find_canonical`], [`OrdinalTable`]) take shakmaty's `MoveList`; they
//! serve listings, the import-spelling path of the encoder, and positions
//! beyond the census bound.
//!
//! The longest SAN body is six bytes (`Qa1xb2`, `exd8=Q`), so six bytes of
//! key are enough. Why the check suffix cannot change the order is proven in
//! `spec/ordinal.md`: every SAN body character is at least `-` (0x2D), and the
//! suffixes `+` (0x2B) and `#` (0x23) are below all of them.
//!
//! Disambiguation is computed over *legal* moves, as SAN requires (section
//! 8.2.3.4): a pinned knight does not force `Nge2`.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Color, Move, MoveList, Piece, Position, Role, Square, attacks};

use crate::census::{CLASSES, Census, Keys, class_of, class_of_first, code_of};

/// Most legal moves a position can have for its moves to fit in one ordinal byte.
pub const MAX_ORDINALS: usize = 256;

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
        /// The ordinal found.
        ordinal: u8,
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
fn san_key<P: Position>(pos: &P, moves: &[Move], m: Move) -> u64 {
    san_key_with(m, |role, from, to| rivals(pos, moves, role, from, to))
}

/// The key of `m`; `others(role, from, to)` gives the origins of the other
/// legal moves of that piece type to `to`, which decide disambiguation.
#[inline(always)]
fn san_key_with(m: Move, others: impl FnOnce(Role, Square, Square) -> Bitboard) -> u64 {
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
            if role != Role::King {
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
fn san_key_plain(m: Move) -> u64 {
    san_key_with(m, |_, _, _| Bitboard::EMPTY)
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
pub(crate) fn key_text(key: u64) -> MoveText {
    let mut t = MoveText::new();
    let mut shift = 56;
    while shift >= 16 {
        let b = (key >> shift) as u8;
        if b == 0 {
            break;
        }
        t.push(b);
        shift -= 8;
    }
    t
}

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
        return Err(OrdinalError::OutOfRange { ordinal, legal: n });
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

/// Legal moves of classes before `class`, counted by `census`.
#[inline]
fn count_below<P: Position>(census: &mut Census<'_, P>, class: usize) -> usize {
    (0..class).map(|c| census.count(c)).sum()
}

/// The `n`-th smallest of `keys` (`n < keys.len()`): insertion sort for the
/// few keys of a typical class, quickselect beyond.
#[inline]
fn nth_key(keys: &mut [u64], n: usize) -> u64 {
    if keys.len() <= 16 {
        crate::census::insertion_sort(keys);
        keys[n]
    } else {
        *keys.select_nth_unstable(n).1
    }
}

/// The move with ordinal `ordinal` in `pos`, and its SAN body (no `+`/`#`).
///
/// Generates no move list: the legal moves of each SAN class are counted
/// from bitboards until the class holding the ordinal is reached, and only
/// that class is listed and ordered (`census.rs`). Equal to
/// [`select`] over `pos.legal_moves()`, which it falls back to for positions
/// with material enough for over 256 moves.
///
/// # Errors
/// [`OrdinalError::OutOfRange`] if `ordinal` is not below the number of legal
/// moves; [`OrdinalError::TooManyMoves`] beyond 256 legal moves.
pub fn select_in<P: Position>(pos: &P, ordinal: u8) -> Result<(Move, MoveText), OrdinalError> {
    let (m, san) = select_move(pos, ordinal)?;
    Ok((m, san.text(m)))
}

/// What [`select_move`] knows of the chosen move's SAN body: enough to
/// write it on demand, so a caller that needs only the move pays nothing.
/// It is the move's SAN sort key (see [`key_text`]), or 0 when the move
/// needs no disambiguation and its SAN follows from the move alone
/// ([`SanOf::PLAIN`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct SanOf(pub(crate) u64);

impl SanOf {
    /// The SAN follows from the move.
    pub(crate) const PLAIN: SanOf = SanOf(0);

    /// The SAN body of `m`, the move this was selected with.
    #[inline]
    pub(crate) fn text(self, m: Move) -> MoveText {
        key_text(if self.0 == 0 {
            san_key_plain(m)
        } else {
            self.0
        })
    }
}

/// [`select_in`], with the SAN left to [`SanOf::text`].
#[inline]
pub(crate) fn select_move<P: Position>(
    pos: &P,
    ordinal: u8,
) -> Result<(Move, SanOf), OrdinalError> {
    let Some(mut census) = Census::new(pos) else {
        let (m, text) = select(pos, &pos.legal_moves(), ordinal)?;
        // A SAN body has at most six bytes, all a key holds.
        let mut k = KeyBuilder::new();
        for &b in text.as_bytes() {
            k.push(b);
        }
        return Ok((m, SanOf(k.key)));
    };
    let (class, rest) = census
        .locate(usize::from(ordinal))
        .map_err(|legal| OrdinalError::OutOfRange { ordinal, legal })?;
    if let Some((m, key)) = census.nth_move(class, rest) {
        return Ok((m, key.map_or(SanOf::PLAIN, SanOf)));
    }
    let mut keys = Keys::new();
    census.keys(class, &mut keys);
    // `rest` is below the class's count, which is `keys.len()`.
    let key = nth_key(&mut keys, rest);
    Ok((census.to_move(class, key), SanOf(key)))
}

/// Finds the legal move of `pos` whose canonical SAN body (no `+`/`#`) is
/// exactly `san`, and its ordinal, listing only the moves of `san`'s class.
/// `None` when no legal move has this canonical SAN (the caller then tries
/// import-format spellings against all legal moves).
pub fn find_canonical_in<P: Position>(pos: &P, san: &[u8]) -> Option<(Move, u8)> {
    if san.is_empty() || san.len() > 6 {
        return None;
    }
    let Some(mut census) = Census::new(pos) else {
        let moves = pos.legal_moves();
        return find_canonical(pos, &moves, san).map(|(i, o)| (moves[i], o));
    };
    let class = class_of_first(san[0])?;
    let mut k = KeyBuilder::new();
    for &b in san {
        k.push(b);
    }
    let want = k.key;
    let mut keys = Keys::new();
    census.keys(class, &mut keys);
    let mut below = 0;
    let mut found = None;
    for &key in &keys {
        let body = key & !INDEX_MASK;
        if body == want {
            found = Some(key);
        } else if body < want {
            below += 1;
        }
    }
    let key = found?;
    // Under the census bound, at most 255 moves precede one of at most 256.
    Some((
        census.to_move(class, key),
        (count_below(&mut census, class) + below) as u8,
    ))
}

/// Encodes `m`, played in `pos`, as its move ordinal.
///
/// Lists only the moves of `m`'s SAN class, as [`select_in`] does.
///
/// # Errors
/// [`OrdinalError::IllegalMove`] if `m` is not legal in `pos`;
/// [`OrdinalError::TooManyMoves`] if the position has over 256 legal moves.
///
/// ```
/// use shakmaty::{Chess, Position, Square, Role, Move};
/// let pos = Chess::default();
/// let nf3 = Move::Normal { role: Role::Knight, from: Square::G1, capture: None, to: Square::F3, promotion: None };
/// assert_eq!(pgc_core::ordinal::encode(&pos, nf3).unwrap(), 2);
/// ```
pub fn encode<P: Position>(pos: &P, m: Move) -> Result<u8, OrdinalError> {
    let illegal = OrdinalError::IllegalMove {
        uci: MoveText::uci(m),
    };
    let Some(mut census) = Census::new(pos) else {
        let moves = pos.legal_moves();
        let index = moves.iter().position(|&x| x == m).ok_or(illegal)?;
        return rank_of(pos, &moves, index);
    };
    let class = class_of(m);
    let mut keys = Keys::new();
    census.keys(class, &mut keys);
    let code = code_of(m);
    // The code leaves out the captured piece: compare the whole move.
    let key = *keys
        .iter()
        .find(|&&k| k & INDEX_MASK == code && census.to_move(class, k) == m)
        .ok_or(illegal)?
        & !INDEX_MASK;
    let below = keys.iter().filter(|&&k| k & !INDEX_MASK < key).count();
    Ok((count_below(&mut census, class) + below) as u8)
}

/// Decodes a move ordinal in `pos`.
///
/// # Errors
/// [`OrdinalError::OutOfRange`] if `ordinal` is not below the number of legal
/// moves; [`OrdinalError::TooManyMoves`] as for [`encode`].
pub fn decode<P: Position>(pos: &P, ordinal: u8) -> Result<Move, OrdinalError> {
    select_move(pos, ordinal).map(|(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, fen::Fen, san::San};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap()
    }

    fn naive(p: &Chess) -> Vec<(String, Move)> {
        let mut v: Vec<(String, Move)> = p
            .legal_moves()
            .into_iter()
            .map(|m| (San::from_move(p, m).to_string(), m))
            .collect();
        v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        v
    }

    #[test]
    fn start_position_table_matches_the_standard() {
        // Section 20.2: Na3 = 0, Nc3 = 1, a3 = 4, h4 = 19.
        let mut t = OrdinalTable::new(&Chess::default()).unwrap();
        let sans: Vec<String> = t.sorted_entries().map(|e| e.2.to_string()).collect();
        assert_eq!(sans[0], "Na3");
        assert_eq!(sans[1], "Nc3");
        assert_eq!(sans[2], "Nf3");
        assert_eq!(sans[3], "Nh3");
        assert_eq!(sans[4], "a3");
        assert_eq!(sans[19], "h4");
        assert_eq!(sans.len(), 20);
    }

    #[test]
    fn pinned_knight_does_not_disambiguate() {
        // Knights on c3 and g1 both reach e2, but c3 is pinned by the b4 bishop.
        let p = pos("4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1");
        let moves = p.legal_moves();
        let (i, _) = find_canonical(&p, &moves, b"Ne2").expect("Ne2 without disambiguation");
        assert_eq!(moves[i].from(), Some(Square::G1));
        assert!(find_canonical(&p, &moves, b"Nge2").is_none());
    }

    #[test]
    fn agrees_with_naive_on_tricky_positions() {
        for fen in [
            "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "1k6/8/8/8/Q2Q4/8/8/Q2Q3K w - - 0 1",
            "4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
            "rkrbbnnq/pppppppp/8/8/8/8/PPPPPPPP/RKRBBNNQ w KQkq - 0 1",
        ] {
            let p = pos(fen);
            let mut t = OrdinalTable::new(&p).unwrap();
            let n = naive(&p);
            let ours: Vec<(String, Move)> =
                t.sorted_entries().map(|e| (e.2.to_string(), e.1)).collect();
            assert_eq!(ours, n, "{fen}");
            let moves = p.legal_moves();
            for (i, (san, m)) in n.iter().enumerate() {
                assert_eq!(encode(&p, *m).unwrap() as usize, i);
                assert_eq!(decode(&p, i as u8).unwrap(), *m);
                assert_eq!(t.ordinal_of(*m), Some(i as u8));
                let (sm, text) = select(&p, &moves, i as u8).unwrap();
                assert_eq!((sm, text.to_string()), (*m, san.clone()));
            }
        }
    }

    #[test]
    fn out_of_range_and_illegal() {
        let p = Chess::default();
        assert_eq!(
            decode(&p, 20),
            Err(OrdinalError::OutOfRange {
                ordinal: 20,
                legal: 20
            })
        );
        let bad = Move::Normal {
            role: Role::Queen,
            from: Square::D1,
            capture: None,
            to: Square::D4,
            promotion: None,
        };
        assert!(matches!(
            encode(&p, bad),
            Err(OrdinalError::IllegalMove { .. })
        ));
    }
}
