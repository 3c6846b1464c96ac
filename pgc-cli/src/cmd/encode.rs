//! `pgc encode`: PGN → PGC.
//!
//! The PGN is split into batches of whole games by a [`PgnReader`] whose
//! visitor only copies each game's raw bytes (it skips every game's events).
//! Batches are converted on worker threads, each with its own reader and
//! [`Encoder`], and written in input order. Batch boundaries depend only on
//! the input, never on the number of threads, so `-j 1` and `-j 8` write the
//! same bytes.

use crate::args::EncodeArgs;
use crate::batch::{jobs, run_ordered};
use crate::error::{Error, Result, Status};
use crate::io::{Format, Input, Output, Sink, refuse_binary_terminal};
use crate::progress::{Progress, say, summary_line};
use pgn_bridge::EncodeStats;
use pgn_bridge::PgnError;
use pgn_bridge::PgnReader;
use pgn_bridge::write_reject;
use pgn_bridge::{EncodeOptions, Encoder, GameOutput, Losses, Reject};
use pgn_bridge::{GameStart, Visitor};
use std::io::Read;
use std::ops::ControlFlow;

/// A batch is cut after the game that brings it to this many bytes…
const BATCH_BYTES: usize = 256 << 10;
/// …or this many games.
const BATCH_GAMES: usize = 2000;
/// Rejects listed on stderr; the rest are counted.
const SHOWN_REJECTS: usize = 10;

/// A batch of whole PGN games and where it starts in its input.
struct Job {
    data: Vec<u8>,
    start: GameStart,
}

/// What a worker made of a batch.
struct Done {
    pgc: Vec<u8>,
    rejects: Vec<(Reject, Vec<u8>)>,
    /// Games that lost something in strict mode: 0-based game number and what.
    losses: Vec<(u64, Losses)>,
    stats: EncodeStats,
    error: Option<String>,
}

/// The splitter's visitor: copies each game's bytes into the batch. It stops
/// every game at its start, so the lexer reports no token of it.
struct CopyRaw<'a> {
    batch: &'a mut Vec<u8>,
    first: &'a mut Option<GameStart>,
}

impl Visitor for CopyRaw<'_> {
    type Output = ();

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        if self.first.is_none() {
            *self.first = Some(start);
        }
        ControlFlow::Break(())
    }

    fn end_game(&mut self, raw: &[u8]) {
        self.batch.extend_from_slice(raw);
    }
}

fn pgn_error(name: &str, e: &PgnError) -> Error {
    match e {
        PgnError::GameTooLarge {
            game,
            offset,
            line,
            limit,
        } => Error::Data(format!(
            "{name}: game {} at byte {offset} (line {line}) is larger than {limit} bytes; \
             look for an unterminated {{ comment or tag near that line, or raise the limit with --max-game-bytes",
            game + 1
        )),
        PgnError::Io { source, .. } => Error::io(name, source),
        other => Error::Data(format!("{name}: {other}")),
    }
}

fn next_batch<R: Read>(reader: &mut PgnReader<R>) -> std::result::Result<Option<Job>, PgnError> {
    let mut data = Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2));
    let mut first = None;
    let mut games = 0;
    while data.len() < BATCH_BYTES && games < BATCH_GAMES {
        let mut v = CopyRaw {
            batch: &mut data,
            first: &mut first,
        };
        if reader.read_game(&mut v)?.is_none() {
            break;
        }
        games += 1;
    }
    Ok(first.map(|start| Job { data, start }))
}

fn encode_batch(job: Job, opts: EncodeOptions, max_game_bytes: usize) -> Done {
    let mut reader = PgnReader::new(&job.data[..]).with_max_game_bytes(max_game_bytes);
    let mut enc = Encoder::new(opts);
    let mut done = Done {
        pgc: Vec::with_capacity(job.data.len() / 3),
        rejects: Vec::new(),
        losses: Vec::new(),
        stats: EncodeStats::default(),
        error: None,
    };
    let base = job.start;
    loop {
        match reader.read_game(&mut enc) {
            Ok(None) => break,
            Ok(Some(GameOutput::Encoded {
                plies,
                identical,
                losses,
            })) => {
                if !losses.is_empty() {
                    done.losses.push((base.index + done.stats.games, losses));
                }
                let s = &mut done.stats;
                s.games += 1;
                s.encoded += 1;
                s.plies += plies;
                s.identical += u64::from(identical);
                s.losses.add(&losses);
                done.pgc.extend_from_slice(enc.take_game());
            }
            Ok(Some(GameOutput::Rejected(mut r))) => {
                // Positions relative to the batch → relative to the input.
                r.game += base.index;
                r.offset += base.offset;
                r.line += base.line.saturating_sub(1);
                done.stats.games += 1;
                done.stats.rejected += 1;
                done.rejects.push((r, enc.take_game().to_vec()));
            }
            Err(e) => {
                // The splitter read these games under the same limit, so
                // this is not expected; report it rather than lose games.
                done.error = Some(e.to_string());
                break;
            }
        }
    }
    done.stats.bytes_in = job.data.len() as u64;
    done.stats.bytes_out = done.pgc.len() as u64;
    done
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
        Some(p) if crate::io::is_stdout(Some(p)) => {
            return Err(Error::Usage(
                "--rejects needs a file name (stdout is the output)".into(),
            ));
        }
        Some(p) => {
            let r = Output::create(Some(p), a.output.force, &inputs)?;
            if r.same_as(&output) {
                return Err(Error::Usage(format!(
                    "{} is both the output and the rejects file; give two names",
                    r.name()
                )));
            }
            Some(r)
        }
    };
    if a.limits.max_rav_depth == Some(0) {
        // The encoder reads 0 as "the default limit".
        return Err(Error::Usage(
            "--max-rav-depth must be at least 1 for encode (to drop variations, remove them from the PGN)".into(),
        ));
    }
    let opts = EncodeOptions {
        strict: a.strict,
        max_rav_depth: a.limits.max_rav_depth.unwrap_or(0),
    };
    let max_game_bytes = a.limits.max_game_bytes();
    let jobs = jobs(a.jobs);
    let mut sink = output.sink()?;
    let mut rejects_sink = match &rejects_out {
        Some(r) => Some(r.sink()?),
        None => None,
    };
    let report_out = match &a.strict_report {
        None => None,
        Some(p) => {
            let r = Output::create(Some(p), a.output.force, &inputs)?;
            if r.same_as(&output) {
                return Err(Error::Usage(format!(
                    "{} is both the output and the strict report; give two names",
                    r.name()
                )));
            }
            Some(r)
        }
    };
    let mut report_sink = match &report_out {
        Some(r) => Some(r.sink()?),
        None => None,
    };
    let mut progress = Progress::new("encode", a.report.quiet);
    let mut total = EncodeStats::default();
    let mut shown: Vec<String> = Vec::new();
    for input in &inputs {
        let opened = input.open()?;
        if opened.format == Format::Pgc {
            return Err(Error::Usage(format!(
                "{} is a PGC file, not PGN; use `pgc decode` to turn it into PGN",
                input.name
            )));
        }
        let mut reader = PgnReader::new(opened.reader).with_max_game_bytes(max_game_bytes);
        run_ordered(
            jobs,
            || match next_batch(&mut reader) {
                Ok(b) => Ok(b),
                Err(e) => Err(pgn_error(&input.name, &e)),
            },
            |job| encode_batch(job, opts, max_game_bytes),
            |done: Done| {
                consume(
                    done,
                    &input.name,
                    &mut sink,
                    rejects_sink.as_mut(),
                    report_sink.as_mut(),
                    &mut total,
                    &mut shown,
                )?;
                progress.tick(total.bytes_in, total.games);
                Ok(())
            },
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
    output.commit()?;
    progress.clear();
    if progress.verbose() {
        for line in &shown {
            say(line);
        }
        if total.rejected > shown.len() as u64 {
            say(&format!(
                "… and {} more rejected games{}",
                total.rejected - shown.len() as u64,
                if a.rejects.is_some() {
                    " (all are in the rejects file)"
                } else {
                    " (use --rejects FILE to keep them)"
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
        Some(total.rejected),
        total.bytes_in,
        total.bytes_out,
        progress.elapsed(),
    ));
    Ok(if total.rejected > 0 {
        Status::Problems
    } else {
        Status::Ok
    })
}

fn consume(
    done: Done,
    name: &str,
    sink: &mut Sink,
    rejects: Option<&mut Sink>,
    report: Option<&mut Sink>,
    total: &mut EncodeStats,
    shown: &mut Vec<String>,
) -> Result<()> {
    sink.put(&done.pgc)?;
    if let Some(rs) = rejects {
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
    for (r, _) in &done.rejects {
        if shown.len() < SHOWN_REJECTS {
            shown.push(format!("{name}: rejected {r}"));
        }
    }
    total.add(&done.stats);
    if let Some(e) = done.error {
        return Err(Error::Data(format!("{name}: {e}")));
    }
    Ok(())
}
