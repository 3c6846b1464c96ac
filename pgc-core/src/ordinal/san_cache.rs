//! Encoded opening moves, remembered by their SAN path: the encoder's twin
//! of [`super::opening::OpeningCache`].
//!
//! The first plies of most games of a large database repeat from game to
//! game, so after `1. e4 e5 2. Nf3` the token `Nc6` stands for the same
//! move, ordinal and check suffix in every game that started from the
//! initial position. A [`SanCache`] remembers, for a ply reached by a path
//! of canonical SAN tokens from the initial position, the move a token
//! names, its ordinal and the check suffix of the position it leads to, so
//! that a repeated opening ply is looked up instead of being found by the
//! census again. Node 0 is the initial position; the entry (node, token)
//! holds the move and the child node.
//!
//! The cache has no effect on results: an entry is made only from what the
//! census found in the same position (the same path from the same start),
//! and positions are still played move by move. It is bounded:
//! [`MAX_DEPTH`] plies deep and [`CAPACITY`] entries (a table allocated on
//! first use), after which it stops growing.

use super::node_table::NodeTable;
use shakmaty::Move;

/// The deepest ply remembered (plies 1 to `MAX_DEPTH` of a game).
pub const MAX_DEPTH: u32 = 12;

/// Table slots (a power of two); at most half are filled.
const SLOTS: usize = 1 << 13;

/// The most entries kept.
pub const CAPACITY: usize = NodeTable::<u64, (Move, u8), SLOTS>::CAPACITY;

/// No node: the line left the initial position's tree (a FEN start, a
/// variation, a null move, a token in another spelling, a ply beyond
/// `MAX_DEPTH`, a full table).
pub const NO_NODE: u32 = u32::MAX;

/// What a remembered token stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SanHit {
    /// The legal move.
    pub mv: Move,
    /// Its ordinal.
    pub ordinal: u8,
    /// The node of the position after it ([`NO_NODE`] past `MAX_DEPTH`).
    pub child: u32,
}

/// Remembered opening tokens (see the module doc): per (node, token), the
/// move and its ordinal.
#[derive(Clone, Default)]
pub struct SanCache {
    table: NodeTable<u64, (Move, u8), SLOTS>,
    /// Per node (entry i leads to node i + 1): the check suffix of its
    /// position once found, as 1 + its index in [`SUFFIXES`] (0: unknown).
    suffixes: Vec<u8>,
}

/// The check suffixes a node can hold.
const SUFFIXES: [&[u8]; 3] = [b"", b"+", b"#"];

impl std::fmt::Debug for SanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SanCache")
            .field("entries", &self.table.len())
            .finish()
    }
}

/// The table key of (`node`, `token`): the token's bytes (one to six, no
/// NUL) and the node above them; never 0. `None` for a token that does not
/// fit.
#[inline(always)]
fn key(node: u32, token: &[u8]) -> Option<u64> {
    if token.is_empty() || token.len() > 6 || node >= 1 << 15 {
        return None;
    }
    let mut k = 0u64;
    for &b in token {
        if b == 0 {
            return None;
        }
        k = k << 8 | u64::from(b);
    }
    Some(k | u64::from(node + 1) << 48)
}

impl SanCache {
    /// An empty cache (the table is allocated on the first insertion).
    pub fn new() -> SanCache {
        SanCache::default()
    }

    /// How many plies are remembered.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.table.len() == 0
    }

    /// What `token` (a canonical SAN body) stands for at `node`, when
    /// remembered.
    #[inline]
    pub fn get(&self, node: u32, token: &[u8]) -> Option<SanHit> {
        if node == NO_NODE {
            return None;
        }
        let ((mv, ordinal), child) = self.table.get(key(node, token)?)?;
        Some(SanHit { mv, ordinal, child })
    }

    /// Remembers that `token`, the canonical SAN body of `mv`, has
    /// `ordinal` at `node`, `plies` plies into its line, and returns the
    /// node of the position after it: [`NO_NODE`] past [`MAX_DEPTH`], when
    /// the table is full, or when the token does not fit a key.
    #[inline]
    pub fn insert(&mut self, node: u32, plies: u32, token: &[u8], mv: Move, ordinal: u8) -> u32 {
        if node == NO_NODE || plies >= MAX_DEPTH {
            return NO_NODE;
        }
        let Some(k) = key(node, token) else {
            return NO_NODE;
        };
        if self.suffixes.is_empty() {
            self.suffixes = vec![0; CAPACITY + 1];
        }
        self.table.insert(k, (mv, ordinal)).unwrap_or(NO_NODE)
    }

    /// The check suffix of `node`'s position, when remembered.
    #[inline]
    pub fn suffix(&self, node: u32) -> Option<&'static [u8]> {
        let code = *self.suffixes.get(node as usize)?;
        code.checked_sub(1).map(|i| SUFFIXES[usize::from(i)])
    }

    /// Remembers the check suffix of `node`'s position (`""`, `"+"` or
    /// `"#"`; another is not remembered).
    #[inline]
    pub fn set_suffix(&mut self, node: u32, suffix: &[u8]) {
        let Some(i) = SUFFIXES.iter().position(|&s| s == suffix) else {
            return;
        };
        if let Some(code) = self.suffixes.get_mut(node as usize) {
            *code = i as u8 + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn remembers_paths_suffixes_and_stops_when_full() {
        let mut c = SanCache::new();
        let moves = Chess::default().legal_moves();
        assert!(c.get(0, b"e4").is_none());
        let a = c.insert(0, 0, b"e4", moves[0], 13);
        let b = c.insert(0, 0, b"d4", moves[1], 11);
        assert_ne!(a, b);
        assert_eq!(c.insert(0, 0, b"e4", moves[0], 13), a);
        let hit = c.get(0, b"e4").unwrap();
        assert_eq!((hit.mv, hit.ordinal, hit.child), (moves[0], 13, a));
        // The same token under another node is another entry; a token of
        // another length is another key.
        assert!(c.get(a, b"e4").is_none());
        assert!(c.get(0, b"e4+").is_none());
        // Suffixes per node.
        assert_eq!(c.suffix(a), None);
        c.set_suffix(a, b"+");
        c.set_suffix(b, b"");
        assert_eq!(
            (c.suffix(a), c.suffix(b)),
            (Some(&b"+"[..]), Some(&b""[..]))
        );
        // Too deep, too long, a NUL, no node: nothing is remembered.
        assert_eq!(c.insert(a, MAX_DEPTH, b"e5", moves[2], 1), NO_NODE);
        assert_eq!(c.insert(a, 1, b"Nbd2xe4", moves[2], 1), NO_NODE);
        assert_eq!(c.insert(a, 1, b"e\0", moves[2], 1), NO_NODE);
        assert_eq!(c.insert(NO_NODE, 1, b"e5", moves[2], 1), NO_NODE);
        let mut node = 1000;
        while c.insert(node, 1, b"Nf3", moves[2], 7) != NO_NODE {
            node += 1;
        }
        assert_eq!(c.len(), CAPACITY);
        assert_eq!(c.get(0, b"e4").unwrap().child, a);
    }
}
