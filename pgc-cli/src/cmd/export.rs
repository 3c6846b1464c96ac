//! `pgc export`: PGC or PGN → a table of games (Parquet, Arrow IPC file or
//! stream), one row per game.
//!
//! PGC is cut into batches of whole games ([`crate::batch`]); PGN is cut
//! into batches of whole games by `pgc encode`'s splitter
//! ([`crate::pgn_batch`]: damaged compressed input, games over the size
//! limit) and each is encoded as `pgc encode` encodes it. Each batch becomes a
//! record batch on a worker thread ([`pgc_arrow::convert`]); record
//! batches are written in input order. Batch boundaries depend on the
//! input only, so the table is the same for every `-j N`.

use crate::args::ExportArgs;
use crate::batch::{
    ALONE_PGC_BYTES, Batch, Made, PgcSplitter, open_batches, run_ordered, run_ordered_helped,
};
use crate::error::{Error, Result, Status};
use crate::io::DamageWatch;
use crate::io::{Format, Input, Output, Sink, refuse_binary_terminal};
use crate::pgn_batch::{Job, next_batch, next_batch_converted, skip_to};
use crate::progress::{Progress, say, summary_line};
use crate::select::{Dedup, GameKey, Selection, bulk_plies_and_key, selected_runs};
use crate::table::{Spool, output_format, table_error};
use crate::training::{TrainingRow, training_rows};
use arrow_array::builder::{
    Float32Builder, Float64Builder, Int32Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, RecordBatch};
use pgc_arrow::bulk_options;
use pgc_arrow::{
    Column, Converted, ExportOptions, GamesBuilder, Joiner, TableWriter, WriteOptions, convert,
};
use pgc_core::BulkReader;
use pgc_core::ext::commands::Eval;
use pgn_bridge::internals::lex_games;
use pgn_bridge::{EncodeOptions, Encoder, GameOutput, GameStart, PgnReader, Reject};
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use std::io::Write;
use std::sync::Arc;

/// Rejected games listed on stderr; the rest are counted.
const SHOWN_REJECTS: usize = 10;

/// What a worker made of a batch.
struct Done {
    /// The games' rows, or why the batch could not be read.
    rows: std::result::Result<Converted, pgc_arrow::Error>,
    /// Input bytes of the batch.
    bytes_in: u64,
    /// PGN games that could not be encoded (not in the table).
    rejects: Vec<Reject>,
    /// A damaged compressed input ended the data here (the message).
    damage: Option<String>,
    /// With `--dedup`: each row's game (0-based) and key.
    keys: Vec<(u64, GameKey)>,
    /// With `--positions`: the games read (the rows are positions).
    games: u64,
}

/// [`convert`] keeping only the games `sel` selects (the records of a
/// game left out are in no row), with each row's game and `--dedup` key.
/// The games the tags exclude are not decoded.
fn convert_selected(
    data: &[u8],
    offset: u64,
    games: u64,
    builder: &mut GamesBuilder,
    sel: &Selection,
    keys: &mut Vec<(u64, GameKey)>,
) -> std::result::Result<Converted, pgc_arrow::Error> {
    if !sel.is_active() {
        return convert(data, offset, games, builder);
    }
    let found = selected_runs(
        data,
        offset,
        games,
        builder.options().limits,
        sel.filter.as_ref(),
    );
    let mut last_end = 0;
    for run in &found.runs {
        let part = &data[run.start..run.end];
        let at = offset + run.start as u64;
        // `--dedup` keys games by their moves.
        let opts = bulk_options(builder.options());
        let opts = pgc_core::BulkOptions {
            moves: opts.moves || sel.dedup.is_some(),
            ..opts
        };
        let mut reader = BulkReader::new(part, opts).starting_at(at, run.games);
        let mut start = 0usize;
        while let Some(game) = reader.next_game()? {
            let end = usize::try_from(game.end_offset() - at)
                .unwrap_or(part.len())
                .min(part.len());
            let (plies, key) = bulk_plies_and_key(game, sel.dedup);
            if sel.filter.as_ref().is_none_or(|f| f.matches(game, plies)) {
                builder.push(game, &part[start..end])?;
                if sel.dedup.is_some() {
                    keys.push((game.info().index, key));
                }
            }
            start = end;
        }
        last_end = run.start + start;
    }
    if let Some(e) = found.error {
        return Err(e.into());
    }
    let rest = if sel.filter.is_some() {
        found.end
    } else {
        last_end
    };
    Ok(Converted {
        batch: builder.finish()?,
        rest: data[rest..].to_vec(),
    })
}

/// `--positions`: what the workers need to make a positions table.
#[derive(Debug, Clone, Copy)]
struct PositionsJob {
    skip_plies: u32,
    /// Milliseconds.
    min_clock: Option<u64>,
}

/// The columns of a positions table (`--positions`), row by row.
struct PositionsBuilder {
    game: UInt64Builder,
    ply: UInt32Builder,
    fen: StringBuilder,
    mv: StringBuilder,
    elo: Int32Builder,
    opponent_elo: Int32Builder,
    clock: Float64Builder,
    eval: Int32Builder,
    mate: Int32Builder,
    result: Float32Builder,
    text: Vec<u8>,
}

impl PositionsBuilder {
    fn new() -> PositionsBuilder {
        PositionsBuilder {
            game: UInt64Builder::new(),
            ply: UInt32Builder::new(),
            fen: StringBuilder::new(),
            mv: StringBuilder::new(),
            elo: Int32Builder::new(),
            opponent_elo: Int32Builder::new(),
            clock: Float64Builder::new(),
            eval: Int32Builder::new(),
            mate: Int32Builder::new(),
            result: Float32Builder::new(),
            text: Vec::new(),
        }
    }

    fn push(&mut self, r: &TrainingRow<'_>) {
        let number = |v: Option<&[u8]>| {
            v.and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| v.parse::<i32>().ok())
        };
        self.game.append_value(r.game);
        self.ply.append_value(r.ply);
        self.text.clear();
        let _ = write!(
            self.text,
            "{}",
            Fen::from_position(r.pos, EnPassantMode::Legal)
        );
        self.fen
            .append_value(String::from_utf8_lossy(&self.text).as_ref());
        self.text.clear();
        let _ = match r.mv {
            Some(m) => write!(self.text, "{}", UciMove::from_move(m, r.mode)),
            None => write!(self.text, "0000"),
        };
        self.mv
            .append_value(String::from_utf8_lossy(&self.text).as_ref());
        self.elo.append_option(number(r.elo));
        self.opponent_elo.append_option(number(r.opponent_elo));
        self.clock
            .append_option(r.clock.map(|ms| ms as f64 / 1000.0));
        let (cp, mate) = match r.eval {
            Some(Eval::Centipawns(cp)) => (Some(cp), None),
            Some(Eval::Mate(n)) => (None, Some(n)),
            None => (None, None),
        };
        self.eval.append_option(cp);
        self.mate.append_option(mate);
        self.result.append_option(r.result);
    }

    /// The rows so far as a record batch (the builder is left empty).
    fn finish(&mut self) -> std::result::Result<RecordBatch, pgc_arrow::Error> {
        let columns: Vec<(&str, ArrayRef, bool)> = vec![
            ("game", Arc::new(self.game.finish()), false),
            ("ply", Arc::new(self.ply.finish()), false),
            ("fen", Arc::new(self.fen.finish()), false),
            ("move", Arc::new(self.mv.finish()), false),
            ("elo", Arc::new(self.elo.finish()), true),
            ("opponent_elo", Arc::new(self.opponent_elo.finish()), true),
            ("clock", Arc::new(self.clock.finish()), true),
            ("eval", Arc::new(self.eval.finish()), true),
            ("mate", Arc::new(self.mate.finish()), true),
            ("result", Arc::new(self.result.finish()), true),
        ];
        Ok(RecordBatch::try_from_iter_with_nullable(columns)?)
    }
}

/// The positions table rows of the games of `data` (`--positions`) that
/// `sel` selects. The games the tags exclude are not decoded.
fn positions_of(
    data: &[u8],
    offset: u64,
    games: u64,
    limits: pgc_core::Limits,
    sel: &Selection,
    job: PositionsJob,
) -> std::result::Result<(Converted, u64), pgc_arrow::Error> {
    let opts = pgc_core::BulkOptions {
        variations: false,
        // The clocks and evals.
        comments: true,
        san: false,
        moves: true,
        limits,
    };
    let found = selected_runs(data, offset, games, limits, sel.filter.as_ref());
    let mut b = PositionsBuilder::new();
    let mut n = 0;
    for run in &found.runs {
        let at = offset + run.start as u64;
        let mut reader =
            BulkReader::new(&data[run.start..run.end], opts).starting_at(at, run.games);
        while let Some(g) = reader.next_game()? {
            n += 1;
            let (plies, _) = bulk_plies_and_key(g, None);
            if sel.filter.as_ref().is_none_or(|f| f.matches(g, plies)) {
                training_rows(g, job.skip_plies, job.min_clock, |r| b.push(r));
            }
        }
    }
    if let Some(e) = found.error {
        return Err(e.into());
    }
    let games = if sel.filter.is_some() { found.games } else { n };
    Ok((
        Converted {
            batch: b.finish()?,
            rest: Vec::new(),
        },
        games,
    ))
}

/// A batch's games encoded as `pgc encode` encodes them: their PGC, and the
/// games it rejected (kept as read, as `pgc encode` keeps them: their
/// verbatim records go with the next game's row, or the last row).
/// The string limit of the `pgc` column's records (the encoder's default).
const DEFAULT_STRING: u32 = pgc_core::Limits::DEFAULT.max_string;

#[derive(Default)]
struct Encoded {
    pgc: Vec<u8>,
    rejects: Vec<Reject>,
}

impl Encoded {
    /// The game `enc` just read, as `output`.
    fn game(&mut self, output: GameOutput, enc: &mut Encoder) {
        match output {
            GameOutput::Encoded { .. } => enc.append_game_to(&mut self.pgc),
            GameOutput::Rejected(r) => {
                pgc_core::ext::verbatim::write(&mut self.pgc, enc.take_game(), DEFAULT_STRING);
                self.rejects.push(r);
            }
        }
    }
}

/// Encodes a batch of PGN games as `pgc encode` does (lexed in place from
/// the batch's bytes), then makes their rows.
fn encode_and_convert(
    job: Job,
    opts: &ExportOptions,
    sel: &Selection,
    positions: Option<PositionsJob>,
) -> Done {
    let mut enc = Encoder::new(EncodeOptions::default());
    let mut encoded = Encoded {
        pgc: Vec::with_capacity(job.data.len() / 3),
        rejects: Vec::new(),
    };
    lex_games(&job.data, job.start, &mut enc, |_, output, enc| {
        encoded.game(output, enc);
    });
    convert_encoded(encoded, job, opts, sel, positions)
}

/// The next batch converted on the reading thread (see `pgc encode`):
/// each game encoded as it is read, lexed once, then the batch's rows.
#[allow(clippy::too_many_arguments)]
fn encode_next_and_convert<R: std::io::Read>(
    reader: &mut PgnReader<R>,
    enc: &mut Encoder,
    name: &str,
    damage: Option<&DamageWatch>,
    last: Option<u64>,
    opts: &ExportOptions,
    sel: &Selection,
    positions: Option<PositionsJob>,
) -> Result<Option<Done>> {
    let mut encoded = Encoded::default();
    let mut each = |_: GameStart, _: usize, output: GameOutput, enc: &mut Encoder| {
        encoded.game(output, enc);
    };
    let job = next_batch_converted(reader, name, damage, false, last, enc, &mut each)?;
    Ok(job.map(|job| convert_encoded(encoded, job, opts, sel, positions)))
}

/// The rows of a batch's encoded games, with what the splitter found
/// besides them.
fn convert_encoded(
    encoded: Encoded,
    job: Job,
    opts: &ExportOptions,
    sel: &Selection,
    positions: Option<PositionsJob>,
) -> Done {
    let Encoded {
        mut pgc,
        mut rejects,
    } = encoded;
    let mut bytes_in = job.data.len() as u64;
    // The game a damaged input cut: kept as read, as `pgc encode` keeps
    // it. (The whitespace of an input with no game has no row to go
    // with: a table of no game is empty.)
    if let Some((r, raw)) = job.cut {
        bytes_in += raw.len() as u64;
        pgc_core::ext::verbatim::write(&mut pgc, &raw, DEFAULT_STRING);
        rejects.push(r);
    }
    bytes_in += job.unclaimed.len() as u64;
    // A game over the limit is not held: it is counted, not kept.
    if let Some(o) = job.oversized {
        bytes_in += o.size;
        rejects.push(o.reject);
    }
    if let Some(p) = positions {
        let made = positions_of(&pgc, 0, job.start.index, opts.limits, sel, p);
        return positions_done(made, bytes_in, rejects, job.damage);
    }
    let mut builder = GamesBuilder::new(opts);
    let mut keys = Vec::new();
    Done {
        // Positions in this PGC are within the batch's encoding: it was
        // just written, a failure to read it back is no fault of the input.
        rows: convert_selected(&pgc, 0, job.start.index, &mut builder, sel, &mut keys),
        bytes_in,
        rejects,
        damage: job.damage,
        keys,
        games: 0,
    }
}

/// Makes the rows of a batch of PGC games.
fn convert_pgc(
    batch: &Batch,
    opts: &ExportOptions,
    sel: &Selection,
    positions: Option<PositionsJob>,
) -> Done {
    if let Some(p) = positions {
        let made = positions_of(&batch.data, batch.offset, batch.games, opts.limits, sel, p);
        return positions_done(made, batch.data.len() as u64, Vec::new(), None);
    }
    let mut builder = GamesBuilder::new(opts);
    let mut keys = Vec::new();
    Done {
        rows: convert_selected(
            &batch.data,
            batch.offset,
            batch.games,
            &mut builder,
            sel,
            &mut keys,
        ),
        bytes_in: batch.data.len() as u64,
        rejects: Vec::new(),
        damage: None,
        keys,
        games: 0,
    }
}

/// The [`Done`] of a batch of a positions table.
fn positions_done(
    made: std::result::Result<(Converted, u64), pgc_arrow::Error>,
    bytes_in: u64,
    rejects: Vec<Reject>,
    damage: Option<String>,
) -> Done {
    let (rows, games) = match made {
        Ok((c, n)) => (Ok(c), n),
        Err(e) => (Err(e), 0),
    };
    Done {
        rows,
        bytes_in,
        rejects,
        damage,
        keys: Vec::new(),
        games,
    }
}

/// The table being written, and what is counted on the way.
struct Table {
    writer: TableWriter<Spool>,
    spool: Spool,
    sink: Sink,
    joiner: Joiner,
    has_plies: bool,
    games: u64,
    plies: u64,
    bytes_in: u64,
    rejected: u64,
    shown: Vec<String>,
    /// What a damaged compressed input cost, per input.
    damaged: Vec<String>,
    /// `--dedup`: the games kept so far.
    dedup: Option<Dedup>,
    /// `--positions`: rows are positions, games are counted apart.
    positions: bool,
}

impl Table {
    /// Takes a worker's result for input `name`.
    fn take(&mut self, done: Done, name: &str) -> Result<()> {
        self.bytes_in += done.bytes_in;
        for r in &done.rejects {
            if self.shown.len() < SHOWN_REJECTS {
                self.shown.push(format!("{name}: rejected {r}"));
            }
        }
        self.rejected += done.rejects.len() as u64;
        self.games += done.games;
        self.damaged.extend(done.damage);
        let rows = done.rows.map_err(|e| match e {
            pgc_arrow::Error::Walk(w) => Error::Data(format!(
                "{name}: {w}; run `pgc verify {name}` for every problem"
            )),
            e => table_error(name, &e),
        })?;
        for part in self.deduplicated(rows, &done.keys) {
            let ready = self.joiner.push(part).map_err(|e| table_error(name, &e))?;
            self.write(ready.as_ref())
                .map_err(|e| table_error(self.sink.name(), &e))?;
        }
        self.spool.drain(&mut self.sink)
    }

    /// With `--dedup`, the runs of `rows` that are no duplicate (in input
    /// order), the records after the last game with the last run; else
    /// `rows` as they are.
    fn deduplicated(&mut self, rows: Converted, keys: &[(u64, GameKey)]) -> Vec<Converted> {
        let Some(dedup) = &mut self.dedup else {
            return vec![rows];
        };
        let mut parts = Vec::new();
        let mut run = 0;
        for (i, &(game, key)) in keys.iter().enumerate() {
            if dedup.check(key, game).is_some() {
                if i > run {
                    parts.push(Converted {
                        batch: rows.batch.slice(run, i - run),
                        rest: Vec::new(),
                    });
                }
                run = i + 1;
            }
        }
        let n = rows.batch.num_rows();
        parts.push(Converted {
            batch: rows.batch.slice(run.min(n), n - run.min(n)),
            rest: rows.rest,
        });
        parts
    }

    fn write(
        &mut self,
        batch: Option<&arrow_array::RecordBatch>,
    ) -> std::result::Result<(), pgc_arrow::Error> {
        let Some(b) = batch else { return Ok(()) };
        if !self.positions {
            self.games += b.num_rows() as u64;
        }
        if self.has_plies
            && let Some(p) = b.column_by_name(Column::Plies.name())
        {
            let p = p.as_primitive::<Int32Type>();
            self.plies += p.values().iter().map(|&n| n.max(0) as u64).sum::<u64>();
        }
        self.writer.write(b)
    }
}

/// Runs `pgc export`.
///
/// # Errors
/// Usage (unknown column, output name), I/O, invalid PGC (positioned), a
/// PGN game over the size limit.
pub fn run(a: &ExportArgs) -> Result<Status> {
    let format = output_format(a.output.output.as_deref(), a.format)?;
    let mut opts = if a.columns.is_empty() {
        ExportOptions::new(a.uci, a.san)
    } else {
        ExportOptions::with_columns(&a.columns, a.uci, a.san)
            .map_err(|e| Error::Usage(format!("--columns: {e}")))?
    };
    if a.engine {
        opts = opts.with_engine();
    }
    opts.limits = a.limits.pgc_limits();
    if !(0..=22).contains(&a.zstd_level) {
        return Err(Error::Usage(format!(
            "--zstd-level {}: expected 1 to 22, or 0 for no compression",
            a.zstd_level
        )));
    }
    let write_opts = WriteOptions {
        row_group_size: usize::try_from(a.row_group_size).unwrap_or(usize::MAX),
        zstd_level: (a.zstd_level > 0).then_some(a.zstd_level),
    };
    let inputs = Input::list(&a.inputs);
    let output = Output::create(a.output.output.as_deref(), a.output.force, &inputs)?;
    refuse_binary_terminal(&output)?;
    let jobs = pgc_core::worker_threads(a.jobs);
    let sel = a.select.selection();
    if a.select.duplicates.is_some() {
        return Err(Error::Usage(
            "pgc export has no --duplicates: run `pgc encode --dedup --duplicates FILE` \
             for the games --dedup drops"
                .into(),
        ));
    }
    let positions = if a.positions {
        if sel.dedup.is_some() || !a.columns.is_empty() || a.uci || a.san {
            return Err(Error::Usage(
                "--positions has its own columns and no --dedup: leave out --columns, --uci, \
                 --san and --dedup"
                    .into(),
            ));
        }
        let min_clock = match a.min_clock {
            None => None,
            Some(s) if s.is_finite() && s >= 0.0 => Some((s * 1000.0).ceil() as u64),
            Some(s) => {
                return Err(Error::Usage(format!(
                    "--min-clock {s}: expected a number of seconds, 0 or more"
                )));
            }
        };
        Some(PositionsJob {
            skip_plies: a.skip_plies,
            min_clock,
        })
    } else {
        None
    };
    let schema = match positions {
        Some(_) => PositionsBuilder::new()
            .finish()
            .map_err(|e| table_error(output.name(), &e))?
            .schema(),
        None => opts.schema(),
    };
    let spool = Spool::default();
    let writer = TableWriter::new(spool.clone(), format, schema, write_opts)
        .map_err(|e| table_error(output.name(), &e))?;

    let mut table = Table {
        writer,
        spool,
        sink: output.sink()?,
        joiner: Joiner::default(),
        has_plies: opts.has(Column::Plies),
        games: 0,
        plies: 0,
        bytes_in: 0,
        rejected: 0,
        shown: Vec::new(),
        damaged: Vec::new(),
        dedup: sel.dedup.map(|_| Dedup::default()),
        positions: positions.is_some(),
    };
    let mut progress = Progress::new("export", a.report.quiet);
    let limits = opts.limits;
    for input in &inputs {
        let opened = input.open_keeping_damage()?;
        let name = &input.name;
        match opened.format {
            Format::Pgn => {
                let mut reader =
                    PgnReader::new(opened.reader).with_max_game_bytes(a.limits.max_game_bytes());
                let first = a.games.map_or(0, |r| r.first);
                let wanted = skip_to(&mut reader, first, name)?;
                let damage = opened.damage.as_ref();
                let last = a.games.and_then(|r| r.last);
                // As `pgc encode`: the calling thread converts batches
                // itself, in one pass, while the workers are busy. Nothing
                // is read when the input ends before the first game asked
                // for.
                let mut enc = Encoder::new(EncodeOptions::default());
                run_ordered_helped(
                    jobs,
                    &mut (),
                    true,
                    |help| match (wanted, help) {
                        (false, _) => Ok(None),
                        (true, true) => encode_next_and_convert(
                            &mut reader,
                            &mut enc,
                            name,
                            damage,
                            last,
                            &opts,
                            &sel,
                            positions,
                        )
                        .map(|done| done.map(Made::Done)),
                        (true, false) => next_batch(&mut reader, name, damage, false, last)
                            .map(|job| job.map(Made::Job)),
                    },
                    Job::alone,
                    |job, _| encode_and_convert(job, &opts, &sel, positions),
                    |done, ()| {
                        table.take(done, name)?;
                        progress.tick(table.bytes_in, table.games);
                        Ok(())
                    },
                )?;
                input.note_range(a.games, reader.games_read());
            }
            Format::Pgc | Format::Empty => {
                // A regular file is opened again: to seek to the first
                // wanted game, and to decompress the frames of a seekable
                // .pgc.zst on `-j` threads, as decode does. A pipe is read
                // on from what was opened.
                let mut splitter = match (a.games, input.is_regular_file()) {
                    (range, true) => open_batches(input, limits, range, jobs, a.report.quiet)?,
                    (Some(r), false) => {
                        PgcSplitter::new(opened.reader, limits).select(r.first, r.last)
                    }
                    (None, false) => PgcSplitter::new(opened.reader, limits),
                };
                run_ordered(
                    jobs,
                    &mut (),
                    || splitter.next_batch().map_err(|e| Error::io(name, &e)),
                    |b: &Batch| b.data.len() > ALONE_PGC_BYTES,
                    |batch, _| convert_pgc(&batch, &opts, &sel, positions),
                    |done, ()| {
                        table.take(done, name)?;
                        progress.tick(table.bytes_in, table.games);
                        Ok(())
                    },
                )?;
                input.note_range(a.games, splitter.games());
            }
        }
    }
    let out_name = output.name().to_string();
    // Records after the last game ride in its row; with no game at all
    // they have no row, which is the inputs' fault, not the output's.
    let last = std::mem::take(&mut table.joiner)
        .finish()
        .map_err(|e| match e {
            pgc_arrow::Error::NoGame { .. } => {
                let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
                table_error(&names.join(", "), &e)
            }
            e => table_error(&out_name, &e),
        })?;
    table
        .write(last.as_ref())
        .map_err(|e| table_error(&out_name, &e))?;
    let Table {
        writer,
        spool,
        mut sink,
        games,
        plies,
        bytes_in,
        rejected,
        shown,
        damaged,
        ..
    } = table;
    writer.finish().map_err(|e| table_error(&out_name, &e))?;
    spool.drain(&mut sink)?;
    let bytes_out = sink.written();
    sink.finish()?;
    output.commit()?;
    progress.clear();
    for line in &damaged {
        say(line);
    }
    if progress.verbose() {
        for line in &shown {
            say(line);
        }
        if rejected > 0 {
            say(&format!(
                "{rejected} PGN game(s) could not be encoded and are no rows of the table (their \
                 text is in the pgc column, but for a game over --max-game-bytes); \
                 `pgc encode --rejects FILE` writes them out"
            ));
        }
    }
    progress.summary(&summary_line(
        games,
        plies,
        Some((rejected, "rejected")),
        bytes_in,
        bytes_out,
        progress.elapsed(),
    ));
    Ok(if rejected > 0 || !damaged.is_empty() {
        Status::Problems
    } else {
        Status::Ok
    })
}
