//! Training arrays: every main-line position and move of every game as
//! flat arrays (one buffer per field), made on several threads without the
//! GIL and handed to NumPy without a copy (no Python object per move).
//!
//! Per position (the position a main-line move is played from):
//! - `board`: 64 bytes, square a1 = 0 … h8 = 63 (python-chess's numbering);
//!   0 empty, 1–6 White pawn, knight, bishop, rook, queen, king, 7–12 the
//!   same for Black;
//! - `turn`: 0 White to move, 1 Black;
//! - `castling`: bit 0 White king side, 1 White queen side, 2 Black king
//!   side, 3 Black queen side (castling rights);
//! - `ep`: the en passant square when an en passant capture is legal, else
//!   -1;
//! - `legal`: the number of legal moves.
//!
//! Per move: `from_sq`, `to_sq` (64 for a null move; castling as the UCI of
//! the game: `e1g1`, or king takes rook in Chess960; both the square for a
//! crazyhouse drop, as in python-chess), `promotion` (0, or
//! 2–5 knight to queen), `clock` (`[%clk]` in seconds, NaN if none),
//! `eval` (`[%eval]` in centipawns, NaN if none or a mate), `mate` (`#3` is
//! 3, `#-2` is -2, 0 if none).
//!
//! Per game: `offsets` (games + 1 entries: the moves of game `i` are
//! `offsets[i]..offsets[i+1]`).
//!
//! # How
//!
//! The input is cut at game boundaries into pieces (`split_points`). A
//! first pass frames each piece's records (no move decoded) and counts its
//! games and main-line plies, so every buffer is allocated once, at its
//! final size, and each piece owns a slice of it. The second pass walks
//! the pieces on the threads, each into its slices: a [`GameVisitor`]
//! writes a row per main-line move from the walker's own position (no move
//! replayed), the board updated from the move alone (standard chess and
//! Chess960) and the legal moves counted by the census that decodes the
//! move (`Ply::legal`: the classes after the move's counted on, no move
//! list). With a `where`
//! filter the rows of the games it drops are taken back and the pieces
//! moved together afterwards.
//!
//! The buffers become NumPy arrays through the array interface protocol
//! (`__array_interface__`, read-only): each [`Column`] owns its buffer and
//! is the array's base, so the buffer lives as long as any array on it and
//! is never written again.

use crate::error::walk_error;
use crate::pages::zeroed;
use crate::threads::thread_count;
use pgc_core::ext::commands::syntax::{Part, parse_comment};
use pgc_core::ext::commands::{Anchors, Eval, TimeKind, TypedCommand, TypedComment, TypedPart};
use pgc_core::ext::{self, ExtError, ExtKind, PayloadChecker, PayloadError};
use pgc_core::filter::Filter;
use pgc_core::game::{Event as GameEvent, GameParser};
use pgc_core::internals::{castling_mode_of, names_chess960, split_points};
use pgc_core::{
    GameInfo, GameVisitor, GameWalker, Limits, Ply, Reader, Skip, TagList, VariantPosition,
    WalkError,
};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, CastlingSide, Color, EnPassantMode, Move, Piece, Position, Role};
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Pieces per thread the input is cut into (the threads take them in turn,
/// so a slow piece holds no thread idle for long).
const PIECES_PER_THREAD: usize = 8;

/// The code of a piece on the board array.
#[inline(always)]
fn piece_code(color: Color, role: Role) -> u8 {
    role as u8 + if color == Color::White { 0 } else { 6 }
}

/// The castling rights as bits (see the module doc).
#[inline(always)]
fn castling_bits(pos: &VariantPosition) -> u8 {
    let c = pos.castles();
    let bit = |color, side, b: u8| if c.has(color, side) { b } else { 0 };
    bit(Color::White, CastlingSide::KingSide, 1)
        | bit(Color::White, CastlingSide::QueenSide, 2)
        | bit(Color::Black, CastlingSide::KingSide, 4)
        | bit(Color::Black, CastlingSide::QueenSide, 8)
}

/// The number of legal moves, from bitboards in standard chess (for a
/// null move's position: the walker counts those of the others).
fn legal_count(pos: &VariantPosition) -> u16 {
    let n = match pos {
        VariantPosition::Chess(c) => pgc_core::ordinal::legal_count(c),
        other => other.legal_moves().len(),
    };
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The fields of one position but its legal moves (which the walker
/// counts as it decodes the move played from it).
#[derive(Clone, Copy)]
struct Row {
    board: [u8; 64],
    turn: u8,
    castling: u8,
    ep: i8,
}

impl Row {
    const EMPTY: Row = Row {
        board: [0; 64],
        turn: 0,
        castling: 0,
        ep: -1,
    };

    /// Everything but the board, from `pos`.
    #[inline(always)]
    fn set_state(&mut self, pos: &VariantPosition) {
        self.turn = u8::from(pos.turn() == Color::Black);
        self.castling = castling_bits(pos);
        self.ep = pos
            .ep_square(EnPassantMode::Legal)
            .map_or(-1, |s| u8::from(s) as i8);
    }

    /// The board from `pos`'s bitboards, piece by piece.
    fn set_board(&mut self, pos: &VariantPosition) {
        let board = pos.board();
        self.board = [0; 64];
        for color in Color::ALL {
            for role in Role::ALL {
                let code = piece_code(color, role);
                for sq in board.by_piece(Piece { color, role }) {
                    self.board[usize::from(u8::from(sq)) & 63] = code;
                }
            }
        }
    }

    /// The board after `color` played `m` on it (standard chess and
    /// Chess960, where a move changes only the squares it names).
    #[inline(always)]
    fn play_on_board(&mut self, color: Color, m: Move) {
        let at = |sq: shakmaty::Square| usize::from(u8::from(sq)) & 63;
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                self.board[at(from)] = 0;
                self.board[at(to)] = piece_code(color, promotion.unwrap_or(role));
            }
            Move::EnPassant { from, to } => {
                self.board[at(from)] = 0;
                self.board[at(to)] = piece_code(color, Role::Pawn);
                self.board[at(shakmaty::Square::from_coords(to.file(), from.rank()))] = 0;
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                self.board[at(king)] = 0;
                self.board[at(rook)] = 0;
                self.board[at(side.king_to(color))] = piece_code(color, Role::King);
                self.board[at(side.rook_to(color))] = piece_code(color, Role::Rook);
            }
            Move::Put { role, to } => self.board[at(to)] = piece_code(color, role),
        }
    }
}

/// A piece's share of the output buffers: room for the main-line plies
/// and games the first pass counted in it.
struct Out<'a> {
    board: &'a mut [u8],
    turn: &'a mut [u8],
    castling: &'a mut [u8],
    ep: &'a mut [i8],
    legal: &'a mut [u16],
    from_sq: &'a mut [u8],
    to_sq: &'a mut [u8],
    promotion: &'a mut [u8],
    clock: &'a mut [f32],
    eval: &'a mut [f32],
    mate: &'a mut [i16],
    /// Each game's first row, counted from the piece's first row.
    offsets: &'a mut [i64],
}

/// The output buffers, all at their final size.
struct Columns {
    board: Vec<u8>,
    turn: Vec<u8>,
    castling: Vec<u8>,
    ep: Vec<i8>,
    legal: Vec<u16>,
    from_sq: Vec<u8>,
    to_sq: Vec<u8>,
    promotion: Vec<u8>,
    clock: Vec<f32>,
    eval: Vec<f32>,
    mate: Vec<i16>,
    offsets: Vec<i64>,
}

impl Columns {
    /// Buffers for `plies` rows and `games` games (zeroed memory on huge
    /// pages where the system has them: pages are touched first by the
    /// thread that writes them).
    fn zeroed(plies: usize, games: usize) -> Columns {
        Columns {
            board: zeroed(plies * 64),
            turn: zeroed(plies),
            castling: zeroed(plies),
            ep: zeroed(plies),
            legal: zeroed(plies),
            from_sq: zeroed(plies),
            to_sq: zeroed(plies),
            promotion: zeroed(plies),
            clock: zeroed(plies),
            eval: zeroed(plies),
            mate: zeroed(plies),
            offsets: zeroed(games + 1),
        }
    }

    /// The buffers cut into one [`Out`] per piece of `(plies, games)`.
    fn split(&mut self, sizes: &[Counts]) -> Vec<Out<'_>> {
        fn take<'a, T>(rest: &mut &'a mut [T], n: usize) -> &'a mut [T] {
            let all = std::mem::take(rest);
            let (head, tail) = all.split_at_mut(n.min(all.len()));
            *rest = tail;
            head
        }
        let mut board = &mut self.board[..];
        let mut turn = &mut self.turn[..];
        let mut castling = &mut self.castling[..];
        let mut ep = &mut self.ep[..];
        let mut legal = &mut self.legal[..];
        let mut from_sq = &mut self.from_sq[..];
        let mut to_sq = &mut self.to_sq[..];
        let mut promotion = &mut self.promotion[..];
        let mut clock = &mut self.clock[..];
        let mut eval = &mut self.eval[..];
        let mut mate = &mut self.mate[..];
        let mut offsets = &mut self.offsets[..];
        sizes
            .iter()
            .map(|c| Out {
                board: take(&mut board, c.plies * 64),
                turn: take(&mut turn, c.plies),
                castling: take(&mut castling, c.plies),
                ep: take(&mut ep, c.plies),
                legal: take(&mut legal, c.plies),
                from_sq: take(&mut from_sq, c.plies),
                to_sq: take(&mut to_sq, c.plies),
                promotion: take(&mut promotion, c.plies),
                clock: take(&mut clock, c.plies),
                eval: take(&mut eval, c.plies),
                mate: take(&mut mate, c.plies),
                offsets: take(&mut offsets, c.games),
            })
            .collect()
    }

    /// Moves the rows and games each piece wrote (`written`) to follow
    /// each other when a piece wrote fewer than it had room for (`room`),
    /// makes the offsets count from the first row, and drops the room left
    /// over.
    fn close_up(&mut self, room: &[Counts], written: &[Counts]) {
        fn shift<T: Copy>(v: &mut [T], from: usize, to: usize, n: usize) {
            if from != to && n > 0 {
                v.copy_within(from..from + n, to);
            }
        }
        let (mut src_row, mut dst_row, mut src_game, mut dst_game) = (0, 0, 0, 0);
        for (r, w) in room.iter().zip(written) {
            let (s, d, n) = (src_row, dst_row, w.plies);
            shift(&mut self.board, s * 64, d * 64, n * 64);
            shift(&mut self.turn, s, d, n);
            shift(&mut self.castling, s, d, n);
            shift(&mut self.ep, s, d, n);
            shift(&mut self.legal, s, d, n);
            shift(&mut self.from_sq, s, d, n);
            shift(&mut self.to_sq, s, d, n);
            shift(&mut self.promotion, s, d, n);
            shift(&mut self.clock, s, d, n);
            shift(&mut self.eval, s, d, n);
            shift(&mut self.mate, s, d, n);
            shift(&mut self.offsets, src_game, dst_game, w.games);
            for o in &mut self.offsets[dst_game..dst_game + w.games] {
                *o += dst_row as i64;
            }
            src_row += r.plies;
            dst_row += w.plies;
            src_game += r.games;
            dst_game += w.games;
        }
        self.board.truncate(dst_row * 64);
        for v in [
            &mut self.turn,
            &mut self.castling,
            &mut self.from_sq,
            &mut self.to_sq,
            &mut self.promotion,
        ] {
            v.truncate(dst_row);
        }
        self.ep.truncate(dst_row);
        self.legal.truncate(dst_row);
        self.clock.truncate(dst_row);
        self.eval.truncate(dst_row);
        self.mate.truncate(dst_row);
        self.offsets.truncate(dst_game + 1);
        if let Some(last) = self.offsets.last_mut() {
            *last = dst_row as i64;
        }
    }
}

/// Main-line plies and games of a piece.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Counts {
    plies: usize,
    games: usize,
}

/// The first pass over a piece: its games and main-line plies, from the
/// records' framing and the game grammar (no move decoded). Stops at the
/// first error: the walk reports it.
fn count_piece(data: &[u8], limits: Limits) -> Counts {
    let mut reader = Reader::with_limits(data, limits);
    let mut parser = GameParser::new(limits);
    let mut c = Counts::default();
    let mut depth = 0u32;
    while let Ok(Some((offset, rec))) = reader.next_record() {
        let step = parser.feed(offset, rec);
        if step.error.is_some() {
            break;
        }
        match step.event {
            GameEvent::Begin(_) => {
                c.games += 1;
                depth = 0;
            }
            GameEvent::Reduced { moves, .. } => {
                c.games += 1;
                c.plies += moves.len();
            }
            GameEvent::Moves { ordinals, .. } if depth == 0 => c.plies += ordinals.len(),
            GameEvent::NullMove(_) | GameEvent::WideMove(_) if depth == 0 => c.plies += 1,
            GameEvent::RavBegin => depth += 1,
            GameEvent::RavEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    c
}

/// The walker's visitor that writes the rows of a piece's games.
struct Writer<'o, 'f> {
    out: Out<'o>,
    filter: Option<&'f Filter>,
    /// Rows and games written of the games kept so far.
    kept: Counts,
    /// Rows written, those of the current game included.
    rows: usize,
    /// The row of the current game's first move.
    game_start: usize,
    /// The position the next move is played from.
    row: Row,
    mode: CastlingMode,
    chess960_tag: bool,
    fen_tag: bool,
    /// The tags, for the filter.
    tags: TagList,
    /// The filter's answer, once known.
    keep: Option<bool>,
    /// The game's typed comments, anchor by anchor.
    anchors: Anchors,
    typed: TypedComment,
    /// Variations entered only to count the anchors in them.
    hidden: u32,
    seen_clock: bool,
    seen_eval: bool,
    payloads: PayloadChecker,
    game: u64,
    offset: u64,
    error: Option<ExtError>,
    /// More rows or games than the first pass counted.
    overflow: bool,
}

impl<'o, 'f> Writer<'o, 'f> {
    fn new(out: Out<'o>, filter: Option<&'f Filter>) -> Self {
        Writer {
            out,
            filter,
            kept: Counts::default(),
            rows: 0,
            game_start: 0,
            row: Row::EMPTY,
            mode: CastlingMode::Standard,
            chess960_tag: false,
            fen_tag: false,
            tags: TagList::default(),
            keep: None,
            anchors: Anchors::new(),
            typed: TypedComment::new(),
            hidden: 0,
            seen_clock: false,
            seen_eval: false,
            payloads: PayloadChecker::new(),
            game: 0,
            offset: 0,
            error: None,
            overflow: false,
        }
    }

    fn fail(&mut self, kind: ExtKind, e: PayloadError) {
        if self.error.is_none() {
            let ply = u32::try_from(self.rows - self.game_start).unwrap_or(u32::MAX);
            self.error = Some(e.at_record(kind, self.offset, self.game, ply));
        }
    }

    /// Writes the current position, with its `legal` moves, and the move
    /// `from`, `to`, `promotion` played from it; false when the piece has
    /// no room left.
    #[inline(always)]
    fn push(&mut self, legal: u16, from: u8, to: u8, promotion: u8) -> bool {
        let i = self.rows;
        let o = &mut self.out;
        let Some(board) = o.board.get_mut(i * 64..i * 64 + 64) else {
            self.overflow = true;
            return false;
        };
        board.copy_from_slice(&self.row.board);
        o.turn[i] = self.row.turn;
        o.castling[i] = self.row.castling;
        o.ep[i] = self.row.ep;
        o.legal[i] = legal;
        o.from_sq[i] = from;
        o.to_sq[i] = to;
        o.promotion[i] = promotion;
        o.clock[i] = f32::NAN;
        o.eval[i] = f32::NAN;
        o.mate[i] = 0;
        self.rows += 1;
        (self.seen_clock, self.seen_eval) = (false, false);
        true
    }

    /// After an anchor (a move, null move, NAG or text comment): the
    /// clock and evaluation of the typed comment after it, if any, go to
    /// the last main-line move (the first of each per move).
    #[inline]
    fn after_anchor(&mut self) {
        if self.hidden > 0 {
            self.anchors.skip(1);
            return;
        }
        if !self.anchors.after_anchor(&mut self.typed) || self.rows == self.game_start {
            return;
        }
        let i = self.rows - 1;
        for part in self.typed.parts() {
            if let TypedPart::Command(_, c) = part {
                take_value(
                    &mut self.out,
                    &mut self.seen_clock,
                    &mut self.seen_eval,
                    i,
                    &c,
                );
            }
        }
    }

    /// The clock and evaluation of the embedded commands of a comment kept
    /// as text (`{Good move [%clk 0:03:00]}`), as for a typed comment.
    fn text_values(&mut self, text: &[u8]) {
        if self.hidden > 0 || self.rows == self.game_start {
            return;
        }
        let i = self.rows - 1;
        for part in parse_comment(text) {
            if let Part::Command { command, .. } = part
                && let Some(c) = command.value()
            {
                take_value(
                    &mut self.out,
                    &mut self.seen_clock,
                    &mut self.seen_eval,
                    i,
                    &c,
                );
            }
        }
    }
}

/// A `[%clk]` or `[%eval]` of row `i`'s comments into its columns: the
/// first of each per move (`seen_clock`, `seen_eval` say whether one came).
fn take_value(
    out: &mut Out<'_>,
    seen_clock: &mut bool,
    seen_eval: &mut bool,
    i: usize,
    c: &TypedCommand<'_>,
) {
    match *c {
        TypedCommand::Time(TimeKind::Clk, clock, _) if !*seen_clock => {
            *seen_clock = true;
            out.clock[i] = clock.millis as f32 / 1000.0;
        }
        TypedCommand::Eval(e, _) if !*seen_eval => {
            *seen_eval = true;
            match e {
                Eval::Centipawns(cp) => out.eval[i] = cp as f32,
                Eval::Mate(n) => {
                    out.mate[i] =
                        i16::try_from(n).unwrap_or(if n > 0 { i16::MAX } else { i16::MIN });
                }
            }
        }
        _ => {}
    }
}

impl GameVisitor for Writer<'_, '_> {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        // The rows of a game left out (or cut short) are taken back.
        self.rows = self.kept.plies;
        self.game_start = self.rows;
        self.game = info.index;
        self.chess960_tag = false;
        self.fen_tag = false;
        self.tags.clear();
        self.keep = if self.filter.is_some() {
            None
        } else {
            Some(true)
        };
        self.anchors.begin_game();
        self.hidden = 0;
        self.row = Row::EMPTY;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        match name {
            b"Variant" => self.chess960_tag = names_chess960(value),
            b"FEN" => self.fen_tag = true,
            _ => {}
        }
        if self.filter.is_some() {
            self.tags.push(name, value);
        }
        ControlFlow::Continue(())
    }

    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        if let (Some(f), None) = (self.filter, self.keep) {
            self.keep = f.eval(&self.tags, None);
            if self.keep == Some(false) {
                // Its moves are not decoded.
                return ControlFlow::Break(());
            }
        }
        self.mode = castling_mode_of(self.chess960_tag, self.fen_tag, start);
        self.row.set_board(start);
        self.row.set_state(start);
        ControlFlow::Continue(())
    }

    fn wants_san(&self) -> bool {
        false
    }

    fn wants_before(&self) -> bool {
        false
    }

    fn wants_legal(&self) -> bool {
        true
    }

    fn record(&mut self, offset: u64, _record: &pgc_core::RecordRef<'_>) {
        self.offset = offset;
    }

    #[inline]
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        if self.hidden == 0 {
            let (from, to, promotion) = match ply.mv.to_uci(self.mode) {
                UciMove::Normal {
                    from,
                    to,
                    promotion,
                } => (
                    u8::from(from),
                    u8::from(to),
                    promotion.map_or(0, |r| r as u8),
                ),
                // A drop, as python-chess numbers it.
                UciMove::Put { to, .. } => (u8::from(to), u8::from(to), 0),
                UciMove::Null => (64, 64, 0),
            };
            // Always counted: this visitor wants it.
            let legal = ply.legal.unwrap_or(0);
            if !self.push(legal, from, to, promotion) {
                return ControlFlow::Break(());
            }
            let after = ply.after;
            if matches!(after, VariantPosition::Chess(_)) {
                self.row.play_on_board(!after.turn(), ply.mv);
            } else {
                // Other variants: captures may explode, pieces drop.
                self.row.set_board(after);
            }
            self.row.set_state(after);
        }
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn null_move(&mut self, before: &VariantPosition, _spelling: &[u8]) -> ControlFlow<()> {
        if self.hidden == 0 {
            if !self.push(legal_count(before), 64, 64, 0) {
                return ControlFlow::Break(());
            }
            // In check the walker refuses the null move next.
            if let Some(after) = pgc_core::variant_null_move(before) {
                self.row.set_state(&after);
            }
        }
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _nag: u8) -> ControlFlow<()> {
        self.after_anchor();
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        if self.hidden > 0 {
            self.hidden += 1;
            ControlFlow::Continue(Skip(false))
        } else if self.anchors.is_loaded() {
            // Typed comments after it are placed by counting its anchors.
            self.hidden = 1;
            ControlFlow::Continue(Skip(false))
        } else {
            ControlFlow::Continue(Skip(true))
        }
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.hidden = self.hidden.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        match kind {
            ExtKind::TERMINATION => {
                if let Err(e) = ext::simple::termination(payload) {
                    self.fail(kind, e);
                }
            }
            ExtKind::COMMENT => {
                self.text_values(payload);
                self.after_anchor();
            }
            ExtKind::LINE_COMMENT => {}
            ExtKind::COMMANDS => {
                if let Err(e) = self.anchors.load(payload) {
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
        let plies = self.rows - self.game_start;
        let keep = match (self.keep, self.filter) {
            (Some(k), _) => k,
            (None, Some(f)) => f.matches(&self.tags, plies as u64),
            (None, None) => true,
        };
        if !keep {
            self.rows = self.kept.plies;
            return;
        }
        let Some(slot) = self.out.offsets.get_mut(self.kept.games) else {
            self.overflow = true;
            self.rows = self.kept.plies;
            return;
        };
        *slot = self.game_start as i64;
        self.kept = Counts {
            plies: self.rows,
            games: self.kept.games + 1,
        };
    }
}

/// Why a piece could not be written.
enum PieceError {
    Walk(WalkError),
    /// The walk met more plies or games than the first pass counted.
    Mismatch,
}

/// The second pass over a piece: its games walked into `out`. Returns the
/// rows and games written (those of the games kept).
fn write_piece(
    data: &[u8],
    (start, games): (usize, u64),
    out: Out<'_>,
    filter: Option<&Filter>,
    opening: &mut pgc_core::internals::OpeningCache,
    limits: Limits,
) -> Result<Counts, PieceError> {
    let reader = Reader::with_limits(data, limits).starting_at(start as u64);
    let mut walker = GameWalker::from_reader(reader).starting_at(games);
    std::mem::swap(walker.opening_cache_mut(), opening);
    let mut w = Writer::new(out, filter);
    let result = loop {
        let walked = walker.walk_game(&mut w);
        // A refused payload comes before any later error of the same walk.
        if let Some(e) = w.error.take() {
            break Err(PieceError::Walk(e.into()));
        }
        if w.overflow {
            break Err(PieceError::Mismatch);
        }
        match walked {
            Ok(true) => {}
            Ok(false) => break Ok(w.kept),
            Err(e) => break Err(PieceError::Walk(e)),
        }
    };
    std::mem::swap(walker.opening_cache_mut(), opening);
    result
}

/// Runs `work(i, state)` for every piece `i` on `threads` threads, each
/// thread with its own `S`; results in piece order.
fn on_threads<S: Default, T: Send>(
    pieces: usize,
    threads: usize,
    work: impl Fn(usize, &mut S) -> T + Sync,
) -> Vec<Option<T>> {
    let slots: Vec<Mutex<Option<T>>> = (0..pieces).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let run = || {
        let mut state = S::default();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= pieces {
                break;
            }
            let r = work(i, &mut state);
            if let Ok(mut slot) = slots[i].lock() {
                *slot = Some(r);
            }
        }
    };
    let threads = threads.clamp(1, pieces.max(1));
    if threads == 1 {
        run();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(run);
            }
        });
    }
    slots
        .into_iter()
        .map(|s| s.into_inner().ok().flatten())
        .collect()
}

/// Every piece's rows, in one set of buffers, read with `limits`.
fn build(
    data: &[u8],
    threads: usize,
    filter: Option<&Filter>,
    limits: Limits,
) -> Result<Columns, PieceError> {
    let points = split_points(data, threads * PIECES_PER_THREAD, &limits);
    let bounds = |i: usize| {
        let (start, _) = points[i];
        start..points.get(i + 1).map_or(data.len(), |p| p.0)
    };
    let room: Vec<Counts> = on_threads(points.len(), threads, |i, _: &mut ()| {
        count_piece(&data[bounds(i)], limits)
    })
    .into_iter()
    .map(Option::unwrap_or_default)
    .collect();
    let plies = room.iter().map(|c| c.plies).sum();
    let games = room.iter().map(|c| c.games).sum();
    let mut cols = Columns::zeroed(plies, games);
    let outs: Vec<Mutex<Option<Out<'_>>>> = cols
        .split(&room)
        .into_iter()
        .map(|o| Mutex::new(Some(o)))
        .collect();
    let written = on_threads(points.len(), threads, |i, opening| {
        let out = outs[i].lock().ok().and_then(|mut o| o.take());
        let out = out.ok_or(PieceError::Mismatch)?;
        write_piece(&data[bounds(i)], points[i], out, filter, opening, limits)
    });
    drop(outs);
    let mut counts = Vec::with_capacity(written.len());
    for w in written {
        counts.push(w.ok_or(PieceError::Mismatch)??);
    }
    cols.close_up(&room, &counts);
    Ok(cols)
}

/// One training array's buffer, owned, read by NumPy through the array
/// interface protocol: `numpy.asarray(column)` is a read-only view whose
/// base is the column.
#[pyclass(frozen, module = "pgc._pgc")]
pub(crate) struct Column {
    data: Data,
    /// Values per row (64 for the board).
    width: usize,
}

enum Data {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    F32(Vec<f32>),
    I64(Vec<i64>),
}

impl Data {
    /// (values, address of the first, NumPy type string).
    fn parts(&self) -> (usize, usize, String) {
        let e = if cfg!(target_endian = "little") {
            '<'
        } else {
            '>'
        };
        match self {
            Data::U8(v) => (v.len(), v.as_ptr() as usize, "|u1".into()),
            Data::I8(v) => (v.len(), v.as_ptr() as usize, "|i1".into()),
            Data::U16(v) => (v.len(), v.as_ptr() as usize, format!("{e}u2")),
            Data::I16(v) => (v.len(), v.as_ptr() as usize, format!("{e}i2")),
            Data::F32(v) => (v.len(), v.as_ptr() as usize, format!("{e}f4")),
            Data::I64(v) => (v.len(), v.as_ptr() as usize, format!("{e}i8")),
        }
    }
}

#[pymethods]
impl Column {
    /// The array interface (version 3): shape, type string and the
    /// buffer's address, read-only.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (len, address, typestr) = self.data.parts();
        let d = PyDict::new(py);
        if self.width > 1 {
            d.set_item("shape", (len / self.width, self.width))?;
        } else {
            d.set_item("shape", (len,))?;
        }
        d.set_item("typestr", typestr)?;
        d.set_item("data", (address, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }

    /// Rows.
    fn __len__(&self) -> usize {
        self.data.parts().0 / self.width.max(1)
    }
}

/// The training arrays of PGC bytes, on `threads` threads (0: one per
/// core), of the games `where_` chooses (pgc's filter language; all when
/// None), read with the limits `max_string` and `max_rav_depth`: a dict of
/// name → `Column`.
#[pyfunction]
#[pyo3(signature = (data, threads = 0, where_ = None, *, max_string = None, max_rav_depth = None))]
pub(crate) fn training_arrays<'py>(
    py: Python<'py>,
    data: &[u8],
    #[pyo3(from_py_with = crate::threads::threads_arg)] threads: usize,
    where_: Option<&str>,
    max_string: Option<Bound<'py, PyAny>>,
    max_rav_depth: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let limits = crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    let filter = crate::games::parse_where(where_)?;
    let threads = thread_count(threads);
    let cols = py
        .detach(|| build(data, threads, filter.as_ref(), limits))
        .map_err(|e| match e {
            PieceError::Walk(e) => walk_error(py, &e),
            PieceError::Mismatch => PyRuntimeError::new_err(
                "training arrays: the walk met more games or plies than the records frame \
                 (a bug in pgc)",
            ),
        })?;
    let d = PyDict::new(py);
    let add = |name: &str, data: Data, width: usize| -> PyResult<()> {
        d.set_item(name, Bound::new(py, Column { data, width })?)
    };
    add("board", Data::U8(cols.board), 64)?;
    add("turn", Data::U8(cols.turn), 1)?;
    add("castling", Data::U8(cols.castling), 1)?;
    add("ep", Data::I8(cols.ep), 1)?;
    add("legal", Data::U16(cols.legal), 1)?;
    add("from_sq", Data::U8(cols.from_sq), 1)?;
    add("to_sq", Data::U8(cols.to_sq), 1)?;
    add("promotion", Data::U8(cols.promotion), 1)?;
    add("clock", Data::F32(cols.clock), 1)?;
    add("eval", Data::F32(cols.eval), 1)?;
    add("mate", Data::I16(cols.mate), 1)?;
    add("offsets", Data::I64(cols.offsets), 1)?;
    Ok(d)
}
