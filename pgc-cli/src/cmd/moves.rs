//! `pgc moves`: PGC → moves or positions, for engines and training
//! pipelines.
//!
//! Formats (`--format`):
//! - `uci` (default): one game per line, the moves in UCI (`e2e4`, `e7e8q`,
//!   a null move `0000`), then the result. Castling is the king's move
//!   (`e1g1`) in standard chess and king-takes-rook (`e1h1`) in Chess960
//!   (see [`pgc_core::BulkGame::castling_mode`]).
//! - `san`: the same with SAN moves (`Nf3`, `O-O`, `exd8=Q+`, `--`).
//! - `fen` / `epd`: one position per line: position, ply (0 = the start
//!   position), the move played from it in UCI (`-` at the end of a line)
//!   and the game's result, separated by tabs. The en passant square is
//!   written only when a capture is legal.
//!
//! With `--all`, variations are written in parentheses after the move they
//! replace (`uci`, `san`), or their positions are written too (`fen`, `epd`,
//! ply counted from the game's start). The result is the termination marker
//! (the Result tag unless they differ; `*` without either).
//!
//! Batches of whole games are decoded on worker threads with a
//! [`BulkReader`] and written in input order, so the output is the same for
//! every `-j`.

use crate::args::{MovesArgs, MovesFormat};
use crate::batch::{
    ALONE_PGC_BYTES, Batch, Done, Duplicates, PART_BYTES, Parts, PgcBatches, walk_batch,
};
use crate::error::{Error, Result, Status};
use crate::select::{
    KeptGame, Select, Selection, bulk_plies_and_key, line_duplicate, selected_runs,
};
use crate::training::{TrainingRow, training_rows};
use pgc_core::ext::commands::Eval;
use pgc_core::ext::{self, ExtError, ExtKind, Outcome, PayloadChecker};
use pgc_core::internals::OpeningCache;
use pgc_core::internals::{castling_mode_of, names_chess960, result_of};
use pgc_core::record::RecordRef;
use pgc_core::{BulkEvent as Event, BulkGame, BulkOptions, BulkReader};
use pgc_core::{GameInfo, GameVisitor, Ply, Skip, WalkError};
use pgc_core::{
    UciText, Variant, VariantPosition, variant_null_move, variant_of_tag, variant_start_position,
};
use shakmaty::fen::{Epd, Fen};
use shakmaty::{CastlingMode, EnPassantMode, Move, Position};
use std::io::Write;
use std::ops::ControlFlow;
/// The options a worker needs.
#[derive(Debug, Clone)]
struct Job {
    format: MovesFormat,
    opts: BulkOptions,
    select: Selection,
    /// `--skip-plies`.
    skip_plies: u32,
    /// `--min-clock`, in milliseconds.
    min_clock: Option<u64>,
}

/// Writes a move in UCI ([`UciText`]), followed by a space when `space`:
/// the six bytes of the text padded with spaces are copied at once and the
/// unused ones dropped, with no per-byte pushes (shakmaty's
/// `UciMove::append_ascii_to` pushes byte by byte and costs `pgc moves`
/// 2.6 % more instructions, callgrind, clean-1m).
#[inline(always)]
fn uci(out: &mut Vec<u8>, m: Move, mode: CastlingMode, space: bool) {
    let t = UciText::of(m, mode);
    out.extend_from_slice(t.padded());
    out.truncate(out.len() - 6 + t.len() + usize::from(space));
}

/// Writes the line formats (uci, san) straight from the walk, one game per
/// line: each move (UCI, or SAN with `+`/`#`; a null move `0000` or `--`)
/// and, with `--all`, each variation in parentheses, as it is played, then
/// the game's result ([`result_of`]). The tags a line needs (`Result`,
/// `Variant`, `FEN`) are noted as they come, with [`BulkGame`]'s rules (the
/// first tag of a name counts); no game is collected first. `--where` and
/// `--dedup` are applied around it by a [`Select`].
struct LineWriter<'a, 'p> {
    job: &'a Job,
    out: Vec<u8>,
    /// Where the text goes when the batch runs alone (in parts).
    parts: Parts<'p>,
    /// Text was written out since the last whole game.
    parted: bool,
    /// The first `Result` tag's value, if `has_result`.
    result_tag: Vec<u8>,
    has_result: bool,
    /// Whether the first `Variant` tag names Chess960, once one was seen.
    variant_960: bool,
    has_variant: bool,
    has_fen: bool,
    termination: Option<Outcome>,
    mode: CastlingMode,
    /// Plies of the current game, and of the games completed.
    game_plies: u64,
    plies: u64,
    /// Extension payloads are checked: buffers, the current record's offset
    /// and game, and the first payload refused in the game.
    payloads: PayloadChecker,
    record_offset: u64,
    game: u64,
    error: Option<ExtError>,
}

impl<'a, 'p> LineWriter<'a, 'p> {
    fn new(job: &'a Job, capacity: usize, parts: Parts<'p>) -> LineWriter<'a, 'p> {
        LineWriter {
            job,
            out: Vec::with_capacity(capacity),
            parts,
            parted: false,
            result_tag: Vec::new(),
            has_result: false,
            variant_960: false,
            has_variant: false,
            has_fen: false,
            termination: None,
            mode: CastlingMode::Standard,
            game_plies: 0,
            plies: 0,
            payloads: PayloadChecker::new(),
            record_offset: 0,
            game: 0,
            error: None,
        }
    }

    /// Writes one token and its trailing space.
    fn token(&mut self, t: &[u8]) {
        self.out.extend_from_slice(t);
        self.out.push(b' ');
    }

    /// Writes the text out when it is long enough and the batch runs alone.
    #[inline]
    fn part(&mut self) -> ControlFlow<()> {
        if self.out.len() < PART_BYTES {
            return ControlFlow::Continue(());
        }
        let f = self.parts.offer(&mut self.out);
        self.parted |= self.out.is_empty();
        f
    }
}

impl GameVisitor for LineWriter<'_, '_> {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.game = info.index;
        self.result_tag.clear();
        self.has_result = false;
        self.variant_960 = false;
        self.has_variant = false;
        self.has_fen = false;
        self.termination = None;
        self.game_plies = 0;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        // The first tag of a name counts, as `BulkGame::tag` finds it.
        match name {
            b"Result" if !self.has_result => {
                self.has_result = true;
                self.result_tag.extend_from_slice(value);
            }
            b"Variant" if !self.has_variant => {
                self.has_variant = true;
                self.variant_960 = names_chess960(value);
            }
            b"FEN" => self.has_fen = true,
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.mode = castling_mode_of(self.variant_960, self.has_fen, start);
        ControlFlow::Continue(())
    }

    fn wants_san(&self) -> bool {
        self.job.format == MovesFormat::San
    }

    fn wants_before(&self) -> bool {
        false
    }

    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        self.game_plies += 1;
        if self.job.format == MovesFormat::San {
            self.out.extend_from_slice(ply.san.as_bytes());
            self.out.push(b' ');
        } else {
            uci(&mut self.out, ply.mv, self.mode, true);
        }
        self.part()
    }

    fn null_move(&mut self, _before: &VariantPosition, _spelling: &[u8]) -> ControlFlow<()> {
        self.game_plies += 1;
        let t: &[u8] = if self.job.format == MovesFormat::San {
            b"--"
        } else {
            b"0000"
        };
        self.token(t);
        self.part()
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        if self.job.opts.variations {
            self.token(b"(");
            ControlFlow::Continue(Skip(false))
        } else {
            ControlFlow::Continue(Skip(true))
        }
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.token(b")");
        ControlFlow::Continue(())
    }

    fn record(&mut self, offset: u64, _record: &RecordRef<'_>) {
        self.record_offset = offset;
    }

    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        let checked = if kind == ExtKind::TERMINATION {
            ext::simple::termination(payload).map(|o| self.termination = Some(o))
        } else {
            self.payloads.check(kind, payload)
        };
        if let Err(e) = checked
            && self.error.is_none()
        {
            let ply = u32::try_from(self.game_plies).unwrap_or(u32::MAX);
            let at = e.at_record(kind, self.record_offset, self.game, ply);
            self.error = Some(at);
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) {
        self.plies += self.game_plies;
        let tag = self.has_result.then_some(&self.result_tag[..]);
        let result = result_of(self.termination, tag);
        self.out.extend_from_slice(result);
        self.out.push(b'\n');
    }
}

/// Writes one position line.
fn write_position(
    out: &mut Vec<u8>,
    pos: &VariantPosition,
    ply: u32,
    next: Option<Move>,
    result: &[u8],
    format: MovesFormat,
    mode: CastlingMode,
) {
    let _ = if format == MovesFormat::Epd {
        write!(out, "{}", Epd::from_position(pos, EnPassantMode::Legal))
    } else {
        write!(out, "{}", Fen::from_position(pos, EnPassantMode::Legal))
    };
    let _ = write!(out, "\t{ply}\t");
    match next {
        Some(m) => uci(out, m, mode, false),
        None => out.push(b'-'),
    }
    out.push(b'\t');
    out.extend_from_slice(result);
    out.push(b'\n');
}

/// Writes every position of a game (main line, and variations when
/// decoded) from ply `skip` on, handing `out` to `part` whenever it holds
/// [`PART_BYTES`].
fn write_positions(
    out: &mut Vec<u8>,
    g: &BulkGame,
    format: MovesFormat,
    skip: u32,
    part: &mut impl FnMut(&mut Vec<u8>),
) {
    let mode = g.castling_mode();
    // (position, position before the last move, ply) of each open line.
    let mut stack: Vec<(VariantPosition, Option<VariantPosition>, u32)> = Vec::new();
    let mut pos = g.start().clone();
    let mut prev: Option<VariantPosition> = None;
    let mut ply = 0u32;
    for ev in g.events() {
        match ev {
            Event::Move(m) => {
                if ply >= skip {
                    write_position(out, &pos, ply, Some(m), g.result(), format, mode);
                    if out.len() >= PART_BYTES {
                        part(out);
                    }
                }
                let mut after = pos.clone();
                after.play_unchecked(m);
                prev = Some(std::mem::replace(&mut pos, after));
                ply += 1;
            }
            Event::NullMove => {
                // UCI's null move.
                if ply >= skip {
                    let _ = write_position_null(out, &pos, ply, g.result(), format);
                }
                let after = variant_null_move(&pos).unwrap_or_else(|| pos.clone());
                prev = Some(std::mem::replace(&mut pos, after));
                ply += 1;
            }
            Event::BeginVariation => {
                let before = prev.clone().unwrap_or_else(|| pos.clone());
                stack.push((std::mem::replace(&mut pos, before), prev.take(), ply));
                ply = ply.saturating_sub(1);
            }
            Event::EndVariation => {
                if ply >= skip {
                    write_position(out, &pos, ply, None, g.result(), format, mode);
                }
                if let Some((p, q, n)) = stack.pop() {
                    pos = p;
                    prev = q;
                    ply = n;
                }
            }
            Event::Nag(_)
            | Event::Comment(_)
            | Event::Time(..)
            | Event::Eval(_)
            | Event::Arrows(_)
            | Event::Squares(_)
            | Event::Engine(_) => {}
        }
    }
    if ply >= skip {
        write_position(out, &pos, ply, None, g.result(), format, mode);
    }
}

/// The header row of `--format csv`.
const CSV_HEADER: &[u8] = b"game,ply,fen,move,elo,opponent_elo,clock,eval,result\n";

/// Milliseconds as seconds, with only the decimals needed (`90`, `7.3`).
fn seconds_field(out: &mut Vec<u8>, millis: u64) {
    let _ = write!(out, "{}", millis / 1000);
    let frac = millis % 1000;
    if frac != 0 {
        let digits = format!("{frac:03}");
        out.push(b'.');
        out.extend_from_slice(digits.trim_end_matches('0').as_bytes());
    }
}

/// A row's move in UCI (`0000` for a null move).
fn row_move(out: &mut Vec<u8>, r: &TrainingRow<'_>) {
    match r.mv {
        Some(m) => uci(out, m, r.mode, false),
        None => out.extend_from_slice(b"0000"),
    }
}

/// Writes the training rows of a game as CSV (`--format csv`; see
/// [`crate::training::training_rows`]), handing `out` to `part` whenever
/// it holds [`PART_BYTES`].
fn write_rows(
    out: &mut Vec<u8>,
    g: &BulkGame,
    skip: u32,
    min_clock: Option<u64>,
    part: &mut impl FnMut(&mut Vec<u8>),
) {
    training_rows(g, skip, min_clock, |r| {
        if out.len() >= PART_BYTES {
            part(out);
        }
        let _ = write!(
            out,
            "{},{},{},",
            r.game,
            r.ply,
            Fen::from_position(r.pos, EnPassantMode::Legal)
        );
        row_move(out, r);
        out.push(b',');
        out.extend_from_slice(r.elo.unwrap_or(b""));
        out.push(b',');
        out.extend_from_slice(r.opponent_elo.unwrap_or(b""));
        out.push(b',');
        if let Some(c) = r.clock {
            seconds_field(out, c);
        }
        out.push(b',');
        match r.eval {
            Some(Eval::Centipawns(cp)) => {
                let _ = write!(out, "{cp}");
            }
            Some(Eval::Mate(n)) => {
                let _ = write!(out, "#{n}");
            }
            None => {}
        }
        out.push(b',');
        if let Some(x) = r.result {
            let _ = write!(out, "{x}");
        }
        out.push(b'\n');
    });
}

fn write_position_null(
    out: &mut Vec<u8>,
    pos: &VariantPosition,
    ply: u32,
    result: &[u8],
    format: MovesFormat,
) -> std::io::Result<()> {
    if format == MovesFormat::Epd {
        write!(out, "{}", Epd::from_position(pos, EnPassantMode::Legal))?;
    } else {
        write!(out, "{}", Fen::from_position(pos, EnPassantMode::Legal))?;
    }
    write!(out, "\t{ply}\t0000\t")?;
    out.extend_from_slice(result);
    out.push(b'\n');
    Ok(())
}

thread_local! {
    /// Each worker's opening cache, carried from batch to batch.
    static OPENINGS: std::cell::RefCell<OpeningCache> = std::cell::RefCell::default();
}

/// Writes a game's positions (fen, epd) or rows (csv), handing `out` to
/// `part` whenever it holds [`PART_BYTES`].
fn write_game(out: &mut Vec<u8>, g: &BulkGame, job: &Job, part: &mut impl FnMut(&mut Vec<u8>)) {
    if job.format == MovesFormat::Csv {
        write_rows(out, g, job.skip_plies, job.min_clock, part);
    } else {
        write_positions(out, g, job.format, job.skip_plies, part);
    }
}

fn moves_batch(b: Batch, parts: Parts<'_>, job: &Job) -> Done {
    // A selection may drop a game at its end: its text is held whole.
    let parts = if job.select.is_active() {
        Parts::held()
    } else {
        parts
    };
    if matches!(job.format, MovesFormat::Uci | MovesFormat::San) {
        return lines_batch(b, parts, job);
    }
    if parts.streams() && matches!(job.format, MovesFormat::Fen | MovesFormat::Epd) {
        return positions_in_parts(b, parts, job);
    }
    let mut w = Positions {
        job,
        out: Vec::with_capacity(b.data.len().min(ALONE_PGC_BYTES) * 4),
        kept: Vec::new(),
        plies: 0,
        games: 0,
        parts,
    };
    let error = match &job.select.filter {
        None => w.read(BulkReader::from_walker(b.walker(job.opts.limits), job.opts)),
        Some(f) => {
            // The games the tags exclude are not decoded.
            let found = selected_runs(&b.data, b.offset, b.games, job.opts.limits, Some(f));
            let mut error = None;
            for run in &found.runs {
                let reader = BulkReader::new(&b.data[run.start..run.end], job.opts)
                    .starting_at(b.offset + run.start as u64, run.games);
                error = w.read(reader);
                if error.is_some() {
                    break;
                }
            }
            w.games = found.games;
            error.or(found.error)
        }
    };
    Done {
        out: w.out,
        games: w.games,
        plies: w.plies,
        verbatim: 0,
        bytes_in: b.data.len() as u64,
        error,
        kept: w.kept,
        write_error: w.parts.take_failure(),
    }
}

/// The positions (fen, epd) or rows (csv) of a batch's games, under the
/// selection.
struct Positions<'a, 'p> {
    job: &'a Job,
    out: Vec<u8>,
    kept: Vec<KeptGame>,
    plies: u64,
    games: u64,
    /// Where the text goes when the batch runs alone (in parts).
    parts: Parts<'p>,
}

impl Positions<'_, '_> {
    /// Writes the games `reader` reads; the error that stopped it.
    fn read(&mut self, mut reader: BulkReader<&[u8]>) -> Option<WalkError> {
        OPENINGS.with_borrow_mut(|c| std::mem::swap(c, reader.opening_cache_mut()));
        let sel = &self.job.select;
        let mut error = None;
        loop {
            match reader.next_game() {
                Ok(Some(g)) => {
                    self.games += 1;
                    self.plies += g.plies();
                    if sel.is_active() {
                        let (main, key) = bulk_plies_and_key(g, sel.dedup);
                        if sel.filter.as_ref().is_some_and(|f| !f.matches(g, main)) {
                            continue;
                        }
                        let start = self.out.len();
                        write_game(&mut self.out, g, self.job, &mut |_| {});
                        if sel.dedup.is_some() {
                            self.kept.push(KeptGame {
                                game: g.info().index,
                                key,
                                start,
                                own: start,
                                end: self.out.len(),
                            });
                        }
                    } else {
                        let parts = &mut self.parts;
                        write_game(&mut self.out, g, self.job, &mut |out| {
                            let _stopped = parts.offer(out);
                        });
                        if self.parts.failed() {
                            break;
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        OPENINGS.with_borrow_mut(|c| std::mem::swap(c, reader.opening_cache_mut()));
        error
    }
}

/// The first walk of [`positions_in_parts`]: each game's result (the last
/// column of its lines, which a termination record at the game's end
/// gives) and the payload checks [`BulkReader`] makes, with its positions.
struct Outcomes {
    /// The result of each game walked.
    results: Vec<Vec<u8>>,
    /// The first `Result` tag's value, if `has_result`.
    result_tag: Vec<u8>,
    has_result: bool,
    termination: Option<Outcome>,
    variations: bool,
    payloads: PayloadChecker,
    record_offset: u64,
    game: u64,
    /// Plies of the game, as [`BulkGame::plies`] counts them.
    plies: u64,
    error: Option<ExtError>,
}

impl Outcomes {
    fn fail(&mut self, kind: ExtKind, e: pgc_core::ext::PayloadError) {
        if self.error.is_none() {
            let ply = u32::try_from(self.plies).unwrap_or(u32::MAX);
            self.error = Some(e.at_record(kind, self.record_offset, self.game, ply));
        }
    }
}

impl GameVisitor for Outcomes {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.game = info.index;
        self.result_tag.clear();
        self.has_result = false;
        self.termination = None;
        self.plies = 0;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        if name == b"Result" && !self.has_result {
            self.has_result = true;
            self.result_tag.extend_from_slice(value);
        }
        ControlFlow::Continue(())
    }

    fn wants_before(&self) -> bool {
        false
    }

    fn play(&mut self, _ply: &Ply<'_>) -> ControlFlow<()> {
        self.plies += 1;
        ControlFlow::Continue(())
    }

    fn null_move(&mut self, _before: &VariantPosition, _spelling: &[u8]) -> ControlFlow<()> {
        self.plies += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(!self.variations))
    }

    fn record(&mut self, offset: u64, _record: &RecordRef<'_>) {
        self.record_offset = offset;
    }

    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        let checked = match kind {
            ExtKind::TERMINATION => {
                ext::simple::termination(payload).map(|o| self.termination = Some(o))
            }
            ExtKind::LONG_NAG => ext::simple::long_nag(payload).map(|_| ()),
            _ => self.payloads.check(kind, payload),
        };
        if let Err(e) = checked {
            self.fail(kind, e);
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) {
        let tag = self.has_result.then_some(&self.result_tag[..]);
        self.results.push(result_of(self.termination, tag).to_vec());
    }
}

/// The second walk of [`positions_in_parts`]: writes the positions of
/// each game as its moves are played, as [`write_positions`] writes those
/// of a collected game.
struct PositionLines<'a, 'p> {
    job: &'a Job,
    out: Vec<u8>,
    parts: Parts<'p>,
    /// The results of the games, from the first walk.
    results: &'a [Vec<u8>],
    result: usize,
    variant_960: bool,
    has_variant: bool,
    has_fen: bool,
    started: bool,
    mode: CastlingMode,
    /// The position, the one before the last move, and the ply.
    pos: VariantPosition,
    prev: Option<VariantPosition>,
    ply: u32,
    stack: Vec<(VariantPosition, Option<VariantPosition>, u32)>,
    plies: u64,
    /// Tags of the game, for the start position of a game with no
    /// movetext.
    variant_tag: Vec<u8>,
    fen_tag: Vec<u8>,
}

impl PositionLines<'_, '_> {
    fn result(&self) -> &[u8] {
        self.results.get(self.result).map_or(b"*", |r| &r[..])
    }

    fn line(&mut self, next: Option<Move>) -> ControlFlow<()> {
        if self.ply < self.job.skip_plies {
            return ControlFlow::Continue(());
        }
        let result = self.results.get(self.result).map_or(&b"*"[..], |r| &r[..]);
        write_position(
            &mut self.out,
            &self.pos,
            self.ply,
            next,
            result,
            self.job.format,
            self.mode,
        );
        self.parts.offer(&mut self.out)
    }
}

impl GameVisitor for PositionLines<'_, '_> {
    fn begin_game(&mut self, _info: &GameInfo) -> ControlFlow<()> {
        self.variant_960 = false;
        self.has_variant = false;
        self.has_fen = false;
        self.started = false;
        self.variant_tag.clear();
        self.fen_tag.clear();
        self.prev = None;
        self.ply = 0;
        self.stack.clear();
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        match name {
            b"Variant" if !self.has_variant => {
                self.has_variant = true;
                self.variant_960 = names_chess960(value);
                self.variant_tag.extend_from_slice(value);
            }
            b"FEN" if !self.has_fen => {
                self.has_fen = true;
                self.fen_tag.extend_from_slice(value);
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.started = true;
        self.pos = start.clone();
        self.mode = castling_mode_of(self.variant_960, self.has_fen, start);
        ControlFlow::Continue(())
    }

    fn wants_before(&self) -> bool {
        false
    }

    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        self.plies += 1;
        self.line(Some(ply.mv))?;
        // Played here, as `write_positions` plays a collected game's moves.
        let mut after = self.pos.clone();
        after.play_unchecked(ply.mv);
        self.prev = Some(std::mem::replace(&mut self.pos, after));
        self.ply += 1;
        ControlFlow::Continue(())
    }

    fn null_move(&mut self, _before: &VariantPosition, _spelling: &[u8]) -> ControlFlow<()> {
        self.plies += 1;
        if self.ply >= self.job.skip_plies {
            let result = self.result().to_vec();
            let _ =
                write_position_null(&mut self.out, &self.pos, self.ply, &result, self.job.format);
            self.parts.offer(&mut self.out)?;
        }
        let after = variant_null_move(&self.pos).unwrap_or_else(|| self.pos.clone());
        self.prev = Some(std::mem::replace(&mut self.pos, after));
        self.ply += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        if !self.job.opts.variations {
            return ControlFlow::Continue(Skip(true));
        }
        let before = self.prev.clone().unwrap_or_else(|| self.pos.clone());
        let pos = std::mem::replace(&mut self.pos, before);
        self.stack.push((pos, self.prev.take(), self.ply));
        self.ply = self.ply.saturating_sub(1);
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self) -> ControlFlow<()> {
        self.line(None)?;
        if let Some((p, q, n)) = self.stack.pop() {
            self.pos = p;
            self.prev = q;
            self.ply = n;
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) {
        if !self.started {
            // No movetext: the start position is still the FEN tag's, as
            // for a collected game.
            let variant = if self.has_variant {
                variant_of_tag(&self.variant_tag)
            } else {
                Ok(Variant::Chess)
            };
            let fen = self.has_fen.then_some(&self.fen_tag[..]);
            self.pos = variant
                .ok()
                .and_then(|v| variant_start_position(v, fen).ok())
                .unwrap_or_default();
            self.mode = castling_mode_of(self.variant_960, self.has_fen, &self.pos);
        }
        // A failed write is kept by the parts, which stop the walk.
        let _written = self.line(None);
        self.result += 1;
    }
}

/// The positions (fen, epd) of a batch that runs alone, written out in
/// parts as its games are walked, never collected ([`BulkGame`] holds some
/// 24 bytes a ply): a first walk finds each game's result (the last column
/// of every line, which a termination record at the game's end gives) and
/// checks the payloads as [`BulkReader`] does; the second writes the
/// positions of the games the first walked whole, the same lines as
/// [`write_positions`].
fn positions_in_parts(b: Batch, parts: Parts<'_>, job: &Job) -> Done {
    let mut walker = b.walker(job.opts.limits);
    OPENINGS.with_borrow_mut(|c| std::mem::swap(c, walker.opening_cache_mut()));
    let mut scan = Outcomes {
        results: Vec::new(),
        result_tag: Vec::new(),
        has_result: false,
        termination: None,
        variations: job.opts.variations,
        payloads: PayloadChecker::new(),
        record_offset: 0,
        game: 0,
        plies: 0,
        error: None,
    };
    let mut whole = 0u64;
    let error = walk_batch(
        &mut walker,
        &mut scan,
        |v| v.error.take(),
        |_, whole_game| whole += u64::from(whole_game),
    );
    OPENINGS.with_borrow_mut(|c| std::mem::swap(c, walker.opening_cache_mut()));
    let mut walker = b.walker(job.opts.limits);
    OPENINGS.with_borrow_mut(|c| std::mem::swap(c, walker.opening_cache_mut()));
    let mut w = PositionLines {
        job,
        out: Vec::with_capacity(PART_BYTES + (PART_BYTES >> 2)),
        parts,
        results: &scan.results,
        result: 0,
        variant_960: false,
        has_variant: false,
        has_fen: false,
        started: false,
        mode: CastlingMode::Standard,
        pos: VariantPosition::default(),
        prev: None,
        ply: 0,
        stack: Vec::new(),
        plies: 0,
        variant_tag: Vec::new(),
        fen_tag: Vec::new(),
    };
    for _ in 0..whole {
        // The first walk read these games whole: no error now.
        if !matches!(walker.walk_game(&mut w), Ok(true)) || w.parts.failed() {
            break;
        }
    }
    OPENINGS.with_borrow_mut(|c| std::mem::swap(c, walker.opening_cache_mut()));
    Done {
        out: w.out,
        games: whole,
        plies: w.plies,
        verbatim: 0,
        bytes_in: b.data.len() as u64,
        error,
        kept: Vec::new(),
        write_error: w.parts.take_failure(),
    }
}

/// A batch in a line format (uci, san), written by a [`LineWriter`] under
/// a [`Select`].
fn lines_batch(b: Batch, parts: Parts<'_>, job: &Job) -> Done {
    let mut walker = b.walker(job.opts.limits);
    OPENINGS.with_borrow_mut(|c| std::mem::swap(c, walker.opening_cache_mut()));
    let capacity = b.data.len().min(ALONE_PGC_BYTES) * 4;
    let mut w = Select::new(LineWriter::new(job, capacity, parts), &job.select);
    let active = job.select.is_active();
    let mut good = 0;
    let mut games = 0;
    let mut kept = Vec::new();
    let error = walk_batch(
        &mut walker,
        &mut w,
        |w| w.inner.error.take(),
        |w, whole_game| {
            // Completed games count, as `BulkReader` returns them.
            games += u64::from(whole_game);
            w.inner.parted = false;
            if active && whole_game && w.dropped {
                w.inner.out.truncate(good);
                return;
            }
            let start = good;
            good = w.inner.out.len();
            if let (true, Some(key)) = (whole_game, w.last_key) {
                kept.push(KeptGame {
                    game: w.game(),
                    key,
                    start,
                    own: start,
                    end: good,
                });
            }
        },
    );
    let mut w = w.inner;
    // Drop what a game cut short by an error wrote, as `BulkReader` never
    // returns such a game (what is left of it when part of it was written
    // out).
    w.out.truncate(if w.parted { 0 } else { good });
    OPENINGS.with_borrow_mut(|c| std::mem::swap(c, walker.opening_cache_mut()));
    Done {
        out: w.out,
        games,
        plies: w.plies,
        verbatim: 0,
        bytes_in: b.data.len() as u64,
        error,
        kept,
        write_error: w.parts.take_failure(),
    }
}

/// Runs `pgc moves`.
///
/// # Errors
/// Usage, I/O, invalid PGC (positioned; the games before the error are
/// written).
pub fn run(a: &MovesArgs) -> Result<Status> {
    let limits = a.batch.limits.pgc_limits();
    let csv = a.format == MovesFormat::Csv;
    if csv && a.all {
        return Err(Error::Usage(
            "--format csv writes main lines only; leave out --all".into(),
        ));
    }
    if a.skip_plies > 0 && matches!(a.format, MovesFormat::Uci | MovesFormat::San) {
        return Err(Error::Usage(
            "--skip-plies leaves out positions: use it with --format fen, epd or csv".into(),
        ));
    }
    let min_clock = match a.min_clock {
        None => None,
        Some(_) if !csv => {
            return Err(Error::Usage(
                "--min-clock needs --format csv (the clock is one of its columns)".into(),
            ));
        }
        Some(s) if s.is_finite() && s >= 0.0 => Some((s * 1000.0).ceil() as u64),
        Some(s) => {
            return Err(Error::Usage(format!(
                "--min-clock {s}: expected a number of seconds, 0 or more"
            )));
        }
    };
    let job = Job {
        format: a.format,
        opts: BulkOptions {
            variations: a.all,
            // The clocks and evals of the csv rows.
            comments: csv,
            san: a.format == MovesFormat::San,
            moves: true,
            limits,
        },
        select: a.select.selection(),
        skip_plies: a.skip_plies,
        min_clock,
    };
    crate::batch::check_duplicates(
        a.select.duplicates.as_deref(),
        job.select.dedup,
        a.batch.output.output.as_deref(),
    )?;
    let batches = PgcBatches {
        command: "moves",
        args: &a.batch,
        dedup: job.select.dedup.map(|_| Duplicates {
            path: a.select.duplicates.as_deref(),
            write: line_duplicate,
        }),
        header: if csv { CSV_HEADER } else { b"" },
    };
    batches.run(|b, parts| moves_batch(b, parts, &job))
}
