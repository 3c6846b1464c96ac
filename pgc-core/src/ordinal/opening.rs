//! Decoded opening moves, remembered by their ordinal path.
//!
//! Most games of a large database start with a handful of well-worn
//! openings, so the first plies repeat from game to game: after `e4 e5 Nf3`
//! the ordinals `13 12 2` stand for the same three moves in every game that
//! starts from the initial position. An [`OpeningCache`] remembers, for a
//! ply reached by a path of ordinals from the initial position, the move an
//! ordinal stands for, so that a repeated opening ply is looked up instead
//! of being decoded again. It is a tree stored in a hash table: node 0 is
//! the initial position, and the entry (node, ordinal) holds the move and
//! the child node.
//!
//! The cache is an optimisation with no effect on results: a move is only
//! remembered after the census decoded it from the same position (the same
//! path from the same start), and positions are still played move by move.
//! It is bounded: at most [`MAX_DEPTH`] plies deep and [`CAPACITY`] entries
//! (a fixed table, allocated on first use), after which it stops growing.

use super::memo::{CensusMemo, select_move_memo};
use super::node_table::NodeTable;
use crate::ordinal::{OrdinalError, SanOf};
use shakmaty::{Chess, Move};

/// The deepest ply remembered (plies 1 to `MAX_DEPTH` of a game).
pub const MAX_DEPTH: u32 = 8;

/// Table slots (a power of two); at most half are filled.
const SLOTS: usize = 1 << 12;

/// The most entries kept (read by the benches through `internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub const CAPACITY: usize = NodeTable::<u32, (Move, u64), SLOTS>::CAPACITY;

/// No node: the game left the initial position's tree (a FEN start, a
/// variation, a null move, a ply beyond [`MAX_DEPTH`], a full table).
pub(crate) const NO_NODE: u32 = u32::MAX;

/// Remembered opening moves (see the module doc): per (node, ordinal), the
/// move and how its SAN is written.
#[derive(Clone, Default)]
pub struct OpeningCache {
    table: NodeTable<u32, (Move, u64), SLOTS>,
}

impl std::fmt::Debug for OpeningCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpeningCache")
            .field("entries", &self.table.len())
            .finish()
    }
}

/// The table key of (`node`, `ordinal`): never 0, since nodes count from 0.
#[inline(always)]
const fn key(node: u32, ordinal: u8) -> u32 {
    (node + 1) << 8 | ordinal as u32
}

impl OpeningCache {
    /// An empty cache (the table is allocated on the first insertion).
    pub fn new() -> OpeningCache {
        OpeningCache::default()
    }

    /// How many plies are remembered.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.table.len() == 0
    }

    /// The move `ordinal` stands for in `pos`, `plies` plies into its line,
    /// and how its SAN is written: remembered when `node` (the position's
    /// node, or [`NO_NODE`]) holds it, else decoded (`ordinal::select_move`)
    /// and remembered, with the census's facts of `pos` taken from `memo`.
    /// `node` moves on to the move's node, or to [`NO_NODE`] past
    /// [`MAX_DEPTH`] and when the table is full.
    ///
    /// # Errors
    /// As `ordinal::select_move` (only a move that was decoded is
    /// remembered).
    #[inline(always)]
    pub(crate) fn select(
        &mut self,
        node: &mut u32,
        plies: u32,
        pos: &Chess,
        memo: &mut CensusMemo,
        ordinal: u8,
    ) -> Result<(Move, SanOf), OrdinalError> {
        if *node == NO_NODE {
            return select_move_memo(pos, memo, ordinal);
        }
        let (m, san, child) = match self.get(*node, ordinal) {
            Some(hit) => hit,
            None => {
                let (m, san) = select_move_memo(pos, memo, ordinal)?;
                (m, san, self.insert(*node, ordinal, m, &san))
            }
        };
        *node = if plies + 1 < MAX_DEPTH {
            child
        } else {
            NO_NODE
        };
        Ok((m, san))
    }

    /// The move `ordinal` stands for at `node`, how its SAN is written, and
    /// the node it leads to.
    #[inline]
    fn get(&self, node: u32, ordinal: u8) -> Option<(Move, SanOf, u32)> {
        let ((m, san), child) = self.table.get(key(node, ordinal))?;
        Some((m, SanOf(san), child))
    }

    /// Remembers that `ordinal` stands for `mv` at `node` (one level above
    /// [`MAX_DEPTH`] at most) and returns the new node, or [`NO_NODE`] when
    /// the table is full.
    #[inline]
    fn insert(&mut self, node: u32, ordinal: u8, mv: Move, san: &SanOf) -> u32 {
        self.table
            .insert(key(node, ordinal), (mv, san.0))
            .unwrap_or(NO_NODE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn remembers_paths_and_stops_when_full() {
        let mut c = OpeningCache::new();
        let start = Chess::default();
        let moves = start.legal_moves();
        assert!(c.get(0, 3).is_none());
        let a = c.insert(0, 3, moves[0], &SanOf::PLAIN);
        let b = c.insert(0, 4, moves[1], &SanOf(42));
        assert_ne!(a, b);
        assert_eq!(c.insert(0, 3, moves[0], &SanOf::PLAIN), a);
        let (m, san, child) = c.get(0, 3).unwrap();
        assert_eq!((m, child), (moves[0], a));
        assert_eq!(san, SanOf::PLAIN);
        assert_eq!(c.get(0, 4).unwrap().1, SanOf(42));
        // The same ordinal under another node is another entry.
        assert!(c.get(a, 3).is_none());
        let mut node = 1000;
        while c.insert(node, 7, moves[2], &SanOf::PLAIN) != NO_NODE {
            node += 1;
        }
        assert_eq!(c.len(), CAPACITY);
        assert_eq!(c.get(0, 3).unwrap().2, a);
    }
}
