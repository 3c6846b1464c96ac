//! The per-game engine-notes record, written ([`GameNotes`]).

use super::limits::MAX_TEMPLATES;
use super::moves::MovesFrom;
use super::note::{EngineNote, Piece};
use super::predictor::{Predictor, Search, write_numbers};
use super::stream::{MoveStream, Stream, StreamKeys};
use crate::ext::placement::Placement;
use crate::item::put_varint;

/// The engine notes of one game, collected into one record (kind 0x14).
///
/// A note is kept only right after an anchor (as for the commands record,
/// [`crate::ext::commands::GameCommands`]), at most one per anchor.
#[derive(Debug, Clone, Default)]
pub struct GameNotes {
    templates: Vec<u8>,
    template_ends: Vec<usize>,
    scratch: Vec<u8>,
    keys: StreamKeys,
    /// The stream of each value of the note being pushed.
    ids: Vec<u8>,
    place: Placement,
    streams: Vec<Stream>,
    notes: u64,
    /// The predictor each numbers stream took in the game before (kept
    /// by [`GameNotes::clear`]): where a file's games share their engines'
    /// templates, the bound that makes the predictor search short.
    hints: Vec<Option<Predictor>>,
    search: Search,
    /// The reply of each of the last two notes (`EngineNote::pv_reply`),
    /// the older first.
    replies: [Option<u8>; 2],
}

impl GameNotes {
    /// An empty collection.
    pub fn new() -> GameNotes {
        GameNotes::default()
    }

    /// Forgets everything (for the next game), keeping the buffers.
    pub fn clear(&mut self) {
        self.templates.clear();
        self.template_ends.clear();
        self.keys.keys.clear();
        self.place.clear();
        self.streams.clear();
        self.notes = 0;
        self.replies = [None, None];
    }

    /// Whether no note was pushed (then write no record).
    pub fn is_empty(&self) -> bool {
        self.notes == 0
    }

    /// Notes pushed.
    pub fn len(&self) -> u64 {
        self.notes
    }

    /// The reply of the note two notes before the next one pushed: what a
    /// one-move list from before the move before the last may be implied
    /// by ([`EngineNote::prefer_implied`]).
    pub fn two_back_reply(&self) -> Option<u8> {
        self.replies[0]
    }

    /// Whether [`GameNotes::push`] would take a note for `anchor`.
    pub fn accepts(&self, anchor: u64) -> bool {
        self.place.accepts(anchor)
    }

    fn find_scratch(&self) -> Option<u32> {
        let mut start = 0;
        for (i, &end) in self.template_ends.iter().enumerate() {
            if self.templates[start..end] == self.scratch[..] {
                return Some(i as u32);
            }
            start = end;
        }
        None
    }

    /// Records `note` as the note after anchor `anchor`. False, recording
    /// nothing, when the anchor is not above the previous note's, the note
    /// is empty, or the game has [`MAX_TEMPLATES`] other templates.
    pub fn push(&mut self, anchor: u64, note: &EngineNote) -> bool {
        if !self.accepts(anchor) || note.pieces.is_empty() {
            return false;
        }
        let mark = self.keys.keys.len();
        self.scratch.clear();
        self.ids.clear();
        note.template(&mut self.scratch, &mut self.keys, &mut self.ids);
        let t = match self.find_scratch() {
            Some(t) => t,
            None if self.template_ends.len() >= MAX_TEMPLATES => {
                self.keys.keys.truncate(mark);
                return false;
            }
            None => {
                self.templates.extend_from_slice(&self.scratch);
                self.template_ends.push(self.templates.len());
                (self.template_ends.len() - 1) as u32
            }
        };
        self.place.push(anchor, t);
        // Values, to the streams the template names.
        let values = note
            .pieces
            .iter()
            .filter(|p| !matches!(p, Piece::Literal(..)));
        let reply = note.pv_reply();
        for (p, &id) in values.zip(&self.ids) {
            let id = usize::from(id);
            while self.streams.len() <= id {
                self.streams.push(Stream::Numbers(Vec::new()));
            }
            if !matches!(p, Piece::Number(..)) && !matches!(self.streams[id], Stream::Moves(..)) {
                self.streams[id] = Stream::Moves(MoveStream::default());
            }
            match (&mut self.streams[id], *p) {
                (Stream::Numbers(v), Piece::Number(x, _)) => v.push(x),
                (Stream::Moves(m), Piece::Moves(from, s, e)) => {
                    let o = &note.bytes[s as usize..e as usize];
                    // A one-move list the PV implies (section 5).
                    let implied = match (from, o) {
                        (MovesFrom::After, &[x]) => reply == Some(x),
                        (MovesFrom::BeforePrevious, &[x]) => self.replies[0] == Some(x),
                        _ => false,
                    };
                    if implied {
                        m.push_implied(from, o[0]);
                    } else {
                        m.push_ordinals(from, o);
                    }
                }
                (Stream::Moves(m), Piece::MovesText(s, e)) => {
                    m.push_text(&note.bytes[s as usize..e as usize]);
                }
                _ => {}
            }
        }
        self.replies = [self.replies[1], reply];
        self.notes += 1;
        true
    }

    /// Appends the record payload (`spec/extensions-engine.md`). The
    /// bytes depend on this game's notes alone.
    pub fn to_payload(&mut self, out: &mut Vec<u8>) {
        put_varint(out, self.template_ends.len() as u64);
        out.extend_from_slice(&self.templates);
        self.place.write(out, self.template_ends.len());
        put_varint(out, self.streams.len() as u64);
        if self.hints.len() < self.streams.len() {
            self.hints.resize(self.streams.len(), None);
        }
        for (i, s) in self.streams.iter().enumerate() {
            match s {
                Stream::Numbers(v) => {
                    let hint = self.hints[i];
                    self.hints[i] = Some(write_numbers(
                        i,
                        v,
                        &self.streams,
                        hint,
                        &mut self.search,
                        out,
                    ));
                }
                Stream::Moves(m) => {
                    put_varint(out, m.lists.len() as u64);
                    out.extend_from_slice(&m.out);
                }
            }
        }
    }
}
