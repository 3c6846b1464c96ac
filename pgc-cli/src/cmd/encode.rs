//! `pgc encode`: PGN → PGC (also from a Parquet or Arrow IPC table in the
//! Lichess dataset's layout, read as PGN text).
//!
//! The PGN is split into batches of whole games by a [`PgnReader`] whose
//! visitor only copies each game's raw bytes (it skips every game's events).
//! Batches are converted on worker threads, each with its own reader and
//! [`Encoder`], and written in input order. Batch boundaries depend only on
//! the input, never on the number of threads, so `-j 1` and `-j 8` write the
//! same bytes.

use crate::args::EncodeArgs;
use crate::batch::{Made, run_ordered_helped};
use crate::error::{Error, Result, Status};
use crate::io::DamageWatch;
use crate::io::{Format, Input, Output, Sink, refuse_binary_terminal};
use crate::pgn_batch::{
    ALONE_BYTES, BATCH_BYTES, Job, Oversized, next_batch, next_batch_converted,
};
use crate::progress::{Progress, say, summary_line};
use crate::select::{Dedup, KeptGame, Selection, pgn_duplicate, select_game};
use pgc_core::ext;
use pgn_bridge::EncodeStats;
use pgn_bridge::PgnReader;
use pgn_bridge::internals::{self as lexer};
use pgn_bridge::write_reject;
use pgn_bridge::{EncodeOptions, Encoder, GameOutput, GameStart, Losses, Reject};
use std::io::Read;

/// Rejects listed on stderr; the rest are counted.
const SHOWN_REJECTS: usize = 10;

/// What a worker made of a batch.
struct Done {
    /// The PGC of the batch's first games, when a huge game follows them:
    /// written before `pgc`, which then holds the huge game's records,
    /// moved out of the encoder rather than copied after theirs.
    earlier: Vec<Vec<u8>>,
    pgc: Vec<u8>,
    rejects: Vec<(Reject, Vec<u8>)>,
    /// A damaged compressed input ended the data here (the message).
    damage: Option<String>,
    /// A game over `--max-game-bytes`, after the batch's games.
    oversized: Option<Oversized>,
    /// Games that lost something in strict mode: 0-based game number and what.
    losses: Vec<(u64, Losses)>,
    stats: EncodeStats,
    /// With `--dedup`: each game written, with its key and the end of its
    /// records in `pgc`.
    kept: Vec<KeptGame>,
    /// With `--duplicates`: the batch's PGN and where each kept game's
    /// text is in it (0-based game number, start, end).
    pgn: Vec<u8>,
    pgn_spans: Vec<(u64, usize, usize)>,
}

/// A batch's games as they are converted: the [`Done`] being made, and
/// where each game starts in the batch (for `--duplicates`).
struct BatchState<'a> {
    done: Done,
    opts: EncodeOptions,
    keep_rejects: bool,
    sel: &'a Selection,
    keep_pgn: bool,
    /// Where each game, and each kept one, starts in the batch.
    all: Vec<usize>,
    starts: Vec<(u64, usize)>,
}

impl<'a> BatchState<'a> {
    fn new(opts: EncodeOptions, keep_rejects: bool, sel: &'a Selection, keep_pgn: bool) -> Self {
        BatchState {
            done: Done {
                earlier: Vec::new(),
                pgc: Vec::with_capacity(BATCH_BYTES * 2 / 3),
                rejects: Vec::new(),
                damage: None,
                oversized: None,
                losses: Vec::new(),
                stats: EncodeStats::default(),
                kept: Vec::new(),
                pgn: Vec::new(),
                pgn_spans: Vec::new(),
            },
            opts,
            keep_rejects,
            sel,
            keep_pgn,
            all: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// The game that starts at `this`, `at` bytes into the batch, converted
    /// by `enc` to `output`.
    fn game(&mut self, this: GameStart, at: usize, output: GameOutput, enc: &mut Encoder) {
        let (done, sel) = (&mut self.done, self.sel);
        if self.keep_pgn {
            self.all.push(at);
        }
        match output {
            GameOutput::Encoded {
                plies,
                identical,
                losses,
            } => {
                if !losses.is_empty() {
                    done.losses.push((this.index, losses));
                }
                let s = &mut done.stats;
                s.games += 1;
                s.encoded += 1;
                s.plies += plies;
                s.identical += u64::from(identical);
                s.losses.add(&losses);
                if !sel.is_active() && !done.pgc.is_empty() && enc.take_game().len() > ALONE_BYTES {
                    // A huge game after others: its records are not copied.
                    done.earlier.push(std::mem::take(&mut done.pgc));
                }
                let from = done.pgc.len();
                enc.append_game_to(&mut done.pgc);
                if sel.is_active() {
                    // The records just written make one game: an error
                    // reading them back keeps the game, unchosen.
                    match select_game(&done.pgc[from..], sel) {
                        None => done.pgc.truncate(from),
                        Some(Some(key)) => {
                            done.kept.push(KeptGame {
                                game: this.index,
                                key,
                                start: from,
                                own: from,
                                end: done.pgc.len(),
                            });
                            if self.keep_pgn {
                                self.starts.push((this.index, at));
                            }
                        }
                        Some(None) => {}
                    }
                }
            }
            GameOutput::Rejected(r) => {
                done.stats.games += 1;
                done.stats.rejected += 1;
                // A game that cannot be encoded is not selected by
                // `--where` (its tags and moves are not known for sure).
                if !self.opts.strict && sel.filter.is_none() {
                    ext::verbatim::write(&mut done.pgc, enc.take_game(), self.opts.max_payload());
                }
                // The text is held for the rejects file only when there is one.
                let mut raw = Vec::new();
                if self.keep_rejects {
                    enc.append_game_to(&mut raw);
                }
                done.rejects.push((r, raw));
            }
        }
    }

    /// The batch's result, with what the splitter found besides its games.
    fn finish(self, job: Job) -> Done {
        let BatchState {
            mut done,
            opts,
            keep_pgn,
            all,
            starts,
            ..
        } = self;
        done.damage = job.damage;
        done.stats.bytes_in = job.data.len() as u64;
        if keep_pgn && !starts.is_empty() {
            // A game's text runs to the next game's start.
            for (game, from) in starts {
                let to = match all.binary_search(&from) {
                    Ok(i) => all.get(i + 1).copied().unwrap_or(job.data.len()),
                    Err(_) => job.data.len(),
                };
                done.pgn_spans.push((game, from, to));
            }
            done.pgn = job.data;
        }
        if let Some((r, raw)) = job.cut {
            done.stats.games += 1;
            done.stats.rejected += 1;
            done.stats.bytes_in += raw.len() as u64;
            if !opts.strict {
                ext::verbatim::write(&mut done.pgc, &raw, opts.max_payload());
            }
            done.rejects.push((r, raw));
        }
        if !job.unclaimed.is_empty() {
            done.stats.bytes_in += job.unclaimed.len() as u64;
            if !opts.strict {
                ext::verbatim::write(&mut done.pgc, &job.unclaimed, opts.max_payload());
            }
        }
        if let Some(o) = job.oversized {
            done.stats.games += 1;
            done.stats.rejected += 1;
            done.stats.bytes_in += o.size;
            done.oversized = Some(o);
        }
        done.stats.bytes_out =
            (done.pgc.len() + done.earlier.iter().map(Vec::len).sum::<usize>()) as u64;
        done
    }
}

/// Encodes the games of a batch, lexed straight from the batch's bytes
/// (the splitter found where each game ends; nothing is copied again).
fn encode_batch(
    job: Job,
    opts: EncodeOptions,
    keep_rejects: bool,
    sel: &Selection,
    keep_pgn: bool,
) -> Done {
    let mut enc = Encoder::new(opts);
    let mut state = BatchState::new(opts, keep_rejects, sel, keep_pgn);
    lexer::lex_games(&job.data, job.start, &mut enc, |this, output, enc| {
        let at = (this.offset - job.start.offset) as usize;
        state.game(this, at, output, enc);
    });
    state.finish(job)
}

/// The next batch converted on the reading thread (always with one job,
/// and with more while the workers are busy): each game converted as it is
/// read, lexed once, where the splitter of [`encode_batch`]'s batches
/// scans each game for its end and a worker lexes it again. The batches
/// and the output are the same either way.
#[allow(clippy::too_many_arguments)]
fn encode_next_batch<R: Read>(
    reader: &mut PgnReader<R>,
    enc: &mut Encoder,
    name: &str,
    damage: Option<&DamageWatch>,
    opts: EncodeOptions,
    keep_rejects: bool,
    keep_oversized: bool,
    sel: &Selection,
    keep_pgn: bool,
) -> Result<Option<Done>> {
    let mut state = BatchState::new(opts, keep_rejects, sel, keep_pgn);
    let mut each = |this: GameStart, at: usize, output: GameOutput, enc: &mut Encoder| {
        state.game(this, at, output, enc);
    };
    let job = next_batch_converted(reader, name, damage, keep_oversized, None, enc, &mut each)?;
    Ok(job.map(|job| state.finish(job)))
}

/// An input the sniffer did not take for PGN text: read as PGN all the
/// same when it starts with a run of NUL bytes longer than the sniffer
/// looks at (padding, which the PGN reader keeps byte for byte; `pgc
/// encode` is asked for PGN, and a PGC file does not start so), else what
/// to say of it: a PGC file (its first records frame) or binary data that
/// is neither (with where reading it as PGC fails).
fn pgn_after_nul_run(
    name: &str,
    mut reader: Box<dyn Read>,
) -> std::result::Result<Box<dyn Read>, String> {
    // The bytes the sniffer looked at.
    const HEAD: u64 = pgn_bridge::sniff::SNIFF;
    let mut head = Vec::new();
    if let Err(e) = (&mut reader).take(HEAD).read_to_end(&mut head) {
        return Err(format!("{name}: {e}"));
    }
    if pgn_bridge::sniff::is_nul_run(&head) {
        return Ok(Box::new(std::io::Cursor::new(head).chain(reader)));
    }
    Err(not_pgn(name, &head, (head.len() as u64) < HEAD))
}

/// What to say of the first bytes `head` of an input that is not PGN
/// text; `whole`: they are the whole input.
fn not_pgn(name: &str, head: &[u8], whole: bool) -> String {
    match pgn_bridge::sniff::framing_error(head) {
        // Records up to the end of the whole file, but the last cut off:
        // not PGN, and no whole PGC file either.
        Some(e @ pgc_core::ReadError::Truncated { .. }) if whole => format!(
            "{name} is not PGN text, and read as PGC it is cut off: {e}; if it is a PGC file \
             that was cut short, `pgc verify` says what it holds"
        ),
        // Records up to the end of what was read (the last may be cut off
        // there): a PGC file.
        None | Some(pgc_core::ReadError::Truncated { .. }) => {
            format!("{name} is a PGC file, not PGN; use `pgc decode` to turn it into PGN")
        }
        Some(e) => format!(
            "{name} is not PGN text ({} of its first {} bytes are control characters that text \
             does not hold), nor PGC: read as PGC it fails: {e}",
            pgn_bridge::sniff::control_bytes(head),
            head.len()
        ),
    }
}

/// Runs `pgc encode`.
///
/// # Errors
/// Usage, I/O, a PGC input, a game over the size limit.
pub fn run(a: &EncodeArgs) -> Result<Status> {
    let inputs = Input::list(&a.inputs);
    let output = Output::create(a.output.output.as_deref(), a.output.force, &inputs)?;
    refuse_binary_terminal(&output)?;
    let rejects_out = match &a.rejects {
        None => None,
        Some(p) => {
            // `-` is stdout, unless the output goes there.
            crate::io::refuse_two_on_stdout("--rejects", p, a.output.output.as_deref())?;
            // Output::create refuses a file another output of the run names.
            Some(Output::create(Some(p), a.output.force, &inputs)?)
        }
    };
    if a.limits.max_rav_depth == Some(0) {
        // The encoder reads 0 as "the default limit".
        return Err(Error::Usage(
            "--max-rav-depth must be at least 1 for encode (to drop variations, remove them from the PGN)".into(),
        ));
    }
    let max_game_bytes = a.limits.max_game_bytes();
    let opts = EncodeOptions {
        strict: a.strict,
        max_rav_depth: a.limits.max_rav_depth.unwrap_or(0),
        // What the encoder writes, readers must accept: a payload over
        // the default string limit is written only when it is raised,
        // which then reading the output needs too.
        max_string: a.limits.max_string.unwrap_or(0),
        max_game_bytes,
    };
    let sel = a.select.selection();
    // A game over --max-game-bytes is kept as read in the output, as other
    // rejected games are, read back from a temporary file.
    // A game over --max-game-bytes is kept inline in records of at most
    // the string limit.
    let inline_oversized = (!opts.strict && sel.filter.is_none()).then_some(opts.max_payload());
    let keep_oversized = a.rejects.is_some() || inline_oversized.is_some();
    crate::batch::check_duplicates(
        a.select.duplicates.as_deref(),
        sel.dedup,
        a.output.output.as_deref(),
    )?;
    let dup_out = match &a.select.duplicates {
        Some(p) => Some(Output::create(Some(p), a.output.force, &inputs)?),
        None => None,
    };
    let mut dup_sink = dup_out.as_ref().map(Output::sink).transpose()?;
    let mut dedup = sel.dedup.map(|_| Dedup::default());
    let keep_pgn = dup_sink.is_some();
    let jobs = pgc_core::worker_threads(a.jobs);
    let mut sink = output.sink()?;
    let mut rejects_sink = match &rejects_out {
        Some(r) => Some(r.sink()?),
        None => None,
    };
    let report_out = match &a.strict_report {
        None => None,
        Some(p) => {
            crate::io::refuse_two_on_stdout("--strict-report", p, a.output.output.as_deref())?;
            // Output::create refuses a file another output of the run names.
            Some(Output::create(Some(p), a.output.force, &inputs)?)
        }
    };
    let mut report_sink = match &report_out {
        Some(r) => Some(r.sink()?),
        None => None,
    };
    let mut progress = Progress::new("encode", a.report.quiet);
    let mut total = EncodeStats::default();
    let mut notes = Notes::default();
    // A batch's result, written in input order.
    let mut take = |done: Done, name: &str| -> Result<()> {
        consume(
            done,
            name,
            inline_oversized,
            &mut sink,
            dedup.as_mut(),
            dup_sink.as_mut(),
            rejects_sink.as_mut(),
            report_sink.as_mut(),
            &mut total,
            &mut notes,
        )?;
        progress.tick(total.bytes_in, total.games);
        Ok(())
    };
    for input in &inputs {
        // A table in the Lichess dataset's layout is read as PGN text.
        let opened = match crate::table::open_as_pgn(input)? {
            Some(table) => table,
            None => input.open_keeping_damage()?,
        };
        let data = if opened.format == Format::Pgc {
            pgn_after_nul_run(&input.name, opened.reader).map_err(Error::Usage)?
        } else {
            opened.reader
        };
        let mut reader = PgnReader::new(data).with_max_game_bytes(max_game_bytes);
        // The calling thread converts batches itself as it reads them (in
        // one pass) while the workers are busy, and cuts batches for them
        // otherwise: one thread per job, none of them only reading.
        let mut enc = Encoder::new(opts);
        run_ordered_helped(
            jobs,
            &mut (),
            true,
            |help| {
                if help {
                    encode_next_batch(
                        &mut reader,
                        &mut enc,
                        &input.name,
                        opened.damage.as_ref(),
                        opts,
                        a.rejects.is_some(),
                        keep_oversized,
                        &sel,
                        keep_pgn,
                    )
                    .map(|done| done.map(Made::Done))
                } else {
                    next_batch(
                        &mut reader,
                        &input.name,
                        opened.damage.as_ref(),
                        keep_oversized,
                        None,
                    )
                    .map(|job| job.map(Made::Job))
                }
            },
            Job::alone,
            |job, _| encode_batch(job, opts, a.rejects.is_some(), &sel, keep_pgn),
            |done: Done, ()| take(done, &input.name),
        )?;
    }
    total.bytes_out = sink.written();
    sink.finish()?;
    if let Some(r) = rejects_sink {
        r.finish()?;
    }
    if let Some(r) = rejects_out {
        r.commit()?;
    }
    if let Some(r) = report_sink {
        r.finish()?;
    }
    if let Some(r) = report_out {
        r.commit()?;
    }
    if let (Some(s), Some(o)) = (dup_sink, dup_out) {
        s.finish()?;
        o.commit()?;
    }
    output.commit()?;
    progress.clear();
    let Notes { shown, damaged } = notes;
    for line in &damaged {
        say(line);
    }
    if progress.verbose() {
        for line in &shown {
            say(line);
        }
        if let Some(d) = &dedup {
            say(&format!("{} duplicate game(s) dropped", d.dropped));
        }
        if total.rejected > shown.len() as u64 {
            say(&format!(
                "… and {} more rejected games{}",
                total.rejected - shown.len() as u64,
                match (a.strict, a.rejects.is_some()) {
                    (false, true) => " (kept as read in the output, and in the rejects file)",
                    (false, false) =>
                        " (kept as read in the output; --rejects FILE also writes them out)",
                    (true, true) =>
                        " (not in the output with --strict; all are in the rejects file)",
                    (true, false) =>
                        " (not in the output with --strict; use --rejects FILE to keep them)",
                }
            ));
        }
        if a.strict && !total.losses.is_empty() {
            say(&format!("--strict: not kept: {}", total.losses));
        }
    }
    progress.summary(&summary_line(
        total.games,
        total.plies,
        Some((total.rejected, "rejected")),
        total.bytes_in,
        total.bytes_out,
        progress.elapsed(),
    ));
    Ok(if total.rejected > 0 || !damaged.is_empty() {
        Status::Problems
    } else {
        Status::Ok
    })
}

/// Writes a game over `--max-game-bytes`, read back from its temporary
/// file, as verbatim records at its place in the output (spec/extensions.md,
/// kind 0x0a): one record per full chunk of the file, so the bytes do not
/// depend on how reads return, and the game is held a chunk at a time.
fn put_oversized_verbatim(
    text: &std::fs::File,
    name: &str,
    max_string: u32,
    sink: &mut Sink,
) -> Result<()> {
    let mut text = text;
    std::io::Seek::rewind(&mut text).map_err(|e| Error::io(name, &e))?;
    let chunk = ext::verbatim::chunk_for(max_string);
    let mut buf = Vec::with_capacity(chunk);
    loop {
        buf.clear();
        let n = (&mut text)
            .take(chunk as u64)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(name, &e))?;
        if n > 0 {
            ext::verbatim::write_with(&buf, max_string, |b| sink.put(b))?;
        }
        if n < chunk {
            break;
        }
    }
    // The game's records end at a game boundary (a frame of a seekable
    // `.pgc.zst` may end there).
    sink.put_games(&[])
}

/// What is said on stderr at the end of a run.
#[derive(Default)]
struct Notes {
    /// The first rejected games.
    shown: Vec<String>,
    /// Damaged compressed inputs: said even with --quiet.
    damaged: Vec<String>,
}

#[allow(clippy::too_many_arguments)]
fn consume(
    done: Done,
    name: &str,
    inline_oversized: Option<u32>,
    sink: &mut Sink,
    dedup: Option<&mut Dedup>,
    mut duplicates: Option<&mut Sink>,
    rejects: Option<&mut Sink>,
    report: Option<&mut Sink>,
    total: &mut EncodeStats,
    notes: &mut Notes,
) -> Result<()> {
    for pgc in &done.earlier {
        sink.put_games(pgc)?;
    }
    match dedup {
        None => sink.put_games(&done.pgc)?,
        Some(d) => {
            let mut text = Vec::new();
            d.split(
                &done.pgc,
                &done.kept,
                |t| sink.put_games(t),
                |_, _, game, first| {
                    let Some(s) = duplicates.as_deref_mut() else {
                        return Ok(());
                    };
                    let i = done.pgn_spans.partition_point(|&(g, _, _)| g < game);
                    if let Some(&(_, from, to)) = done.pgn_spans.get(i) {
                        text.clear();
                        // The span starts at the game (the splitter's).
                        pgn_duplicate(&done.pgn[from..to], 0, first, &mut text);
                        s.put(&text)?;
                    }
                    Ok(())
                },
            )?;
        }
    }
    let mut rejects = rejects;
    if let Some(rs) = rejects.as_deref_mut() {
        for (r, raw) in &done.rejects {
            write_reject(rs, name, r, raw).map_err(|e| Error::io(rs.name(), &e))?;
        }
    }
    if let Some(rs) = report {
        for (game, losses) in &done.losses {
            let line = format!("{name}: game {}: not kept: {losses}\n", game + 1);
            rs.put(line.as_bytes())?;
        }
    }
    if let Some(o) = done.oversized {
        if let (Some(max_string), Some(text)) = (inline_oversized, o.text.as_ref()) {
            put_oversized_verbatim(text, name, max_string, sink)?;
        }
        if let (Some(rs), Some(mut text)) = (rejects, o.text) {
            // As write_reject, from the temporary file.
            std::io::Seek::rewind(&mut text).map_err(|e| Error::io(name, &e))?;
            let header = format!("% pgc: rejected {name}: {}\n", o.reject);
            rs.put(header.as_bytes())?;
            let mut last = b'\n';
            let mut buf = vec![0u8; 64 << 10];
            loop {
                let n = text.read(&mut buf).map_err(|e| Error::io(name, &e))?;
                if n == 0 {
                    break;
                }
                last = buf[n - 1];
                rs.put(&buf[..n])?;
            }
            if last != b'\n' {
                rs.put(b"\n")?;
            }
        }
        if notes.shown.len() < SHOWN_REJECTS {
            notes.shown.push(format!("{name}: rejected {}", o.reject));
        }
    }
    for (r, _) in &done.rejects {
        if notes.shown.len() < SHOWN_REJECTS {
            notes.shown.push(format!("{name}: rejected {r}"));
        }
    }
    total.add(&done.stats);
    notes.damaged.extend(done.damage);
    Ok(())
}
