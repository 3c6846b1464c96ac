//! The last long move list a note replayed, kept for the notes after it.
//!
//! An engine's principal variation two plies later usually begins with
//! the third move of its last one when the game followed its first two
//! (`pv=h6 Bh4 Bb7 f5 …`, then `pv=Bb7 f5 …`): the moves they share are
//! taken from here, found and checked once. A list is taken only from the
//! very position the kept moves were played in, and only move by move
//! where its text is the kept text, so what it gives is what finding the
//! moves again would give.

use shakmaty::{Chess, Move};

/// A move list of at least three moves, from its third move on.
#[derive(Debug, Clone, Default)]
pub(super) struct ListMemo {
    /// The position the list's third move is played in (`None`: nothing
    /// kept).
    pub(super) start: Option<Chess>,
    /// The list's text from its third move on.
    pub(super) text: Vec<u8>,
    /// The moves of `text`, and their ordinals.
    pub(super) moves: Vec<Move>,
    pub(super) ordinals: Vec<u8>,
}

impl ListMemo {
    /// Keeps nothing (the buffers are kept).
    pub(super) fn forget(&mut self) {
        self.start = None;
        self.text.clear();
        self.moves.clear();
        self.ordinals.clear();
    }

    /// How many whole moves at the start of `text`, a list played from
    /// `pos`, are the kept moves, and how many bytes of `text` they take
    /// with the space after them.
    pub(super) fn shared(&self, pos: &Chess, text: &[u8]) -> (usize, usize) {
        match &self.start {
            Some(start) if !self.moves.is_empty() && start == pos => {}
            _ => return (0, 0),
        }
        let kept = &self.text[..];
        let same = text.iter().zip(kept).take_while(|(a, b)| a == b).count();
        if same == 0 {
            return (0, 0);
        }
        let ends = |t: &[u8]| same == t.len() || t[same] == b' ';
        let spaces = |t: &[u8]| t.iter().filter(|&&b| b == b' ').count();
        let (moves, len) = if ends(text) && ends(kept) {
            (spaces(&text[..same]) + 1, (same + 1).min(text.len()))
        } else {
            match text[..same].iter().rposition(|&b| b == b' ') {
                Some(space) => (spaces(&text[..space]) + 1, space + 1),
                None => (0, 0),
            }
        };
        if moves > self.moves.len() {
            return (0, 0);
        }
        (moves, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Position, Square};

    fn kept(text: &[u8], moves: usize) -> ListMemo {
        let m = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        };
        ListMemo {
            start: Some(Chess::default()),
            text: text.to_vec(),
            moves: vec![m; moves],
            ordinals: vec![0; moves],
        }
    }

    #[test]
    fn whole_moves_are_shared_and_a_partial_one_is_not() {
        let start = Chess::default();
        let memo = kept(b"e4 e5 Nf3 Nc6", 4);
        assert_eq!(memo.shared(&start, b"e4 e5 Nf3 Nc6"), (4, 13));
        assert_eq!(memo.shared(&start, b"e4 e5 Nf3 Nc6 Bb5"), (4, 14));
        assert_eq!(memo.shared(&start, b"e4 e5 Nf3"), (3, 9));
        // `Nc3` shares `N` with `Nf3`: not a whole move.
        assert_eq!(memo.shared(&start, b"e4 e5 Nc3"), (2, 6));
        // `e4 e5 Nf3+` is not `e4 e5 Nf3`.
        assert_eq!(memo.shared(&start, b"e4 e5 Nf3+"), (2, 6));
        assert_eq!(memo.shared(&start, b"d4"), (0, 0));
        assert_eq!(memo.shared(&start, b"e3"), (0, 0));
    }

    #[test]
    fn nothing_is_shared_from_another_position_or_an_empty_memo() {
        let memo = kept(b"e4 e5", 2);
        let mut other = Chess::default();
        other.play_unchecked(other.legal_moves()[0]);
        assert_eq!(memo.shared(&other, b"e4 e5"), (0, 0));
        let mut empty = memo.clone();
        empty.forget();
        assert_eq!(empty.shared(&Chess::default(), b"e4 e5"), (0, 0));
    }
}
