//! The `uci` column: each game's moves in UCI, written as bytes straight
//! into the buffers of a `list<string>` array (no `String` and no UTF-8
//! check per move; the values are checked once, as a whole, by
//! [`StringArray::try_new`]).

use arrow_array::{ListArray, StringArray};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field};
use pgc_core::UciText;
use shakmaty::{CastlingMode, Move};
use std::sync::Arc;

/// The lists of the `uci` column being built: one list per game, one
/// string per move.
pub(crate) struct UciLists {
    /// The bytes of every string.
    values: Vec<u8>,
    /// Where each string starts in `values`, and where the last ends.
    ends: Vec<i32>,
    /// Where each game's list starts in `ends`, and where the last ends.
    lists: Vec<i32>,
}

impl UciLists {
    /// No list yet.
    pub(crate) fn new() -> UciLists {
        UciLists {
            values: Vec::new(),
            ends: vec![0],
            lists: vec![0],
        }
    }

    /// Makes room for `moves` more moves.
    pub(crate) fn reserve(&mut self, moves: usize) {
        self.values.reserve(5 * moves);
        self.ends.reserve(moves);
    }

    /// Appends a move to the current game's list.
    #[inline(always)]
    pub(crate) fn push(&mut self, m: &Move, mode: CastlingMode) {
        // Six bytes copied at once, the padding dropped: no call to
        // `memcpy` per move.
        let t = UciText::of(*m, mode);
        self.values.extend_from_slice(t.padded());
        self.values.truncate(self.values.len() - 6 + t.len());
        self.end_string();
    }

    /// Appends a null move (`0000`) to the current game's list.
    pub(crate) fn push_null(&mut self) {
        self.values.extend_from_slice(b"0000");
        self.end_string();
    }

    #[inline(always)]
    fn end_string(&mut self) {
        // Beyond `i32::MAX` bytes the offsets saturate and `finish` fails.
        self.ends
            .push(i32::try_from(self.values.len()).unwrap_or(i32::MAX));
    }

    /// Ends the current game's list.
    pub(crate) fn end_list(&mut self) {
        let strings = self.ends.len() - 1;
        self.lists.push(i32::try_from(strings).unwrap_or(i32::MAX));
    }

    /// The lists ended so far as one array; the builder is empty again
    /// (its buffers keep their sizes for the next batch).
    ///
    /// # Errors
    /// [`ArrowError`] when the strings of one batch pass 2 GiB.
    pub(crate) fn finish(&mut self) -> Result<ListArray, ArrowError> {
        let too_long = || ArrowError::InvalidArgumentError("UCI strings over 2 GiB".into());
        i32::try_from(self.values.len()).map_err(|_| too_long())?;
        i32::try_from(self.ends.len()).map_err(|_| too_long())?;
        let (v, e, l) = (self.values.len(), self.ends.len(), self.lists.len());
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(v));
        let ends = std::mem::replace(&mut self.ends, Vec::with_capacity(e));
        let lists = std::mem::replace(&mut self.lists, Vec::with_capacity(l));
        self.ends.push(0);
        self.lists.push(0);
        let strings = StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(ends)),
            Buffer::from_vec(values),
            None,
        )?;
        ListArray::try_new(
            Arc::new(Field::new("item", DataType::Utf8, true)),
            OffsetBuffer::new(ScalarBuffer::from(lists)),
            Arc::new(strings),
            None,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use shakmaty::fen::Fen;
    use shakmaty::variant::{Crazyhouse, VariantPosition};
    use shakmaty::{Chess, Position};

    #[test]
    fn lists_hold_shakmatys_uci() {
        let mut texts = Vec::new();
        let mut lists = UciLists::new();
        // Promotions (with captures) and castling; en passant; drops with
        // pieces in hand.
        let chess: Chess = "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let en_passant: Chess = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let zh: Crazyhouse = "r3k2r/8/8/8/8/8/8/R3K2R[QNp] w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let positions = [
            VariantPosition::Chess(chess),
            VariantPosition::Chess(en_passant),
            VariantPosition::Crazyhouse(zh),
        ];
        for pos in &positions {
            for m in pos.legal_moves() {
                for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
                    texts.push(m.to_uci(mode).to_string());
                    lists.push(&m, mode);
                }
            }
        }
        lists.push_null();
        texts.push("0000".to_string());
        lists.end_list();
        let listed = lists.finish().unwrap();
        let listed = listed.value(0);
        let listed = listed.as_any().downcast_ref::<StringArray>().unwrap();
        let listed: Vec<&str> = listed.iter().map(Option::unwrap).collect();
        assert_eq!(listed, texts);
        for t in ["b7b8q", "b7b8n", "e1g1", "e1h1", "e5d6", "N@e4", "Q@d5"] {
            assert!(
                texts.iter().any(|x| x == t),
                "{t} not among the moves tried"
            );
        }
    }

    #[test]
    fn lists_hold_each_games_moves_and_start_again_after_finish() {
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let mut lists = UciLists::new();
        lists.push(&moves[0], CastlingMode::Standard);
        lists.push_null();
        lists.end_list();
        lists.end_list();
        lists.push(&moves[1], CastlingMode::Standard);
        lists.end_list();
        let a = lists.finish().unwrap();
        assert_eq!(a.len(), 3);
        let texts = |i: usize| -> Vec<String> {
            let v = a.value(i);
            let s = v.as_any().downcast_ref::<StringArray>().unwrap();
            s.iter().map(|x| x.unwrap().to_string()).collect()
        };
        let uci = |i: usize| moves[i].to_uci(CastlingMode::Standard).to_string();
        assert_eq!(texts(0), vec![uci(0), "0000".to_string()]);
        assert!(texts(1).is_empty());
        assert_eq!(texts(2), vec![uci(1)]);
        // Empty again: the next batch's lists start from row 0.
        lists.push(&moves[2], CastlingMode::Standard);
        lists.end_list();
        let b = lists.finish().unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b.value(0).len(), 1);
    }
}
