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

use crate::ordinal::{self, OrdinalError, SanOf};
use shakmaty::{Chess, Move};

/// The deepest ply remembered (plies 1 to `MAX_DEPTH` of a game).
pub const MAX_DEPTH: u32 = 8;

/// Table slots (a power of two); at most half are filled.
const SLOTS: usize = 1 << 12;

/// The most entries kept.
pub const CAPACITY: usize = SLOTS / 2;

/// No node: the game left the initial position's tree (a FEN start, a
/// variation, a null move, a ply beyond [`MAX_DEPTH`], a full table).
pub(crate) const NO_NODE: u32 = u32::MAX;

/// One remembered ply: the parent node and ordinal (`key`, 0 when the slot
/// is empty), the move, how its SAN is written, and the child node.
#[derive(Clone, Copy)]
struct Slot {
    key: u32,
    child: u32,
    mv: Option<Move>,
    san: u64,
}

const EMPTY: Slot = Slot {
    key: 0,
    child: 0,
    mv: None,
    san: 0,
};

/// Remembered opening moves (see the module doc).
#[derive(Clone, Default)]
pub struct OpeningCache {
    slots: Vec<Slot>,
    entries: usize,
}

impl std::fmt::Debug for OpeningCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpeningCache")
            .field("entries", &self.entries)
            .finish()
    }
}

/// The table key of (`node`, `ordinal`): never 0, since nodes count from 0.
#[inline(always)]
const fn key(node: u32, ordinal: u8) -> u32 {
    (node + 1) << 8 | ordinal as u32
}

/// The first slot to probe for `key` (Fibonacci hashing).
#[inline(always)]
const fn home(key: u32) -> usize {
    ((key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize
}

impl OpeningCache {
    /// An empty cache (the table is allocated on the first insertion).
    pub fn new() -> OpeningCache {
        OpeningCache::default()
    }

    /// How many plies are remembered.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The move `ordinal` stands for in `pos`, `plies` plies into its line,
    /// and how its SAN is written: remembered when `node` (the position's
    /// node, or [`NO_NODE`]) holds it, else decoded (`ordinal::select_move`)
    /// and remembered. `node` moves on to the move's node, or to [`NO_NODE`]
    /// past [`MAX_DEPTH`] and when the table is full.
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
        ordinal: u8,
    ) -> Result<(Move, SanOf), OrdinalError> {
        if *node == NO_NODE {
            return ordinal::select_move(pos, ordinal);
        }
        let (m, san, child) = match self.get(*node, ordinal) {
            Some(hit) => hit,
            None => {
                let (m, san) = ordinal::select_move(pos, ordinal)?;
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
        if self.slots.is_empty() {
            return None;
        }
        let k = key(node, ordinal);
        let mut at = home(k);
        loop {
            let slot = &self.slots[at];
            if slot.key == k {
                return slot.mv.map(|m| (m, SanOf(slot.san), slot.child));
            }
            if slot.key == 0 {
                return None;
            }
            at = (at + 1) & (SLOTS - 1);
        }
    }

    /// Remembers that `ordinal` stands for `mv` at `node` (one level above
    /// [`MAX_DEPTH`] at most) and returns the new node, or [`NO_NODE`] when
    /// the table is full.
    #[inline]
    fn insert(&mut self, node: u32, ordinal: u8, mv: Move, san: &SanOf) -> u32 {
        let san = san.0;
        if self.entries >= CAPACITY {
            return NO_NODE;
        }
        if self.slots.is_empty() {
            self.slots = vec![EMPTY; SLOTS];
        }
        let k = key(node, ordinal);
        let mut at = home(k);
        while self.slots[at].key != 0 {
            if self.slots[at].key == k {
                return self.slots[at].child;
            }
            at = (at + 1) & (SLOTS - 1);
        }
        self.entries += 1;
        // Node 0 is the initial position; entry i leads to node i.
        let child = self.entries as u32;
        self.slots[at] = Slot {
            key: k,
            child,
            mv: Some(mv),
            san,
        };
        child
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
