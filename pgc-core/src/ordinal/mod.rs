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
//! [`encode`], [`decode`], `select_in` and `find_canonical_in` do not
//! generate the legal moves: SAN strings with different first characters
//! compare by that character alone, so they count the legal moves of each
//! earlier first-character class from bitboards (the *census*, in
//! `census.rs`) and order one class only, often straight from its target
//! bitboard. The move-list functions (`select`, `rank_of`,
//! `find_canonical`, [`OrdinalTable`]) take shakmaty's `MoveList`; they
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

mod census;
mod error;
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
mod key;
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub(crate) mod list;
pub(crate) mod memo;
mod node_table;
pub(crate) mod opening;
// The encoder's cache (pgn-bridge), reached through `internals` only.
#[cfg(feature = "internals")]
pub(crate) mod san_cache;
mod slider;
pub mod variant;

pub use error::OrdinalError;
pub use key::{MAX_ORDINALS, MoveText};
pub use list::OrdinalTable;
pub(crate) use list::{find_canonical, rank_of, select};

use shakmaty::{Move, Position, Square};

use census::{Census, Keys, PlainRank, code_of};
use key::{
    CASTLE, INDEX_MASK, KeyBuilder, PAWNS, class_of, class_of_first, key_text, san_key_plain,
};

/// The `n`-th smallest of `keys` (`n < keys.len()`): insertion sort for the
/// few keys of a typical class, quickselect beyond.
#[inline]
fn nth_key(keys: &mut [u64], n: usize) -> u64 {
    if keys.len() <= 16 {
        census::insertion_sort(keys);
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
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub(crate) fn select_in<P: Position>(
    pos: &P,
    ordinal: u8,
) -> Result<(Move, MoveText), OrdinalError> {
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
    select_move_census(pos, Census::new(pos), ordinal)
}

/// [`select_move`] with the census of `pos` (`None` beyond its bound)
/// made by the caller.
#[inline(always)]
pub(crate) fn select_move_census<'a, P: Position>(
    pos: &'a P,
    census: Option<Census<'a, P>>,
    ordinal: u8,
) -> Result<(Move, SanOf), OrdinalError> {
    let Some(mut census) = census else {
        let (m, text) = select(pos, &pos.legal_moves(), ordinal)?;
        // A SAN body has at most six bytes, all a key holds.
        let mut k = KeyBuilder::new();
        for &b in text.as_bytes() {
            k.push(b);
        }
        return Ok((m, SanOf(k.key)));
    };
    let (class, rest) = locate(&mut census, ordinal)?;
    Ok(nth_in_class(&mut census, class, rest))
}

/// The SAN class holding `ordinal` and the ordinal's rank in it.
#[inline(always)]
fn locate<P: Position>(
    census: &mut Census<'_, P>,
    ordinal: u8,
) -> Result<(usize, usize), OrdinalError> {
    census
        .locate(usize::from(ordinal))
        .map_err(|legal| OrdinalError::OutOfRange {
            ordinal: ordinal.into(),
            legal,
        })
}

/// The move of rank `rest` in SAN class `class`, and how its SAN is
/// written.
#[inline(always)]
fn nth_in_class<P: Position>(
    census: &mut Census<'_, P>,
    class: usize,
    rest: usize,
) -> (Move, SanOf) {
    if let Some((m, key)) = census.nth_move(class, rest) {
        return (m, key.map_or(SanOf::PLAIN, SanOf));
    }
    let mut keys = Keys::new();
    census.keys(class, &mut keys);
    // `rest` is below the class's count, which is `keys.len()`.
    let key = nth_key(&mut keys, rest);
    (census.to_move(class, key), SanOf(key))
}

/// [`select_move`], and the number of legal moves of `pos`, counted by
/// the same census (the classes after the move's counted on).
#[cfg(test)]
pub(crate) fn select_move_counted<P: Position>(
    pos: &P,
    ordinal: u8,
) -> Result<(Move, SanOf, usize), OrdinalError> {
    select_move_counted_census(pos, Census::new(pos), ordinal)
}

/// [`select_move_counted`] with the census of `pos` (`None` beyond its
/// bound) made by the caller.
#[inline(always)]
pub(crate) fn select_move_counted_census<'a, P: Position>(
    pos: &'a P,
    census: Option<Census<'a, P>>,
    ordinal: u8,
) -> Result<(Move, SanOf, usize), OrdinalError> {
    let Some(mut census) = census else {
        let legal = pos.legal_moves().len();
        let (m, san) = select_move(pos, ordinal)?;
        return Ok((m, san, legal));
    };
    let (class, rest) = locate(&mut census, ordinal)?;
    let (m, san) = nth_in_class(&mut census, class, rest);
    // The classes before the move's hold `ordinal - rest` moves.
    let legal = usize::from(ordinal) - rest + census.count_from(class);
    Ok((m, san, legal))
}

/// Finds the legal move of `pos` whose canonical SAN body (no `+`/`#`) is
/// exactly `san`, and its ordinal, listing only the moves of `san`'s class.
/// `None` when no legal move has this canonical SAN (the caller then tries
/// import-format spellings against all legal moves).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub(crate) fn find_canonical_in<P: Position>(pos: &P, san: &[u8]) -> Option<(Move, u8)> {
    find_canonical_census(pos, || Census::new(pos), san)
}

/// [`find_canonical_in`] with the census of `pos` made by `census` (`None`
/// beyond its bound), made only for a token that may be a SAN body.
#[inline(always)]
pub(crate) fn find_canonical_census<'a, P: Position>(
    pos: &'a P,
    census: impl FnOnce() -> Option<Census<'a, P>>,
    san: &[u8],
) -> Option<(Move, u8)> {
    if san.is_empty() || san.len() > 6 {
        return None;
    }
    let census = census();
    // Keys are padded with NULs: a NUL in `san` would match the padding
    // (the plain path below reads no NUL as a square).
    let keyed = |san: &[u8]| !san.contains(&0);
    let Some(mut census) = census else {
        let moves = pos.legal_moves();
        return keyed(san)
            .then(|| find_canonical(pos, &moves, san).map(|(i, o)| (moves[i], o)))
            .flatten();
    };
    let class = class_of_first(san[0])?;
    // A SAN body of a letter or file, an optional `x` and a square (`Nf3`,
    // `Kxe2`, `e4`, `dxe5`) is ranked from bitboards; the others are keyed.
    let plain = match *san {
        [_, f, r] if class < PAWNS && class != CASTLE => Some((false, f, r)),
        [_, b'x', f, r] => Some((true, f, r)),
        [f, r] if class >= PAWNS => Some((false, f, r)),
        _ => None,
    };
    if let Some((capture, f, r)) = plain {
        let to = square_of(f, r)?;
        match census.rank_plain(class, capture, to) {
            PlainRank::Found(m, n) => {
                return Some((m, (census.count_below(class) + n) as u8));
            }
            PlainRank::Absent => return None,
            PlainRank::Keys => {}
        }
    }
    if !keyed(san) {
        return None;
    }
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
        (census.count_below(class) + below) as u8,
    ))
}

/// The square of a SAN file letter and rank digit.
#[inline(always)]
fn square_of(file: u8, rank: u8) -> Option<Square> {
    if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
        return None;
    }
    Some(Square::from_coords(
        shakmaty::File::new(u32::from(file - b'a')),
        shakmaty::Rank::new(u32::from(rank - b'1')),
    ))
}

/// Encodes `m`, played in `pos`, as its move ordinal.
///
/// Lists only the moves of `m`'s SAN class, as `select_in` does.
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
    Ok((census.count_below(class) + below) as u8)
}

/// The number of legal moves of `pos`, counted per SAN class from
/// bitboards as [`decode`] counts them (no move list); for a position with
/// material enough for over 256 moves, `pos.legal_moves().len()`.
///
/// ```
/// use shakmaty::{Chess, Position};
/// let pos = Chess::default();
/// assert_eq!(pgc_core::ordinal::legal_count(&pos), pos.legal_moves().len());
/// ```
#[inline]
pub fn legal_count(pos: &shakmaty::Chess) -> usize {
    match Census::new(pos) {
        Some(mut census) => census.count_from(0),
        None => pos.legal_moves().len(),
    }
}

/// No check suffix: an empty slice of a real static. `b""` points at
/// address 1, and comparing it with `==` (a `memcmp` of no bytes) took
/// about 130 ns on AVX-512 machines, where glibc's `memcmp` makes a masked
/// load at that address and the fault it suppresses costs a microcode
/// assist; with a real address it takes about 1 ns. Suffixes are compared
/// once per move of every engine note's principal variation.
pub(crate) const NO_SUFFIX: &[u8] = b"+".split_at(0).0;

/// The check suffix of the move that led to `pos`: `#` for mate, `+` for
/// check, else nothing (as shakmaty's and python-chess's SAN write it).
/// The check is found as the census finds checkers, and mate by counting
/// the legal moves only when in check.
#[inline]
pub(crate) fn check_suffix<P: Position>(pos: &P) -> &'static [u8] {
    if !Census::is_check(pos).unwrap_or_else(|| pos.is_check()) {
        return NO_SUFFIX;
    }
    mate_suffix(pos, Census::new(pos))
}

/// `#` when the side to move in `pos`, in check, has no legal move, else `+`.
#[cold]
pub(crate) fn mate_suffix<P: Position>(pos: &P, census: Option<Census<'_, P>>) -> &'static [u8] {
    let mated = match census {
        Some(mut census) => !census.has_legal_move(),
        None => pos.legal_moves().is_empty(),
    };
    if mated { b"#" } else { b"+" }
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
    use shakmaty::{CastlingMode, Chess, Role, Square, fen::Fen, san::San};

    pub(super) fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap()
    }

    #[test]
    fn no_check_suffix_is_empty_at_a_real_address() {
        let dangling = std::ptr::NonNull::<u8>::dangling().as_ptr().cast_const();
        assert!(NO_SUFFIX.is_empty());
        assert_ne!(NO_SUFFIX.as_ptr(), dangling);
        let quiet = check_suffix(&Chess::default());
        assert_eq!(quiet, b"");
        assert_ne!(quiet.as_ptr(), dangling);
    }

    #[test]
    fn a_san_with_nul_bytes_names_no_move() {
        let p = Chess::default();
        assert!(find_canonical_in(&p, b"Nf3").is_some());
        for bad in [&b"Nf3\0"[..], b"e4\0\0", b"\0", b"Nf\x003"] {
            assert_eq!(find_canonical_in(&p, bad), None, "{bad:?}");
        }
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
    fn legal_count_is_the_number_of_legal_moves() {
        for fen in [
            "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "4k3/8/8/8/8/5n2/8/4K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/8/r3K3 w - - 0 1",
            "r3k2r/8/8/8/8/8/5b2/R3K2R w KQkq - 0 1",
            "rkrbbnnq/pppppppp/8/8/8/8/PPPPPPPP/RKRBBNNQ w KQkq - 0 1",
            "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1",
            "8/8/8/3pP3/4K3/8/8/4k3 w - d6 0 1",
            "1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
            // Beyond the census bound, and checkmate (no move).
            "6rk/6pp/8/8/8/8/QQQQQQ2/QQQRRBBK w - - 0 1",
            "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
        ] {
            let p = pos(fen);
            assert_eq!(legal_count(&p), p.legal_moves().len(), "{fen}");
        }
        // Every position of a few pseudo-random games (a fixed LCG picks
        // each move).
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..50 {
            let mut p = Chess::default();
            for _ in 0..200 {
                let legal = p.legal_moves();
                assert_eq!(legal_count(&p), legal.len());
                if legal.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                p.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
            }
        }
    }

    #[test]
    fn counted_selection_gives_the_move_and_the_legal_moves() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..30 {
            let mut p = Chess::default();
            for _ in 0..160 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let ord = (seed >> 33) as usize % legal.len();
                let (m, san, n) = select_move_counted(&p, ord as u8).unwrap();
                let (want, want_san) = select_move(&p, ord as u8).unwrap();
                assert_eq!((m, san, n), (want, want_san, legal.len()));
                p.play_unchecked(m);
            }
        }
        let p = pos("6rk/6pp/8/8/8/8/QQQQQQ2/QQQRRBBK w - - 0 1");
        assert_eq!(select_move_counted(&p, 0).unwrap().2, p.legal_moves().len());
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
