//! Bulk loading: PGC straight to moves and positions, for engines and
//! training pipelines.
//!
//! [`BulkReader`] walks a PGC stream with a [`GameWalker`] and hands out one
//! [`BulkGame`] at a time: borrowed tags, the start position, and the moves
//! as shakmaty [`Move`]s (positions on request, by replaying them). It is
//! built for speed: no SAN text is made unless asked ([`BulkOptions::san`]),
//! variations are skipped without decoding their moves unless asked
//! ([`BulkOptions::variations`]), comments are dropped unless asked
//! ([`BulkOptions::comments`]), and every buffer is reused from game to game,
//! so there is no allocation per move (nor, once the buffers have grown, per
//! game).
//!
//! [`par_map`] decodes an in-memory PGC file on several threads, cut at game
//! boundaries, and returns the results in input order.
//!
//! ```
//! use pgc_core::{BulkOptions, BulkReader};
//!
//! // Two games: 1. e4 e5 (general game) and 1. d4 (reduced game).
//! let mut pgc = vec![0x05, 0x03, 2, 13, 12, 0x06, 0x01];
//! pgc.extend([0; 7]);
//! pgc.extend([1, 0, 11]);
//!
//! let mut reader = BulkReader::new(&pgc[..], BulkOptions::default());
//! let mut positions = 0;
//! while let Some(game) = reader.next_game()? {
//!     positions += game.positions().count(); // start position included
//! }
//! assert_eq!(positions, 3 + 2);
//! # Ok::<(), pgc_core::WalkError>(())
//! ```

use crate::ext::commands::syntax::{Part, parse_comment};
use crate::ext::commands::{
    Anchors, Arrow, Clock, Eval, SquareMark, TimeKind, TypedCommand, TypedComment, TypedPart,
};
use crate::ext::engine::{EngineFigures, LineTrail, MovesFrom};
use crate::ext::{self, ExtError, ExtKind, Outcome, PayloadChecker, PayloadError};
use crate::limits::Limits;
use crate::ordinal::MoveText;
use crate::record::{Marker, RecordRef, record_len};
use crate::setup::variant_start_position;
use crate::split::Bounds;
use crate::stream::Reader;
use crate::variant::{Variant, VariantPosition, variant_of_tag};
use crate::walk::{GameInfo, GameVisitor, GameWalker, Ply, Skip, WalkError};
use shakmaty::{CastlingMode, EnPassantMode, Move, Position};
use std::io::Read;
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a [`BulkReader`] keeps of each game. The default keeps the main line
/// only: the fastest setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BulkOptions {
    /// Decode variations (RAVs) too; else they are skipped unread.
    pub variations: bool,
    /// Keep brace and rest-of-line comments as [`Event::Comment`], and the
    /// values of embedded commands as [`Event::Time`], [`Event::Eval`],
    /// [`Event::Arrows`] and [`Event::Squares`]: those of typed comments
    /// (stored in the game's commands record) and those a brace comment
    /// kept as text holds (`{Good move [%clk 0:03:00]}`).
    pub comments: bool,
    /// Keep each move's SAN (with `+`/`#`), see [`BulkGame::san`]. Costs a
    /// check test per move.
    pub san: bool,
    /// Replay the moves (the default). Without, a game holds its tags,
    /// start position, result and the number of its main line's plies
    /// ([`BulkGame::unplayed_plies`]), and no event (the options above are
    /// then off): its records are framed and checked against the grammar,
    /// but no ordinal is decoded (one that names no legal move goes
    /// unnoticed; `pgc verify` finds it).
    pub moves: bool,
    /// Limits for reading the PGC.
    pub limits: Limits,
}

impl Default for BulkOptions {
    fn default() -> Self {
        BulkOptions {
            variations: false,
            comments: false,
            san: false,
            moves: true,
            limits: Limits::DEFAULT,
        }
    }
}

/// One event of a game's movetext, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// A move.
    Move(Move),
    /// A null move (extension record; written `--` in SAN and `0000` in UCI).
    NullMove,
    /// A variation begins: it replaces the move before it.
    BeginVariation,
    /// The variation ends; the line before it continues.
    EndVariation,
    /// A simple NAG.
    Nag(u8),
    /// A comment's text (only with [`BulkOptions::comments`]), followed by
    /// the values of the embedded commands it holds, as for a typed
    /// comment.
    Comment(&'a [u8]),
    /// A time command (`[%clk 0:03:00]` is `Time(TimeKind::Clk, …)`) of a
    /// typed comment, or of a brace comment kept as text, after the move it
    /// belongs to (only with [`BulkOptions::comments`]).
    Time(TimeKind, Clock),
    /// An `[%eval]`, as [`Event::Time`].
    Eval(Eval),
    /// The arrows of a `[%cal]`, as [`Event::Time`].
    Arrows(&'a [Arrow]),
    /// The square marks of a `[%csl]`, as [`Event::Time`].
    Squares(&'a [SquareMark]),
    /// What an engine note says (only with [`BulkOptions::comments`]),
    /// after its text as a [`Event::Comment`].
    Engine(EngineValues<'a>),
}

/// The values of an engine note (`{d=40, wv=1.04, pv=c4 c6 …}`,
/// `{+0.52/23 2.1s}`; see [`crate::ext::engine::EngineNote::summary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineValues<'a> {
    /// The note's figures: evaluation, depths, time, nodes.
    pub figures: EngineFigures,
    /// The principal variation's moves, from the position where it starts
    /// (empty when the note has none or it stayed text).
    pub pv: &'a [Move],
    /// The position the principal variation starts from.
    pub pv_from: Option<MovesFrom>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RawEngine {
    figures: EngineFigures,
    pv: (u32, u32),
    pv_from: Option<MovesFrom>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Raw {
    Move(Move),
    Null,
    Begin,
    End,
    Nag(u8),
    Comment(u32, u32),
    Time(TimeKind, Clock),
    Eval(Eval),
    Arrows(u32, u32),
    Squares(u32, u32),
    /// An index into `BulkGame::engine` (kept out of line: the enum stays
    /// small, and every event pays its size).
    Engine(u32),
}

/// One game as read by [`BulkReader`]: everything borrows the reader's
/// buffers until the next call.
#[derive(Debug, Clone)]
pub struct BulkGame {
    info: GameInfo,
    /// The offset just past its last record.
    end: u64,
    /// The tag pairs.
    tags: TagList,
    start: VariantPosition,
    started: bool,
    events: Vec<Raw>,
    /// Main-line moves (null moves excluded), for [`BulkGame::moves`].
    main: Vec<Move>,
    /// Their ordinals, for [`BulkGame::ordinals`].
    ordinals: Vec<u16>,
    has_null: bool,
    san: Vec<MoveText>,
    text: Vec<u8>,
    arrows: Vec<Arrow>,
    squares: Vec<SquareMark>,
    /// Moves of engine notes' principal variations.
    pv_moves: Vec<Move>,
    /// Values of engine notes.
    engine: Vec<RawEngine>,
    termination: Option<Outcome>,
    depth: u32,
    plies: u64,
    /// Main-line plies counted, not decoded ([`BulkOptions::moves`] off).
    unplayed: u64,
}

impl Default for BulkGame {
    fn default() -> Self {
        BulkGame {
            info: GameInfo {
                index: 0,
                offset: 0,
                reduced: false,
            },
            end: 0,
            tags: TagList::default(),
            start: VariantPosition::default(),
            started: false,
            events: Vec::new(),
            main: Vec::new(),
            ordinals: Vec::new(),
            has_null: false,
            san: Vec::new(),
            text: Vec::new(),
            arrows: Vec::new(),
            squares: Vec::new(),
            pv_moves: Vec::new(),
            engine: Vec::new(),
            termination: None,
            depth: 0,
            plies: 0,
            unplayed: 0,
        }
    }
}

impl BulkGame {
    /// The game's 0-based number and the byte offset of its first record.
    pub fn info(&self) -> &GameInfo {
        &self.info
    }

    /// The byte offset just past the game's last record: the game's
    /// records are the bytes from [`GameInfo::offset`] to here.
    pub fn end_offset(&self) -> u64 {
        self.end
    }

    /// The tag pairs, in file order.
    pub fn tags(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.tags.iter()
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &[u8]) -> Option<&[u8]> {
        self.tags.get(name)
    }

    /// The start position (the FEN tag's, or the initial position), by the
    /// rules of the game's variant ([`crate::variant`]).
    pub fn start(&self) -> &VariantPosition {
        &self.start
    }

    /// How castling is written in UCI for this game: Chess960 (king takes
    /// rook) when the `Variant` tag names Chess960 (`960`, `fischer`, `frc`,
    /// any case) or the start position's castling rights are not the
    /// standard ones; else standard (`e1g1`).
    pub fn castling_mode(&self) -> CastlingMode {
        castling_mode_of(
            self.tag(b"Variant").is_some_and(names_chess960),
            self.tag(b"FEN").is_some(),
            &self.start,
        )
    }

    /// The main line's moves. A main line with a null move
    /// ([`Self::has_null_moves`]) is better read with [`Self::events`].
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.main.iter().copied()
    }

    /// The ordinal of each main-line move, as in the PGC (null moves
    /// excluded, like [`Self::moves`]).
    pub fn ordinals(&self) -> &[u16] {
        &self.ordinals
    }

    /// Whether the game's events are its main line's moves and nothing
    /// else: no comment, NAG, variation or null move ([`Self::moves`]
    /// then says all that [`Self::events`] would).
    pub fn moves_only(&self) -> bool {
        !self.has_null && self.events.len() == self.main.len()
    }

    /// Whether the main line holds a null move.
    pub fn has_null_moves(&self) -> bool {
        self.has_null
    }

    /// The SAN (with `+`/`#`) of every move, in event order (main line and,
    /// with [`BulkOptions::variations`], variations); empty unless
    /// [`BulkOptions::san`].
    pub fn san(&self) -> &[MoveText] {
        &self.san
    }

    /// Every event in order: moves, null moves, NAGs, variations (with
    /// [`BulkOptions::variations`]) and comments (with
    /// [`BulkOptions::comments`]).
    pub fn events(&self) -> impl Iterator<Item = Event<'_>> + '_ {
        self.events.iter().map(|r| match *r {
            Raw::Move(m) => Event::Move(m),
            Raw::Null => Event::NullMove,
            Raw::Begin => Event::BeginVariation,
            Raw::End => Event::EndVariation,
            Raw::Nag(n) => Event::Nag(n),
            Raw::Comment(a, b) => Event::Comment(&self.text[a as usize..b as usize]),
            Raw::Time(k, c) => Event::Time(k, c),
            Raw::Eval(e) => Event::Eval(e),
            Raw::Arrows(a, b) => Event::Arrows(&self.arrows[a as usize..b as usize]),
            Raw::Squares(a, b) => Event::Squares(&self.squares[a as usize..b as usize]),
            Raw::Engine(i) => self.engine_values(i),
        })
    }

    fn engine_values(&self, i: u32) -> Event<'_> {
        let e = self.engine[i as usize];
        Event::Engine(EngineValues {
            figures: e.figures,
            pv: &self.pv_moves[e.pv.0 as usize..e.pv.1 as usize],
            pv_from: e.pv_from,
        })
    }

    /// The clock (`[%clk]`) of each main-line move that has one, as
    /// `(ply, clock)` with ply 1 for the first move (only with
    /// [`BulkOptions::comments`]).
    pub fn clocks(&self) -> impl Iterator<Item = (u32, Clock)> + '_ {
        let mut depth = 0u32;
        let mut ply = 0u32;
        self.events.iter().filter_map(move |r| {
            match *r {
                Raw::Begin => depth += 1,
                Raw::End => depth = depth.saturating_sub(1),
                Raw::Move(_) | Raw::Null if depth == 0 => ply += 1,
                Raw::Time(TimeKind::Clk, c) if depth == 0 && ply > 0 => return Some((ply, c)),
                _ => {}
            }
            None
        })
    }

    /// Moves played, main line and decoded variations, null moves included
    /// (with [`BulkOptions::moves`] off: the main line's, counted).
    pub fn plies(&self) -> u64 {
        self.plies
    }

    /// The main line's moves and null moves counted but not decoded: all
    /// of them with [`BulkOptions::moves`] off, else none.
    pub fn unplayed_plies(&self) -> u64 {
        self.unplayed
    }

    /// The game's result: its termination marker when it differs from the
    /// Result tag, else the Result tag, else `*`.
    pub fn result(&self) -> &[u8] {
        result_of(self.termination, self.tag(b"Result"))
    }

    /// The main line's positions: the start position, then the position
    /// after each move (a null move passes the turn). Each comes with its
    /// ply (0 for the start) and the move played from it (`None` for the last
    /// position and before a null move).
    pub fn positions(&self) -> Positions<'_> {
        Positions {
            events: &self.events,
            at: 0,
            depth: 0,
            pos: Some(self.start.clone()),
            ply: 0,
        }
    }

    /// The events of the embedded commands of a comment kept as text (one
    /// that also holds words, `{Good move [%clk 0:03:00]}`), after its
    /// [`Event::Comment`], as a typed comment's would be; a command whose
    /// operands are not understood gives none.
    fn text_commands(&mut self, text: &[u8]) {
        for part in parse_comment(text) {
            if let Part::Command { command, .. } = part
                && let Some(c) = command.value()
            {
                self.push_command(c);
            }
        }
    }

    /// The event of one typed command, its arrows and squares kept in the
    /// game's lists.
    fn push_command(&mut self, c: TypedCommand<'_>) {
        let raw = match c {
            TypedCommand::Time(k, clock, _) => Raw::Time(k, clock),
            TypedCommand::Eval(e, _) => Raw::Eval(e),
            TypedCommand::Arrows(a) => {
                let s = self.arrows.len() as u32;
                self.arrows.extend_from_slice(a);
                Raw::Arrows(s, self.arrows.len() as u32)
            }
            TypedCommand::Squares(a) => {
                let s = self.squares.len() as u32;
                self.squares.extend_from_slice(a);
                Raw::Squares(s, self.squares.len() as u32)
            }
        };
        self.events.push(raw);
    }

    fn clear(&mut self) {
        self.tags.clear();
        self.events.clear();
        self.main.clear();
        self.ordinals.clear();
        self.san.clear();
        self.text.clear();
        self.arrows.clear();
        self.squares.clear();
        self.pv_moves.clear();
        self.engine.clear();
        self.has_null = false;
        self.termination = None;
        self.started = false;
        self.depth = 0;
        self.plies = 0;
        self.unplayed = 0;
    }
}

/// A position of a game's main line, see [`BulkGame::positions`].
#[derive(Debug, Clone)]
pub struct PositionAt {
    /// Plies from the start position.
    pub ply: u32,
    /// The position.
    pub pos: VariantPosition,
    /// The move played from it, if any.
    pub next: Option<Move>,
}

/// Iterator of [`BulkGame::positions`].
#[derive(Debug)]
pub struct Positions<'a> {
    events: &'a [Raw],
    at: usize,
    depth: u32,
    pos: Option<VariantPosition>,
    ply: u32,
}

impl Iterator for Positions<'_> {
    type Item = PositionAt;

    fn next(&mut self) -> Option<PositionAt> {
        let pos = self.pos.as_ref()?;
        // The next main-line move or null move.
        let mut next = None;
        while let Some(r) = self.events.get(self.at) {
            self.at += 1;
            match *r {
                Raw::Begin => self.depth += 1,
                Raw::End => self.depth = self.depth.saturating_sub(1),
                Raw::Move(m) if self.depth == 0 => {
                    next = Some(Some(m));
                    break;
                }
                Raw::Null if self.depth == 0 => {
                    next = Some(None);
                    break;
                }
                _ => {}
            }
        }
        let item = PositionAt {
            ply: self.ply,
            pos: pos.clone(),
            next: next.flatten(),
        };
        self.pos = match next {
            None => None,
            Some(Some(m)) => {
                let mut p = item.pos.clone();
                p.play_unchecked(m);
                Some(p)
            }
            Some(None) => crate::setup::variant_null_move(&item.pos),
        };
        self.ply += 1;
        Some(item)
    }
}

/// The visitor that fills a [`BulkGame`].
struct Collector {
    opts: BulkOptions,
    game: BulkGame,
    /// The game's typed comments, anchor by anchor (with comments on).
    anchors: Anchors,
    typed: TypedComment,
    /// The engine note of an anchor, its text, and the line positions its
    /// move lists start from.
    note_text: Vec<u8>,
    note_line: LineTrail,
    /// Variations entered only to count anchors (comments on, variations
    /// off): nothing in them is kept.
    hidden: u32,
    /// Payload buffers, and the first payload refused in the game.
    payloads: PayloadChecker,
    offset: u64,
    error: Option<ExtError>,
}

impl Collector {
    fn new(opts: BulkOptions) -> Collector {
        // Without the moves nothing is anchored to them: no comment, NAG,
        // variation or SAN is kept.
        let opts = if opts.moves {
            opts
        } else {
            BulkOptions {
                variations: false,
                comments: false,
                san: false,
                ..opts
            }
        };
        Collector {
            opts,
            game: BulkGame::default(),
            anchors: Anchors::new(),
            typed: TypedComment::new(),
            note_text: Vec::new(),
            note_line: LineTrail::default(),
            hidden: 0,
            payloads: PayloadChecker::new(),
            offset: 0,
            error: None,
        }
    }

    fn fail(&mut self, kind: ExtKind, e: PayloadError) {
        if self.error.is_none() {
            let ply = u32::try_from(self.game.plies).unwrap_or(u32::MAX);
            self.error = Some(e.at_record(kind, self.offset, self.game.info.index, ply));
        }
    }

    /// After an anchor (a move, null move, NAG or text comment): the values
    /// of the typed comment that follows it, if any.
    #[inline]
    fn after_anchor(&mut self) {
        if !self.opts.comments {
            return;
        }
        if self.hidden > 0 {
            self.anchors.skip(1);
            return;
        }
        if self.anchors.after_anchor(&mut self.typed) {
            self.typed_values();
        }
        if self.anchors.has_notes() {
            self.note_values();
        }
    }

    /// The engine note just read: its text as a comment, then its values.
    #[inline(never)]
    fn note_values(&mut self) {
        let line = self.note_line.positions();
        // The principal variation's moves come with the text: played once.
        let start = self.game.pv_moves.len();
        let moves = &mut self.game.pv_moves;
        let text = &mut self.note_text;
        let s = match self
            .anchors
            .note_text_and_pv_here(&self.note_line, text, |m| moves.push(m))
        {
            None => return,
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                self.game.pv_moves.truncate(start);
                return self.fail(ExtKind::ENGINE_NOTES, e);
            }
        };
        let g = &mut self.game;
        let a = g.text.len() as u32;
        g.text.extend_from_slice(&self.note_text);
        g.events.push(Raw::Comment(a, g.text.len() as u32));
        let pv_from =
            s.pv.and_then(|(from, _)| from.position(&line).map(|_| from));
        let start = start as u32;
        g.events.push(Raw::Engine(g.engine.len() as u32));
        g.engine.push(RawEngine {
            figures: s.figures,
            pv: (start, g.pv_moves.len() as u32),
            pv_from,
        });
    }

    /// The values of the typed commands comment just read.
    fn typed_values(&mut self) {
        for part in self.typed.parts() {
            if let TypedPart::Command(_, c) = part {
                self.game.push_command(c);
            }
        }
    }
}

impl GameVisitor for Collector {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.game.clear();
        self.game.info = *info;
        self.anchors.begin_game();
        self.note_line.resume();
        self.hidden = 0;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.game.tags.push(name, value);
        ControlFlow::Continue(())
    }

    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.game.start = start.clone();
        self.game.started = true;
        ControlFlow::Continue(())
    }

    fn wants_moves(&self) -> bool {
        self.opts.moves
    }

    fn unplayed(&mut self, plies: u32) {
        self.game.unplayed += u64::from(plies);
        self.game.plies += u64::from(plies);
    }

    fn wants_san(&self) -> bool {
        self.opts.san
    }

    fn wants_before(&self) -> bool {
        // Engine notes replay their move lists from the line's positions.
        self.opts.comments && self.anchors.has_notes()
    }

    fn record(&mut self, offset: u64, _record: &RecordRef<'_>) {
        self.offset = offset;
    }

    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        if let Some(before) = ply.before
            && self.opts.comments
            && self.anchors.has_notes()
        {
            self.note_line.played(before, ply.after);
        }
        if self.hidden == 0 {
            let g = &mut self.game;
            g.events.push(Raw::Move(ply.mv));
            if g.depth == 0 {
                g.main.push(ply.mv);
                g.ordinals.push(ply.ordinal);
            }
            if self.opts.san {
                g.san.push(ply.san);
            }
            g.plies += 1;
        }
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn null_move(&mut self, _before: &VariantPosition, _spelling: &[u8]) -> ControlFlow<()> {
        self.note_line.resume();
        if self.hidden == 0 {
            let g = &mut self.game;
            g.events.push(Raw::Null);
            if g.depth == 0 {
                g.has_null = true;
            }
            if self.opts.san {
                let mut t = MoveText::new();
                t.push(b'-');
                t.push(b'-');
                g.san.push(t);
            }
            g.plies += 1;
        }
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        if self.hidden == 0 && self.opts.moves {
            self.game.events.push(Raw::Nag(nag));
        }
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.note_line.resume();
        if self.hidden > 0 {
            self.hidden += 1;
            ControlFlow::Continue(Skip(false))
        } else if self.opts.variations {
            self.game.events.push(Raw::Begin);
            self.game.depth += 1;
            ControlFlow::Continue(Skip(false))
        } else if self.opts.comments && self.anchors.is_loaded() {
            // Typed comments after it are placed by counting its anchors.
            self.hidden = 1;
            ControlFlow::Continue(Skip(false))
        } else {
            ControlFlow::Continue(Skip(true))
        }
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.note_line.resume();
        if self.hidden > 0 {
            self.hidden -= 1;
            return ControlFlow::Continue(());
        }
        self.game.events.push(Raw::End);
        self.game.depth = self.game.depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        match kind {
            ExtKind::TERMINATION => match ext::simple::termination(payload) {
                Ok(o) => self.game.termination = Some(o),
                Err(e) => self.fail(kind, e),
            },
            ExtKind::COMMENT | ExtKind::LINE_COMMENT if self.opts.comments => {
                if self.hidden == 0 {
                    let g = &mut self.game;
                    let a = g.text.len() as u32;
                    g.text.extend_from_slice(payload);
                    g.events.push(Raw::Comment(a, g.text.len() as u32));
                    if kind == ExtKind::COMMENT {
                        g.text_commands(payload);
                    }
                }
                if kind == ExtKind::COMMENT {
                    self.after_anchor();
                }
            }
            ExtKind::COMMANDS if self.opts.comments => {
                if let Err(e) = self.anchors.load(payload) {
                    self.fail(kind, e);
                }
            }
            ExtKind::ENGINE_NOTES if self.opts.comments => {
                if let Err(e) = self.anchors.load_notes(payload) {
                    self.fail(kind, e);
                }
            }
            ExtKind::LONG_NAG => {
                if let Err(e) = ext::simple::long_nag(payload) {
                    self.fail(kind, e);
                }
                self.after_anchor();
            }
            _ => {
                if let Err(e) = self.payloads.check(kind, payload) {
                    self.fail(kind, e);
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) {
        let g = &mut self.game;
        if !g.started {
            // No movetext: the start position is still the FEN tag's.
            let variant = g.tag(b"Variant").map_or(Ok(Variant::Chess), variant_of_tag);
            g.start = variant
                .ok()
                .and_then(|v| variant_start_position(v, g.tag(b"FEN")).ok())
                .unwrap_or_default();
        }
    }
}

/// Tag pairs in one reused text buffer: no allocation per tag or per game.
#[derive(Debug, Clone, Default)]
pub struct TagList {
    text: Vec<u8>,
    /// (name start, value start, value end) in `text`.
    spans: Vec<(u32, u32, u32)>,
}

impl TagList {
    /// Appends a tag pair.
    pub fn push(&mut self, name: &[u8], value: &[u8]) {
        let n = self.text.len() as u32;
        self.text.extend_from_slice(name);
        let v = self.text.len() as u32;
        self.text.extend_from_slice(value);
        self.spans.push((n, v, self.text.len() as u32));
    }

    /// The tag pairs, in the order pushed.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.spans.iter().map(|&(n, v, e)| {
            (
                &self.text[n as usize..v as usize],
                &self.text[v as usize..e as usize],
            )
        })
    }

    /// The value of the first tag called `name`.
    pub fn get(&self, name: &[u8]) -> Option<&[u8]> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Forgets every tag, keeping the buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }
}

/// Whether a `Variant` tag value names Chess960: it holds `960`, `fischer`
/// or `frc`, in any case.
pub fn names_chess960(variant: &[u8]) -> bool {
    let v = variant.to_ascii_lowercase();
    let has = |w: &[u8]| v.windows(w.len()).any(|x| x == w);
    has(b"960") || has(b"fischer") || has(b"frc")
}

/// How castling is written in UCI for a game (see
/// [`BulkGame::castling_mode`]): Chess960 when the `Variant` tag names it
/// (`variant_960`, from [`names_chess960`]), standard without a FEN tag,
/// else as the start position's castling rights say.
pub fn castling_mode_of<P: Position>(variant_960: bool, has_fen: bool, start: &P) -> CastlingMode {
    if variant_960 {
        CastlingMode::Chess960
    } else if !has_fen {
        // The standard start position.
        CastlingMode::Standard
    } else {
        CastlingMode::detect(&start.to_setup(EnPassantMode::Legal))
    }
}

/// A game's result (see [`BulkGame::result`]): its termination marker when
/// there is one, else the `Result` tag, else `*`.
pub fn result_of(termination: Option<Outcome>, result_tag: Option<&[u8]>) -> &[u8] {
    match termination {
        Some(Outcome::Missing) | None => result_tag.unwrap_or(b"*"),
        Some(o) => o.as_bytes(),
    }
}

/// Reads games for bulk loading, one [`BulkGame`] at a time (see the
/// crate documentation).
pub struct BulkReader<R> {
    walker: GameWalker<R>,
    collector: Collector,
}

impl<R: Read> BulkReader<R> {
    /// A reader over PGC bytes.
    pub fn new(inner: R, opts: BulkOptions) -> BulkReader<R> {
        BulkReader::from_walker(
            GameWalker::from_reader(Reader::with_limits(inner, opts.limits)),
            opts,
        )
    }

    /// A reader over a configured walker (for one that starts mid-file, see
    /// [`GameWalker::from_reader`]).
    pub fn from_walker(walker: GameWalker<R>, opts: BulkOptions) -> BulkReader<R> {
        BulkReader {
            walker,
            collector: Collector::new(opts),
        }
    }

    /// For input that starts mid-file (a batch, or after a seek): `offset`
    /// is the file offset of the input's first byte and `games` the number
    /// of games before it. Game offsets and numbers, in [`GameInfo`] and in
    /// errors, are then those of the whole file.
    pub fn starting_at(mut self, offset: u64, games: u64) -> BulkReader<R> {
        self.walker = self.walker.starting_at_offset(offset, games);
        self
    }

    /// Offset of the next unread byte: bytes read so far, counted from the
    /// file offset given to [`BulkReader::starting_at`].
    pub fn offset(&self) -> u64 {
        self.walker.offset()
    }

    /// The opening moves remembered so far (see [`GameWalker::opening_cache_mut`]):
    /// swap one in before reading and out after, to carry it across batches.
    #[doc(hidden)]
    pub fn opening_cache_mut(&mut self) -> &mut crate::opening::OpeningCache {
        self.walker.opening_cache_mut()
    }

    /// The next game, or `None` at the end of the input.
    ///
    /// # Errors
    /// A positioned [`WalkError`] (framing, structure, an invalid ordinal,
    /// or an extension payload that its codec refuses).
    pub fn next_game(&mut self) -> Result<Option<&BulkGame>, WalkError> {
        let walked = self.walker.walk_game(&mut self.collector);
        // A refused payload comes before any later error of the same walk.
        if let Some(e) = self.collector.error.take() {
            return Err(e.into());
        }
        if walked? {
            self.collector.game.end = self.walker.offset();
            Ok(Some(&self.collector.game))
        } else {
            Ok(None)
        }
    }
}

/// Splits PGC bytes at game boundaries into about `parts` pieces. Returns
/// `(start offset, games before)` of each piece; the first piece starts at 0.
/// Records between games go with the game after them. Framing stops at the
/// first record that does not frame: the walker reports it.
pub fn split_points(data: &[u8], parts: usize, limits: &Limits) -> Vec<(usize, u64)> {
    let target = (data.len() / parts.max(1)).max(1);
    let mut points = vec![(0usize, 0u64)];
    let mut bounds = Bounds::default();
    let (mut at, mut last) = (0usize, 0usize);
    while at < data.len() {
        let Ok(len) = record_len(&data[at..], limits) else {
            break;
        };
        // record_len measured a record: its first byte is a marker.
        let Some(marker) = data.get(at).and_then(|&b| Marker::from_byte(b)) else {
            break;
        };
        let (_, boundary) = bounds.record(marker);
        at += len;
        if boundary && at - last >= target && at < data.len() {
            points.push((at, bounds.games()));
            last = at;
        }
    }
    points
}

/// Decodes every game of `data` on `threads` threads and returns
/// `map(game)` for each, in input order. All results are held in memory; for
/// unbounded streams use a [`BulkReader`] per batch of games instead.
///
/// # Errors
/// The first error in input order, positioned in `data` (offset and game
/// number are those of the whole input). Results of games before it are lost.
///
/// ```
/// use pgc_core::{BulkOptions, par_map};
/// let pgc: Vec<u8> = [0x05, 0x03, 2, 13, 12, 0x06].repeat(100);
/// let plies = par_map(&pgc, 2, BulkOptions::default(), |g| g.moves().len()).unwrap();
/// assert_eq!(plies, vec![2; 100]);
/// ```
pub fn par_map<T, F>(
    data: &[u8],
    threads: usize,
    opts: BulkOptions,
    map: F,
) -> Result<Vec<T>, WalkError>
where
    T: Send,
    F: Fn(&BulkGame) -> T + Sync,
{
    let threads = threads.max(1);
    let points = split_points(data, threads * 8, &opts.limits);
    let run = |i: usize| -> Result<Vec<T>, WalkError> {
        let (start, games) = points[i];
        let end = points.get(i + 1).map_or(data.len(), |p| p.0);
        let mut r = BulkReader::new(&data[start..end], opts).starting_at(start as u64, games);
        let mut out = Vec::new();
        while let Some(g) = r.next_game()? {
            out.push(map(g));
        }
        Ok(out)
    };
    type Slot<T> = Mutex<Option<Result<Vec<T>, WalkError>>>;
    let slots: Vec<Slot<T>> = points.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.min(points.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= points.len() {
                        break;
                    }
                    let r = run(i);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(r);
                    }
                }
            });
        }
    });
    let mut all = Vec::new();
    for slot in slots {
        let r = slot.into_inner().ok().flatten();
        match r {
            Some(Ok(v)) => all.extend(v),
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    Ok(all)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two games of record bytes: a general game with a variation and a
    /// comment, then a reduced game.
    pub(crate) fn two_games() -> Vec<u8> {
        // 1. e4 (1. d4 d5) 1... e5 {hi} *, then a reduced game 1. d4.
        let mut v = vec![
            0x05, 0x02, 6, b'R', b'e', b's', b'u', b'l', b't', 1, b'*', 0x03, 1, 13, 0x08, 0x03, 2,
            11, 10, 0x09, 0x03, 1, 12, 0x80, 0x01, 2, b'h', b'i', 0x06, 0x01,
        ];
        v.extend([0; 6]);
        v.extend([3, b'1', b'-', b'0', 1, 0, 11]);
        v
    }

    #[test]
    fn main_line_by_default_variations_on_request() {
        let data = two_games();
        let mut r = BulkReader::new(&data[..], BulkOptions::default());
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.info().offset, 0);
        assert_eq!(g.end_offset(), 29);
        assert_eq!(g.moves().len(), 2);
        assert_eq!(g.events().count(), 2);
        assert_eq!(g.result(), b"*");
        assert_eq!(g.positions().count(), 3);
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.info().offset, 29);
        assert_eq!(g.info().index, 1);
        assert_eq!(g.end_offset(), data.len() as u64);
        assert_eq!((g.result(), g.moves().len()), (&b"1-0"[..], 1));
        assert!(r.next_game().unwrap().is_none());

        let opts = BulkOptions {
            variations: true,
            comments: true,
            san: true,
            ..BulkOptions::default()
        };
        let mut r = BulkReader::new(&data[..], opts);
        let g = r.next_game().unwrap().unwrap();
        let san: Vec<String> = g.san().iter().map(|s| s.to_string()).collect();
        assert_eq!(san, ["e4", "d4", "d5", "e5"]);
        assert_eq!(g.moves().len(), 2);
        // The main line's ordinals only: e4 (13), e5 (12); not d4, d5.
        assert_eq!(g.ordinals(), [13, 12]);
        assert_eq!(g.positions().count(), 3);
        assert!(g.events().any(|e| e == Event::Comment(b"hi")));
    }

    #[test]
    fn parallel_equals_sequential() {
        let data = two_games().repeat(500);
        let one = par_map(&data, 1, BulkOptions::default(), |g| {
            (g.info().offset, g.moves().collect::<Vec<_>>())
        })
        .unwrap();
        let four = par_map(&data, 4, BulkOptions::default(), |g| {
            (g.info().offset, g.moves().collect::<Vec<_>>())
        })
        .unwrap();
        assert_eq!(one.len(), 1000);
        assert_eq!(one, four);
        // Errors keep their position in the whole input (the bad ordinal byte).
        let mut bad = data.clone();
        bad.extend([0x05, 0x03, 1, 40, 0x06]);
        let mut r = BulkReader::new(&bad[..], BulkOptions::default());
        let seq = loop {
            match r.next_game() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error"),
                Err(e) => break e,
            }
        };
        assert_eq!(
            (seq.game, seq.offset),
            (1000, data.len() as u64 + 3),
            "{seq}"
        );
        let e = par_map(&bad, 3, BulkOptions::default(), |_| ()).unwrap_err();
        assert_eq!((e.game, e.offset), (1000, data.len() as u64 + 3), "{e}");
    }

    /// The game `1. e4 {clk 3:00} e5 {clk 2:59} (1... d5 {clk 2:58}) 2. Nf3
    /// {clk 2:57}` with the clocks in a commands record, and the offset of
    /// that record.
    fn clocked_game() -> (Vec<u8>, u64) {
        use crate::ext::commands::{ClockFormat, GameCommands, Separator};
        let ord = |moves: &[&[u8]], san: &[u8]| {
            let mut pos = shakmaty::Chess::default();
            for m in moves {
                let (mv, _) = crate::ordinal::find_canonical_in(&pos, m).unwrap();
                pos.play_unchecked(mv);
            }
            crate::ordinal::find_canonical_in(&pos, san).unwrap().1
        };
        let mut g = GameCommands::new();
        for (anchor, secs) in [(0u64, 180u64), (1, 179), (2, 178), (3, 177)] {
            let mut c = TypedComment::new();
            c.push_time(
                Separator::Space,
                TimeKind::Clk,
                Clock {
                    millis: secs * 1000,
                },
                ClockFormat::HMS,
            );
            assert!(g.push(anchor, &c));
        }
        let mut payload = Vec::new();
        g.to_payload(&mut payload);
        let mut pgc = vec![0x05];
        RecordRef::Extension {
            kind: ext::CLOCKS,
            payload: &payload,
        }
        .write_to(&mut pgc)
        .unwrap();
        pgc.extend([0x03, 2, ord(&[], b"e4"), ord(&[b"e4"], b"e5")]);
        pgc.extend([0x08, 0x03, 1, ord(&[b"e4"], b"d5"), 0x09]);
        pgc.extend([0x03, 1, ord(&[b"e4", b"e5"], b"Nf3"), 0x06]);
        (pgc, 1)
    }

    #[test]
    fn commands_in_text_comments_are_read_too() {
        // 1. e4 {Good move [%clk 0:03:00] [%eval 0.25]} e5 {[%clk 0:02:59]
        // then [%eval #-2] [%cal Ge2e4]}: comments kept as text, since they
        // hold words.
        let text1: &[u8] = b"Good move [%clk 0:03:00] [%eval 0.25]";
        let text2: &[u8] = b"[%clk 0:02:59] then [%eval #-2] [%cal Ge2e4] [%clk 1:2]";
        let mut pgc = vec![0x05, 0x03, 1, 13];
        for (text, ord) in [(text1, Some(12)), (text2, None)] {
            RecordRef::Extension {
                kind: ext::COMMENT,
                payload: text,
            }
            .write_to(&mut pgc)
            .unwrap();
            if let Some(o) = ord {
                pgc.extend([0x03, 1, o]);
            }
        }
        pgc.push(0x06);
        let opts = BulkOptions {
            comments: true,
            ..BulkOptions::default()
        };
        let mut r = BulkReader::new(&pgc[..], opts);
        let g = r.next_game().unwrap().unwrap();
        let clocks: Vec<(u32, u64)> = g.clocks().map(|(p, c)| (p, c.millis)).collect();
        assert_eq!(clocks, [(1, 180_000), (2, 179_000)]);
        let evals: Vec<Eval> = g
            .events()
            .filter_map(|e| match e {
                Event::Eval(v) => Some(v),
                _ => None,
            })
            .collect();
        assert_eq!(evals, [Eval::Centipawns(25), Eval::Mate(-2)]);
        let arrows = g
            .events()
            .filter(|e| matches!(e, Event::Arrows(a) if a.len() == 1));
        assert_eq!(arrows.count(), 1);
        // The text itself is still there, before its values.
        assert!(matches!(g.events().nth(1), Some(Event::Comment(t)) if t == text1));
        // Without comments, nothing.
        let mut r = BulkReader::new(&pgc[..], BulkOptions::default());
        assert_eq!(r.next_game().unwrap().unwrap().clocks().count(), 0);
    }

    #[test]
    fn typed_comments_come_from_the_commands_record() {
        let (pgc, _) = clocked_game();
        let secs = |g: &BulkGame| -> Vec<(u32, u64)> {
            g.clocks().map(|(p, c)| (p, c.millis / 1000)).collect()
        };
        // Variations skipped: their anchors still count, so Nf3 gets 2:57.
        let opts = BulkOptions {
            comments: true,
            ..BulkOptions::default()
        };
        let mut r = BulkReader::new(&pgc[..], opts);
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(secs(g), [(1, 180), (2, 179), (3, 177)]);
        assert_eq!(g.moves().count(), 3);
        assert_eq!(g.plies(), 3);
        // Variations kept: the variation's clock is an event inside it.
        let mut r = BulkReader::new(
            &pgc[..],
            BulkOptions {
                variations: true,
                ..opts
            },
        );
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(secs(g), [(1, 180), (2, 179), (3, 177)]);
        let times: Vec<u64> = g
            .events()
            .filter_map(|e| match e {
                Event::Time(TimeKind::Clk, c) => Some(c.millis / 1000),
                _ => None,
            })
            .collect();
        assert_eq!(times, [180, 179, 178, 177]);
        // Comments off: no typed values.
        let mut r = BulkReader::new(&pgc[..], BulkOptions::default());
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.clocks().count(), 0);
        assert!(!g.events().any(|e| matches!(e, Event::Time(..))));
    }

    /// An input that starts mid-file reports file offsets in the error's
    /// fields and in its message alike.
    #[test]
    fn a_framing_error_mid_file_names_one_offset() {
        let (mut pgc, _) = clocked_game();
        let bad = pgc.len() as u64;
        pgc.push(0x64);
        let mut r = BulkReader::new(&pgc[..], BulkOptions::default()).starting_at(1000, 7);
        assert!(r.next_game().unwrap().is_some());
        let e = r.next_game().unwrap_err();
        assert_eq!((e.offset, e.game), (1000 + bad, 8));
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("byte {}, game 9,", 1000 + bad))
                && text.contains(&format!("0x64 at byte {}", 1000 + bad)),
            "{text}"
        );
    }

    #[test]
    fn a_corrupt_payload_is_an_error_with_or_without_comments() {
        let (mut pgc, record) = clocked_game();
        // The commands payload starts after 0x80, kind, length: its
        // template count becomes 0.
        assert_eq!(pgc[record as usize], 0x80);
        pgc[record as usize + 3] = 0;
        for comments in [true, false] {
            let opts = BulkOptions {
                comments,
                ..BulkOptions::default()
            };
            let e = BulkReader::new(&pgc[..], opts)
                .starting_at(100, 7)
                .next_game()
                .unwrap_err();
            assert_eq!((e.offset, e.game), (100 + record, 7));
            let text = e.to_string();
            assert!(
                text.contains("0x10 commands") && text.contains("payload byte 0"),
                "{text}"
            );
        }
    }
}
