//! PGN → PGC: a lexer [`Visitor`] that plays each game on a shakmaty board
//! and writes records, without building a game tree.
//!
//! The work is split by job: `resolve` turns SAN into moves and ordinals
//! on the positions of the line being read and of the lines its variations
//! interrupt; `result` reconciles the Result tag with the termination
//! marker; `layout` renders the game as it is read and finds its text
//! layout in the same pass; pgc-core's [`GameBuilder`] owns the records, the choice between
//! 0x01 and 0x05 and the marker bytes. A game is built in reused buffers and
//! written only once it is complete, so a game with an illegal move is
//! rejected whole, verbatim.

mod layout;
mod reject;
mod resolve;
mod result;
#[cfg(test)]
mod tests;

pub use reject::RejectReason;

use crate::commands::{GameCommands, TypedComment, encode_comment_into};
use crate::export::unescape_into;
use crate::layout::Layout;
use crate::notes::parse_note;
use crate::visitor::{GameStart, Skip, Visitor};
use layout::LayoutTracker;
use pgc_core::ext::engine::{EngineNote, GameNotes};
use pgc_core::ext::{self, Outcome};
use pgc_core::ordinal::{MoveText, OrdinalError};
use pgc_core::record::RecordRef;
use pgc_core::variant::{Variant, VariantPosition, number_and_turn, variant_of_tag};
use pgc_core::variant_start_position;
use pgc_core::{BuildError, GameBuilder};
use resolve::{Resolver, split_suffix};
use result::Termination;
use shakmaty::{Color, Position};
use std::ops::{ControlFlow, Range};

/// Options of the encoder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Write 1994 records only; count what could not be kept.
    pub strict: bool,
    /// Deepest RAV nesting accepted (0 = the core's default limit).
    pub max_rav_depth: u32,
    /// Longest extension payload written for a converted game, in bytes
    /// (0 = what PGC readers accept by default,
    /// [`pgc_core::Limits::DEFAULT`]): a game with a longer one is rejected
    /// ([`RejectReason::OverReadLimit`]), so that what is converted reads
    /// with [`pgc_core::Limits::max_string`] at this value.
    pub max_string: u32,
    /// Largest game read by [`crate::pgn_to_pgc`] and
    /// [`crate::PgnToPgc`], in bytes (0 = [`crate::DEFAULT_MAX_GAME_BYTES`];
    /// see [`crate::PgnReader::with_max_game_bytes`]).
    pub max_game_bytes: usize,
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
    /// Runs of text that are no PGN token (`<x>`, a stray `)`, a malformed
    /// tag pair) dropped.
    pub junk: u64,
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
        self.junk += o.junk;
    }

    /// `(name of one, name of several, count)` for reports.
    pub fn items(&self) -> [(&'static str, &'static str, u64); 9] {
        [
            ("comment", "comments", self.comments),
            ("line comment", "line comments", self.line_comments),
            (
                "termination marker",
                "termination markers",
                self.terminations,
            ),
            ("null move", "null moves", self.null_moves),
            (
                "move after a null move",
                "moves after null moves",
                self.moves_after_null,
            ),
            ("long tag", "long tags", self.long_tags),
            ("NAG over 255", "NAGs over 255", self.long_nags),
            ("layout", "layouts", self.layouts),
            (
                "run of text that is no PGN token",
                "runs of text that are no PGN token",
                self.junk,
            ),
        ]
    }
}

impl std::fmt::Display for Losses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (one, several, n) in self.items() {
            if n > 0 {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{n} {}", if n == 1 { one } else { several })?;
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
    /// Plies played on the line being read when it failed (0 = before the
    /// first move); a move that failed is ply `ply + 1`.
    pub ply: u32,
    /// Where the move token that failed stands, when a move failed.
    pub token: Option<TokenPlace>,
    /// What went wrong.
    pub reason: RejectReason,
}

/// Where a token stands in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenPlace {
    /// Its line (1-based).
    pub line: u64,
    /// Byte offset of its first byte.
    pub offset: u64,
}

impl Reject {
    /// Whether the reason is a move that could not be played (the move
    /// is ply `ply + 1`, numbered from 1 as `pgc verify` numbers plies).
    pub fn at_move(&self) -> bool {
        matches!(
            self.reason,
            RejectReason::IllegalMove { .. }
                | RejectReason::NotAMove { .. }
                | RejectReason::Ordinal(_)
                | RejectReason::NullMoveInCheck { .. }
        )
    }
}

impl std::fmt::Display for Reject {
    /// `game 4 (line 40, byte 909), ply 3 (line 42, byte 960): illegal …`
    /// for a move (plies numbered from 1, the move's own), `…, after ply
    /// 12: …` for another failure in the movetext, and no ply before the
    /// first move.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {} (line {}, byte {})",
            self.game + 1,
            self.line,
            self.offset
        )?;
        if self.at_move() {
            write!(f, ", ply {}", u64::from(self.ply) + 1)?;
            if let Some(t) = self.token {
                write!(f, " (line {}, byte {})", t.line, t.offset)?;
            }
        } else if self.ply > 0 {
            write!(f, ", after ply {}", self.ply)?;
        }
        write!(f, ": {}", self.reason)
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

/// A game's tags, values unescaped, in one buffer.
#[derive(Debug, Clone)]
struct Tags {
    text: Vec<u8>,
    /// Name and value of each tag in `text`.
    list: Vec<(Range<usize>, Range<usize>)>,
}

impl Tags {
    fn clear(&mut self) {
        self.text.clear();
        self.list.clear();
    }

    /// Adds a tag; its name and unescaped value.
    fn push(&mut self, name: &[u8], raw_value: &[u8]) -> (&[u8], &[u8]) {
        let n0 = self.text.len();
        self.text.extend_from_slice(name);
        let v0 = self.text.len();
        unescape_into(&mut self.text, raw_value);
        self.list.push((n0..v0, v0..self.text.len()));
        (&self.text[n0..v0], &self.text[v0..])
    }

    fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.list
            .iter()
            .map(|(n, v)| (&self.text[n.clone()], &self.text[v.clone()]))
    }

    /// The value of the last tag named `name`: the decoder writes the
    /// termination marker from the last Result tag (a repeated tag's
    /// later value stands, as in python-chess's headers).
    fn value(&self, name: &[u8]) -> Option<&[u8]> {
        self.iter()
            .filter(|&(n, _)| n == name)
            .last()
            .map(|(_, v)| v)
    }
}

/// Moves, null moves, NAGs and text comments written so far: a typed
/// comment right after one attaches to it (`spec/extensions-commands.md`).
#[derive(Debug, Clone, Copy, Default)]
struct Anchors {
    written: u64,
    /// The last record written was an anchor.
    last_is_anchor: bool,
}

/// What kinds of text a game had.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    /// Anything but junk and whitespace.
    content: bool,
    /// Junk.
    junk: bool,
}

/// The encoder's facts about the game being read, reset at each game (the
/// buffers it reuses live in [`Encoder`] and are cleared instead).
#[derive(Debug, Clone, Default)]
struct GameState {
    /// The movetext began (the start position is set up).
    movetext: bool,
    /// The first reason to reject the game, at its ply.
    failure: Option<(u32, RejectReason)>,
    /// The address of the move token that failed (0: none), placed in the
    /// game's text when the game is rejected.
    failed_token: usize,
    /// The termination marker at depth 0.
    outcome: Option<Outcome>,
    /// Plies played (all lines).
    plies: u64,
    losses: Losses,
    /// Strict mode cut the line at a null move: the rest of it is dropped.
    cut_at_null: bool,
    seen: Seen,
    anchors: Anchors,
    /// The first move number on the main line lower than the move it
    /// stands before (`1.` at move 31), and that move's number: the next
    /// game may have begun there, with no result marker before it.
    restart: Option<(u32, u32)>,
    /// The address just past a junk tag that opens a value or a name and
    /// never closes it (`[White "`): if nothing but blanks on the same line
    /// follow it to the end of the game, the input ended inside the tag.
    open_tag_end: Option<usize>,
}

/// The largest payload the encoder writes by default
/// ([`EncodeOptions::max_string`]): what PGC readers accept by default, so
/// that every game `pgc encode` writes is read by `pgc decode` and `pgc
/// verify` without raising `--max-string`.
pub const MAX_PAYLOAD: u32 = pgc_core::Limits::DEFAULT.max_string;

impl EncodeOptions {
    /// The longest payload written: [`EncodeOptions::max_string`], or
    /// the `max_string` of [`pgc_core::Limits::DEFAULT`] for 0.
    pub fn max_payload(&self) -> u32 {
        match self.max_string {
            0 => MAX_PAYLOAD,
            n => n,
        }
    }
}

/// Bytes of the varint that holds `v`.
fn varint_len(v: u64) -> u64 {
    u64::from((64 - v.leading_zeros()).div_ceil(7).max(1))
}

/// Whether `raw`, after its last byte that is not whitespace, holds no line
/// end: the text that follows the game's last token (up to the next game or
/// the end of the input) stays on that token's line.
fn no_line_end_after_last_token(raw: &[u8]) -> bool {
    let is_ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0);
    let last = raw.iter().rposition(|b| !is_ws(b)).map_or(0, |i| i + 1);
    !raw[last..].contains(&b'\n')
}

/// The PGN → PGC encoder, one game per [`crate::reader::PgnReader::read_game`] call.
///
/// Each `begin_game` starts the game afresh, so the encoder can be given to
/// [`crate::reader::PgnReader::read_game_once`], which may report a game
/// again from its start.
pub struct Encoder {
    opts: EncodeOptions,
    start: GameStart,
    /// The game's records.
    game: GameBuilder,
    /// The finished game (what [`Encoder::take_game`] returns).
    done: Vec<u8>,
    tags: Tags,
    /// Positions of the line being read and of the lines it interrupts.
    moves: Resolver,
    /// The game rendered as it is read, for its layout and text patch.
    layout: LayoutTracker,
    /// Typed embedded commands of the game (one CLOCKS record).
    commands: GameCommands,
    /// Scratch for parsing one comment's commands.
    typed: TypedComment,
    /// Payloads of the records that lead a general game.
    layout_payload: Vec<u8>,
    /// The text patch record's payload (reused).
    patch_payload: Vec<u8>,
    commands_payload: Vec<u8>,
    /// Engine notes of the game (one ENGINE_NOTES record).
    notes: GameNotes,
    /// The note being parsed, and the game's last note.
    note: EngineNote,
    last_note: EngineNote,
    notes_payload: Vec<u8>,
    /// The text of a move number not yet followed by a move. The export
    /// writer makes numbers from the moves, so one that no move follows
    /// (`24. 1-0`, a lone `1`) is kept as junk where it stood.
    pending_number: Vec<u8>,
    /// What one game has shown so far; reset at each game.
    g: GameState,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new(EncodeOptions::default())
    }
}

impl Encoder {
    /// A new encoder.
    pub fn new(opts: EncodeOptions) -> Encoder {
        Encoder {
            opts,
            start: GameStart::default(),
            game: GameBuilder::new(),
            done: Vec::with_capacity(4096),
            tags: Tags {
                text: Vec::with_capacity(1024),
                list: Vec::with_capacity(32),
            },
            moves: Resolver::new(),
            layout: LayoutTracker::new(),
            commands: GameCommands::new(),
            typed: TypedComment::new(),
            layout_payload: Vec::with_capacity(8),
            patch_payload: Vec::new(),
            commands_payload: Vec::with_capacity(256),
            notes: GameNotes::new(),
            note: EngineNote::new(),
            last_note: EngineNote::new(),
            notes_payload: Vec::new(),
            pending_number: Vec::new(),
            g: GameState::default(),
        }
    }

    /// The PGC bytes of the last encoded game, or the verbatim PGN text of the
    /// last rejected one.
    pub fn take_game(&self) -> &[u8] {
        &self.done
    }

    /// Appends the bytes [`Encoder::take_game`] returns to `out`; into an
    /// empty `out` they are moved, not copied (a huge game is not held
    /// twice).
    pub fn append_game_to(&mut self, out: &mut Vec<u8>) {
        if out.is_empty() {
            std::mem::swap(out, &mut self.done);
            self.done.clear();
        } else {
            out.extend_from_slice(&self.done);
        }
    }

    fn fail(&mut self, reason: RejectReason) {
        if self.g.failure.is_none() {
            self.g.failure = Some((self.moves.ply(), reason));
        }
    }

    /// [`Encoder::fail`] at the move token `token` (a slice of the game's
    /// text, as the lexer hands tokens out).
    fn fail_at(&mut self, reason: RejectReason, token: &[u8]) {
        if self.g.failure.is_none() {
            self.g.failed_token = token.as_ptr() as usize;
        }
        self.fail(reason);
    }

    /// Rejects the game when a payload of `len` bytes would be over
    /// [`EncodeOptions::max_string`]; `true` then.
    fn too_long(&mut self, what: &'static str, len: u64) -> bool {
        let limit = self.opts.max_payload();
        if len <= u64::from(limit) {
            return false;
        }
        self.fail(RejectReason::OverReadLimit { what, len, limit });
        true
    }

    fn failed(&self) -> bool {
        self.g.failure.is_some()
    }

    /// A record was added, or could not be: the game is rejected then.
    fn written(&mut self, r: Result<(), BuildError>) {
        if let Err(e) = r {
            self.fail(RejectReason::Unwritable(e));
        }
    }

    /// A move, null move, NAG or text comment was written.
    fn anchor(&mut self) {
        self.g.anchors.written += 1;
        self.g.anchors.last_is_anchor = true;
    }

    /// Rejects the game when an extension of `kind` with a payload of
    /// `len` bytes would be over [`EncodeOptions::max_string`]; `true`
    /// then (checked before the text is kept anywhere).
    fn ext_too_long(&mut self, kind: u8, len: usize) -> bool {
        let what = match kind {
            ext::COMMENT => "a comment",
            ext::LINE_COMMENT => "a ; comment",
            ext::NULL_MOVE => "a null move",
            _ => "text that is not PGN",
        };
        !self.opts.strict && self.too_long(what, len as u64)
    }

    fn ext(&mut self, kind: u8, payload: &[u8]) {
        if self.ext_too_long(kind, payload.len()) {
            return;
        }
        let r = self.game.extension(kind, payload);
        self.g.anchors.last_is_anchor = false;
        self.written(r);
    }

    /// Sets up the start position when the movetext begins (every movetext
    /// item asks; the first sets it up).
    #[inline(always)]
    fn start_movetext(&mut self) {
        if !self.g.movetext {
            self.set_up_movetext();
        }
    }

    /// The start position, from the tags read before the movetext.
    #[inline(never)]
    fn set_up_movetext(&mut self) {
        self.g.movetext = true;
        // The first Variant tag counts, as for the walker (`pgc_core::variant`).
        let tag = self.tags.iter().find(|&(n, _)| n == b"Variant");
        let variant = match tag.map_or(Ok(Variant::Chess), |(_, v)| variant_of_tag(v)) {
            Ok(v) => v,
            Err(e) => return self.fail(RejectReason::UnsupportedVariant(e)),
        };
        // The last FEN tag counts. A FEN start is never a 0x01 game: the FEN
        // tag is not one of the seven STR tags the reduced record holds.
        let fen = self.tags.iter().filter(|&(n, _)| n == b"FEN").last();
        match variant_start_position(variant, fen.map(|(_, v)| v)) {
            // Standard chess from the initial position, in standard
            // castling: its opening plies are remembered from game to game.
            Ok(p) => {
                let initial = fen.is_none()
                    && matches!(&p, VariantPosition::Chess(c)
                        if c.castles().mode() == shakmaty::CastlingMode::Standard);
                self.moves.reset(p, initial)
            }
            Err(e) => self.fail(RejectReason::Setup(e)),
        }
    }

    fn play_san(&mut self, token: &[u8]) {
        if self.failed() {
            return;
        }
        if self.g.cut_at_null {
            self.g.losses.moves_after_null += 1;
            return;
        }
        let (body, suffix) = split_suffix(token);
        let found = match self.moves.resolve_body(body, token) {
            Ok(found) => found,
            Err(reason) => {
                let reason = match self.g.restart {
                    Some((number, at)) => RejectReason::AfterRestart {
                        reason: Box::new(reason),
                        number,
                        at,
                    },
                    None => reason,
                };
                return self.fail_at(reason, token);
            }
        };
        if found.ordinal > 255 && self.opts.strict {
            // 1994 records hold no ordinal of 256 or more (a wide move).
            let legal = self.moves.position().legal_moves().len();
            let reason = RejectReason::Ordinal(OrdinalError::TooManyMoves { legal });
            return self.fail_at(reason, token);
        }
        let before = self.moves.position();
        let (number, turn) = number_and_turn(before);
        let white = turn == Color::White;
        // A token in another spelling (`Nge2`, `e8Q`, `0-0`): the decoder
        // writes the move's SAN.
        let san = (!found.canonical).then(|| match before {
            VariantPosition::Chess(c) => {
                pgc_core::internals::san_body(c, &c.legal_moves(), found.mv)
            }
            other => pgc_core::ordinal::variant::san_body_in(other, found.mv),
        });
        self.moves.play(found.mv);
        let moves = &mut self.moves;
        self.layout.san(
            number,
            white,
            token,
            found.canonical,
            suffix,
            || moves.check_suffix(),
            || {
                san.unwrap_or_else(|| {
                    let mut t = MoveText::new();
                    body.iter().for_each(|&b| t.push(b));
                    t
                })
            },
        );
        match u8::try_from(found.ordinal) {
            Ok(ordinal) => self.game.push_move(ordinal),
            // A Crazyhouse position with more than 256 legal moves.
            Err(_) => self.ext(ext::WIDE_MOVE, &found.ordinal.to_be_bytes()),
        }
        self.anchor();
        self.g.plies += 1;
    }

    fn null_move(&mut self, token: &[u8]) {
        if self.failed() || self.g.cut_at_null {
            return;
        }
        if self.opts.strict {
            self.g.losses.null_moves += 1;
            self.g.cut_at_null = true;
            return;
        }
        let before = self.moves.position();
        let (number, turn) = number_and_turn(before);
        let white = turn == Color::White;
        if let Err(reason) = self.moves.null_move(token) {
            return self.fail_at(reason, token);
        }
        let payload: &[u8] = if token == b"--" { b"" } else { token };
        self.ext(ext::NULL_MOVE, payload);
        self.anchor();
        // The decoder writes the null move as it was spelled.
        self.layout
            .san(number, white, token, true, b"", || b"", MoveText::new);
        // A ply, as the decoder and the verifier count it.
        self.g.plies += 1;
    }

    /// What every movetext item (NAG, comment, RAV) does first: it ends any
    /// result-like token before it, starts the movetext, and counts as
    /// content. `false` when the game is already failing or cut at a null
    /// move, so the item is not recorded.
    fn movetext_item(&mut self) -> bool {
        self.g.seen.content = true;
        self.start_movetext();
        !self.failed() && !self.g.cut_at_null
    }

    /// Keeps a move number that no move followed as junk, at its place.
    fn flush_number(&mut self) {
        if self.pending_number.is_empty() {
            return;
        }
        let number = std::mem::take(&mut self.pending_number);
        self.keep_junk(&number);
        self.pending_number = number;
        self.pending_number.clear();
    }

    /// Junk, or a move number no move followed: kept as a JUNK record.
    fn keep_junk(&mut self, raw: &[u8]) {
        if self.failed() {
            return;
        }
        self.g.seen.junk = true;
        if self.ext_too_long(ext::JUNK, raw.len()) {
            return;
        }
        self.layout.junk(raw);
        if self.opts.strict {
            self.g.losses.junk += 1;
        } else {
            self.ext(ext::JUNK, raw);
        }
    }

    fn reject(&mut self, ply: u32, reason: RejectReason, raw: &[u8]) -> GameOutput {
        self.done.clear();
        self.done.extend_from_slice(raw);
        // The failed token's place, when it is a slice of `raw`.
        let token = self
            .g
            .failed_token
            .checked_sub(raw.as_ptr() as usize)
            .filter(|&at| at < raw.len())
            .map(|at| TokenPlace {
                line: self.start.line + crate::lexer::line_ends(&raw[..at]),
                offset: self.start.offset + at as u64,
            });
        GameOutput::Rejected(Reject {
            game: self.start.index,
            line: self.start.line,
            offset: self.start.offset,
            ply,
            token,
            reason,
        })
    }

    fn finish_game(&mut self, raw: &[u8]) -> GameOutput {
        self.flush_number();
        if let Some(end) = self.g.open_tag_end {
            let (from, to) = (raw.as_ptr() as usize, raw.as_ptr() as usize + raw.len());
            if (from..=to).contains(&end) && no_line_end_after_last_token(&raw[end - from..]) {
                self.fail(RejectReason::Truncated { inside: "a tag" });
            }
        }
        if !self.failed() && self.g.seen.junk && !self.g.seen.content {
            self.fail(RejectReason::NotPgn);
        }
        if !self.failed() {
            self.start_movetext();
        }
        if self.moves.depth() > 0 && no_line_end_after_last_token(raw) {
            // Variations open where the input stops mid-line: cut short.
            self.fail(RejectReason::Truncated {
                inside: "a variation",
            });
        }
        if let Some((ply, reason)) = self.g.failure.take() {
            return self.reject(ply, reason, raw);
        }
        // Close variations left open (import files do that).
        if self.game.close_variations() > 0 {
            self.layout.unreproducible();
        }
        let records_after = self.game.records_after_outcome();
        match result::reconcile(self.tags.value(b"Result"), self.g.outcome, records_after) {
            Termination::FromTag => {}
            Termination::Record { agrees, .. } if self.opts.strict => {
                self.g.losses.terminations += u64::from(!agrees);
            }
            Termination::Record { outcome, .. } => {
                let r = self.game.termination(outcome);
                self.written(r);
            }
        }
        // What the layout facts do not give back, the text patch does.
        let decision = self
            .layout
            .finish(raw, !self.opts.strict, &mut self.patch_payload);
        let (mut layout, mut identical) = (decision.layout, decision.identical);
        if self.opts.strict {
            if layout != Layout::EXPORT || !identical {
                self.g.losses.layouts += 1;
            }
            layout = Layout::EXPORT;
        } else {
            identical = true;
        }
        // What strict mode left out does not come back.
        identical &= self.g.losses.is_empty();
        if let Some((ply, reason)) = self.g.failure.take() {
            return self.reject(ply, reason, raw);
        }
        // The records that lead a general game: LAYOUT, then CLOCKS.
        let with_layout = layout != Layout::EXPORT;
        if with_layout {
            self.layout_payload.clear();
            layout.to_payload(&mut self.layout_payload);
        }
        let with_commands = !self.commands.is_empty();
        if with_commands {
            self.commands_payload.clear();
            self.commands.to_payload(&mut self.commands_payload);
        }
        let with_notes = !self.notes.is_empty();
        if with_notes {
            self.notes_payload.clear();
            self.notes.to_payload(&mut self.notes_payload);
        }
        let with_patch = !self.patch_payload.is_empty();
        let (layout_len, commands_len, notes_len, patch_len) = (
            self.layout_payload.len() as u64,
            self.commands_payload.len() as u64,
            self.notes_payload.len() as u64,
            self.patch_payload.len() as u64,
        );
        let over = (with_layout && self.too_long("the game's text layout", layout_len))
            || (with_commands && self.too_long("the game's clock and command data", commands_len))
            || (with_notes && self.too_long("the game's engine notes", notes_len))
            || (with_patch && self.too_long("the game's text patch", patch_len));
        if over && let Some((ply, reason)) = self.g.failure.take() {
            return self.reject(ply, reason, raw);
        }
        let mut lead = [RecordRef::Noop; 4];
        let mut n = 0;
        if with_layout {
            lead[n] = RecordRef::Extension {
                kind: ext::LAYOUT,
                payload: &self.layout_payload,
            };
            n += 1;
        }
        if with_commands {
            lead[n] = RecordRef::Extension {
                kind: ext::CLOCKS,
                payload: &self.commands_payload,
            };
            n += 1;
        }
        if with_notes {
            lead[n] = RecordRef::Extension {
                kind: ext::ENGINE_NOTES,
                payload: &self.notes_payload,
            };
            n += 1;
        }
        if with_patch {
            lead[n] = RecordRef::Extension {
                kind: ext::TEXT_PATCH,
                payload: &self.patch_payload,
            };
            n += 1;
        }
        self.done.clear();
        if let Err(e) = self.game.finish(&lead[..n], &mut self.done) {
            let ply = self.moves.ply();
            return self.reject(ply, RejectReason::Unwritable(e), raw);
        }
        GameOutput::Encoded {
            plies: self.g.plies,
            identical,
            losses: self.g.losses,
        }
    }
}

impl Visitor for Encoder {
    type Output = GameOutput;

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        self.start = start;
        self.g = GameState::default();
        self.game.clear();
        self.tags.clear();
        self.moves.reset(VariantPosition::default(), false);
        self.layout.clear();
        self.commands.clear();
        self.notes.clear();
        self.last_note.clear();
        self.pending_number.clear();
        ControlFlow::Continue(())
    }

    fn bom(&mut self) -> ControlFlow<()> {
        self.layout.bom();
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.g.seen.content = true;
        if self.g.movetext {
            self.layout.unreproducible();
            return ControlFlow::Continue(());
        }
        let (name_u, value_u) = self.tags.push(name, value);
        let (n, v) = (name_u.len() as u64, value_u.len() as u64);
        let long_tag = !GameBuilder::tag_fits(name_u, value_u);
        let payload = varint_len(n) + n + v;
        if long_tag && !self.opts.strict && payload > u64::from(self.opts.max_payload()) {
            // The tag's text is borrowed from `self.tags`: checked first.
            self.too_long("a tag", payload);
            return ControlFlow::Continue(());
        }
        self.layout.tag(name_u, value_u);
        if self.opts.strict && !GameBuilder::tag_fits(name_u, value_u) {
            self.g.losses.long_tags += 1;
            self.game.omit_tag();
            return ControlFlow::Continue(());
        }
        let r = self.game.tag(name_u, value_u);
        self.written(r);
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.start_movetext();
        ControlFlow::Continue(())
    }

    fn san(&mut self, token: &[u8]) -> ControlFlow<()> {
        self.pending_number.clear();
        self.g.seen.content = true;
        self.start_movetext();
        match token {
            b"--" | b"Z0" | b"0000" | b"@@@@" => self.null_move(token),
            _ => self.play_san(token),
        }
        ControlFlow::Continue(())
    }

    fn move_number(&mut self, number: u32, _dots: u8, raw: &[u8]) -> ControlFlow<()> {
        if self.g.plies > 0 && self.g.restart.is_none() && self.moves.depth() == 0 && !self.failed()
        {
            let (at, _) = number_and_turn(self.moves.position());
            if number < at {
                self.g.restart = Some((number, at));
            }
        }
        self.flush_number();
        self.pending_number.extend_from_slice(raw);
        self.layout.move_number();
        ControlFlow::Continue(())
    }

    fn whitespace(&mut self, ws: &[u8]) -> ControlFlow<()> {
        self.layout.whitespace(ws);
        ControlFlow::Continue(())
    }

    fn nag_token(&mut self, raw: &[u8], nag: u32, is_suffix: bool) -> ControlFlow<()> {
        if !self.movetext_item() {
            return ControlFlow::Continue(());
        }
        if !is_suffix && nag == u32::MAX {
            let digits = raw.get(1..).unwrap_or_default();
            let first = digits
                .iter()
                .position(|&d| d != b'0')
                .unwrap_or(digits.len());
            if &digits[first..] != b"4294967295" {
                self.fail(RejectReason::NagOverflow {
                    token: reject::quoted(raw),
                    max: u32::MAX,
                });
                return ControlFlow::Continue(());
            }
        }
        self.layout.nag(nag, is_suffix);
        if self.opts.strict && nag > 255 {
            self.g.losses.long_nags += 1;
            return ControlFlow::Continue(());
        }
        let r = self.game.nag(nag);
        self.written(r);
        self.anchor();
        ControlFlow::Continue(())
    }

    fn comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        if !self.movetext_item() || self.ext_too_long(ext::COMMENT, text.len()) {
            return ControlFlow::Continue(());
        }
        self.layout.comment(text);
        let anchors = self.g.anchors;
        if self.opts.strict {
            self.g.losses.comments += 1;
        } else if anchors.last_is_anchor
            && anchors.written > 0
            && encode_comment_into(text, &mut self.typed)
            && self.commands.push(anchors.written - 1, &self.typed)
        {
            // Typed embedded commands: kept in the game's CLOCKS record. An
            // engine note may still follow them on the same anchor.
        } else if anchors.last_is_anchor
            && anchors.written > 0
            && self.notes.accepts(anchors.written - 1)
            && parse_note(
                text,
                &self.moves.note_positions(),
                &self.last_note,
                &mut self.note,
            )
            && {
                // One-move lists where the PV implies them (kind 0x14).
                let two_back = self.notes.two_back_reply();
                self.note
                    .prefer_implied(&self.moves.note_positions(), two_back);
                self.notes.push(anchors.written - 1, &self.note)
            }
        {
            // An engine note: kept in the game's ENGINE_NOTES record; the
            // anchor takes no other typed comment after it.
            std::mem::swap(&mut self.note, &mut self.last_note);
            self.g.anchors.last_is_anchor = false;
        } else {
            self.ext(ext::COMMENT, text);
            self.anchor();
        }
        ControlFlow::Continue(())
    }

    fn line_comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.g.seen.content = true;
        if self.failed() || self.g.cut_at_null || self.ext_too_long(ext::LINE_COMMENT, text.len()) {
            return ControlFlow::Continue(());
        }
        self.layout.line_comment(text, !self.g.movetext);
        if self.opts.strict {
            self.g.losses.line_comments += 1;
        } else {
            self.ext(ext::LINE_COMMENT, text);
        }
        ControlFlow::Continue(())
    }

    fn escape_line(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.g.seen.content = true;
        if self.failed() {
            return ControlFlow::Continue(());
        }
        self.layout.escape(text);
        let r = self.game.escape(text);
        self.g.anchors.last_is_anchor = false;
        self.written(r);
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        if !self.movetext_item() {
            return ControlFlow::Continue(Skip(false));
        }
        let limit = if self.opts.max_rav_depth == 0 {
            pgc_core::Limits::DEFAULT.max_rav_depth
        } else {
            self.opts.max_rav_depth
        };
        if let Err(reason) = self.moves.begin_variation(limit) {
            self.fail(reason);
            return ControlFlow::Continue(Skip(false));
        }
        let r = self.game.begin_variation();
        self.g.anchors.last_is_anchor = false;
        self.written(r);
        self.layout.begin_variation();
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.flush_number();
        if self.failed() || self.g.cut_at_null {
            return ControlFlow::Continue(());
        }
        let closed = self.moves.end_variation();
        if closed {
            let r = self.game.end_variation();
            self.g.anchors.last_is_anchor = false;
            self.written(r);
        }
        self.layout.end_variation(closed);
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.flush_number();
        self.g.seen.content = true;
        if self.moves.depth() > 0 {
            // `(*`: a continuation marker inside a variation; not kept exactly.
            self.layout.unreproducible();
            return ControlFlow::Continue(());
        }
        self.start_movetext();
        self.game.mark_outcome();
        // A comment after the marker is text at its place: no typed
        // command or engine note attaches to the last move from there.
        self.g.anchors.last_is_anchor = false;
        self.g.outcome = Outcome::from_bytes(raw);
        self.layout.outcome(raw);
        ControlFlow::Continue(())
    }

    fn junk(&mut self, raw: &[u8]) -> ControlFlow<()> {
        // The lexer gives a `{` as junk only when no `}` follows it before
        // the end of the input.
        if raw.first() == Some(&b'{') {
            self.fail(RejectReason::Truncated {
                inside: "a { comment",
            });
        }
        self.g.open_tag_end = (raw.first() == Some(&b'[') && !raw.contains(&b']'))
            .then(|| raw.as_ptr() as usize + raw.len());
        self.keep_junk(raw);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, raw: &[u8]) -> GameOutput {
        self.finish_game(raw)
    }
}
