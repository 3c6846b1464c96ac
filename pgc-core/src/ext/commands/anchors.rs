//! Which item of a game each typed comment belongs to ([`Anchors`]).

use super::comment::TypedComment;
use super::record::GameCommandsReader;
use crate::ext::engine::{
    EngineNote, GameNotesReader, NoteSummary, render_note, render_note_with_pv,
};
use crate::ext::error::PayloadError;
use crate::trail::LineTrail;

/// Counts a game's anchors (see [`GameCommands`](super::GameCommands)) and hands out the typed
/// comment of each from the game's commands record: the one place that
/// decides which item a typed comment belongs to, for every reader.
///
/// Per game: [`Anchors::begin_game`], [`Anchors::load`] when the commands
/// record comes, then [`Anchors::after_anchor`] after every anchor in record
/// order (each move of a move record, a 0x07 NAG, and the extension kinds of
/// [`crate::ext::ExtKind::is_anchor`]), variations included.
///
/// ```
/// use pgc_core::ext::commands::{Anchors, Clock, ClockFormat, GameCommands, Separator, TimeKind, TypedComment};
///
/// let mut c = TypedComment::new();
/// c.push_time(Separator::Space, TimeKind::Clk, Clock { millis: 180_000 }, ClockFormat::HMS);
/// let mut game = GameCommands::new();
/// assert!(game.push(1, &c)); // after the second anchor
/// let mut payload = Vec::new();
/// game.to_payload(&mut payload);
///
/// let mut anchors = Anchors::new();
/// anchors.begin_game();
/// anchors.load(&payload).unwrap();
/// let mut out = TypedComment::new();
/// assert!(!anchors.after_anchor(&mut out)); // anchor 0: e4
/// assert!(anchors.after_anchor(&mut out)); // anchor 1: e5
/// assert_eq!(out.clk(), Some(Clock { millis: 180_000 }));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Anchors {
    reader: GameCommandsReader,
    loaded: bool,
    notes: GameNotesReader,
    notes_loaded: bool,
    /// The note handed out last by [`Anchors::note_text_here`].
    note: EngineNote,
    next: u64,
}

impl Anchors {
    /// A counter with no record.
    pub fn new() -> Anchors {
        Anchors::default()
    }

    /// A game begins: anchor 0 is next, and no record is loaded.
    pub fn begin_game(&mut self) {
        if self.loaded {
            self.reader.clear();
        }
        if self.notes_loaded {
            self.notes.clear();
        }
        self.loaded = false;
        self.notes_loaded = false;
        self.next = 0;
    }

    /// Loads the game's engine-notes record (kind 0x14).
    ///
    /// # Errors
    /// As [`GameNotesReader::load`]; the game then has no engine note.
    pub fn load_notes(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let r = self.notes.load(payload);
        self.notes_loaded = r.is_ok();
        r
    }

    /// The engine note after the anchor counted last, if it has one, with
    /// its text written to `text` (emptied first) from `line`'s positions.
    ///
    /// # Errors
    /// `Some(Err(…))`: the note names a start position `line` does not
    /// have there, or an ordinal of no legal move (the game's notes record
    /// is refused, as `pgc verify` refuses it).
    pub fn note_text_here(
        &mut self,
        line: &LineTrail,
        text: &mut Vec<u8>,
    ) -> Option<Result<&EngineNote, PayloadError>> {
        if !self.load_note_here() {
            return None;
        }
        text.clear();
        Some(match render_note(&self.note, &line.positions(), text) {
            Ok(()) => Ok(&self.note),
            Err(e) => Err(e.to_payload_error()),
        })
    }

    /// [`Anchors::note_text_here`], handing the moves of the note's
    /// principal variation to `on_pv` as they are written, and giving the
    /// note's summary ([`render_note_with_pv`]): the moves are played and
    /// the keys read once for both.
    ///
    /// # Errors
    /// As [`Anchors::note_text_here`]; `on_pv` may have had some of the
    /// moves.
    pub fn note_text_and_pv_here(
        &mut self,
        line: &LineTrail,
        text: &mut Vec<u8>,
        on_pv: impl FnMut(shakmaty::Move),
    ) -> Option<Result<NoteSummary<'_>, PayloadError>> {
        if !self.load_note_here() {
            return None;
        }
        text.clear();
        Some(
            render_note_with_pv(&self.note, &line.positions(), text, on_pv)
                .map_err(|e| e.to_payload_error()),
        )
    }

    /// Loads the note after the anchor counted last into `self.note`;
    /// whether there is one.
    fn load_note_here(&mut self) -> bool {
        let mut note = std::mem::take(&mut self.note);
        let found = self.note_here(&mut note);
        self.note = note;
        found
    }

    /// Whether an engine-notes record is loaded.
    pub fn has_notes(&self) -> bool {
        self.notes_loaded
    }

    /// The engine note after the anchor counted last, into `out`, if it
    /// has one. Call it after [`Anchors::after_anchor`] (or its `_with`
    /// form, or [`Anchors::skip`]) for the same anchor: a note is written
    /// after the anchor's typed commands comment, if both are there.
    #[inline]
    pub fn note_here(&mut self, out: &mut EngineNote) -> bool {
        self.notes_loaded && self.next > 0 && self.notes.note_at(self.next - 1, out)
    }

    /// Loads the game's commands record (kind 0x10).
    ///
    /// # Errors
    /// As [`GameCommandsReader::load`]; the game then has no typed comment.
    pub fn load(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let r = self.reader.load(payload);
        self.loaded = r.is_ok();
        r
    }

    /// Whether a commands or engine-notes record is loaded (a reader that
    /// wants typed comments must then count every anchor).
    pub fn is_loaded(&self) -> bool {
        self.loaded || self.notes_loaded
    }

    /// Anchors counted so far in the game.
    pub fn count(&self) -> u64 {
        self.next
    }

    /// An anchor was read: counts it and, if a typed comment follows it,
    /// puts it in `out` and returns true.
    #[inline]
    pub fn after_anchor(&mut self, out: &mut TypedComment) -> bool {
        let a = self.next;
        self.next += 1;
        self.loaded && self.reader.typed_at(a, out)
    }

    /// An anchor was read: counts it and, if a typed comment follows it,
    /// calls `f` with it.
    #[inline]
    pub fn after_anchor_with<T>(&mut self, f: impl FnOnce(&TypedComment) -> T) -> Option<T> {
        let a = self.next;
        self.next += 1;
        if !self.loaded {
            return None;
        }
        self.reader.with_typed_at(a, f)
    }

    /// Counts `n` anchors at once, for a reader that wants no comment.
    pub fn skip(&mut self, n: u64) {
        self.next += n;
    }
}
