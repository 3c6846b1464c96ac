//! Game boundaries for batches and the game index, from the grammar's
//! [`edge`] rule: a splitter or an index frames records and asks this
//! tracker where games begin and end, without decoding anything.

use crate::game::{Edge, edge};
use crate::record::Marker;

/// Follows game boundaries record by record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    in_game: bool,
    games: u64,
}

impl Bounds {
    /// A tracker for input that starts mid-file at a game boundary, after
    /// `games` games.
    pub fn starting_at(games: u64) -> Bounds {
        Bounds {
            in_game: false,
            games,
        }
    }

    /// Games begun so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Whether a general game is open.
    pub fn in_game(&self) -> bool {
        self.in_game
    }

    /// The next record's marker: whether it begins a game, and whether a
    /// game boundary follows it (the input may be cut after it).
    #[inline]
    pub fn record(&mut self, marker: Marker) -> (bool, bool) {
        match edge(self.in_game, marker) {
            Edge::None => (false, false),
            Edge::Whole => {
                self.games += 1;
                (true, !self.in_game)
            }
            Edge::Begin => {
                self.games += 1;
                self.in_game = true;
                (true, false)
            }
            Edge::End => {
                self.in_game = false;
                (false, true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Bounds;
    use crate::Marker;

    #[test]
    fn games_start_and_end_at_their_markers() {
        let mut b = Bounds::default();
        assert_eq!(b.record(Marker::GameBegin), (true, false));
        assert_eq!(b.record(Marker::ShortMoves), (false, false));
        assert_eq!(b.record(Marker::GameEnd), (false, true));
        assert_eq!(b.record(Marker::ReducedGame), (true, true));
        assert_eq!(b.games(), 2);
    }
}
