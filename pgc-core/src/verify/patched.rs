//! The rendering check of text-patched games: a game's text patch
//! (spec/extensions.md, kind 0x0b) edits the decoder's rendering of the
//! game, so whether its edits fit is known only by rendering it. pgc-core
//! has no PGN writer; a [`RenderCheck`] (pgn-bridge's) renders each patched
//! game that the other checks found sound, from the records gathered here.

use super::problem::Problem;
use crate::ext;
use crate::game::may_lead;
use crate::limits::Limits;
use crate::record::RecordRef;

/// Renders one text-patched game and applies its patch, for
/// [`crate::Verifier::verify_rendering`].
pub trait RenderCheck {
    /// `pgc` holds the records of one general game with a text patch, and
    /// before them the records between the game before it (or a verbatim
    /// record) and this one, whose text belongs to the game's rendering;
    /// noop records are left out. Returns the first problem that rendering
    /// them (reading records under `limits`, the verifier's) finds, with
    /// [`Problem::offset`] counted in `pgc`.
    fn check(&mut self, pgc: &[u8], limits: Limits) -> Option<Problem>;
}

/// Where the gathering of the current game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between games: records whose text leads the next game's.
    Outside,
    /// After 0x05, among the records that may lead a game
    /// ([`may_lead`]) and before its text patch, if any.
    Lead,
    /// The game has a text patch.
    Patched,
    /// The game has no text patch: nothing gathered up to its end.
    Plain,
}

/// The records of the current game, as read, for its [`RenderCheck`].
pub(super) struct Gather {
    /// Whether records are gathered (only for a [`RenderCheck`]).
    keep: bool,
    state: State,
    bytes: Vec<u8>,
    /// Each gathered record's place in `bytes` and its offset in the input.
    spans: Vec<(usize, u64)>,
}

impl Gather {
    pub(super) fn new(keep: bool) -> Gather {
        Gather {
            keep,
            state: State::Outside,
            bytes: Vec::new(),
            spans: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }

    fn push(&mut self, offset: u64, raw: &[u8]) {
        if !self.keep {
            return;
        }
        self.spans.push((self.bytes.len(), offset));
        self.bytes.extend_from_slice(raw);
    }

    /// Forgets the records gathered: after a framing error, or when a game
    /// is dropped. Reading goes on as between games.
    pub(super) fn reset(&mut self) {
        self.clear();
        self.state = State::Outside;
    }

    /// Takes one record (`raw` its bytes as read). Where a text patch may
    /// stand is the game grammar's rule ([`crate::game`]); a game is
    /// gathered while its records may lead it, and to its end once its
    /// patch came.
    pub(super) fn record(&mut self, offset: u64, rec: &RecordRef<'_>, raw: &[u8]) {
        match (self.state, rec) {
            (_, RecordRef::Noop) => {}
            (State::Outside, RecordRef::GameBegin) => {
                self.state = State::Lead;
                self.push(offset, raw);
            }
            (
                State::Outside,
                RecordRef::ReducedGame { .. }
                | RecordRef::Extension {
                    kind: ext::VERBATIM,
                    ..
                },
            ) => {
                // Its own text: the next game's begins after it.
                self.clear();
            }
            (State::Outside, _) => self.push(offset, raw),
            (
                State::Lead,
                RecordRef::Extension {
                    kind: ext::TEXT_PATCH,
                    ..
                },
            ) => {
                self.state = State::Patched;
                self.push(offset, raw);
            }
            (State::Lead, RecordRef::Extension { kind, .. }) if may_lead(*kind) => {
                self.push(offset, raw);
            }
            (State::Lead, _) => {
                self.state = State::Plain;
                self.clear();
                self.end(rec);
            }
            (State::Patched, _) => self.push(offset, raw),
            (State::Plain, _) => self.end(rec),
        }
    }

    /// After a plain game's record: its end.
    fn end(&mut self, rec: &RecordRef<'_>) {
        if matches!(rec, RecordRef::GameEnd) {
            self.state = State::Outside;
        }
    }

    /// Whether `rec` ended a patched game, whose records are then ready
    /// for [`Self::render`].
    pub(super) fn finished(&mut self, rec: &RecordRef<'_>) -> bool {
        let done = self.state == State::Patched && matches!(rec, RecordRef::GameEnd);
        if done {
            self.state = State::Outside;
        }
        done
    }

    /// Renders the gathered game with `check`, its problem placed in the
    /// input; the records are forgotten.
    pub(super) fn render(
        &mut self,
        check: &mut dyn RenderCheck,
        limits: Limits,
    ) -> Option<Problem> {
        let found = check.check(&self.bytes, limits).map(|mut p| {
            let i = self.spans.partition_point(|&(at, _)| at as u64 <= p.offset);
            if let Some(&(at, offset)) = i.checked_sub(1).and_then(|i| self.spans.get(i)) {
                p.offset = offset + (p.offset - at as u64);
            }
            p
        });
        self.clear();
        found
    }
}
