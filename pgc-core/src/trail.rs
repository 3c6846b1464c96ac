//! The positions a line of play has passed through: the one the next move
//! is played in, and the two before it.
//!
//! A variation on the last move starts from the position before it (a RAV
//! replaces the move it follows, section 8.2.5 of the standard); an engine
//! note's move lists start from any of the three
//! (`spec/extensions-engine.md` section 4). The encoder, the verifier and
//! every reader keep them with this one type, so they agree on which
//! positions a note may name.
//!
//! The three positions are a ring: a move is played into the slot of the
//! oldest, copied from the current one, so no position is moved or swapped.

use crate::variant::{VariantPosition, copy_position, play_unchecked};
use shakmaty::{Chess, Move};

/// The positions of the line that a note's move lists can start from: the
/// last move played before the note's anchor, and the one before it.
/// Tracked the same way by the writer and every reader, with a
/// [`LineTrail`]: set at each move (and wide move) of the line, cleared at a
/// null move, at the start of a game and when a variation begins or ends.
#[derive(Debug, Clone, Copy, Default)]
pub struct LinePositions<'a> {
    /// After the last move.
    pub after: Option<&'a VariantPosition>,
    /// Before the last move.
    pub before: Option<&'a VariantPosition>,
    /// Before the move before the last.
    pub before_previous: Option<&'a VariantPosition>,
}

/// The positions of one line of play (the main line or a variation).
///
/// A line is *live* while its current position is known. The verifier stops
/// a line at a move it cannot replay ([`LineTrail::stop`]): a variation on
/// that move still starts from the position before it.
///
/// Which positions an engine note can start from
/// ([`LineTrail::positions`]) depends on the moves played since the line
/// began or resumed: *after* and *before* need one, *before-previous* two.
/// A null move, the start of a game and the start or end of a variation
/// clear them ([`LineTrail::resume`]).
#[derive(Debug, Clone)]
pub struct LineTrail {
    slots: [VariantPosition; 3],
    /// The slot of the current position.
    cur: usize,
    /// The current slot holds the line's position.
    live: bool,
    /// The slot before `cur` holds the position before the last move or
    /// null move (where a variation on it starts).
    has_before: bool,
    /// Moves since the line began or resumed, or since its last null move
    /// (up to 2).
    moves: u8,
}

impl Default for LineTrail {
    /// A line at the standard initial position.
    fn default() -> Self {
        LineTrail::at(VariantPosition::Chess(Chess::default()))
    }
}

/// The slot after `i` in the ring.
#[inline(always)]
const fn next_slot(i: usize) -> usize {
    if i == 2 { 0 } else { i + 1 }
}

/// The slot before `i` in the ring.
#[inline(always)]
const fn prev_slot(i: usize) -> usize {
    if i == 0 { 2 } else { i - 1 }
}

impl LineTrail {
    /// A line that starts at `start`.
    pub fn at(start: VariantPosition) -> LineTrail {
        LineTrail {
            slots: [start.clone(), start.clone(), start],
            cur: 0,
            live: true,
            has_before: false,
            moves: 0,
        }
    }

    /// A line with no position (it cannot be replayed).
    pub fn lost() -> LineTrail {
        LineTrail {
            live: false,
            ..LineTrail::default()
        }
    }

    /// A line that starts at `start`, or [`LineTrail::lost`] for `None`.
    pub fn from_start(start: Option<VariantPosition>) -> LineTrail {
        start.map_or_else(LineTrail::lost, LineTrail::at)
    }

    /// Starts the line again at `start` (a game begins), keeping the slots'
    /// memory.
    pub fn restart(&mut self, start: VariantPosition) {
        self.slots[self.cur] = start;
        self.live = true;
        self.has_before = false;
        self.moves = 0;
    }

    /// The position the next move is played in (`None` once the line is
    /// lost).
    #[inline(always)]
    pub fn current(&self) -> Option<&VariantPosition> {
        self.live.then(|| &self.slots[self.cur])
    }

    /// The current position of a line that is never lost (the encoder's: a
    /// move it cannot play rejects the game). On a lost line this is the
    /// last position the line had, or a stale one: use
    /// [`LineTrail::current`] there.
    #[inline(always)]
    pub fn position(&self) -> &VariantPosition {
        &self.slots[self.cur]
    }

    /// The position before the last move or null move: where a variation on
    /// that move starts.
    pub fn before(&self) -> Option<&VariantPosition> {
        self.has_before.then(|| &self.slots[prev_slot(self.cur)])
    }

    /// The oldest slot becomes the current one, set by `set` from the
    /// current position.
    #[inline(always)]
    fn step(&mut self, set: impl FnOnce(&mut VariantPosition, &VariantPosition)) {
        let [a, b, c] = &mut self.slots;
        let (dst, src): (&mut VariantPosition, &VariantPosition) = match self.cur {
            0 => (b, a),
            1 => (c, b),
            _ => (a, c),
        };
        set(dst, src);
        self.cur = next_slot(self.cur);
        self.has_before = self.live;
        self.live = true;
    }

    /// Plays `mv`, a legal move of the current position.
    ///
    /// # Panics
    /// In builds with debug assertions, when the line is lost.
    #[inline]
    pub fn play(&mut self, mv: Move) {
        debug_assert!(self.live, "a move played on a lost line");
        self.moves = (self.moves + 1).min(2);
        self.step(|dst, src| {
            copy_position(dst, src);
            play_unchecked(dst, mv);
        });
    }

    /// A move was played from the current position to `after` (computed by
    /// the caller).
    pub fn moved_to(&mut self, after: VariantPosition) {
        self.moves = (self.moves + 1).min(2);
        self.step(|dst, _| *dst = after);
    }

    /// A null move was played from the current position to `after`.
    pub fn null_to(&mut self, after: VariantPosition) {
        self.moves = 0;
        self.step(|dst, _| *dst = after);
    }

    /// A reader's form of [`LineTrail::play`]: the walker played a move from
    /// `before` to `after`, and the line copies both (the reader may not
    /// have reported every move since the line restarted).
    pub fn played(&mut self, before: &VariantPosition, after: &VariantPosition) {
        copy_position(&mut self.slots[self.cur], before);
        self.live = true;
        self.moves = (self.moves + 1).min(2);
        self.step(|dst, _| copy_position(dst, after));
    }

    /// The move from the current position cannot be replayed: the line is
    /// lost, and a variation on that move starts from the position it was
    /// played in.
    pub fn stop(&mut self) {
        if !self.live {
            self.has_before = false;
            return;
        }
        self.cur = next_slot(self.cur);
        self.has_before = true;
        self.live = false;
    }

    /// The line has no position any more, and no position before it (none
    /// for an engine note either).
    pub fn lose(&mut self) {
        self.live = false;
        self.has_before = false;
        self.moves = 0;
    }

    /// No position for engine notes until the next move (a variation
    /// begins or ends, a game starts).
    pub fn resume(&mut self) {
        self.moves = 0;
    }

    /// The positions a note after the last move can start from.
    pub fn positions(&self) -> LinePositions<'_> {
        let before = prev_slot(self.cur);
        LinePositions {
            after: self.current().filter(|_| self.moves >= 1),
            before: self
                .has_before
                .then(|| &self.slots[before])
                .filter(|_| self.moves >= 1),
            before_previous: self
                .has_before
                .then(|| &self.slots[prev_slot(before)])
                .filter(|_| self.moves >= 2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::variant_null_move;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use shakmaty::{EnPassantMode, Position, Setup};

    /// The rule of `spec/extensions-engine.md` section 4 and of a RAV's
    /// start, kept the plain way: whole positions moved from field to field.
    #[derive(Clone, Default)]
    struct Model {
        pos: Option<VariantPosition>,
        prev: Option<VariantPosition>,
        prev2: Option<VariantPosition>,
        moves: u8,
    }

    impl Model {
        fn step(&mut self, after: Option<VariantPosition>) {
            self.prev2 = self.prev.take();
            self.prev = self.pos.take();
            self.pos = after;
        }
    }

    fn key(p: Option<&VariantPosition>) -> Option<Setup> {
        p.map(|p| p.to_setup(EnPassantMode::Always))
    }

    fn same(t: &LineTrail, m: &Model, what: &str) {
        let p = t.positions();
        let got = [
            key(t.current()),
            key(t.before()),
            key(p.after),
            key(p.before),
            key(p.before_previous),
        ];
        let want = [
            key(m.pos.as_ref()),
            key(m.prev.as_ref()),
            key(m.pos.as_ref().filter(|_| m.moves >= 1)),
            key(m.prev.as_ref().filter(|_| m.moves >= 1)),
            key(m.prev2.as_ref().filter(|_| m.moves >= 2)),
        ];
        let names = [
            "current",
            "before",
            "after",
            "note before",
            "before-previous",
        ];
        for i in 0..5 {
            assert_eq!(got[i], want[i], "{} after {what}", names[i]);
        }
    }

    /// Random moves, null moves, variations' resumes, stops and losses:
    /// the ring holds what the plain model holds, after every step.
    #[test]
    fn ring_agrees_with_plain_model() {
        let mut rng = StdRng::seed_from_u64(0x7261_696c);
        for _ in 0..200 {
            let start = VariantPosition::Chess(shakmaty::Chess::default());
            let mut t = LineTrail::at(start.clone());
            let mut m = Model {
                pos: Some(start.clone()),
                ..Model::default()
            };
            let mut reader = LineTrail::default();
            let mut reader_model = Model::default();
            for _ in 0..120 {
                let what = match rng.gen_range(0..20) {
                    0 => {
                        t.resume();
                        m.moves = 0;
                        "resume"
                    }
                    1 => {
                        if m.pos.is_some() {
                            t.stop();
                            m.step(None);
                        } else {
                            t.lose();
                            m = Model::default();
                        }
                        "stop"
                    }
                    2 => {
                        t.lose();
                        m = Model::default();
                        "lose"
                    }
                    3 => {
                        t.restart(start.clone());
                        m = Model {
                            pos: Some(start.clone()),
                            ..Model::default()
                        };
                        "restart"
                    }
                    4 => match m.pos.as_ref().and_then(variant_null_move) {
                        Some(after) => {
                            t.null_to(after.clone());
                            m.step(Some(after));
                            m.moves = 0;
                            "null move"
                        }
                        None => "no null move",
                    },
                    _ => {
                        let pos = m.pos.clone().unwrap_or_else(|| start.clone());
                        let moves = pos.legal_moves();
                        if moves.is_empty() || m.pos.is_none() {
                            t.restart(start.clone());
                            m = Model {
                                pos: Some(start.clone()),
                                ..Model::default()
                            };
                            same(&t, &m, "a restart");
                            continue;
                        }
                        let mv = moves[rng.gen_range(0..moves.len())];
                        let mut after = pos.clone();
                        crate::variant::play_unchecked(&mut after, mv);
                        if rng.gen_bool(0.5) {
                            t.play(mv);
                        } else {
                            t.moved_to(after.clone());
                        }
                        m.step(Some(after.clone()));
                        m.moves = (m.moves + 1).min(2);
                        // A reader told of the same move.
                        reader.played(&pos, &after);
                        reader_model.step(Some(after));
                        reader_model.prev = Some(pos);
                        reader_model.moves = (reader_model.moves + 1).min(2);
                        same(&reader, &reader_model, "a move told to a reader");
                        "move"
                    }
                };
                same(&t, &m, what);
            }
        }
    }
}
