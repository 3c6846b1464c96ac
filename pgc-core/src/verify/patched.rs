//! The rendering check of text-patched games: a game's text patch
//! (spec/extensions.md, kind 0x0b) edits the decoder's rendering of the
//! game, so whether its edits fit is known only by rendering it. pgc-core
//! has no PGN writer; a [`RenderCheck`] (pgn-bridge's) renders each patched
//! game that the other checks found sound, from the records gathered here.

use super::problem::Problem;
use crate::ext;
use crate::game::GameParser;
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

/// The records of the current game, as read, for its [`RenderCheck`].
pub(super) struct Gather {
    /// The open game has a text patch (the game parser's word, kept past
    /// the game's 0x06).
    patched: bool,
    bytes: Vec<u8>,
    /// Each gathered record's place in `bytes` and its offset in the input.
    spans: Vec<(usize, u64)>,
}

impl Gather {
    pub(super) fn new() -> Gather {
        Gather {
            patched: false,
            bytes: Vec::new(),
            spans: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }

    fn push(&mut self, offset: u64, raw: &[u8]) {
        self.spans.push((self.bytes.len(), offset));
        self.bytes.extend_from_slice(raw);
    }

    /// Forgets the records gathered: after a framing error, or when a game
    /// is dropped. Reading goes on as between games.
    pub(super) fn reset(&mut self) {
        self.clear();
        self.patched = false;
    }

    /// Takes one record (`raw` its bytes as read) once `parser` took it:
    /// where a text patch may stand is the game grammar's rule, so a game
    /// is gathered while its records may lead it ([`GameParser::leads`])
    /// and to its end once its patch came. Returns whether the record
    /// ended a game with a text patch, ready for [`Self::render`].
    pub(super) fn record(
        &mut self,
        offset: u64,
        rec: &RecordRef<'_>,
        raw: &[u8],
        parser: &GameParser,
    ) -> bool {
        match rec {
            RecordRef::Noop => false,
            RecordRef::GameEnd => {
                let patched = std::mem::take(&mut self.patched);
                if patched {
                    self.push(offset, raw);
                } else {
                    self.clear();
                }
                patched
            }
            _ if parser.in_game() => {
                self.patched = parser.patched();
                if self.patched || parser.leads() {
                    self.push(offset, raw);
                } else {
                    self.clear();
                }
                false
            }
            RecordRef::ReducedGame { .. }
            | RecordRef::Extension {
                kind: ext::VERBATIM,
                ..
            } => {
                // Its own text: the next game's begins after it.
                self.clear();
                false
            }
            // Between games: text that leads the next game's.
            _ => {
                self.push(offset, raw);
                false
            }
        }
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
