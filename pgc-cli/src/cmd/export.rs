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
use crate::batch::{Batch, PgcSplitter, jobs, open_batches, run_ordered};
use crate::error::{Error, Result, Status};
use crate::io::{Format, Input, Output, Sink, refuse_binary_terminal};
use crate::pgn_batch::{Job, next_batch, skip_to};
use crate::progress::{Progress, say, summary_line};
use crate::select::bulk_plies_and_key;
use crate::table::{Spool, output_format, table_error};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use pgc_arrow::bulk_options;
use pgc_arrow::{
    Column, Converted, ExportOptions, GamesBuilder, Joiner, TableWriter, WriteOptions, convert,
};
use pgc_core::BulkReader;
use pgc_core::filter::Filter;
use pgn_bridge::internals::lex_games;
use pgn_bridge::{EncodeOptions, Encoder, GameOutput, PgnReader, Reject};

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
}

/// [`convert`] keeping only the games `filter` selects: the records of a
/// game left out are in no row.
fn convert_selected(
    data: &[u8],
    offset: u64,
    games: u64,
    builder: &mut GamesBuilder,
    filter: Option<&Filter>,
) -> std::result::Result<Converted, pgc_arrow::Error> {
    let Some(filter) = filter else {
        return convert(data, offset, games, builder);
    };
    let mut reader =
        BulkReader::new(data, bulk_options(builder.options())).starting_at(offset, games);
    let mut start = 0usize;
    while let Some(game) = reader.next_game()? {
        let end = usize::try_from(game.end_offset() - offset).unwrap_or(data.len());
        let end = end.min(data.len());
        let (plies, _) = bulk_plies_and_key(game, None);
        if filter.matches(game, plies) {
            builder.push(game, &data[start..end])?;
        }
        start = end;
    }
    Ok(Converted {
        batch: builder.finish()?,
        rest: data[start..].to_vec(),
    })
}

/// Encodes a batch of PGN games as `pgc encode` does (lexed in place from
/// the batch's bytes), then makes their rows.
fn encode_and_convert(job: Job, opts: &ExportOptions, filter: Option<&Filter>) -> Done {
    let mut enc = Encoder::new(EncodeOptions::default());
    let mut pgc = Vec::with_capacity(job.data.len() / 3);
    let mut rejects = Vec::new();
    let mut bytes_in = job.data.len() as u64;
    lex_games(
        &job.data,
        job.start,
        &mut enc,
        |_, output, enc| match output {
            GameOutput::Encoded { .. } => enc.append_game_to(&mut pgc),
            GameOutput::Rejected(r) => {
                // Kept as read, as `pgc encode` keeps it: its verbatim
                // records go with the next game's row (or the last row).
                pgc_core::ext::verbatim::write(&mut pgc, enc.take_game());
                rejects.push(r);
            }
        },
    );
    // The game a damaged input cut: kept as read, as `pgc encode` keeps
    // it. (The whitespace of an input with no game has no row to go
    // with: a table of no game is empty.)
    if let Some((r, raw)) = job.cut {
        bytes_in += raw.len() as u64;
        pgc_core::ext::verbatim::write(&mut pgc, &raw);
        rejects.push(r);
    }
    bytes_in += job.unclaimed.len() as u64;
    // A game over the limit is not held: it is counted, not kept.
    if let Some(o) = job.oversized {
        bytes_in += o.size;
        rejects.push(o.reject);
    }
    let mut builder = GamesBuilder::new(opts);
    Done {
        // Positions in this PGC are within the batch's encoding: it was
        // just written, a failure to read it back is no fault of the input.
        rows: convert_selected(&pgc, 0, job.start.index, &mut builder, filter),
        bytes_in,
        rejects,
        damage: job.damage,
    }
}

/// Makes the rows of a batch of PGC games.
fn convert_pgc(batch: &Batch, opts: &ExportOptions, filter: Option<&Filter>) -> Done {
    let mut builder = GamesBuilder::new(opts);
    Done {
        rows: convert_selected(&batch.data, batch.offset, batch.games, &mut builder, filter),
        bytes_in: batch.data.len() as u64,
        rejects: Vec::new(),
        damage: None,
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
        self.damaged.extend(done.damage);
        let rows = done.rows.map_err(|e| match e {
            pgc_arrow::Error::Walk(w) => Error::Data(format!(
                "{name}: {w}; run `pgc verify {name}` for every problem"
            )),
            e => table_error(name, &e),
        })?;
        let ready = self.joiner.push(rows).map_err(|e| table_error(name, &e))?;
        self.write(ready.as_ref())
            .map_err(|e| table_error(self.sink.name(), &e))?;
        self.spool.drain(&mut self.sink)
    }

    fn write(
        &mut self,
        batch: Option<&arrow_array::RecordBatch>,
    ) -> std::result::Result<(), pgc_arrow::Error> {
        let Some(b) = batch else { return Ok(()) };
        self.games += b.num_rows() as u64;
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
    opts.limits = a.limits.pgc_limits();
    if !(0..=22).contains(&a.zstd_level) {
        return Err(Error::Usage(format!(
            "--zstd-level {}: expected 1 to 22, or 0 for no compression",
            a.zstd_level
        )));
    }
    let write_opts = WriteOptions {
        row_group_size: a.row_group_size.max(1),
        zstd_level: (a.zstd_level > 0).then_some(a.zstd_level),
    };
    let inputs = Input::list(&a.inputs);
    let output = Output::create(a.output.output.as_deref(), a.output.force, &inputs)?;
    refuse_binary_terminal(&output)?;
    let jobs = jobs(a.jobs);
    let filter = Filter::all(a.select.filters.iter().cloned());
    if a.select.dedup.is_some() || a.select.duplicates.is_some() {
        return Err(Error::Usage(
            "pgc export has no --dedup yet: run `pgc encode --dedup` (or `pgc decode --dedup`) \
             first and export its output"
                .into(),
        ));
    }
    let spool = Spool::default();
    let writer = TableWriter::new(spool.clone(), format, opts.schema(), write_opts)
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
                run_ordered(
                    jobs,
                    || match wanted {
                        true => next_batch(&mut reader, name, damage, false, last),
                        false => Ok(None),
                    },
                    |job| encode_and_convert(job, &opts, filter.as_ref()),
                    |done| {
                        table.take(done, name)?;
                        progress.tick(table.bytes_in, table.games);
                        Ok(())
                    },
                )?;
                input.note_range(a.games, reader.games_read());
            }
            Format::Pgc | Format::Empty => {
                // A file is opened again to seek to the first wanted game.
                let mut splitter = match (a.games, input.path()) {
                    (Some(r), Some(_)) => {
                        open_batches(input, limits, Some(r), jobs, a.report.quiet)?
                    }
                    (Some(r), None) => {
                        PgcSplitter::new(opened.reader, limits).select(r.first, r.last)
                    }
                    (None, _) => PgcSplitter::new(opened.reader, limits),
                };
                run_ordered(
                    jobs,
                    || splitter.next_batch().map_err(|e| Error::io(name, &e)),
                    |batch| convert_pgc(&batch, &opts, filter.as_ref()),
                    |done| {
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
    let last = std::mem::take(&mut table.joiner)
        .finish()
        .map_err(|e| table_error(&out_name, &e))?;
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
        Some(rejected),
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
