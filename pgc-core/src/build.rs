//! Building one game's records, in the order a game's text gives them, and
//! writing the game as one reduced record (0x01) or as a general game
//! (0x05 … 0x06).
//!
//! A game is written as 0x01 exactly when nothing but the reduced record's
//! content was given: the seven STR tags as tag pairs, in STR order, and
//! the moves of the main line (fewer than 65,536), with no record to lead
//! the game (layout, typed commands) and no other record (NAG, variation,
//! escape line, extension). Everything else is a general game.
//!
//! ```
//! use pgc_core::{GameBuilder, GameForm};
//!
//! let mut game = GameBuilder::new();
//! for (name, value) in [("Event", "?"), ("Site", "?"), ("Date", "????.??.??"), ("Round", "?"),
//!                       ("White", "?"), ("Black", "?"), ("Result", "*")] {
//!     game.tag(name.as_bytes(), value.as_bytes()).unwrap();
//! }
//! game.push_move(13); // 1. e4
//! let mut out = Vec::new();
//! assert_eq!(game.finish(&[], &mut out).unwrap(), GameForm::Reduced);
//! assert_eq!(out[0], 0x01);
//! ```

use crate::ext::{self, Outcome};
use crate::item::{TooLong, put_varint};
use crate::record::RecordRef;
use crate::walk::STR_TAGS;
use crate::writer::{write_moves, write_tag_pair};

/// Which record a game was written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameForm {
    /// One 0x01 record: the seven STR values and the main line.
    Reduced,
    /// 0x05, the game's records, 0x06.
    General,
}

/// Why a record could not be added to a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// An item is too long for its length header (an escape string over
    /// 65,535 bytes, an extension payload over 4 GiB).
    #[error(transparent)]
    TooLong(#[from] TooLong),
    /// A variation end (0x09) with no variation open.
    #[error("a variation end (0x09) with no variation open (expected a 0x08 before it)")]
    NoOpenVariation,
}

/// The tags of a game as far as the reduced record is concerned.
#[derive(Debug, Clone, Copy)]
struct Roster {
    /// Tags given, written or left out.
    tags: usize,
    /// Every tag so far was a tag pair named as the STR tag of its place.
    in_order: bool,
    /// Where each of the first seven tag values stands in the body.
    values: [(usize, usize); 7],
}

impl Roster {
    const fn new() -> Roster {
        Roster {
            tags: 0,
            in_order: true,
            values: [(0, 0); 7],
        }
    }
}

/// The body size from which [`GameBuilder::finish`] hands its body over as
/// the output instead of copying it (into an empty output).
const MOVED_BODY: usize = 1 << 20;

/// One game's records, built in reused buffers.
///
/// Call [`GameBuilder::clear`] before each game, add its records in text
/// order, then [`GameBuilder::finish`]. Moves are collected into runs and
/// written with the canonical record choice (`spec/pgc.md`): a run ends at
/// the next record of another kind.
#[derive(Debug, Clone)]
pub struct GameBuilder {
    /// The records after 0x05 (and after the leading records).
    body: Vec<u8>,
    /// Ordinals not yet written.
    run: Vec<u8>,
    /// Ordinals of the main line, for a reduced record.
    mainline: Vec<u8>,
    roster: Roster,
    /// A record other than a tag pair or moves was added.
    general: bool,
    /// Variations open.
    depth: u32,
    /// Where in `body` the termination marker stood.
    outcome_at: Option<usize>,
}

impl Default for GameBuilder {
    fn default() -> Self {
        GameBuilder::new()
    }
}

impl GameBuilder {
    /// An empty builder.
    pub fn new() -> GameBuilder {
        GameBuilder {
            body: Vec::with_capacity(4096),
            run: Vec::with_capacity(256),
            mainline: Vec::with_capacity(256),
            roster: Roster::new(),
            general: false,
            depth: 0,
            outcome_at: None,
        }
    }

    /// Forgets the game (the buffers are kept).
    pub fn clear(&mut self) {
        self.body.clear();
        self.run.clear();
        self.mainline.clear();
        self.roster = Roster::new();
        self.general = false;
        self.depth = 0;
        self.outcome_at = None;
    }

    /// Whether a tag fits a tag pair record (name and value of at most 255
    /// bytes each); [`GameBuilder::tag`] writes any other as a LONG_TAG
    /// extension record.
    pub const fn tag_fits(name: &[u8], value: &[u8]) -> bool {
        name.len() <= 255 && value.len() <= 255
    }

    /// Adds a tag: a tag pair record (0x02), or a LONG_TAG extension record
    /// when the name or value is longer than 255 bytes.
    ///
    /// # Errors
    /// [`BuildError::TooLong`] for a tag over 4 GiB (nothing is written).
    pub fn tag(&mut self, name: &[u8], value: &[u8]) -> Result<(), BuildError> {
        if !Self::tag_fits(name, value) {
            self.roster_tag(None);
            let mut payload = Vec::with_capacity(5 + name.len() + value.len());
            put_varint(&mut payload, name.len() as u64);
            payload.extend_from_slice(name);
            payload.extend_from_slice(value);
            return self.extension(ext::LONG_TAG, &payload);
        }
        self.flush_run();
        let start = self.body.len();
        write_tag_pair(&mut self.body, name, value)?;
        // 0x02, name length, name, value length: then the value.
        let at = start + 3 + name.len();
        self.roster_tag(Some((name, (at, at + value.len()))));
        Ok(())
    }

    /// Counts a tag that is not written (strict mode leaves a long tag out):
    /// the game cannot be a reduced record then.
    pub fn omit_tag(&mut self) {
        self.roster_tag(None);
    }

    fn roster_tag(&mut self, pair: Option<(&[u8], (usize, usize))>) {
        let r = &mut self.roster;
        let place = r.tags;
        r.tags += 1;
        match (pair, STR_TAGS.get(place), r.values.get_mut(place)) {
            (Some((name, value)), Some(&want), Some(slot)) if name == want => *slot = value,
            _ => r.in_order = false,
        }
    }

    /// Adds a move (its ordinal) to the current line.
    #[inline]
    pub fn push_move(&mut self, ordinal: u8) {
        self.run.push(ordinal);
        if self.depth == 0 {
            self.mainline.push(ordinal);
        }
    }

    /// Adds a NAG: a simple NAG record (0x07) up to 255, a LONG_NAG
    /// extension record above.
    ///
    /// # Errors
    /// None in practice (the payload is at most five bytes); the type is
    /// the one of every record.
    pub fn nag(&mut self, nag: u32) -> Result<(), BuildError> {
        match u8::try_from(nag) {
            Ok(n) => self.record(&RecordRef::Nag(n)),
            Err(_) => {
                let mut payload = Vec::with_capacity(5);
                put_varint(&mut payload, nag);
                self.extension(ext::LONG_NAG, &payload)
            }
        }
    }

    /// Opens a variation (0x08).
    ///
    /// # Errors
    /// None in practice; the type is the one of every record.
    pub fn begin_variation(&mut self) -> Result<(), BuildError> {
        self.record(&RecordRef::RavBegin)?;
        self.depth += 1;
        Ok(())
    }

    /// Closes the innermost variation (0x09).
    ///
    /// # Errors
    /// [`BuildError::NoOpenVariation`] (nothing is written).
    pub fn end_variation(&mut self) -> Result<(), BuildError> {
        if self.depth == 0 {
            return Err(BuildError::NoOpenVariation);
        }
        self.record(&RecordRef::RavEnd)?;
        self.depth -= 1;
        Ok(())
    }

    /// Closes every variation still open; how many were.
    pub fn close_variations(&mut self) -> u32 {
        let open = self.depth;
        while self.end_variation().is_ok() {}
        open
    }

    /// Variations open.
    pub const fn depth(&self) -> u32 {
        self.depth
    }

    /// Adds an escape string record (0x0a).
    ///
    /// # Errors
    /// [`BuildError::TooLong`] for more than 65,535 bytes (nothing is written).
    pub fn escape(&mut self, text: &[u8]) -> Result<(), BuildError> {
        self.record(&RecordRef::Escape(text))
    }

    /// Adds an extension record (0x80).
    ///
    /// # Errors
    /// [`BuildError::TooLong`] for a payload over 4 GiB (nothing is written).
    pub fn extension(&mut self, kind: u8, payload: &[u8]) -> Result<(), BuildError> {
        self.record(&RecordRef::Extension { kind, payload })
    }

    fn record(&mut self, rec: &RecordRef<'_>) -> Result<(), BuildError> {
        self.flush_run();
        self.general = true;
        rec.write_to(&mut self.body)?;
        Ok(())
    }

    fn flush_run(&mut self) {
        write_moves(&mut self.body, &self.run);
        self.run.clear();
    }

    /// Notes that the termination marker stands here (after the records
    /// added so far).
    pub fn mark_outcome(&mut self) {
        self.flush_run();
        self.outcome_at = Some(self.body.len());
    }

    /// Whether records were added after the termination marker (a `;`
    /// comment, an escape line): a TERMINATION record then keeps the
    /// marker's place even when the Result tag says the same.
    pub fn records_after_outcome(&mut self) -> bool {
        self.flush_run();
        self.outcome_at.is_some_and(|at| at < self.body.len())
    }

    /// Adds a TERMINATION extension record where the marker stood (at the
    /// end when there was none).
    ///
    /// # Errors
    /// None in practice; the type is the one of every record.
    pub fn termination(&mut self, outcome: Outcome) -> Result<(), BuildError> {
        self.flush_run();
        let end = self.body.len();
        let at = self.outcome_at.unwrap_or(end).min(end);
        self.record(&RecordRef::Extension {
            kind: ext::TERMINATION,
            payload: &[outcome as u8],
        })?;
        let written = self.body.len() - end;
        if let Some(moved) = self.body.get_mut(at..) {
            moved.rotate_right(written);
        }
        Ok(())
    }

    /// Writes the game to `out`: the reduced record when the game allows
    /// it (see the module documentation), else 0x05, the `lead` records
    /// (LAYOUT, typed commands: records that describe the whole game), the
    /// game's records and 0x06. Variations still open are not closed here
    /// (see [`GameBuilder::close_variations`]).
    ///
    /// # Errors
    /// [`BuildError::TooLong`] when a `lead` record is (nothing of the
    /// game is written then).
    pub fn finish(
        &mut self,
        lead: &[RecordRef<'_>],
        out: &mut Vec<u8>,
    ) -> Result<GameForm, BuildError> {
        self.flush_run();
        let start = out.len();
        let r = self.write_game(lead, out);
        if r.is_err() {
            out.truncate(start);
        }
        r
    }

    fn write_game(
        &mut self,
        lead: &[RecordRef<'_>],
        out: &mut Vec<u8>,
    ) -> Result<GameForm, BuildError> {
        if let Some(roster) = self.reduced_roster(lead) {
            RecordRef::ReducedGame {
                roster,
                moves: &self.mainline,
            }
            .write_to(out)?;
            return Ok(GameForm::Reduced);
        }
        if out.is_empty() && self.body.len() >= MOVED_BODY {
            // A big body becomes the output, its head put in front of it:
            // the game is not held twice (the two buffers trade places).
            let mut head = std::mem::take(out);
            RecordRef::GameBegin.write_to(&mut head)?;
            for rec in lead {
                rec.write_to(&mut head)?;
            }
            std::mem::swap(out, &mut self.body);
            out.splice(0..0, head.iter().copied());
            RecordRef::GameEnd.write_to(out)?;
            head.clear();
            self.body = head;
            return Ok(GameForm::General);
        }
        RecordRef::GameBegin.write_to(out)?;
        for rec in lead {
            rec.write_to(out)?;
        }
        out.extend_from_slice(&self.body);
        RecordRef::GameEnd.write_to(out)?;
        Ok(GameForm::General)
    }

    /// The seven STR values when the game is a reduced record.
    fn reduced_roster(&self, lead: &[RecordRef<'_>]) -> Option<[&[u8]; 7]> {
        let r = &self.roster;
        if self.general
            || !lead.is_empty()
            || r.tags != 7
            || !r.in_order
            || self.mainline.len() > usize::from(u16::MAX)
        {
            return None;
        }
        let mut roster: [&[u8]; 7] = [&[]; 7];
        for (slot, &(s, e)) in roster.iter_mut().zip(&r.values) {
            *slot = self.body.get(s..e)?;
        }
        Some(roster)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEVEN: [(&str, &str); 7] = [
        ("Event", "F/S Return Match"),
        ("Site", "Belgrade, Serbia JUG"),
        ("Date", "1992.11.04"),
        ("Round", "29"),
        ("White", "Fischer, Robert J."),
        ("Black", "Spassky, Boris V."),
        ("Result", "1/2-1/2"),
    ];

    fn seven(b: &mut GameBuilder) {
        for (n, v) in SEVEN {
            b.tag(n.as_bytes(), v.as_bytes()).unwrap();
        }
    }

    /// A string-1 by hand: length byte, bytes.
    fn s1(out: &mut Vec<u8>, s: &str) {
        out.push(s.len() as u8);
        out.extend_from_slice(s.as_bytes());
    }

    fn finish(b: &mut GameBuilder, lead: &[RecordRef<'_>]) -> (GameForm, Vec<u8>) {
        let mut out = Vec::new();
        let form = b.finish(lead, &mut out).unwrap();
        (form, out)
    }

    #[test]
    fn a_big_game_is_the_same_bytes_moved_or_copied() {
        // Over 1 MiB of NAG records (0x04 and a byte): into an empty output
        // the body is handed over, into a non-empty one it is copied.
        let build = |b: &mut GameBuilder| {
            b.clear();
            seven(b);
            b.push_move(13);
            for _ in 0..600_000 {
                b.nag(1).unwrap();
            }
        };
        let layout = RecordRef::Extension {
            kind: crate::ext::LAYOUT,
            payload: &[0, 79, 1],
        };
        let mut b = GameBuilder::new();
        build(&mut b);
        let mut copied = vec![0x00];
        assert_eq!(b.finish(&[layout], &mut copied).unwrap(), GameForm::General);
        build(&mut b);
        let mut moved = Vec::new();
        assert_eq!(b.finish(&[layout], &mut moved).unwrap(), GameForm::General);
        assert_eq!(moved, copied[1..]);
        assert_eq!(moved[..6], [0x05, 0x80, crate::ext::LAYOUT, 3, 0, 79]);
        assert_eq!(moved.last(), Some(&0x06));
        assert!(moved.len() > MOVED_BODY);
        // The builder goes on with the output's old buffer.
        build(&mut b);
        let mut again = Vec::new();
        b.finish(&[layout], &mut again).unwrap();
        assert_eq!(again, moved);
    }

    #[test]
    fn the_seven_str_tags_and_main_line_moves_are_a_reduced_record() {
        let mut b = GameBuilder::new();
        seven(&mut b);
        for o in [13, 12, 4] {
            b.push_move(o);
        }
        let (form, out) = finish(&mut b, &[]);
        assert_eq!(form, GameForm::Reduced);
        // 20.4.1: 0x01, seven string-1 values, mvseq-2.
        let mut want = vec![0x01];
        for (_, v) in SEVEN {
            s1(&mut want, v);
        }
        want.extend_from_slice(&[3, 0, 13, 12, 4]);
        assert_eq!(out, want);
    }

    #[test]
    fn anything_else_is_a_general_game() {
        type Step = fn(&mut GameBuilder);
        let cases: [(&str, Step); 8] = [
            ("a NAG", |b| b.nag(1).unwrap()),
            ("a variation", |b| {
                b.begin_variation().unwrap();
                b.push_move(0);
                b.end_variation().unwrap();
            }),
            ("an escape line", |b| b.escape(b"x").unwrap()),
            ("a comment", |b| b.extension(ext::COMMENT, b"c").unwrap()),
            ("an eighth tag", |b| b.tag(b"ECO", b"C95").unwrap()),
            ("a left-out tag", |b| b.omit_tag()),
            ("a termination record", |b| {
                b.termination(Outcome::Unknown).unwrap()
            }),
            ("65,536 moves", |b| {
                for _ in 0..65_536 {
                    b.push_move(0);
                }
            }),
        ];
        for (what, step) in cases {
            let mut b = GameBuilder::new();
            seven(&mut b);
            step(&mut b);
            let (form, out) = finish(&mut b, &[]);
            assert_eq!(form, GameForm::General, "{what}");
            assert_eq!((out[0], out[out.len() - 1]), (0x05, 0x06), "{what}");
        }
        // 65,535 moves still fit a mvseq-2.
        let mut b = GameBuilder::new();
        seven(&mut b);
        for _ in 0..65_535 {
            b.push_move(0);
        }
        assert_eq!(finish(&mut b, &[]).0, GameForm::Reduced);
        // A leading record (layout) makes a general game too.
        let mut b = GameBuilder::new();
        seven(&mut b);
        let lead = [RecordRef::Extension {
            kind: ext::LAYOUT,
            payload: &[1, 79, 2],
        }];
        let (form, out) = finish(&mut b, &lead);
        assert_eq!(form, GameForm::General);
        assert_eq!(&out[..6], &[0x05, 0x80, ext::LAYOUT, 3, 1, 79]);
    }

    #[test]
    fn str_tags_out_of_order_or_missing_are_a_general_game() {
        let mut b = GameBuilder::new();
        for (n, v) in SEVEN.iter().rev() {
            b.tag(n.as_bytes(), v.as_bytes()).unwrap();
        }
        assert_eq!(finish(&mut b, &[]).0, GameForm::General);
        let mut b = GameBuilder::new();
        for (n, v) in &SEVEN[..6] {
            b.tag(n.as_bytes(), v.as_bytes()).unwrap();
        }
        assert_eq!(finish(&mut b, &[]).0, GameForm::General);
        // A value of 256 bytes is a LONG_TAG record, not a tag pair.
        let mut b = GameBuilder::new();
        for (n, v) in &SEVEN[..6] {
            b.tag(n.as_bytes(), v.as_bytes()).unwrap();
        }
        b.tag(b"Result", &[b'x'; 256]).unwrap();
        let (form, out) = finish(&mut b, &[]);
        assert_eq!(form, GameForm::General);
        // 0x80, LONG_TAG, LEB128 length 263 (0x87 0x02), name length 6.
        let at = out.len() - 1 - (4 + 1 + 6 + 256);
        assert_eq!(&out[at..at + 5], &[0x80, ext::LONG_TAG, 0x87, 0x02, 6]);
    }

    #[test]
    fn a_general_game_is_its_records_between_the_markers() {
        let mut b = GameBuilder::new();
        b.tag(b"White", b"A").unwrap();
        b.push_move(13);
        b.push_move(12);
        b.begin_variation().unwrap();
        b.push_move(3);
        b.end_variation().unwrap();
        b.nag(300).unwrap();
        b.push_move(9);
        let (form, out) = finish(&mut b, &[]);
        assert_eq!(form, GameForm::General);
        let want: &[u8] = &[
            0x05, //
            0x02,
            5,
            b'W',
            b'h',
            b'i',
            b't',
            b'e',
            1,
            b'A', //
            0x03,
            2,
            13,
            12, //
            0x08,
            0x03,
            1,
            3,
            0x09, //
            0x80,
            ext::LONG_NAG,
            2,
            0xac,
            0x02, // 300 in LEB128
            0x03,
            1,
            9, //
            0x06,
        ];
        assert_eq!(out, want);
    }

    #[test]
    fn the_termination_record_keeps_the_markers_place() {
        let mut b = GameBuilder::new();
        b.push_move(13);
        b.mark_outcome();
        assert!(!b.records_after_outcome());
        b.extension(ext::LINE_COMMENT, b"after").unwrap();
        assert!(b.records_after_outcome());
        b.termination(Outcome::WhiteWins).unwrap();
        let (_, out) = finish(&mut b, &[]);
        let want: &[u8] = &[
            0x05,
            0x03,
            1,
            13, //
            0x80,
            ext::TERMINATION,
            1,
            1, //
            0x80,
            ext::LINE_COMMENT,
            5,
            b'a',
            b'f',
            b't',
            b'e',
            b'r', //
            0x06,
        ];
        assert_eq!(out, want);
        // No marker: the record goes at the end.
        let mut b = GameBuilder::new();
        b.push_move(13);
        b.termination(Outcome::Missing).unwrap();
        let (_, out) = finish(&mut b, &[]);
        assert_eq!(out, [0x05, 0x03, 1, 13, 0x80, ext::TERMINATION, 1, 0, 0x06]);
    }

    #[test]
    fn impossible_records_are_errors_and_write_nothing() {
        let mut b = GameBuilder::new();
        assert_eq!(b.end_variation(), Err(BuildError::NoOpenVariation));
        let long = vec![b'%'; 65_536];
        assert!(matches!(b.escape(&long), Err(BuildError::TooLong(_))));
        b.begin_variation().unwrap();
        b.begin_variation().unwrap();
        assert_eq!(b.close_variations(), 2);
        assert_eq!(b.depth(), 0);
        let (_, out) = finish(&mut b, &[]);
        assert_eq!(out, [0x05, 0x08, 0x08, 0x09, 0x09, 0x06]);
    }

    #[test]
    fn clear_forgets_the_game() {
        let mut b = GameBuilder::new();
        b.nag(3).unwrap();
        b.begin_variation().unwrap();
        b.clear();
        seven(&mut b);
        assert_eq!(finish(&mut b, &[]).0, GameForm::Reduced);
    }
}
