//! The verifier: checks a PGC file written by any tool and reports **every**
//! problem it can find, each with its byte offset, game, ply and marker.
//!
//! Four layers of checks, in one forward pass with bounded memory and no
//! recursion:
//!
//! 1. **Framing** (section 20.4): every record starts with a known marker
//!    byte and its items are complete. After a framing error (an unknown
//!    marker byte, a length over [`Limits::max_string`], a record cut off)
//!    the verifier reads on with a resynchronising
//!    [`Reader`]: it skips to the next offset
//!    where a game frames ([`crate::stream::resync_point`]: a 0x05, or a
//!    0x01 that frames whole with a termination marker as its Result),
//!    reports the run once and counts the bytes skipped
//!    ([`Report::junk_bytes`]). A game found that way is on probation until
//!    it ends: at its first problem the verifier goes back and searches on
//!    from the byte after its start, since a stray 0x05 byte (a string
//!    length, an ordinal) followed by a long record could swallow the games
//!    after it.
//! 2. **Structure**, the game grammar of [`crate::game`] (the walker's
//!    too, so that what passes here also decodes): 0x05/0x06 and 0x08/0x09 balance; no 0x01 or 0x05 inside
//!    a general game (20.4.5); no tag pair after the movetext began; a RAV
//!    only after a move; tags, moves, NAGs and RAVs only inside a game
//!    (reported once per run of such records); RAV nesting up to
//!    [`Limits::max_rav_depth`] (deeper RAVs are reported once and skipped).
//! 3. **Legality** (20.2): every move ordinal is below the number of legal
//!    moves of its position. Each game is replayed from its `FEN` tag (a
//!    0x02 tag pair or a [`ext::LONG_TAG`] extension, read with
//!    [`start_position`]) or the initial position; null-move extension
//!    records switch sides. After a bad ordinal the rest of that line (main
//!    line or variation) is not replayed, but its structure is still checked;
//!    a RAV right after the bad move is replayed from the position before it.
//! 4. **Tag values** (section 8.1.1): a tag value (of a 0x01 record, a 0x02
//!    tag pair or a [`ext::LONG_TAG`] extension) holds no newline (0x0A):
//!    a PGN tag pair is one line, so such a value frames as PGC but has no
//!    PGN form ([`crate::record::is_tag_line_break`]). It is reported once
//!    per tag, at the first newline. Other control bytes (a tab, a carriage
//!    return) are not reported: a PGN reader lets them through and the
//!    encoder keeps them, so that the PGN comes back byte for byte.
//!
//! # Extension records
//!
//! Extension records (marker 0x80) are counted per kind in
//! [`Report::extensions`]. A kind this crate does not know is **not** a
//! problem: the record frames with its length, so any reader can skip it.
//! The payload of every known kind goes through its codec ([`ext::check`]):
//! termination, long tag, long NAG, move spelling, layout and the typed
//! commands record are decoded whole, and a payload the codec refuses is a
//! problem at the record, naming the kind and the payload byte.
//! Null moves, long tags and long NAGs are movetext or tags, so they must be
//! inside a game.
//!
//! # Positions in problems
//!
//! [`Problem::offset`] is the offset of the record's marker byte, except for
//! a bad move ordinal, where it is the offset of the ordinal byte itself.
//! [`Problem::game`] is the 0-based game index (shown 1-based);
//! [`Problem::ply`] is the ply within the game, counted from its start
//! position through the current line (a variation's first move has the ply
//! of the move it replaces); for a bad ordinal it is that move's ply.
//!
//! ```
//! use pgc_core::{Limits, verify};
//! // 1. e4 and then ordinal 40, but the position after 1. e4 has 20 moves.
//! let pgc: &[u8] = &[0x05, 0x03, 2, 13, 40, 0x06];
//! let report = verify(pgc, Limits::default()).unwrap();
//! assert_eq!(report.problems.len(), 1);
//! assert_eq!(
//!     report.problems[0].to_string(),
//!     "byte 4, game 1, ply 2, 0x03 short-moves: expected an ordinal below 20 (legal moves), found 40"
//! );
//! ```

use crate::ext::engine::{EngineNote, GameNotesReader, LineTrail, render_note};
use crate::ext::{self, ExtKind};
use crate::game::{Event, GameError, GameErrorKind, GameParser, STR_TAGS};
use crate::item::ItemKind;
use crate::limits::Limits;
use crate::ordinal::{self, OrdinalError};
use crate::record::{Marker, RecordRef, first_tag_line_break, is_tag_line_break};
use crate::setup::variant_start_position;
use crate::stream::{Mode, ReadError, Reader};
use crate::variant::{Variant, VariantPosition, variant_of_tag};
use patched::Gather;
use shakmaty::Chess;
use std::collections::BTreeMap;
use std::io::{self, Read};

mod patched;
mod problem;

pub use patched::RenderCheck;
pub use problem::Problem;

/// How many problems [`verify`] keeps by default; the rest are counted in
/// [`Report::problems_dropped`].
pub const DEFAULT_MAX_PROBLEMS: usize = 1000;

/// What [`verify`] found: the problems and counts of what the input holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The problems, sorted by offset, up to the configured maximum.
    pub problems: Vec<Problem>,
    /// Problems found beyond the maximum and not kept.
    pub problems_dropped: u64,
    /// Games seen (0x01 records and 0x05 game-begin records).
    pub games: u64,
    /// Moves seen (move ordinals and null-move records, in main lines and
    /// variations, whether or not they could be replayed).
    pub plies: u64,
    /// Records framed, per marker byte.
    pub records: [u64; 256],
    /// Extension records, per kind byte (known and unknown kinds).
    pub extensions: BTreeMap<u8, u64>,
    /// Bytes of input read.
    pub bytes: u64,
    /// Bytes skipped to resynchronise after framing errors (an unknown
    /// marker byte, a length over the limits, a cut-off record): the
    /// verifier goes on at the next offset where a game frames
    /// (`crate::stream::resync_point`).
    pub junk_bytes: u64,
    /// Games with at least one problem.
    pub games_with_problems: u64,
    /// The first problem of each game that has any, in game order (up to
    /// the same maximum as [`Self::problems`]).
    pub game_problems: Vec<Problem>,
}

impl Default for Report {
    fn default() -> Self {
        Report {
            problems: Vec::new(),
            problems_dropped: 0,
            games: 0,
            plies: 0,
            records: [0; 256],
            extensions: BTreeMap::new(),
            bytes: 0,
            junk_bytes: 0,
            games_with_problems: 0,
            game_problems: Vec::new(),
        }
    }
}

impl Report {
    /// Whether no problem was found.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty() && self.problems_dropped == 0
    }

    /// All problems found, kept or dropped.
    pub fn problem_count(&self) -> u64 {
        self.problems.len() as u64 + self.problems_dropped
    }

    /// Records framed with marker `m`.
    pub fn records_of(&self, m: Marker) -> u64 {
        // `m as u8 as usize` is below 256, the array's length.
        self.records[m as u8 as usize]
    }
}

/// A configured verifier: limits and the maximum number of problems kept.
///
/// ```
/// use pgc_core::Verifier;
/// let report = Verifier::new().max_problems(10).verify(&[0x05u8, 0x06][..]).unwrap();
/// assert!(report.is_ok());
/// assert_eq!(report.games, 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verifier {
    limits: Limits,
    max_problems: usize,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier::new()
    }
}

impl Verifier {
    /// A verifier with [`Limits::DEFAULT`] that keeps the first
    /// [`DEFAULT_MAX_PROBLEMS`] problems.
    pub const fn new() -> Verifier {
        Verifier {
            limits: Limits::DEFAULT,
            max_problems: DEFAULT_MAX_PROBLEMS,
        }
    }

    /// Sets the limits (longest string, deepest RAV).
    pub const fn limits(mut self, limits: Limits) -> Verifier {
        self.limits = limits;
        self
    }

    /// Sets how many problems are kept; further ones are only counted.
    pub const fn max_problems(mut self, n: usize) -> Verifier {
        self.max_problems = n;
        self
    }

    /// Verifies a whole input.
    ///
    /// # Errors
    /// Only I/O errors of `input`. Every problem of the data is in the
    /// [`Report`].
    pub fn verify<R: Read>(&self, input: R) -> io::Result<Report> {
        self.run(input, None)
    }

    /// Verifies a whole input as [`Self::verify`] does, and renders each
    /// text-patched game that passes the other checks with `render`, to
    /// check its patch against the rendering (pgn-bridge's `verify` passes
    /// its decoder): what this accepts, the decoder decodes.
    ///
    /// # Errors
    /// Only I/O errors of `input`.
    pub fn verify_rendering<R: Read>(
        &self,
        input: R,
        render: &mut dyn RenderCheck,
    ) -> io::Result<Report> {
        self.run(input, Some(render))
    }

    fn run<R: Read>(
        &self,
        input: R,
        mut render: Option<&mut dyn RenderCheck>,
    ) -> io::Result<Report> {
        let mut gather = Gather::new();
        // The problems counted when the current game began, and its index.
        let mut game_start = (0u64, 0u64);
        let mut reader = Reader::with_limits(input, self.limits).mode(Mode::Resync);
        let mut checker = Checker {
            report: Report::default(),
            max_problems: self.max_problems,
            parser: GameParser::new(self.limits),
            game: None,
            outside_reported: false,
            last_game_with_problem: None,
            payloads: ext::PayloadChecker::default(),
            notes: NotesCheck::default(),
        };
        let io = |e: ReadError| match e {
            ReadError::Io { source, .. } => source,
            other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
        };
        // After a framing error the reader searches for the next game
        // start; a 0x05 found that way may be a stray byte (a string length,
        // an ordinal), and a record framed after it may swallow the real
        // games that follow. So such a game is on probation until it ends:
        // at its first problem the reader goes back and searches on from
        // the byte after its start.
        // A framing error right after such a start is no reason to doubt
        // it (a damaged game): the reader searches on from the error.
        let skip = |reader: &mut Reader<R>, at: u64| -> io::Result<(u64, Option<u64>)> {
            let start = reader.probation_start().filter(|s| s + 1 < at);
            if start.is_some()
                && let Some(n) = reader.rewind().map_err(io)?
            {
                return Ok((n, start));
            }
            Ok((reader.resync().map_err(io)?, None))
        };
        loop {
            let before = checker.report.problem_count();
            match reader.next_record_with_bytes() {
                Ok(Some((offset, rec, raw))) => {
                    checker.record(offset, rec);
                    if matches!(rec, RecordRef::GameBegin) {
                        game_start = (before, checker.parser.game().unwrap_or(0));
                    }
                    if let Some(r) = render.as_deref_mut()
                        && gather.record(offset, &rec, raw, &checker.parser)
                    {
                        let (problems, game) = game_start;
                        let found = (checker.report.problem_count() == problems)
                            .then(|| gather.render(r, self.limits))
                            .flatten();
                        gather.reset();
                        if let Some(p) = found {
                            checker.rendering(game, p);
                        }
                    }
                    if reader.on_probation() {
                        if checker.report.problem_count() > before {
                            if let Some(n) = reader.rewind().map_err(io)? {
                                checker.report.junk_bytes += n;
                            }
                            checker.abandon();
                            gather.reset();
                        } else if !checker.parser.in_game() {
                            reader.confirm();
                        }
                    }
                }
                Ok(None) => {
                    checker.end_of_input(reader.offset());
                    break;
                }
                Err(ReadError::Io { source, .. }) => return Err(source),
                Err(ReadError::UnknownMarker { offset, byte }) => {
                    gather.reset();
                    let (skipped, false_start) = skip(&mut reader, offset)?;
                    checker.junk(
                        offset,
                        byte,
                        skipped,
                        reader.offset(),
                        reader.is_done(),
                        false_start,
                    );
                }
                Err(ReadError::Truncated {
                    offset,
                    marker,
                    item,
                    need,
                    have,
                }) => {
                    gather.reset();
                    checker.truncated(offset, marker, item, need, have);
                    checker.report.junk_bytes += skip(&mut reader, offset)?.0;
                }
                Err(ReadError::OverLimit {
                    offset,
                    marker,
                    item,
                    claimed,
                    limit,
                }) => {
                    gather.reset();
                    let (skipped, _) = skip(&mut reader, offset)?;
                    let to = reader.offset();
                    checker.over_limit(offset, marker, item, claimed, limit, (skipped, to));
                }
            }
        }
        let mut report = checker.report;
        report.bytes = reader.offset();
        // Some problems are found after later ones (a bad FEN tag when the
        // movetext begins); a stable sort puts them in input order.
        report.problems.sort_by_key(|p| p.offset);
        Ok(report)
    }
}

/// Verifies a whole PGC input with the given limits, keeping the first
/// [`DEFAULT_MAX_PROBLEMS`] problems (see [`Verifier`] to change that).
///
/// # Errors
/// Only I/O errors of `input`; every problem of the data is in the [`Report`].
pub fn verify<R: Read>(input: R, limits: Limits) -> io::Result<Report> {
    Verifier::new().limits(limits).verify(input)
}

/// One line of play: the main line or a variation.
#[derive(Clone)]
struct Line {
    /// The position to play the next move from and the two before it; lost
    /// once the line can no longer be replayed (bad ordinal, bad FEN, a RAV
    /// with nothing to replace).
    trail: LineTrail,
    /// Plies from the game's start to the current position.
    ply: u32,
}

impl Line {
    fn start(pos: Option<VariantPosition>) -> Line {
        Line {
            trail: LineTrail::from_start(pos),
            ply: 0,
        }
    }
}

/// A game's engine notes (kind 0x14), checked at their anchors: each
/// note's move lists must replay from the line, as a decoder replays them.
#[derive(Default)]
struct NotesCheck {
    reader: GameNotesReader,
    loaded: bool,
    /// Anchors counted in the game (see `ext::commands::Anchors`).
    anchors: u64,
    note: EngineNote,
    text: Vec<u8>,
}

/// The replay state of the open general game (its structure is the
/// parser's).
struct Game {
    line: Line,
    /// Enclosing lines of the entered RAVs; at most `max_rav_depth` long.
    stack: Vec<Line>,
}

struct Checker {
    report: Report,
    max_problems: usize,
    /// The game grammar.
    parser: GameParser,
    game: Option<Game>,
    /// A record outside any game was reported since the last game began.
    outside_reported: bool,
    /// The last game a problem was counted for in
    /// [`Report::games_with_problems`].
    last_game_with_problem: Option<u64>,
    /// Every known payload kind's codec, its buffers kept from record to
    /// record.
    payloads: ext::PayloadChecker,
    notes: NotesCheck,
}

/// Where a run of move ordinals comes from, to position its problems.
#[derive(Clone, Copy)]
struct Run {
    game: u64,
    marker: Marker,
    /// Offset of the run's first ordinal byte.
    first: u64,
}

impl Checker {
    fn problem(
        &mut self,
        offset: u64,
        game: Option<u64>,
        ply: Option<u32>,
        marker: Option<Marker>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) {
        let p = Problem {
            offset,
            game,
            ply,
            marker,
            expected: expected.into(),
            found: found.into(),
        };
        // A game's problems come together, but for a 0x01 inside a general
        // game: the games already counted are those up to the last one.
        if let Some(g) = game
            && self.last_game_with_problem.is_none_or(|last| g > last)
        {
            self.last_game_with_problem = Some(g);
            self.report.games_with_problems += 1;
            if self.report.game_problems.len() < self.max_problems {
                self.report.game_problems.push(p.clone());
            }
        }
        if self.report.problems.len() < self.max_problems {
            self.report.problems.push(p);
        } else {
            self.report.problems_dropped += 1;
        }
    }

    /// Reports a broken grammar rule; a record outside games once per run
    /// of such records.
    fn grammar(&mut self, e: GameError) {
        if e.kind == GameErrorKind::OutsideGame {
            if self.outside_reported {
                return;
            }
            self.outside_reported = true;
        }
        self.problem(e.offset, e.game, e.ply, e.marker, e.expected(), e.found());
    }

    fn record(&mut self, offset: u64, rec: RecordRef<'_>) {
        let marker = rec.marker();
        // A u8 indexes a [_; 256] in bounds.
        self.report.records[marker as u8 as usize] += 1;
        // Payloads are checked where they stand, before the grammar moves on.
        if let RecordRef::Extension { kind, payload } = rec {
            self.extension(offset, kind, payload);
        }
        let step = self.parser.feed(offset, rec);
        let broken = step.error.is_some();
        if let Some(e) = step.error {
            self.grammar(e);
        }
        if step.movetext_begins {
            self.begin_movetext();
        }
        match step.event {
            Event::Reduced {
                info,
                roster,
                moves,
                first,
            } => {
                self.report.games += 1;
                self.outside_reported = false;
                for (name, value) in STR_TAGS.iter().zip(roster) {
                    self.tag_value(offset, info.index, marker, name, value);
                }
                self.report.plies += moves.len() as u64;
                let run = Run {
                    game: info.index,
                    marker,
                    first,
                };
                let mut line = Line::start(Some(VariantPosition::Chess(Chess::default())));
                self.play(&mut line, run, moves);
            }
            Event::Begin(_) => {
                self.report.games += 1;
                self.outside_reported = false;
                self.notes.loaded = false;
                self.notes.anchors = 0;
                self.game = Some(Game {
                    line: Line::start(None),
                    stack: Vec::new(),
                });
            }
            Event::Tag { name, value } => {
                if let Some(index) = self.parser.game() {
                    self.tag_value(offset, index, marker, name, value);
                }
            }
            Event::Moves { ordinals, first } => {
                self.report.plies += ordinals.len() as u64;
                let (Some(mut g), Some(index)) = (self.game.take(), self.parser.game()) else {
                    return;
                };
                let run = Run {
                    game: index,
                    marker,
                    first,
                };
                self.play(&mut g.line, run, ordinals);
                self.game = Some(g);
            }
            Event::WideMove(payload) => {
                self.report.plies += 1;
                if let Some(mut g) = self.game.take() {
                    self.wide_move(&mut g, offset, payload);
                    self.anchor(Some(&g.line), offset);
                    self.game = Some(g);
                }
            }
            Event::NullMove(_) => {
                self.report.plies += 1;
                if let Some(mut g) = self.game.take() {
                    self.null_move(&mut g, offset);
                    self.anchor(Some(&g.line), offset);
                    self.game = Some(g);
                }
            }
            Event::Nag(_)
            | Event::Extension {
                kind: ext::COMMENT | ext::LONG_NAG,
                ..
            } => {
                if let Some(g) = self.game.take() {
                    self.anchor(Some(&g.line), offset);
                    self.game = Some(g);
                }
            }
            Event::RavBegin => {
                let Some(g) = self.game.as_mut() else { return };
                // After a RAV with no move before it (reported), the RAV
                // cannot be replayed.
                let child = if broken {
                    Line::start(None)
                } else {
                    Line {
                        ply: g.line.ply.saturating_sub(1),
                        ..Line::start(g.line.trail.before().cloned())
                    }
                };
                let saved = std::mem::replace(&mut g.line, child);
                g.stack.push(saved);
            }
            Event::RavEnd => {
                if let Some(g) = self.game.as_mut()
                    && let Some(parent) = g.stack.pop()
                {
                    g.line = parent;
                    g.line.trail.resume();
                }
            }
            Event::End => self.game = None,
            Event::Skipped => {
                // Moves of a RAV skipped for its depth are counted, not
                // replayed; its anchors are counted, their notes not checked.
                let plies = match rec {
                    RecordRef::ShortMoves(m) | RecordRef::LongMoves(m) => m.len() as u64,
                    RecordRef::Extension {
                        kind: ext::NULL_MOVE | ext::WIDE_MOVE,
                        ..
                    } => 1,
                    _ => 0,
                };
                self.report.plies += plies;
                let anchors = match rec {
                    RecordRef::Nag(_) => 1,
                    RecordRef::Extension { kind, .. } if ExtKind(kind).is_anchor() => 1,
                    _ => plies,
                };
                for _ in 0..anchors {
                    self.anchor(None, offset);
                }
            }
            Event::Outside
            | Event::Escape(_)
            | Event::Extension { .. }
            | Event::Noop
            | Event::Dropped => {}
        }
    }

    /// The movetext of the open game begins: its start position from the
    /// FEN tag (a bad one is reported) or the initial position.
    fn begin_movetext(&mut self) {
        let (Some(index), Some(g)) = (self.parser.game(), self.game.as_mut()) else {
            return;
        };
        let variant = match self.parser.variant().map(variant_of_tag) {
            None => Variant::Chess,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                let at = self.parser.fen().map_or(0, |f| f.1);
                g.line = Line::start(None);
                self.problem(
                    at,
                    Some(index),
                    None,
                    None,
                    "a Variant tag naming a variant pgc plays (spec/ordinal.md section 8)",
                    e.to_string(),
                );
                return;
            }
        };
        let pos = match self.parser.fen() {
            None => Some(VariantPosition::new(variant)),
            Some((text, at, m)) => match variant_start_position(variant, Some(text)) {
                Ok(p) => Some(p),
                Err(e) => {
                    let found = e.to_string();
                    g.line = Line::start(None);
                    self.problem(
                        at,
                        Some(index),
                        None,
                        Some(m),
                        "a FEN tag that gives a legal position (section 16.1)",
                        found,
                    );
                    return;
                }
            },
        };
        g.line = Line::start(pos);
    }

    /// Reports a tag value holding a newline, which a PGN tag line cannot
    /// hold ([`is_tag_line_break`]): valid PGC, but no PGN export of it
    /// keeps the value as it is.
    fn tag_value(&mut self, offset: u64, game: u64, marker: Marker, name: &[u8], value: &[u8]) {
        let Some((at, byte)) = first_tag_line_break(value) else {
            return;
        };
        let count = value.iter().filter(|&&b| is_tag_line_break(b)).count();
        let more = if count > 1 {
            format!(" ({count} newlines)")
        } else {
            String::new()
        };
        self.problem(
            offset,
            Some(game),
            None,
            Some(marker),
            "a tag value without a newline, as a PGN tag line holds (section 8.1.1; a decoder writes a space for each newline)",
            format!(
                "tag {:?} value holds byte 0x{byte:02x} at value offset {at}{more}",
                String::from_utf8_lossy(name)
            ),
        );
    }

    fn extension(&mut self, offset: u64, kind: u8, payload: &[u8]) {
        let marker = Marker::Extension;
        *self.report.extensions.entry(kind).or_insert(0) += 1;
        let game = self.parser.game();
        let ply = self.parser.ply();
        // Every known kind's payload through its codec.
        let checked = self.payloads.check(ExtKind(kind), payload);
        if let Err(e) = checked {
            self.problem(
                offset,
                game,
                ply,
                Some(marker),
                e.expectation(ExtKind(kind)),
                format!(
                    "{} ({} payload byte(s) {})",
                    e.found,
                    payload.len(),
                    hex_head(payload)
                ),
            );
            return;
        }
        if kind == ext::ENGINE_NOTES {
            self.notes.loaded = self.notes.reader.load(payload).is_ok();
        }
    }

    fn null_move(&mut self, g: &mut Game, offset: u64) {
        self.step_line(g, offset, false, |pos| {
            crate::setup::variant_null_move(pos).ok_or_else(|| {
                Some((
                    "a null move only when the side to move is not in check",
                    "a null move while in check".to_string(),
                ))
            })
        });
    }

    /// Replays the move of a wide-move record (kind 0x13) on the game's
    /// line, reporting an ordinal the position has no move for (a bad
    /// payload is reported by [`Self::extension`]: the line stops there).
    fn wide_move(&mut self, g: &mut Game, offset: u64, payload: &[u8]) {
        let ordinal = ext::simple::wide_move(payload).ok();
        self.step_line(g, offset, true, |pos| {
            let Some(ordinal) = ordinal else {
                return Err(None);
            };
            let (m, _) = ordinal::variant::select_in(pos, ordinal).map_err(|e| {
                Some((
                    "a wide-move ordinal below the number of legal moves (spec/extensions.md)",
                    e.to_string(),
                ))
            })?;
            let mut after = pos.clone();
            crate::variant::play_unchecked(&mut after, m);
            Ok(after)
        });
    }

    /// One ply of the game's line made by `play` from its position (a
    /// null move, a wide move): the position before it is kept for a RAV.
    /// Where `play` fails the line stops, and a problem is reported with
    /// what was expected and found (none for `Err(None)`: the record's
    /// payload was reported already).
    fn step_line(
        &mut self,
        g: &mut Game,
        offset: u64,
        is_move: bool,
        play: impl FnOnce(&VariantPosition) -> Result<VariantPosition, Option<(&'static str, String)>>,
    ) {
        let line = &mut g.line;
        let ply = line.ply.saturating_add(1);
        line.ply = ply;
        let Some(pos) = line.trail.current() else {
            line.trail.lose();
            return;
        };
        match play(pos) {
            Ok(after) if is_move => line.trail.moved_to(after),
            Ok(after) => line.trail.null_to(after),
            Err(Some((expected, found))) => {
                line.trail.stop();
                let game = self.parser.game();
                self.problem(
                    offset,
                    game,
                    Some(ply),
                    Some(Marker::Extension),
                    expected,
                    found,
                );
            }
            Err(None) => line.trail.stop(),
        }
    }

    /// Replays `ordinals` on `line`, reporting the first bad one.
    fn play(&mut self, line: &mut Line, run: Run, ordinals: &[u8]) {
        for (i, &ord) in ordinals.iter().enumerate() {
            let ply = line.ply.saturating_add(1);
            line.ply = ply;
            let Some(pos) = line.trail.current() else {
                line.trail.lose();
                continue;
            };
            let found = match ordinal::variant::decode_in(pos, ord) {
                Ok(m) => {
                    line.trail.play(m);
                    self.anchor(Some(line), run.first + i as u64);
                    continue;
                }
                Err(e) => e,
            };
            let (expected, found) = match found {
                OrdinalError::OutOfRange { legal: 0, .. } => (
                    "no move (the position is checkmate or stalemate)".to_string(),
                    format!("ordinal {ord}"),
                ),
                OrdinalError::OutOfRange { legal, .. } => (
                    format!("an ordinal below {legal} (legal moves)"),
                    ord.to_string(),
                ),
                other => (
                    "a position with at most 256 legal moves".to_string(),
                    other.to_string(),
                ),
            };
            self.problem(
                run.first + i as u64,
                Some(run.game),
                Some(ply),
                Some(run.marker),
                expected,
                found,
            );
            // A RAV right after the bad move still starts from the position
            // it was played in.
            line.trail.stop();
            self.anchor(None, run.first + i as u64);
        }
    }

    /// An anchor of typed comments was read (a move, null move, wide move,
    /// NAG or text comment) on `line` (`None`: not replayed): the engine
    /// note after it, if any, must replay its move lists from the line.
    fn anchor(&mut self, line: Option<&Line>, offset: u64) {
        let n = &mut self.notes;
        n.anchors += 1;
        if !n.loaded || !n.reader.note_at(n.anchors - 1, &mut n.note) {
            return;
        }
        let Some(line) = line else { return };
        n.text.clear();
        let Err(e) = render_note(&n.note, &line.trail.positions(), &mut n.text) else {
            return;
        };
        let game = self.parser.game();
        self.problem(
            offset,
            game,
            Some(line.ply),
            None,
            "an engine note whose move lists replay from the line (spec/extensions-engine.md)",
            e.to_string(),
        );
    }

    /// What rendering a patched game found (`p` from its [`RenderCheck`],
    /// placed in the input), for the game at `game`.
    fn rendering(&mut self, game: u64, p: Problem) {
        self.problem(p.offset, Some(game), p.ply, p.marker, p.expected, p.found);
    }

    /// The open game (dropped: its framing is lost) and the words for it.
    fn abandon(&mut self) -> (Option<u64>, Option<u32>, String) {
        self.game = None;
        match self.parser.abandon() {
            Some((index, ply)) => (
                Some(index),
                ply,
                format!("; game {} is not checked further", index.saturating_add(1)),
            ),
            None => (None, None, String::new()),
        }
    }

    /// Where skipping went: to a byte, or to the end of the input.
    fn skipped_to(to: u64, to_end: bool) -> String {
        if to_end {
            "up to the end of the input".to_string()
        } else {
            format!("up to byte {to}")
        }
    }

    fn junk(
        &mut self,
        offset: u64,
        byte: u8,
        skipped: u64,
        to: u64,
        to_end: bool,
        false_start: Option<u64>,
    ) {
        self.report.junk_bytes += skipped;
        let (game, ply, abandoned) = self.abandon();
        let to = Self::skipped_to(to, to_end);
        let found = match false_start {
            None => format!("byte 0x{byte:02x}: skipped {skipped} byte(s) {to}{abandoned}"),
            Some(at) => format!(
                "byte 0x{byte:02x}: the game found at byte {at} after an earlier error does not \
                 frame; searched on from byte {}, skipped {skipped} byte(s) {to}",
                at + 1
            ),
        };
        self.problem(
            offset,
            game,
            ply,
            None,
            "a record marker (0x00..=0x0a or 0x80)",
            found,
        );
    }

    fn truncated(
        &mut self,
        offset: u64,
        marker: Option<Marker>,
        item: Option<ItemKind>,
        need: u64,
        have: u64,
    ) {
        let (game, ply, _) = self.abandon();
        let what = match item {
            Some(i) => format!("the record (its {i} included)"),
            None => "the record".to_string(),
        };
        self.problem(
            offset,
            game,
            ply,
            marker,
            format!("{need} bytes for {what}"),
            format!("{have} byte(s) left in the input"),
        );
    }

    fn over_limit(
        &mut self,
        offset: u64,
        marker: Marker,
        item: ItemKind,
        claimed: u64,
        limit: u64,
        (skipped, to): (u64, u64),
    ) {
        self.report.junk_bytes += skipped;
        let (game, ply, abandoned) = self.abandon();
        let to = Self::skipped_to(to, false);
        self.problem(
            offset,
            game,
            ply,
            Some(marker),
            format!(
                "{} of at most {limit} bytes (raise it with --max-string)",
                item.with_article()
            ),
            format!("{claimed} bytes claimed; skipped {skipped} byte(s) {to}{abandoned}"),
        );
    }

    fn end_of_input(&mut self, offset: u64) {
        // A FEN tag is checked even when no movetext follows it.
        if self.parser.in_game() && !self.parser.in_movetext() {
            self.begin_movetext();
        }
        if let Some(e) = self.parser.finish(offset) {
            self.grammar(e);
        }
        self.game = None;
    }
}

/// Up to eight payload bytes in hex, for messages.
fn hex_head(b: &[u8]) -> String {
    let mut s = String::new();
    for (i, x) in b.iter().take(8).enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{x:02x}"));
    }
    if b.len() > 8 {
        s.push_str(" ...");
    }
    if s.is_empty() {
        s.push_str("(none)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8]) -> Report {
        verify(bytes, Limits::default()).unwrap()
    }

    #[test]
    fn null_and_wide_moves_are_replayed_and_refused_where_they_cannot_be() {
        // 1. e4, then a wide move of ordinal 256 where 20 moves are legal.
        let r = check(&[0x05, 0x03, 1, 13, 0x80, ext::WIDE_MOVE, 2, 1, 0, 0x06]);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        let p = &r.problems[0];
        assert_eq!(
            (p.offset, p.game, p.ply, p.marker),
            (4, Some(0), Some(2), Some(Marker::Extension))
        );
        assert!(
            p.expected.contains("wide-move ordinal below"),
            "{}",
            p.expected
        );
        // Black to move in check (the rook on e1): no null move.
        let fen = b"4k3/8/8/8/8/8/8/4R1K1 b - - 0 1";
        let mut g = vec![0x05, 0x02, 3];
        g.extend(b"FEN");
        g.push(fen.len() as u8);
        g.extend(fen);
        let at = g.len() as u64;
        g.extend([0x80, ext::NULL_MOVE, 2, b'-', b'-', 0x06]);
        let r = check(&g);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        let p = &r.problems[0];
        assert_eq!(
            (p.offset, p.ply, p.marker),
            (at, Some(1), Some(Marker::Extension))
        );
        assert!(p.expected.contains("not in check"), "{}", p.expected);
        // Nobody in check: the null move is played.
        let white = b"4k3/8/8/8/8/8/8/3R2K1 w - - 0 1";
        let mut g = vec![0x05, 0x02, 3];
        g.extend(b"FEN");
        g.push(white.len() as u8);
        g.extend(white);
        g.extend([0x80, ext::NULL_MOVE, 2, b'-', b'-', 0x06]);
        let r = check(&g);
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }

    /// `(offset, game, ply, marker)` of a problem.
    type Where = (u64, Option<u64>, Option<u32>, Option<Marker>);

    /// The [`Where`] of every problem.
    fn where_(r: &Report) -> Vec<Where> {
        r.problems
            .iter()
            .map(|p| (p.offset, p.game, p.ply, p.marker))
            .collect()
    }

    // 1. e4 (13) e5 (12) from section 20.2 and hand-sorted SAN lists.
    const GAME: &[u8] = &[0x05, 0x02, 1, b'A', 1, b'B', 0x03, 2, 13, 12, 0x06];

    #[test]
    fn a_good_file_has_no_problem_and_is_counted() {
        let mut bytes = GAME.to_vec();
        // 1. e4 (1. d4 d5) e5 2. Qh5 $1, an unknown extension, a comment.
        bytes.extend([
            0x05, 0x03, 1, 13, 0x08, 0x03, 2, 11, 10, 0x09, 0x03, 2, 12, 14, 0x07, 1, 0x80, 0x7f,
            1, 0, 0x80, 1, 2, b'h', b'i', 0x06,
        ]);
        let mut reduced = vec![0x01];
        for _ in 0..7 {
            reduced.extend([1, b'?']);
        }
        reduced.extend([2, 0, 13, 12]);
        bytes.extend(&reduced);
        let r = check(&bytes);
        assert!(r.is_ok(), "{:?}", r.problems);
        assert_eq!((r.games, r.plies, r.bytes), (3, 9, bytes.len() as u64));
        assert_eq!(r.records_of(Marker::GameBegin), 2);
        assert_eq!(r.records_of(Marker::ShortMoves), 4);
        assert_eq!(r.extensions, BTreeMap::from([(0x01, 1), (0x7f, 1)]));
    }

    #[test]
    fn truncated_item_ends_the_scan() {
        let mut bytes = GAME.to_vec();
        bytes.extend([0x05, 0x03, 10, 1, 2]);
        let r = check(&bytes);
        assert_eq!(where_(&r), [(12, Some(1), None, Some(Marker::ShortMoves))]);
        assert_eq!(
            r.problems[0].expected,
            "12 bytes for the record (its mvseq-1 included)"
        );
        assert_eq!(r.problems[0].found, "4 byte(s) left in the input");
        assert_eq!(r.bytes, bytes.len() as u64);
    }

    #[test]
    fn a_string_longer_than_the_file() {
        // A tag name claiming 200 bytes, with 3 left; then an escape string
        // claiming 60,000.
        let r = check(&[0x05, 0x02, 200, b'a', b'b', b'c']);
        assert_eq!(where_(&r), [(1, Some(0), None, Some(Marker::TagPair))]);
        assert_eq!(
            r.problems[0].to_string(),
            "byte 1, game 1, 0x02 tag-pair: expected 202 bytes for the record (its string-1 included), found 5 byte(s) left in the input"
        );
        let r = check(&[0x0a, 0x60, 0xea, b'%']);
        assert_eq!(where_(&r), [(0, None, None, Some(Marker::Escape))]);
        assert_eq!(
            r.problems[0].expected,
            "60003 bytes for the record (its string-2 included)"
        );
        // Over the string limit: reported from the header, nothing allocated.
        let r = verify(
            &[0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0][..],
            Limits::default(),
        )
        .unwrap();
        assert_eq!(where_(&r), [(0, None, None, Some(Marker::Extension))]);
        assert_eq!(r.bytes, 9);
    }

    #[test]
    fn unknown_marker_is_one_problem_per_run_and_resyncs() {
        let mut bytes = GAME.to_vec(); // game 0, bytes 0..11
        bytes.extend([0xff, 0xfe, 0x03, 0x06]); // junk at 11..15
        bytes.extend(GAME); // game 1 at 15
        bytes.extend([0x05, 0x03, 1, 13, 0x42]); // game 2 at 26, junk at 30
        bytes.extend(GAME); // game 3 at 31
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [(11, None, None, None), (30, Some(2), Some(1), None)]
        );
        assert_eq!(
            r.problems[0].found,
            "byte 0xff: skipped 4 byte(s) up to byte 15"
        );
        assert_eq!(
            r.problems[1].found,
            "byte 0x42: skipped 1 byte(s) up to byte 31; game 3 is not checked further"
        );
        assert_eq!((r.games, r.junk_bytes), (4, 5));
        // Junk up to the end.
        let r = check(&[0x00, 0xc0, 1, 2]);
        assert_eq!(where_(&r), [(1, None, None, None)]);
        assert_eq!(
            r.problems[0].found,
            "byte 0xc0: skipped 3 byte(s) up to the end of the input"
        );
    }

    #[test]
    fn a_stray_game_start_found_by_resync_is_left_for_the_next() {
        // Junk at 0; the search stops at the 0x05 at 1, whose 0x03 (count
        // 6) swallows a real game at 4 (1. e4) and a noop; junk at 10 shows
        // the stray start for what it is: the verifier goes back, finds the
        // game at 4 (sound), and then meets the junk at 10 again.
        let bytes = [0xee, 0x05, 0x03, 6, 0x05, 0x03, 1, 13, 0x06, 0x00, 0xee];
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (0, None, None, None),
                (10, Some(0), Some(6), None),
                (10, None, None, None)
            ]
        );
        assert!(
            r.problems[1]
                .found
                .contains("the game found at byte 1 after an earlier error"),
            "{}",
            r.problems[1]
        );
        // The stray game, the real one; the real one's move counted again.
        assert_eq!((r.games, r.plies), (2, 7));
        assert_eq!(r.bytes, bytes.len() as u64);
    }

    #[test]
    fn a_game_start_byte_before_no_record_is_no_game() {
        // Junk at 0; the 0x05 at 1 is a tag name's length (`05 "Event"` cut
        // from its tag pair), followed by text: the search goes on to the
        // game at 7.
        let bytes = [
            0xee, 0x05, b'E', b'v', b'e', b'n', b't', 0x05, 0x03, 1, 13, 0x06,
        ];
        let r = check(&bytes);
        assert_eq!(where_(&r), [(0, None, None, None)]);
        assert_eq!((r.games, r.plies, r.junk_bytes), (1, 1, 7));
    }

    #[test]
    fn unbalanced_ravs_both_ways() {
        // An extra 0x09 at 6 (ply 1), then the game ends inside an open RAV at 11.
        let bytes = [0x05, 0x03, 1, 13, 0x08, 0x09, 0x09, 0x08, 0x03, 1, 11, 0x06];
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (6, Some(0), Some(1), Some(Marker::RavEnd)),
                (11, Some(0), Some(1), Some(Marker::GameEnd)),
            ]
        );
        assert_eq!(
            r.problems[1].expected,
            "0x09 rav-end for each of the 1 open RAV(s) first"
        );
        // A RAV before any move, and one at the end of the input.
        let r = check(&[0x05, 0x08, 0x09, 0x03, 1, 13, 0x08]);
        assert_eq!(
            where_(&r),
            [
                (1, Some(0), Some(0), Some(Marker::RavBegin)),
                (7, Some(0), Some(0), None),
            ]
        );
    }

    #[test]
    fn ordinal_out_of_range_stops_the_line_not_the_game() {
        // 1. e4 e5 2. <40>; a RAV replacing the bad move with 2. Qh5 (14)
        // and a bad 2... <50>; the main line after the RAV is not replayed
        // (99 is not reported); then a bad first move in the next game.
        let mut bytes = vec![
            0x05, 0x03, 3, 13, 12, 40, 0x08, 0x03, 2, 14, 50, 0x09, 0x04, 1, 0, 99, 0x06,
        ];
        bytes.extend([0x05, 0x03, 1, 20, 0x06]);
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (5, Some(0), Some(3), Some(Marker::ShortMoves)),
                (10, Some(0), Some(4), Some(Marker::ShortMoves)),
                (20, Some(1), Some(1), Some(Marker::ShortMoves)),
            ]
        );
        assert_eq!(
            r.problems[0].to_string(),
            "byte 5, game 1, ply 3, 0x03 short-moves: expected an ordinal below 29 (legal moves), found 40"
        );
        assert_eq!(r.plies, 7);
        // In a variation: the bad ordinal at byte 11 (ply 2 of the RAV, which
        // replaces ply 1); the main line goes on after it.
        let bytes = [
            0x05, 0x03, 1, 13, 0x08, 0x04, 2, 0, 11, 77, 0x09, 0x03, 1, 12, 0x06,
        ];
        let r = check(&bytes);
        assert_eq!(where_(&r), [(9, Some(0), Some(2), Some(Marker::LongMoves))]);
    }

    #[test]
    fn ordinals_of_a_reduced_game_are_positioned() {
        let mut bytes = vec![0x01];
        for s in [&b"Ev"[..], b"", b"", b"", b"", b"", b"*"] {
            bytes.push(s.len() as u8);
            bytes.extend(s);
        }
        let first = bytes.len() as u64 + 2;
        bytes.extend([3, 0, 13, 12, 31]);
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [(first + 2, Some(0), Some(3), Some(Marker::ReducedGame))]
        );
    }

    #[test]
    fn reduced_game_nested_in_a_general_game() {
        let mut bytes = vec![0x05, 0x03, 1, 13, 0x01];
        bytes.extend([0; 7]);
        bytes.extend([0, 0, 0x03, 1, 12, 0x06]);
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [(4, Some(0), Some(1), Some(Marker::ReducedGame))]
        );
        // The general game goes on after it and ends cleanly.
        assert_eq!(r.games, 2);
        assert_eq!(r.plies, 2);
    }

    #[test]
    fn game_begin_without_game_end() {
        let mut bytes = vec![0x05, 0x02, 1, b'A', 1, b'B', 0x03, 1, 13];
        bytes.extend(GAME); // at 9
        bytes.extend([0x05, 0x02, 1, b'C', 1, b'D']); // at 20, never ended
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (9, Some(0), Some(1), Some(Marker::GameBegin)),
                (26, Some(2), None, None),
            ]
        );
        assert_eq!(r.problems[1].found, "the end of the input inside game 3");
    }

    #[test]
    fn records_outside_games_and_late_tags() {
        // Moves and a 0x06 outside games (one problem for the run), a tag
        // after the movetext, a stray 0x06.
        let bytes = [
            0x03, 1, 13, 0x07, 1, 0x06, // outside, at 0
            0x05, 0x03, 1, 13, 0x02, 1, b'X', 0, 0x06, // late tag at 10
            0x06, // outside again, at 15
        ];
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (0, None, None, Some(Marker::ShortMoves)),
                (10, Some(0), Some(1), Some(Marker::TagPair)),
                (15, None, None, Some(Marker::GameEnd)),
            ]
        );
    }

    #[test]
    fn fen_tags_null_moves_and_bad_extensions() {
        // Black to move from a FEN: 1... Kd8 is legal; a null move, then a
        // long-tag FEN in the second game that does not parse.
        let fen = b"4k3/8/8/8/8/8/8/4K3 b - - 0 1";
        let mut bytes = vec![0x05, 0x02, 3, b'F', b'E', b'N', fen.len() as u8];
        bytes.extend(fen);
        // Black king on e8: moves Kd7 Kd8 Ke7 Kf7 Kf8 -> Kd8 = 1.
        bytes.extend([0x03, 1, 1, 0x80, ext::NULL_MOVE, 0, 0x03, 1, 0, 0x06]);
        let at = bytes.len() as u64;
        bytes.extend([
            0x05,
            0x80,
            ext::LONG_TAG,
            6,
            3,
            b'F',
            b'E',
            b'N',
            b'x',
            b'y',
        ]);
        bytes.extend([0x80, ext::TERMINATION, 1, 9, 0x06]);
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (at + 1, Some(1), None, Some(Marker::Extension)),
                (at + 10, Some(1), None, Some(Marker::Extension)),
            ]
        );
        assert!(r.problems[0].expected.contains("FEN"), "{}", r.problems[0]);
        assert!(
            r.problems[1].expected.contains("termination"),
            "{}",
            r.problems[1]
        );
        assert_eq!(r.plies, 3);
    }

    #[test]
    fn tag_values_with_newlines_are_reported() {
        // Game 1 at 0: [Event "a<LF>b"] at 1, then 1. e4 e5.
        let mut bytes = vec![
            0x05, 0x02, 5, b'E', b'v', b'e', b'n', b't', 3, b'a', 0x0a, b'b',
        ];
        bytes.extend([0x03, 2, 13, 12, 0x06]);
        // Game 2 at 17: a long-tag [Round "1<LF>"] at 18.
        bytes.extend([
            0x05,
            0x80,
            ext::LONG_TAG,
            8,
            5,
            b'R',
            b'o',
            b'u',
            b'n',
            b'd',
        ]);
        bytes.extend([b'1', 0x0a, 0x06]);
        // Game 3 at 30: a reduced game whose Site is "a<LF>b<LF>c".
        bytes.push(0x01);
        bytes.extend([1, b'?', 5, b'a', 0x0a, b'b', 0x0a, b'c']);
        for _ in 0..5 {
            bytes.extend([1, b'?']);
        }
        bytes.extend([0, 0]);
        let r = check(&bytes);
        assert_eq!(
            where_(&r),
            [
                (1, Some(0), None, Some(Marker::TagPair)),
                (18, Some(1), None, Some(Marker::Extension)),
                (30, Some(2), None, Some(Marker::ReducedGame)),
            ]
        );
        assert_eq!(
            r.problems[0].to_string(),
            "byte 1, game 1, 0x02 tag-pair: expected a tag value without a newline, as a PGN \
             tag line holds (section 8.1.1; a decoder writes a space for each newline), found \
             tag \"Event\" value holds byte 0x0a at value offset 1"
        );
        assert_eq!(
            r.problems[1].found,
            "tag \"Round\" value holds byte 0x0a at value offset 1"
        );
        assert_eq!(
            r.problems[2].found,
            "tag \"Site\" value holds byte 0x0a at value offset 1 (2 newlines)"
        );
        // The games are still checked to the end.
        assert_eq!((r.games, r.plies), (3, 2));
    }

    #[test]
    fn other_tag_value_bytes_are_not_reported() {
        // [Event "a b"], [Site "Zürich"] in UTF-8 (c3 bc), [Black "\x80"]:
        // printing and non-ASCII bytes. Then [X "a<TAB><CR><NUL><DEL>"]:
        // control bytes a PGN reader lets through, kept by the encoder.
        let mut bytes = vec![
            0x05, 0x02, 5, b'E', b'v', b'e', b'n', b't', 3, b'a', b' ', b'b',
        ];
        bytes.extend([
            0x02, 4, b'S', b'i', b't', b'e', 7, b'Z', 0xc3, 0xbc, b'r', b'i',
        ]);
        bytes.extend([b'c', b'h', 0x02, 5, b'B', b'l', b'a', b'c', b'k', 1, 0x80]);
        bytes.extend([0x02, 1, b'X', 5, b'a', 0x09, 0x0d, 0x00, 0x7f]);
        bytes.extend([0x03, 2, 13, 12, 0x06]);
        let r = check(&bytes);
        assert!(r.is_ok(), "{:?}", r.problems);
    }

    #[test]
    fn deep_ravs_are_reported_once_and_skipped() {
        let mut bytes = vec![0x05, 0x03, 1, 13];
        for _ in 0..10_000 {
            bytes.extend([0x08, 0x03, 1, 15]);
        }
        bytes.extend(std::iter::repeat_n(0x09, 10_000));
        bytes.push(0x06);
        let limits = Limits {
            max_rav_depth: 64,
            ..Limits::default()
        };
        let r = verify(&bytes[..], limits).unwrap();
        assert_eq!(
            where_(&r),
            [(4 + 64 * 4, Some(0), Some(1), Some(Marker::RavBegin))]
        );
    }

    #[test]
    fn the_problem_list_is_capped() {
        let bytes: Vec<u8> = std::iter::repeat_n([0x05, 0x03, 1, 99, 0x06], 50)
            .flatten()
            .collect();
        let r = Verifier::new().max_problems(10).verify(&bytes[..]).unwrap();
        assert_eq!((r.problems.len(), r.problems_dropped), (10, 40));
        assert_eq!(r.problem_count(), 50);
    }

    #[test]
    fn never_panics_on_prefixes_and_noise() {
        let mut bytes = GAME.to_vec();
        bytes.extend([0x80, 5, 4, 9, b'a', b'b', b'c', 0x01, 3, 0x08, 0x09, 0xff]);
        for n in 0..bytes.len() {
            let _ = check(&bytes[..n]);
        }
        // A cheap deterministic noise generator.
        let mut x: u32 = 0x1234_5678;
        for _ in 0..300 {
            let noise: Vec<u8> = (0..200)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    (x % 16) as u8
                })
                .collect();
            let _ = check(&noise);
        }
    }
}
