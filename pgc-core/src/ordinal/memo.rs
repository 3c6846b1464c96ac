//! The census's facts of a position kept from one call to the next: a
//! reader writes a move's check suffix, then reads the next move in the
//! position after it, and finds its checkers and pins once (the PGN
//! encoder, through `internals`, and the engine notes' move lists).

use super::census::{Census, Core};
use super::{
    OrdinalError, SanOf, find_canonical_census, mate_suffix, select_move_census,
    select_move_counted_census,
};
use shakmaty::{Move, Position};

/// The census's facts of one position (checkers, pins), found once for
/// a reader that writes a move's check suffix and then reads the next move
/// in the position after it ([`check_suffix_memo`],
/// [`find_canonical_memo`]). A memo belongs to one position: its keeper
/// empties it ([`CensusMemo::clear`]) whenever that position changes
/// (builds with debug assertions check that it did).
#[derive(Clone, Copy, Debug, Default)]
pub struct CensusMemo {
    core: Option<Option<Core>>,
}

impl CensusMemo {
    /// An empty memo.
    pub const fn new() -> CensusMemo {
        CensusMemo { core: None }
    }

    /// Forgets the facts: the position changed.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.core = None;
    }

    /// The census of `pos`, its core found on the first call after
    /// [`CensusMemo::clear`].
    #[inline(always)]
    fn census<'a, P: Position>(&mut self, pos: &'a P) -> Option<Census<'a, P>> {
        // A match, not `get_or_insert_with`: the census is found inline,
        // its core kept in registers.
        let core = match self.core {
            Some(core) => core,
            None => {
                let core = Core::of(pos);
                self.core = Some(core);
                core
            }
        };
        debug_assert_eq!(core, Core::of(pos), "a census memo of another position");
        core.map(|core| Census::with(pos, core))
    }
}

/// The check suffix of the move that led to `pos` (`#`, `+` or nothing,
/// as `ordinal::check_suffix` finds it), with the census's facts of `pos`
/// taken from `memo`, or found and kept there for the next move. Always
/// inlined: the encoder keeps the census's facts in registers.
#[inline(always)]
pub fn check_suffix_memo<P: Position>(pos: &P, memo: &mut CensusMemo) -> &'static [u8] {
    match memo.census(pos) {
        Some(census) if !census.in_check() => super::NO_SUFFIX,
        Some(census) => mate_suffix(pos, Some(census)),
        None if pos.is_check() => mate_suffix(pos, None),
        None => super::NO_SUFFIX,
    }
}

/// The legal move whose canonical SAN body is `san`, and its ordinal
/// (as `find_canonical_in`), with the census's facts of `pos` taken from
/// `memo` (see [`check_suffix_memo`]).
#[inline]
pub fn find_canonical_memo<P: Position>(
    pos: &P,
    memo: &mut CensusMemo,
    san: &[u8],
) -> Option<(Move, u8)> {
    find_canonical_census(pos, || memo.census(pos), san)
}

/// The move with ordinal `ordinal` in `pos` and how its SAN is written
/// (as `select_move`), with the census's facts of `pos` taken from `memo`
/// (see [`check_suffix_memo`]). Out of line, as `select_move` is: the
/// census inlined into it keeps its state in registers.
#[inline(never)]
pub(crate) fn select_move_memo<P: Position>(
    pos: &P,
    memo: &mut CensusMemo,
    ordinal: u8,
) -> Result<(Move, SanOf), OrdinalError> {
    select_move_census(pos, memo.census(pos), ordinal)
}

/// [`select_move_memo`], and the number of legal moves of `pos` (as
/// `select_move_counted`).
#[inline(never)]
pub(crate) fn select_move_counted_memo<P: Position>(
    pos: &P,
    memo: &mut CensusMemo,
    ordinal: u8,
) -> Result<(Move, SanOf, usize), OrdinalError> {
    select_move_counted_census(pos, memo.census(pos), ordinal)
}

#[cfg(test)]
mod tests {
    use super::super::tests::pos;
    use super::super::{check_suffix, find_canonical_in, list::san_body};
    use super::*;

    const FENS: [&str; 5] = [
        "r3k2r/ppp2ppp/2n5/3qp3/1b1P4/2N2N2/PPP2PPP/R2QKB1R w KQkq - 0 9",
        "r3k2r/ppp2ppp/2n5/3qp3/1b1P4/2N2N2/PPP2PPP/R2QKB1R b KQkq - 0 9",
        "4k3/8/8/8/8/5N2/8/1N2K2q w - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/3r2K1 w - - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3",
    ];

    /// A memo kept for one position gives every answer found without it.
    #[test]
    fn a_memo_gives_the_answers_found_without_it() {
        for fen in FENS {
            let p = pos(fen);
            let mut memo = CensusMemo::new();
            assert_eq!(check_suffix_memo(&p, &mut memo), check_suffix(&p), "{fen}");
            let moves = p.legal_moves();
            for &m in &moves {
                let san = san_body(&p, &moves, m);
                let found = find_canonical_memo(&p, &mut memo, san.as_bytes());
                assert_eq!(found, find_canonical_in(&p, san.as_bytes()), "{fen}");
                assert_eq!(found.map(|f| f.0), Some(m), "{fen}");
            }
        }
    }

    /// A memo not cleared when its position changed is caught.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a census memo of another position")]
    fn a_stale_memo_is_caught() {
        let mut memo = CensusMemo::new();
        let _ = check_suffix_memo(&pos(FENS[0]), &mut memo);
        let _ = find_canonical_memo(&pos(FENS[1]), &mut memo, b"e6");
    }
}
