//! PGN → PGC: a lexer [`Visitor`] that plays each game on a shakmaty board
//! and writes records, without building a game tree.
//!
//! Per move the work is one legal-move generation: the ordinal table both
//! finds the move from its SAN (canonical SAN matches a key exactly; other
//! spellings go through shakmaty's lenient SAN parser) and gives its ordinal.
//! A game is built in a reused buffer and written only once it is complete,
//! so a game with an illegal move is rejected whole, verbatim.

use crate::commands::{GameCommands, TypedComment, encode_comment_into};
use crate::export::{ExportWriter, unescape_into};
use crate::layout::Layout;
use crate::visitor::{GameStart, Visitor};
use pgc_core::ext::{self, Outcome};
use pgc_core::ordinal;
use pgc_core::setup::start_position;
use pgc_core::visit::STR_TAGS;
use pgc_core::writer::write_moves;
use pgc_core::{RecordRef, item};
use shakmaty::san::San;
use shakmaty::{Chess, Color, Move, MoveList, Position};
use std::ops::Range;

/// Options of the encoder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Write 1994 records only; count what could not be kept.
    pub strict: bool,
    /// Deepest RAV nesting accepted (0 = the core's default limit).
    pub max_rav_depth: u32,
}

/// What strict mode could not keep, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Losses {
    /// Brace comments dropped.
    pub comments: u64,
    /// `;` comments dropped.
    pub line_comments: u64,
    /// Termination markers that differed from the Result tag (or had none).
    pub terminations: u64,
    /// Null moves (the rest of their line is dropped).
    pub null_moves: u64,
    /// Moves dropped after a null move.
    pub moves_after_null: u64,
    /// Tags with a name or value over 255 bytes.
    pub long_tags: u64,
    /// NAGs above 255.
    pub long_nags: u64,
    /// Games whose text layout (for a byte-identical round trip) was dropped.
    pub layouts: u64,
}

impl Losses {
    /// Whether nothing was lost.
    pub fn is_empty(&self) -> bool {
        *self == Losses::default()
    }

    /// Adds another count.
    pub fn add(&mut self, o: &Losses) {
        self.comments += o.comments;
        self.line_comments += o.line_comments;
        self.terminations += o.terminations;
        self.null_moves += o.null_moves;
        self.moves_after_null += o.moves_after_null;
        self.long_tags += o.long_tags;
        self.long_nags += o.long_nags;
        self.layouts += o.layouts;
    }

    /// `(name, count)` pairs for reports.
    pub fn items(&self) -> [(&'static str, u64); 8] {
        [
            ("comments", self.comments),
            ("line comments", self.line_comments),
            ("termination markers", self.terminations),
            ("null moves", self.null_moves),
            ("moves after null moves", self.moves_after_null),
            ("long tags", self.long_tags),
            ("NAGs over 255", self.long_nags),
            ("layouts", self.layouts),
        ]
    }
}

impl std::fmt::Display for Losses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (name, n) in self.items() {
            if n > 0 {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{n} {name}")?;
                first = false;
            }
        }
        if first {
            f.write_str("nothing")?;
        }
        Ok(())
    }
}

/// Why a game was not converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    /// 0-based game number.
    pub game: u64,
    /// Line of the game's first byte.
    pub line: u64,
    /// Byte offset of the game.
    pub offset: u64,
    /// Ply at which it failed (0 = before the first move).
    pub ply: u32,
    /// What went wrong.
    pub reason: String,
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {} (line {}, byte {}), ply {}: {}",
            self.game + 1,
            self.line,
            self.offset,
            self.ply,
            self.reason
        )
    }
}

/// The result of encoding one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameOutput {
    /// Converted: the PGC bytes are in [`Encoder::take_game`].
    Encoded {
        /// Plies played (all lines).
        plies: u64,
        /// Whether the game's text is reproduced byte for byte on decoding.
        identical: bool,
        /// What strict mode dropped.
        losses: Losses,
    },
    /// Not converted: the reason.
    Rejected(Reject),
}

/// A movetext event recorded for the layout check.
#[derive(Debug, Clone)]
enum Ev {
    Tag(Range<usize>, Range<usize>),
    Movetext,
    San(u32, bool, Range<usize>),
    Nag(u32),
    Comment(Range<usize>),
    LineComment(Range<usize>),
    Escape(Range<usize>),
    Begin,
    End,
    Outcome(Range<usize>),
    Junk(Range<usize>, bool),
}

struct Line {
    pos: Chess,
    prev: Option<Chess>,
    ply: u32,
}

/// The PGN → PGC encoder, one game per [`crate::reader::PgnReader::read_game`] call.
pub struct Encoder {
    opts: EncodeOptions,
    start: GameStart,
    /// Records of the game after 0x05 (tags and movetext).
    body: Vec<u8>,
    /// The finished game (what [`Encoder::take_game`] returns).
    done: Vec<u8>,
    run: Vec<u8>,
    mainline: Vec<u8>,
    tag_text: Vec<u8>,
    tags: Vec<(Range<usize>, Range<usize>)>,
    scratch: Vec<u8>,
    stack: Vec<Line>,
    events: Vec<Ev>,
    arena: Vec<u8>,
    render: Vec<u8>,
    writer: ExportWriter,
    /// Typed embedded commands of the game (one CLOCKS record).
    commands: GameCommands,
    /// Scratch for parsing one comment's commands.
    typed: TypedComment,
    /// The text of a move number not yet followed by a move. The export
    /// writer makes numbers from the moves, so one that no move follows
    /// (`24. 1-0`, a lone `1`) is kept as junk where it stood.
    pending_number: Vec<u8>,
    /// What one game has shown so far; [`GameState::new`] at each game.
    g: GameState,
}

/// The encoder's facts about the game being read, reset at each game (the
/// buffers it reuses live in [`Encoder`] and are cleared instead).
struct GameState {
    line: Line,
    started: bool,
    error: Option<(u32, String)>,
    /// Only STR tags, no extras: candidate for 0x01.
    extras: bool,
    outcome: Option<Outcome>,
    /// Where in `body` the termination marker stood.
    outcome_at: Option<usize>,
    plies: u64,
    losses: Losses,
    /// The text so far is what the export writer renders under some layout
    /// (the byte-identical check).
    exact: bool,
    bom: bool,
    glyphs: bool,
    number_after_comment: bool,
    after_comment: bool,
    null_cut: bool,
    /// Junk was seen.
    junk: bool,
    /// `Ev::Movetext` was recorded.
    movetext_rendered: bool,
    /// The last whitespace was two spaces (allowed only before the marker).
    gap2: bool,
    /// Two spaces stood before the termination marker.
    result_gap: bool,
    /// A move number was glued to its move (`1.e4`).
    glued_numbers: bool,
    /// Anchors (moves, null moves, NAGs, text comments) written so far.
    anchors: u64,
    /// The last record written was an anchor.
    at_anchor: bool,
    /// A move number was read and no whitespace yet.
    number_glued: bool,
    /// A movetext token was read (whitespace checks start).
    movetext_token: bool,
    /// Anything but junk and whitespace was seen.
    content: bool,
}

impl GameState {
    fn new() -> GameState {
        GameState {
            line: Line {
                pos: Chess::default(),
                prev: None,
                ply: 0,
            },
            started: false,
            error: None,
            extras: false,
            outcome: None,
            outcome_at: None,
            plies: 0,
            losses: Losses::default(),
            exact: true,
            bom: false,
            glyphs: false,
            number_after_comment: true,
            after_comment: false,
            null_cut: false,
            junk: false,
            movetext_rendered: false,
            gap2: false,
            result_gap: false,
            glued_numbers: false,
            anchors: 0,
            at_anchor: false,
            number_glued: false,
            movetext_token: false,
            content: false,
        }
    }
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new(EncodeOptions::default())
    }
}

fn unsupported_variant(v: &[u8]) -> bool {
    let v = v.trim_ascii().to_ascii_lowercase();
    !matches!(
        v.as_slice(),
        b"" | b"standard"
            | b"chess"
            | b"normal"
            | b"chess960"
            | b"chess 960"
            | b"960"
            | b"fischerandom"
            | b"fischerrandom"
            | b"fischer random"
            | b"from position"
            | b"frc"
            | b"freestyle"
    )
}

impl Encoder {
    /// A new encoder.
    pub fn new(opts: EncodeOptions) -> Encoder {
        Encoder {
            opts,
            start: GameStart::default(),
            body: Vec::with_capacity(4096),
            done: Vec::with_capacity(4096),
            run: Vec::with_capacity(256),
            mainline: Vec::with_capacity(256),
            tag_text: Vec::with_capacity(1024),
            tags: Vec::with_capacity(32),
            scratch: Vec::with_capacity(256),
            stack: Vec::new(),
            events: Vec::with_capacity(256),
            arena: Vec::with_capacity(4096),
            render: Vec::with_capacity(4096),
            writer: ExportWriter::new(),
            commands: GameCommands::new(),
            typed: TypedComment::new(),
            pending_number: Vec::new(),
            g: GameState::new(),
        }
    }

    /// The PGC bytes of the last encoded game, or the verbatim PGN text of the
    /// last rejected one.
    pub fn take_game(&self) -> &[u8] {
        &self.done
    }

    fn fail(&mut self, reason: String) {
        if self.g.error.is_none() {
            self.g.error = Some((self.g.line.ply, reason));
        }
    }

    fn keep(&mut self, t: &[u8]) -> Range<usize> {
        let s = self.arena.len();
        self.arena.extend_from_slice(t);
        s..self.arena.len()
    }

    /// The decoder writes the empty line after the tags when it meets the
    /// first record that belongs to the movetext (or the game's end); the
    /// layout check renders it at the same place.
    fn movetext_event(&mut self) {
        if !self.g.movetext_rendered {
            self.g.movetext_rendered = true;
            self.events.push(Ev::Movetext);
        }
    }

    /// A token other than the termination marker: two spaces before it are
    /// not reproducible.
    fn not_outcome(&mut self) {
        if std::mem::take(&mut self.g.gap2) {
            self.g.exact = false;
        }
    }

    /// A move, null move, NAG or text comment was written: a typed comment
    /// right after it attaches to it (`spec/extensions-commands.md`).
    fn anchor(&mut self) {
        self.g.anchors += 1;
        self.g.at_anchor = true;
    }

    fn flush_run(&mut self) {
        write_moves(&mut self.body, &self.run);
        self.run.clear();
    }

    fn ext(&mut self, kind: u8, payload: &[u8]) {
        self.flush_run();
        self.g.at_anchor = false;
        // Payloads are bounded by the PGN reader's game size limit (< 4 GiB).
        let _ = RecordRef::Extension { kind, payload }.write_to(&mut self.body);
        self.g.extras = true;
    }

    /// Sets up the start position when the movetext begins.
    fn start_movetext(&mut self) {
        if self.g.started {
            return;
        }
        self.g.started = true;
        let mut fen = None;
        for (n, v) in &self.tags {
            let name = &self.tag_text[n.clone()];
            let value = &self.tag_text[v.clone()];
            if name == b"Variant" && unsupported_variant(value) {
                let msg = format!("unsupported variant {:?}", String::from_utf8_lossy(value));
                self.fail(msg);
                return;
            }
            if name == b"FEN" {
                fen = Some(v.clone());
            }
        }
        let from_fen = fen.is_some();
        match start_position(fen.map(|r| &self.tag_text[r])) {
            Ok(p) => {
                // A FEN start cannot be a 0x01 game.
                self.g.extras |= from_fen;
                self.g.line = Line {
                    pos: p,
                    prev: None,
                    ply: 0,
                };
            }
            Err(e) => self.fail(e.to_string()),
        }
    }

    /// The move a non-canonical SAN token names (import forms: `0-0`, `e8Q`,
    /// `Nge2`, `g1f3`), its ordinal, and whether the token is canonical after
    /// all; or the error message when no legal move fits.
    fn find_spelled(&self, token: &[u8], body: &[u8]) -> Result<(Move, u8, bool), String> {
        let pos = &self.g.line.pos;
        let moves = pos.legal_moves();
        let Some((index, canonical)) = find_move(body, &moves, pos) else {
            let why = match San::from_ascii(body) {
                Ok(_) => "illegal or ambiguous move",
                Err(_) => "not a move",
            };
            return Err(format!(
                "{why} {:?} (expected a legal SAN move)",
                String::from_utf8_lossy(token)
            ));
        };
        let ord = ordinal::rank_of(pos, &moves, index).map_err(|e| e.to_string())?;
        Ok((moves[index], ord, canonical))
    }

    fn play_san(&mut self, token: &[u8]) {
        if self.g.error.is_some() {
            return;
        }
        if self.g.null_cut {
            self.g.losses.moves_after_null += 1;
            return;
        }
        let body_end = token
            .iter()
            .rposition(|&b| b != b'+' && b != b'#')
            .map_or(0, |i| i + 1);
        let body = &token[..body_end];
        let suffix = &token[body_end..];
        let (m, ord, canonical) = match ordinal::find_canonical_in(&self.g.line.pos, body) {
            Some((m, ord)) => (m, ord, true),
            None => match self.find_spelled(token, body) {
                Ok(found) => found,
                Err(msg) => return self.fail(msg),
            },
        };
        if self.g.number_glued {
            // `1.e4`: a layout fact; mixed with `1. e4` no layout reproduces it.
            self.g.glued_numbers = true;
        }
        self.g.movetext_token = true;
        let number = self.g.line.pos.fullmoves().get();
        let white = self.g.line.pos.turn() == Color::White;
        let mut after = self.g.line.pos.clone();
        after.play_unchecked(m);
        if self.g.exact {
            let want: &[u8] = if after.is_check() {
                if after.is_checkmate() { b"#" } else { b"+" }
            } else {
                b""
            };
            if !canonical || suffix != want {
                self.g.exact = false;
            } else {
                let r = self.keep(token);
                self.movetext_event();
                self.events.push(Ev::San(number, white, r));
            }
        }
        if !white && self.g.after_comment {
            // A black move right after a comment with no move number: old Lichess style.
            self.g.number_after_comment = false;
        }
        self.g.after_comment = false;
        self.run.push(ord);
        self.anchor();
        if self.stack.is_empty() {
            self.mainline.push(ord);
        }
        self.g.line.prev = Some(std::mem::replace(&mut self.g.line.pos, after));
        self.g.line.ply += 1;
        self.g.plies += 1;
    }

    fn null_move(&mut self, token: &[u8]) {
        if self.g.error.is_some() || self.g.null_cut {
            return;
        }
        if self.opts.strict {
            self.g.losses.null_moves += 1;
            self.g.null_cut = true;
            return;
        }
        let Ok(after) = pgc_core::setup::null_move(&self.g.line.pos) else {
            return self.fail(format!(
                "null move {:?} while in check",
                String::from_utf8_lossy(token)
            ));
        };
        let payload: &[u8] = if token == b"--" { b"" } else { token };
        let payload = payload.to_vec();
        self.ext(ext::NULL_MOVE, &payload);
        self.anchor();
        // Null moves are written `--` on export; other spellings are not byte-identical.
        self.g.exact = false;
        self.g.line.prev = Some(std::mem::replace(&mut self.g.line.pos, after));
        self.g.line.ply += 1;
    }

    /// What every movetext item (NAG, comment, RAV) does first: it ends any
    /// result-like token before it, starts the movetext, and counts as
    /// content. `false` when the game is already failing or cut at a null
    /// move, so the item is not recorded.
    fn movetext_item(&mut self) -> bool {
        self.not_outcome();
        self.g.movetext_token = true;
        self.g.content = true;
        self.start_movetext();
        self.g.error.is_none() && !self.g.null_cut
    }

    /// Keeps a move number that no move followed as junk, at its place.
    fn flush_number(&mut self) {
        if self.pending_number.is_empty() {
            return;
        }
        let number = std::mem::take(&mut self.pending_number);
        <Self as Visitor>::junk(self, &number);
        self.pending_number = number;
        self.pending_number.clear();
    }

    fn finish_game(&mut self, raw: &[u8]) -> GameOutput {
        self.flush_number();
        if self.g.error.is_none() && self.g.junk && !self.g.content {
            self.fail("no PGN game here, only text that is not PGN".into());
        }
        if self.g.error.is_none() {
            self.start_movetext();
        }
        if let Some((ply, reason)) = self.g.error.take() {
            self.done.clear();
            self.done.extend_from_slice(raw);
            return GameOutput::Rejected(Reject {
                game: self.start.index,
                line: self.start.line,
                offset: self.start.offset,
                ply,
                reason,
            });
        }
        // Close variations left open (import files do that).
        while self.stack.pop().is_some() {
            self.flush_run();
            self.body.push(0x09);
            self.g.exact = false;
        }
        self.flush_run();
        let result_tag = self
            .tags
            .iter()
            .find(|(n, _)| &self.tag_text[n.clone()] == b"Result")
            .map(|(_, v)| v.clone());
        let outcome = self.g.outcome.unwrap_or(Outcome::Missing);
        let agrees = result_tag
            .as_ref()
            .is_some_and(|v| &self.tag_text[v.clone()] == outcome.as_bytes());
        // Something after the marker (a `;` comment, an escape line) keeps the
        // marker in its place: then the record is written even if it agrees.
        let trailing = self.g.outcome_at.is_some_and(|at| at < self.body.len());
        if !agrees || trailing {
            if self.opts.strict {
                self.g.losses.terminations += u64::from(!agrees);
            } else {
                let mut rec = Vec::with_capacity(4);
                let _ = RecordRef::Extension {
                    kind: ext::TERMINATION,
                    payload: &[outcome as u8],
                }
                .write_to(&mut rec);
                let at = self.g.outcome_at.unwrap_or(self.body.len());
                self.body.splice(at..at, rec);
                self.g.extras = true;
            }
        }
        // A game with no movetext record: the decoder writes the empty line
        // after the tags at the game's end.
        self.movetext_event();
        let guess = self.guess_layout(raw);
        let found = if self.g.exact {
            self.find_layout(raw, guess)
        } else {
            None
        };
        let mut identical = found.is_some();
        // A game that is not reproducible keeps its newline style and byte
        // order mark: facts that every rendering shows, so that re-encoding
        // the rendering finds the same layout (the PGC fixed point).
        let mut layout = found.unwrap_or(Layout {
            crlf: guess.crlf,
            bom: guess.bom,
            ..Layout::EXPORT
        });
        if self.opts.strict && layout != Layout::EXPORT {
            self.g.losses.layouts += 1;
            layout = Layout::EXPORT;
            identical = false;
        }
        let reduced = !self.g.extras
            && layout == Layout::EXPORT
            && self.tags.len() == 7
            && self.mainline.len() < 65_536
            && self
                .tags
                .iter()
                .zip(STR_TAGS)
                .all(|((n, v), want)| &self.tag_text[n.clone()] == want && v.len() < 256);
        self.done.clear();
        if reduced {
            self.done.push(0x01);
            for (_, v) in &self.tags {
                let _ = item::put_string1(&mut self.done, &self.tag_text[v.clone()]);
            }
            let _ = item::put_mvseq2(&mut self.done, &self.mainline);
        } else {
            self.done.push(0x05);
            if layout != Layout::EXPORT {
                let mut p = Vec::with_capacity(8);
                layout.to_payload(&mut p);
                let _ = RecordRef::Extension {
                    kind: ext::LAYOUT,
                    payload: &p,
                }
                .write_to(&mut self.done);
            }
            if !self.commands.is_empty() {
                self.scratch.clear();
                self.commands.to_payload(&mut self.scratch);
                let _ = RecordRef::Extension {
                    kind: ext::CLOCKS,
                    payload: &self.scratch,
                }
                .write_to(&mut self.done);
            }
            self.done.extend_from_slice(&self.body);
            self.done.push(0x06);
        }
        GameOutput::Encoded {
            plies: self.g.plies,
            identical,
            losses: self.g.losses,
        }
    }

    /// Renders the recorded events in `layout` into `self.render`, stopping
    /// (false) at the first byte that differs from `raw`: most candidate
    /// layouts fail on the first line.
    fn render_with(&mut self, layout: Layout, raw: &[u8]) -> bool {
        self.render.clear();
        let w = &mut self.writer;
        let out = &mut self.render;
        w.begin_game(out, layout);
        let mut checked = 0;
        for ev in &self.events {
            match ev {
                Ev::Tag(n, v) => {
                    self.scratch.clear();
                    unescape_into(&mut self.scratch, &self.arena[v.clone()]);
                    w.tag(out, &self.arena[n.clone()], &self.scratch);
                }
                Ev::Movetext => w.begin_movetext(out),
                Ev::San(num, white, r) => w.san(out, *num, *white, &self.arena[r.clone()]),
                Ev::Nag(n) => w.nag(out, *n),
                Ev::Comment(r) => w.comment(out, &self.arena[r.clone()]),
                Ev::LineComment(r) => w.line_comment(out, &self.arena[r.clone()]),
                Ev::Escape(r) => w.escape_line(out, &self.arena[r.clone()]),
                Ev::Begin => w.begin_variation(out),
                Ev::End => w.end_variation(out),
                Ev::Outcome(r) => w.outcome(out, &self.arena[r.clone()]),
                Ev::Junk(r, m) => w.junk(out, &self.arena[r.clone()], *m),
            }
            // The writer holds back the word it is building, so what is in
            // `out` is final.
            let n = out.len();
            if n > checked {
                if raw.get(checked..n) != out.get(checked..n) {
                    return false;
                }
                checked = n;
            }
        }
        // The trailer is measured, not rendered.
        let mut trailerless = layout;
        trailerless.trailer = 0;
        w.set_layout(out, trailerless);
        w.end_game(out);
        true
    }

    /// Whether `raw` is the rendering in `layout` followed by newlines; returns the count.
    fn trailer_of(&mut self, raw: &[u8], layout: Layout) -> Option<u8> {
        if !self.render_with(layout, raw) {
            return None;
        }
        let rest = raw.strip_prefix(self.render.as_slice())?;
        let nl = layout.newline();
        if rest.len() % nl.len() != 0 || rest.len() / nl.len() > 255 {
            return None;
        }
        if rest.chunks(nl.len()).all(|c| c == nl) {
            Some((rest.len() / nl.len()) as u8)
        } else {
            None
        }
    }

    /// The layout facts visible in the text, whether or not the game turns
    /// out to be reproducible.
    fn guess_layout(&self, raw: &[u8]) -> Layout {
        let crlf = memchr::memmem::find(raw, b"\r\n").is_some();
        let blank: &[u8] = if crlf { b"\r\n\r\n " } else { b"\n\n " };
        Layout {
            crlf,
            bom: self.g.bom,
            width: 79,
            number_after_comment: self.g.number_after_comment,
            glyphs: self.g.glyphs,
            lead_space: !self.tags.is_empty() && memchr::memmem::find(raw, blank).is_some(),
            move_per_line: false,
            result_nowrap: false,
            result_gap: self.g.result_gap,
            glued_numbers: self.g.glued_numbers,
            pair_words: false,
            trailer: 2,
        }
    }

    /// The first layout, in a fixed order, under which the game's text is
    /// exactly what the export writer produces. The export layout is tried
    /// first, so that a game rendered by the decoder finds the layout it was
    /// rendered with (the PGC fixed point).
    fn find_layout(&mut self, raw: &[u8], guess: Layout) -> Option<Layout> {
        // Newline style and byte-order mark are facts of the text: a
        // candidate that differs in them cannot match, so it is not rendered.
        let export = Layout::EXPORT;
        if export.crlf == guess.crlf
            && export.bom == guess.bom
            && let Some(t) = self.trailer_of(raw, export)
        {
            return Some(Layout {
                trailer: t,
                ..export
            });
        }
        let (widest, widest_body) = widest_movetext_lines(raw);
        // Move pairs as words only go with glued numbers (pgnmentor).
        // Orders below follow the guess where only a reproduced text is at
        // stake; for a text without these facts the plain candidates stay
        // first (the PGC fixed point of unreproducible games).
        let pairs: &[bool] = if guess.glued_numbers {
            &[true, false]
        } else {
            &[false]
        };
        let nowraps = if guess.result_gap {
            [true, false]
        } else {
            [false, true]
        };
        for (&pair_words, result_nowrap) in pairs.iter().flat_map(|p| nowraps.map(move |r| (p, r)))
        {
            for nac in [guess.number_after_comment, !guess.number_after_comment] {
                // 80: ChessBase fills lines to 80 characters.
                let widths = if result_nowrap {
                    [79, widest_body, 80, 0]
                } else {
                    [79, widest, 80, 0]
                };
                for (i, &width) in widths.iter().enumerate() {
                    let c = Layout {
                        width,
                        number_after_comment: nac,
                        result_nowrap,
                        pair_words,
                        ..guess
                    };
                    if c == Layout::EXPORT || widths[..i].contains(&width) {
                        continue;
                    }
                    if let Some(t) = self.trailer_of(raw, c) {
                        return Some(Layout { trailer: t, ..c });
                    }
                }
            }
        }
        let c = Layout {
            width: 0,
            move_per_line: true,
            ..guess
        };
        self.trailer_of(raw, c).map(|t| Layout { trailer: t, ..c })
    }
}

/// The longest line that is not a tag pair or escape line (line ends
/// excluded), and the longest such line once the termination marker is taken
/// off the last one (where a marker may run past the width).
fn widest_movetext_lines(raw: &[u8]) -> (u32, u32) {
    let (mut widest, mut body, mut last) = (0, 0, 0);
    for line in raw.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.starts_with(b"[") || line.starts_with(b"%") {
            continue;
        }
        body = body.max(last);
        last = without_marker(line).len();
        widest = widest.max(line.len());
    }
    body = body.max(last);
    let w = |n: usize| u32::try_from(n).unwrap_or(0);
    (w(widest), w(body))
}

/// `line` without a trailing termination marker and the spaces before it.
fn without_marker(line: &[u8]) -> &[u8] {
    let t = line.trim_ascii_end();
    for m in [&b"1/2-1/2"[..], b"1-0", b"0-1", b"*"] {
        if let Some(rest) = t.strip_suffix(m) {
            return rest.trim_ascii_end();
        }
    }
    line
}

/// Finds the legal move a SAN token names: its index in `moves` and whether
/// the token is the canonical SAN body. Import forms are accepted: `0-0`,
/// `e8Q`, over-disambiguation (`Nge2`), long algebraic (`g1f3`).
fn find_move(body: &[u8], moves: &MoveList, pos: &Chess) -> Option<(usize, bool)> {
    let mut buf = [0u8; 16];
    let n = body.len().min(buf.len());
    buf[..n].copy_from_slice(&body[..n]);
    // Indexing below stays inside `buf` ([u8; 16]): `n <= 16`, and the
    // promotion fix-up checks `3 <= n < 16` first.
    if buf[0] == b'0' {
        // `0-0`, `0-0-0`: zeros for the letter O.
        for b in &mut buf[..n] {
            if *b == b'0' {
                *b = b'O';
            }
        }
    }
    let mut n = n;
    if n > 4 && buf[..n].ends_with(b"ep") && buf[..n].contains(&b'x') {
        // `gxf6ep`: an en passant capture marked with a glued `ep`.
        n -= 2;
    }
    if n >= 3
        && n < buf.len()
        && matches!(buf[n - 1], b'Q' | b'R' | b'B' | b'N')
        && matches!(buf[n - 2], b'1' | b'8')
        && buf[0].is_ascii_lowercase()
    {
        // `e8Q`, `cxd1N`: a promotion written without `=`.
        buf[n] = buf[n - 1];
        buf[n - 1] = b'=';
        n += 1;
    }
    let fixed = &buf[..n];
    let m = match San::from_ascii(fixed).map(|san| san.find_move(moves).copied()) {
        Ok(Ok(m)) => m,
        _ => {
            let uci = shakmaty::uci::UciMove::from_ascii(body).ok()?;
            uci.to_move(pos).ok()?
        }
    };
    let index = moves.iter().position(|&x| x == m)?;
    let canonical = ordinal::san_body(pos, moves, m).as_bytes() == body;
    Some((index, canonical))
}

impl Visitor for Encoder {
    type Output = GameOutput;

    fn begin_game(&mut self, start: GameStart) {
        self.start = start;
        self.g = GameState::new();
        self.body.clear();
        self.run.clear();
        self.mainline.clear();
        self.tag_text.clear();
        self.tags.clear();
        self.stack.clear();
        self.events.clear();
        self.arena.clear();
        self.commands.clear();
        self.pending_number.clear();
    }

    fn bom(&mut self) {
        self.g.bom = true;
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) {
        self.g.content = true;
        if self.g.started {
            self.g.exact = false;
            return;
        }
        let n0 = self.tag_text.len();
        self.tag_text.extend_from_slice(name);
        let v0 = self.tag_text.len();
        unescape_into(&mut self.tag_text, value);
        let (n, v) = (n0..v0, v0..self.tag_text.len());
        self.tags.push((n.clone(), v.clone()));
        if self.g.exact {
            let (rn, rv) = (self.keep(name), self.keep(value));
            self.events.push(Ev::Tag(rn, rv));
        }
        if n.len() > 255 || v.len() > 255 {
            if self.opts.strict {
                self.g.losses.long_tags += 1;
                return;
            }
            let mut p = Vec::with_capacity(5 + n.len() + v.len());
            item::put_varint(&mut p, n.len() as u32);
            p.extend_from_slice(&self.tag_text[n.start..v.end]);
            self.ext(ext::LONG_TAG, &p);
        } else {
            let _ = RecordRef::TagPair {
                name: &self.tag_text[n],
                value: &self.tag_text[v],
            }
            .write_to(&mut self.body);
        }
    }

    fn begin_movetext(&mut self) {
        self.start_movetext();
    }

    fn san(&mut self, token: &[u8]) {
        self.pending_number.clear();
        self.not_outcome();
        self.g.content = true;
        self.start_movetext();
        match token {
            b"--" | b"Z0" | b"0000" | b"@@@@" => self.null_move(token),
            _ => self.play_san(token),
        }
    }

    fn move_number(&mut self, _number: u32, _dots: u8, raw: &[u8]) {
        self.flush_number();
        self.pending_number.extend_from_slice(raw);
        self.not_outcome();
        self.g.after_comment = false;
        self.g.number_glued = true;
        self.g.movetext_token = true;
    }

    fn whitespace(&mut self, ws: &[u8]) {
        self.g.number_glued = false;
        if self.g.exact && self.g.movetext_token && self.g.outcome.is_none() && ws == b"  " {
            // Two spaces: reproducible only before the termination marker.
            self.g.gap2 = true;
            return;
        }
        // Between movetext tokens the export format has one space or one
        // line end; anything else cannot be reproduced.
        if self.g.exact
            && self.g.movetext_token
            && self.g.outcome.is_none()
            && !matches!(ws, b" " | b"\n" | b"\r\n")
        {
            self.g.exact = false;
        }
    }

    fn en_passant_marker(&mut self, _raw: &[u8]) {
        self.g.exact = false;
    }

    fn nag_token(&mut self, raw: &[u8], nag: u32, is_suffix: bool) {
        if !self.movetext_item() {
            return;
        }
        if is_suffix {
            self.g.glyphs = true;
        } else if raw.len() > 1 && raw[1] == b'0' && raw.len() > 2 {
            // `$01`: leading zeros are not reproduced.
            self.g.exact = false;
        }
        self.movetext_event();
        self.events.push(Ev::Nag(nag));
        self.g.after_comment = false;
        if let Ok(n) = u8::try_from(nag) {
            self.flush_run();
            self.body.extend_from_slice(&[0x07, n]);
            self.g.extras = true;
            self.anchor();
        } else if self.opts.strict {
            self.g.losses.long_nags += 1;
        } else {
            let mut p = Vec::with_capacity(5);
            item::put_varint(&mut p, nag);
            self.ext(ext::LONG_NAG, &p);
            self.anchor();
        }
    }

    fn comment(&mut self, text: &[u8]) {
        if !self.movetext_item() {
            return;
        }
        if self.g.exact {
            let r = self.keep(text);
            self.movetext_event();
            self.events.push(Ev::Comment(r));
        }
        self.g.after_comment = true;
        if self.opts.strict {
            self.g.losses.comments += 1;
        } else if self.g.at_anchor
            && self.g.anchors > 0
            && encode_comment_into(text, &mut self.typed)
            && self.commands.push(self.g.anchors - 1, &self.typed)
        {
            // Typed embedded commands: kept in the game's CLOCKS record.
            self.g.extras = true;
        } else {
            self.ext(ext::COMMENT, text);
            self.anchor();
        }
    }

    fn line_comment(&mut self, text: &[u8]) {
        self.not_outcome();
        self.g.content = true;
        if self.g.error.is_some() || self.g.null_cut {
            return;
        }
        if !self.g.started {
            // A `;` comment in the tag section: kept, but not byte-identical.
            self.g.exact = false;
        }
        if self.g.exact {
            let r = self.keep(text);
            self.events.push(Ev::LineComment(r));
        }
        if self.opts.strict {
            self.g.losses.line_comments += 1;
        } else {
            self.ext(ext::LINE_COMMENT, text);
        }
    }

    fn escape_line(&mut self, text: &[u8]) {
        self.not_outcome();
        self.g.content = true;
        if self.g.error.is_some() {
            return;
        }
        if self.g.exact {
            let r = self.keep(text);
            self.events.push(Ev::Escape(r));
        }
        self.flush_run();
        if item::put_string2(&mut Vec::new(), text).is_ok() {
            let _ = RecordRef::Escape(text).write_to(&mut self.body);
            self.g.at_anchor = false;
        }
        self.g.extras = true;
    }

    fn begin_variation(&mut self) {
        if !self.movetext_item() {
            return;
        }
        let limit = if self.opts.max_rav_depth == 0 {
            pgc_core::Limits::DEFAULT.max_rav_depth
        } else {
            self.opts.max_rav_depth
        };
        if self.stack.len() as u32 >= limit {
            return self.fail(format!(
                "variations nested deeper than the limit of {limit} (raise it with --max-rav-depth)"
            ));
        }
        let Some(prev) = self.g.line.prev.clone() else {
            return self.fail("a variation before any move (expected a move first)".into());
        };
        self.flush_run();
        self.body.push(0x08);
        self.g.at_anchor = false;
        self.g.extras = true;
        self.movetext_event();
        self.events.push(Ev::Begin);
        let ply = self.g.line.ply.saturating_sub(1);
        let saved = std::mem::replace(
            &mut self.g.line,
            Line {
                pos: prev,
                prev: None,
                ply,
            },
        );
        self.stack.push(saved);
    }

    fn end_variation(&mut self) {
        self.flush_number();
        self.not_outcome();
        self.g.movetext_token = true;
        if self.g.error.is_some() || self.g.null_cut {
            return;
        }
        match self.stack.pop() {
            Some(saved) => {
                self.flush_run();
                self.body.push(0x09);
                self.g.at_anchor = false;
                self.events.push(Ev::End);
                self.g.line = saved;
                self.g.after_comment = false;
            }
            None => self.g.exact = false,
        }
    }

    fn outcome(&mut self, raw: &[u8]) {
        self.flush_number();
        self.g.result_gap = std::mem::take(&mut self.g.gap2);
        self.g.content = true;
        if !self.stack.is_empty() {
            // `(*`: a continuation marker inside a variation; not kept exactly.
            self.g.exact = false;
            return;
        }
        self.start_movetext();
        self.flush_run();
        self.g.outcome = Outcome::from_bytes(raw);
        self.g.outcome_at = Some(self.body.len());
        let r = self.keep(raw);
        self.movetext_event();
        self.events.push(Ev::Outcome(r));
    }

    fn junk(&mut self, raw: &[u8]) {
        self.not_outcome();
        if self.g.error.is_some() {
            return;
        }
        self.g.junk = true;
        if self.g.exact {
            let r = self.keep(raw);
            self.events.push(Ev::Junk(r, self.g.movetext_rendered));
        }
        if !self.opts.strict {
            self.ext(ext::JUNK, raw);
        }
    }

    fn end_game(&mut self, raw: &[u8]) -> GameOutput {
        self.finish_game(raw)
    }
}
