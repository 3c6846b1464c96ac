//! Ordered parallel batches of whole games.
//!
//! [`run_ordered`] is an ordered parallel map with bounded memory: jobs are
//! produced and results consumed on the calling thread, in input order; the
//! work runs on `jobs` worker threads. With [`run_ordered_helped`] the
//! calling thread is one of the `jobs`: it does a job itself whenever the
//! workers hold all they may (PGN input, read and converted in one pass).
//!
//! At most `2 × jobs` batches are in flight (produced and not yet consumed),
//! so memory stays bounded however large the input is and however unevenly
//! the batches take time. A batch that holds a huge game runs alone: the
//! batches before it are consumed first, it runs on the calling thread
//! with the output at hand ([`Parts`] write its text out as it is made),
//! and nothing else is produced until it is consumed, so one huge game at
//! most is in memory, whatever `jobs`. With one job everything runs on the
//! calling thread, in the same order, so the output is the same for every
//! `jobs`.
//!
//! A PGC input is split into batches at game boundaries by reading its
//! records with pgc-core's record stream ([`Reader::next_raw`]) and asking the game grammar's boundary rule
//! ([`Bounds`]) where games begin and end (a game is one 0x01 record or
//! 0x05 … 0x06; records between games go with the next game, unless the
//! batch is full: a batch may also end among them, so a run of noops or
//! other records between games is never held whole). A record that cannot be
//! framed ends the last batch, so the walker reports it with its exact
//! position, after every game before it has been decoded. With `--games`,
//! an up-to-date FILE.idx (`spec/index.md`) lets the split start at the
//! first wanted game.

use crate::args::{GameRange, PgcBatchArgs};
use crate::error::{self, Error, Status};
use crate::io::{Input, Output, Sink};
use crate::progress::{Progress, say, summary_line};
use crate::select::{Dedup, DedupMode, KeptGame, duplicates_without_dedup};
use pgc_core::Limits;
use pgc_core::ext::ExtError;
use pgc_core::internals::Bounds;
use pgc_core::{GameIndex, IndexError};
use pgc_core::{GameVisitor, GameWalker, ReadError, Reader, WalkError};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::thread;

/// Runs `work` over the jobs `produce` returns until `None`, on `jobs`
/// threads, and hands each result to `consume` in production order, with
/// `state` (the output, which only the calling thread touches).
///
/// A job for which `alone` says so (one huge game) runs alone: the jobs
/// before it are finished and consumed first, then it runs on the calling
/// thread as `work(job, Some(state))`, which may write its output to
/// `state` as it goes (it is next in order), and nothing else is produced
/// until it is consumed. So at most one huge job is in memory, however
/// many threads there are, and its output need not be held whole. Other
/// jobs run as `work(job, None)`.
///
/// An error from `produce` is returned after the results of the jobs
/// produced before it have been consumed (they may hold earlier errors); an
/// error from `consume` stops everything at once.
///
/// # Errors
/// The first error of `produce` or `consume`, in input order.
pub fn run_ordered<J, R, E, S>(
    jobs: usize,
    state: &mut S,
    mut produce: impl FnMut() -> Result<Option<J>, E>,
    alone: impl Fn(&J) -> bool,
    work: impl Fn(J, Option<&mut S>) -> R + Sync,
    consume: impl FnMut(R, &mut S) -> Result<(), E>,
) -> Result<(), E>
where
    J: Send,
    R: Send,
{
    run_ordered_helped(
        jobs,
        state,
        false,
        |_| produce().map(|job| job.map(Made::Job)),
        alone,
        work,
        consume,
    )
}

/// What a producer of [`run_ordered_helped`] made: a job for a worker, or
/// the result of one it did itself.
pub enum Made<J, R> {
    /// A job for a worker.
    Job(J),
    /// A job done on the producing thread.
    Done(R),
}

/// [`run_ordered`], where with `helped` the calling thread works as well:
/// `jobs - 1` worker threads are started, and while they hold
/// `2 × (jobs - 1)` jobs, `produce(true)` asks the calling thread to do
/// the next job itself (a producer that can read and convert in one pass
/// does so, [`Made::Done`]; a job it makes then is worked on the calling
/// thread); `produce(false)` asks for a job for the workers. So `jobs`
/// threads share the cores, where [`run_ordered`] runs `jobs` workers
/// beside a producing thread. At most `2 × jobs` jobs are in flight, as
/// there. Results are consumed in production order either way.
///
/// # Errors
/// As [`run_ordered`].
pub fn run_ordered_helped<J, R, E, S>(
    jobs: usize,
    state: &mut S,
    helped: bool,
    mut produce: impl FnMut(bool) -> Result<Option<Made<J, R>>, E>,
    alone: impl Fn(&J) -> bool,
    work: impl Fn(J, Option<&mut S>) -> R + Sync,
    mut consume: impl FnMut(R, &mut S) -> Result<(), E>,
) -> Result<(), E>
where
    J: Send,
    R: Send,
{
    // With one job the calling thread does everything, helping or not.
    let jobs = if helped { jobs.saturating_sub(1) } else { jobs };
    if jobs == 0 || (!helped && jobs == 1) {
        return sequential(state, produce, helped, alone, work, consume);
    }
    let cancel = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, J)>(jobs * 2);
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<(u64, R)>();
    thread::scope(|s| {
        // The system may refuse threads (a process or memory limit): run on
        // those that started, or on this thread if none did; the output is
        // the same.
        let mut workers = 0;
        for _ in 0..jobs {
            let res_tx = res_tx.clone();
            let (job_rx, work, cancel) = (&job_rx, &work, &cancel);
            let started = thread::Builder::new().spawn_scoped(s, move || {
                loop {
                    let next = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => break,
                    };
                    let Ok((seq, job)) = next else { break };
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    if res_tx.send((seq, work(job, None))).is_err() {
                        break;
                    }
                }
            });
            if started.is_err() {
                break;
            }
            workers += 1;
        }
        drop(res_tx);
        let job_tx = job_tx;
        if workers == 0 {
            return sequential(state, &mut produce, helped, &alone, &work, &mut consume);
        }
        // Jobs at the workers, at most; and in flight (produced, not yet
        // consumed) at most: the workers' and, when helped, two done here.
        let at_most_queued = workers * 2;
        let max_in_flight = at_most_queued + if helped { 2 } else { 0 };
        let mut produced = 0u64;
        let mut consumed = 0u64;
        let mut queued = 0usize;
        let mut pending = BTreeMap::new();
        let mut more = true;
        let mut stashed = None;
        // A job to run alone, once every job before it is consumed.
        let mut waiting = None;
        let result = loop {
            if more && waiting.is_none() && produced - consumed < max_in_flight as u64 {
                let help = helped && queued >= at_most_queued;
                match produce(help) {
                    Ok(Some(Made::Job(job))) if alone(&job) => waiting = Some(job),
                    Ok(Some(Made::Job(job))) if help => {
                        // Asked to help, the producer made a job: it is
                        // done here.
                        pending.insert(produced, work(job, None));
                        produced += 1;
                    }
                    Ok(Some(Made::Job(job))) => {
                        // Never blocks: the channel holds jobs * 2 >= queued.
                        if job_tx.send((produced, job)).is_err() {
                            more = false;
                        } else {
                            produced += 1;
                            queued += 1;
                        }
                    }
                    Ok(Some(Made::Done(r))) => {
                        pending.insert(produced, r);
                        produced += 1;
                    }
                    Ok(None) => more = false,
                    Err(e) => {
                        stashed = Some(e);
                        more = false;
                    }
                }
                // Results ready meanwhile, without waiting.
                while let Ok((seq, r)) = res_rx.try_recv() {
                    pending.insert(seq, r);
                    queued -= 1;
                }
            } else if produced == consumed {
                match waiting.take() {
                    Some(job) => {
                        let r = work(job, Some(&mut *state));
                        if let Err(e) = consume(r, state) {
                            break Err(e);
                        }
                        continue;
                    }
                    None => break stashed.map_or(Ok(()), Err),
                }
            } else if !pending.contains_key(&consumed) {
                let Ok((seq, r)) = res_rx.recv() else {
                    // Every worker is gone (only a panic does that; the
                    // scope re-raises it).
                    break stashed.map_or(Ok(()), Err);
                };
                pending.insert(seq, r);
                queued -= 1;
            }
            let mut failed = None;
            while let Some(r) = pending.remove(&consumed) {
                consumed += 1;
                if let Err(e) = consume(r, state) {
                    failed = Some(e);
                    break;
                }
            }
            if let Some(e) = failed {
                break Err(e);
            }
        };
        cancel.store(true, Ordering::Relaxed);
        drop(job_tx);
        result
    })
}

/// A batch is cut after the game, or the record between games, that brings
/// it to this many bytes.
const BATCH_BYTES: usize = 128 << 10;

/// A PGC batch over this many bytes (one game of more than 128 KiB, some
/// 100,000 plies and more) runs alone ([`run_ordered`]), its text written
/// out in parts of [`PART_BYTES`]: the text of a game can be a hundred
/// times its PGC (`pgc moves --format fen`).
pub const ALONE_PGC_BYTES: usize = 2 * BATCH_BYTES;

/// The text of a batch that runs alone is written out once it holds this
/// many bytes.
pub const PART_BYTES: usize = 1 << 20;

/// Where the text of a batch goes as it is made: a batch that runs alone
/// ([`run_ordered`]) writes it to the output in parts of at least
/// [`PART_BYTES`], as soon as it has them, so that a huge game's text is
/// never held whole; another batch holds its text until it is its turn.
pub struct Parts<'a> {
    sink: Option<&'a mut Sink>,
    /// The write that failed; nothing more is written then.
    failed: Option<Error>,
}

impl<'a> Parts<'a> {
    /// Text written to `sink` as it is made, when there is one (the batch
    /// runs alone); held otherwise.
    pub fn new(sink: Option<&'a mut Sink>) -> Parts<'a> {
        Parts { sink, failed: None }
    }

    /// Text held until the batch's turn.
    pub fn held() -> Parts<'a> {
        Parts::new(None)
    }

    /// Whether text is written out as it is made.
    pub fn streams(&self) -> bool {
        self.sink.is_some()
    }

    /// Writes `text` out and empties it, when it holds at least
    /// [`PART_BYTES`] and the batch runs alone; `Break` once a write has
    /// failed (the walk can stop: nothing more is written).
    pub fn offer(&mut self, text: &mut Vec<u8>) -> ControlFlow<()> {
        if self.failed.is_some() {
            return ControlFlow::Break(());
        }
        if text.len() < PART_BYTES {
            return ControlFlow::Continue(());
        }
        let Some(sink) = self.sink.as_deref_mut() else {
            return ControlFlow::Continue(());
        };
        match sink.put(text) {
            Ok(()) => {
                text.clear();
                ControlFlow::Continue(())
            }
            Err(e) => {
                self.failed = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    /// The write that failed, if any.
    pub fn take_failure(&mut self) -> Option<Error> {
        self.failed.take()
    }

    /// Whether a write has failed (the error stays for
    /// [`Parts::take_failure`]).
    pub fn failed(&self) -> bool {
        self.failed.is_some()
    }
}

/// Splits a PGC stream into batches of whole games.
pub struct PgcSplitter<R> {
    /// The records, framed by pgc-core's one record stream.
    reader: Reader<R>,
    /// Where games begin and end: the grammar's rule ([`Bounds`]).
    bounds: Bounds,
    done: bool,
    /// Only games `first..=last` (0-based) are kept (`--games`).
    first: u64,
    last: Option<u64>,
    /// `--games` was given ([`PgcSplitter::select`]).
    selecting: bool,
    /// A game of the range has begun: the records between games that
    /// follow go with the range (up to `last`), those before it wait for it.
    selected_begun: bool,
}

/// A batch of records and where it starts in its input.
pub struct Batch {
    /// The records' bytes, exactly as in the input.
    pub data: Vec<u8>,
    /// Input offset of the first byte.
    pub offset: u64,
    /// Games before the batch.
    pub games: u64,
}

impl<R: Read> PgcSplitter<R> {
    /// Games seen so far (a whole input's count once it is read).
    pub fn games(&self) -> u64 {
        self.bounds.games()
    }

    /// A splitter over `inner` that bounds record lengths by `limits`.
    pub fn new(inner: R, limits: Limits) -> PgcSplitter<R> {
        PgcSplitter {
            reader: Reader::with_limits(inner, limits),
            bounds: Bounds::default(),
            done: false,
            first: 0,
            last: None,
            selecting: false,
            selected_begun: false,
        }
    }

    /// A splitter over input that starts mid-file, at a game boundary
    /// (after a seek by the game index): `offset` is the file offset of the
    /// first byte and `games` the number of games before it.
    pub fn resume(inner: R, limits: Limits, offset: u64, games: u64) -> PgcSplitter<R> {
        let mut s = PgcSplitter::new(inner, limits);
        s.reader = s.reader.starting_at(offset);
        s.bounds = Bounds::starting_at(games);
        s
    }

    /// Keeps only the games `first..=last` (0-based numbers in the whole
    /// file); records of other games are dropped and reading stops after
    /// `last`. The kept games are contiguous, so each batch still holds the
    /// input's bytes exactly and positions stay right. Records between
    /// games go with the game after them, so those before game `first` are
    /// kept only once that game begins: after the last game of the input
    /// (text kept as read after it) they belong to no game, and a range
    /// that starts past the last game selects nothing at all, as with the
    /// game index (`spec/index.md`).
    pub fn select(mut self, first: u64, last: Option<u64>) -> PgcSplitter<R> {
        self.first = first;
        self.last = last;
        self.selecting = true;
        self
    }

    /// The next batch, or `None` at the end. A record that does not frame
    /// ends the input: it and the bytes buffered after it end the last
    /// batch, for the walker to report it at its place.
    ///
    /// # Errors
    /// I/O.
    pub fn next_batch(&mut self) -> io::Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        let mut batch = Batch {
            data: Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2)),
            offset: self.reader.offset(),
            games: self.bounds.games(),
        };
        loop {
            let (marker, bytes) = match self.reader.next_raw() {
                Ok(Some((_, marker, bytes))) => (marker, bytes),
                Ok(None) => {
                    self.done = true;
                    if self.selecting && !self.selected_begun {
                        // Records after the last game, waiting for a game
                        // of the range that never came: none is selected.
                        batch.data.clear();
                    }
                    break;
                }
                Err(ReadError::Io { source, .. }) => return Err(source),
                Err(_) => {
                    if batch.data.is_empty() && self.bounds.in_game() {
                        // Inside a game dropped by `--games`: the record is
                        // in that game, which the batch's game count must
                        // include.
                        batch.games = self.bounds.games().saturating_sub(1);
                    }
                    batch.data.extend_from_slice(self.reader.take_buffered());
                    self.done = true;
                    break;
                }
            };
            // Records between games belong to the game after them.
            let was_in_game = self.bounds.in_game();
            let (begins, boundary) = self.bounds.record(marker);
            let games = self.bounds.games();
            let game = if was_in_game || begins || self.bounds.in_game() {
                games.saturating_sub(1)
            } else {
                games
            };
            if self.last.is_some_and(|last| game > last) {
                self.done = true;
                break;
            }
            if game < self.first {
                if batch.data.is_empty() {
                    batch.offset = self.reader.offset();
                    batch.games = self.bounds.games();
                }
                continue;
            }
            self.selected_begun |= begins;
            batch.data.extend_from_slice(bytes);
            // A batch ends after a game, or among the records between
            // games (a run of noops is not held whole), unless they wait
            // for the range's first game.
            let between = boundary || !self.bounds.in_game();
            let waiting = self.selecting && !self.selected_begun;
            if between && !waiting && batch.data.len() >= BATCH_BYTES {
                break;
            }
        }
        Ok((!batch.data.is_empty()).then_some(batch))
    }
}

/// What a worker made of a batch of PGC games.
pub struct Done {
    /// The text written for the batch.
    pub out: Vec<u8>,
    /// Games walked.
    pub games: u64,
    /// Plies walked.
    pub plies: u64,
    /// Verbatim records written (text kept as read: rejected games, text
    /// between games).
    pub verbatim: u64,
    /// PGC bytes of the batch.
    pub bytes_in: u64,
    /// The error that stopped the batch, with input-relative positions.
    pub error: Option<WalkError>,
    /// With `--dedup`: each game written, with its key and the end of its
    /// text in `out` (see [`crate::select::Dedup::split`]).
    pub kept: Vec<KeptGame>,
    /// Writing the text of a batch that ran alone failed: the run stops.
    pub write_error: Option<Error>,
}

impl Batch {
    /// A walker over the batch whose offsets and game numbers (in
    /// [`pgc_core::GameInfo`], in every error and in the errors
    /// inside them) are those of the whole input, as `pgc verify` gives them.
    pub fn walker(&self, limits: Limits) -> GameWalker<&[u8]> {
        let reader = Reader::with_limits(&self.data[..], limits).starting_at(self.offset);
        GameWalker::from_reader(reader).starting_at(self.games)
    }
}

/// Output buffers written out and kept for the next batches: a batch's
/// text grows to hundreds of KiB, and dropping it after each batch makes the
/// allocator give the top of the heap back to the system and take it again
/// for the next (a `brk` call and fresh page faults per batch).
static SPARE_OUTPUTS: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// The most spare output buffers kept.
const MAX_SPARE_OUTPUTS: usize = 8;

/// An empty output buffer for a batch, reusing one already written out.
pub fn output_buffer() -> Vec<u8> {
    SPARE_OUTPUTS
        .lock()
        .ok()
        .and_then(|mut spare| spare.pop())
        .unwrap_or_default()
}

/// Keeps a written-out buffer for [`output_buffer`].
fn recycle(mut buf: Vec<u8>) {
    buf.clear();
    if let Ok(mut spare) = SPARE_OUTPUTS.lock()
        && spare.len() < MAX_SPARE_OUTPUTS
        && buf.capacity() > 0
    {
        spare.push(buf);
    }
}

/// Walks every game of a batch with `v` (a walker from [`Batch::walker`]),
/// calling `done(v, true)` after each whole game and `done(v, false)` at
/// the end of the batch, after the records that follow its last game, and
/// returns the error that stopped the walk, if any. After each walk
/// `take_error` gives the payload the visitor refused, if any: it comes
/// before any later error of the same walk, as in `pgc verify`.
pub fn walk_batch<V: GameVisitor>(
    walker: &mut GameWalker<&[u8]>,
    v: &mut V,
    mut take_error: impl FnMut(&mut V) -> Option<ExtError>,
    mut done: impl FnMut(&mut V, bool),
) -> Option<WalkError> {
    loop {
        let walked = walker.walk_game(v);
        if let Some(e) = take_error(v) {
            return Some(WalkError::from(e));
        }
        match walked {
            Ok(more) => {
                done(v, more);
                if !more {
                    return None;
                }
            }
            Err(e) => return Some(e),
        }
    }
}

/// What every command that turns PGC batches into text shares: inputs in
/// order, batches at game boundaries (seeking with the index for `--games`),
/// `-j N` workers with output in input order, an atomic output, progress
/// and the summary line.
pub struct PgcBatches<'a> {
    /// `decode`, `moves`: for progress and messages.
    pub command: &'static str,
    /// Inputs, output, `--games`, `-j`, limits, `--quiet`.
    pub args: &'a PgcBatchArgs,
    /// With `--dedup`: duplicates are dropped in input order, and written
    /// to this file when one is given (`--duplicates`), each by the
    /// function: `(text, first, out)` with `first` the 0-based number of
    /// the game it duplicates.
    pub dedup: Option<Duplicates<'a>>,
    /// Written once before the first batch's text (a CSV header row).
    pub header: &'static [u8],
}

/// Where `--dedup` writes the games it drops, and how.
pub struct Duplicates<'a> {
    /// `--duplicates FILE`.
    pub path: Option<&'a Path>,
    /// Writes one dropped game's text (its own from the offset given, after
    /// the text kept before it), naming the game it duplicates.
    pub write: fn(&[u8], usize, u64, &mut Vec<u8>),
}

impl PgcBatches<'_> {
    /// Runs `work` on every batch and writes its text in input order; a
    /// batch over [`ALONE_PGC_BYTES`] runs alone, and its [`Parts`] write
    /// its text out as it is made.
    ///
    /// # Errors
    /// Usage, I/O, invalid PGC (positioned).
    pub fn run(&self, work: impl Fn(Batch, Parts<'_>) -> Done + Sync) -> error::Result<Status> {
        self.run_noting(work, || None)
    }

    /// [`PgcBatches::run`], then prints the line `note` gives (if any, and
    /// unless `--quiet`) before the summary, once every batch is done.
    ///
    /// # Errors
    /// Usage, I/O, invalid PGC (positioned).
    pub fn run_noting(
        &self,
        work: impl Fn(Batch, Parts<'_>) -> Done + Sync,
        note: impl FnOnce() -> Option<String>,
    ) -> error::Result<Status> {
        let a = self.args;
        let inputs = Input::list(&a.inputs);
        let output = Output::create(a.output.output.as_deref(), a.output.force, &inputs)?;
        let jobs = pgc_core::worker_threads(a.jobs);
        let limits = a.limits.pgc_limits();
        let mut sink = output.sink()?;
        let mut progress = Progress::new(self.command, a.report.quiet);
        let (mut games, mut plies, mut bytes_in) = (0u64, 0u64, 0u64);
        let mut verbatim = 0u64;
        let mut dedup = Dedup::default();
        let dup_output = match self.dedup.as_ref().and_then(|d| d.path) {
            Some(p) => Some(Output::create(Some(p), a.output.force, &inputs)?),
            None => None,
        };
        let mut dup_sink = dup_output.as_ref().map(Output::sink).transpose()?;
        let mut dup_text = Vec::new();
        if !self.header.is_empty() {
            sink.put(self.header)?;
        }
        for input in &inputs {
            let mut splitter = open_batches(input, limits, a.games, jobs, a.report.quiet)?;
            run_ordered(
                jobs,
                &mut sink,
                || {
                    splitter
                        .next_batch()
                        .map_err(|e| Error::io(&input.name, &e))
                },
                |b: &Batch| b.data.len() > ALONE_PGC_BYTES,
                |b, sink| work(b, Parts::new(sink)),
                |mut d: Done, sink| {
                    if let Some(e) = d.write_error.take() {
                        return Err(e);
                    }
                    match &self.dedup {
                        None => sink.put_games(&d.out)?,
                        Some(how) => {
                            dedup.split(
                                &d.out,
                                &d.kept,
                                |t| sink.put_games(t),
                                |t, own, _, first| {
                                    if let Some(s) = dup_sink.as_mut() {
                                        dup_text.clear();
                                        (how.write)(t, own, first, &mut dup_text);
                                        s.put_games(&dup_text)?;
                                    }
                                    Ok(())
                                },
                            )?;
                        }
                    }
                    recycle(std::mem::take(&mut d.out));
                    games += d.games;
                    plies += d.plies;
                    verbatim += d.verbatim;
                    bytes_in += d.bytes_in;
                    progress.tick(bytes_in, games);
                    match d.error {
                        None => Ok(()),
                        Some(e) => Err(Error::Data(format!(
                            "{}: {e}; run `pgc verify {}` for every problem",
                            input.name, input.name
                        ))),
                    }
                },
            )?;
            input.note_range(a.games, splitter.games());
        }
        let bytes_out = sink.written();
        sink.finish()?;
        output.commit()?;
        if let (Some(s), Some(o)) = (dup_sink, dup_output) {
            s.finish()?;
            o.commit()?;
        }
        let dedup_line = self
            .dedup
            .is_some()
            .then(|| format!("{} duplicate game(s) dropped", dedup.dropped));
        let line = match (note(), dedup_line) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (a, b) => a.or(b),
        };
        if let Some(line) = line {
            progress.clear();
            if progress.verbose() {
                say(&line);
            }
        }
        progress.summary(&summary_line(
            games,
            plies,
            (verbatim > 0).then_some((verbatim, "kept as text")),
            bytes_in,
            bytes_out,
            progress.elapsed(),
        ));
        Ok(Status::Ok)
    }
}

/// Refuses `--duplicates` without `--dedup`, or going to stdout when the
/// output (`-o`, naming `output`) goes there too.
///
/// # Errors
/// A usage error saying which.
pub fn check_duplicates(
    path: Option<&Path>,
    dedup: Option<DedupMode>,
    output: Option<&Path>,
) -> error::Result<()> {
    match path {
        Some(_) if dedup.is_none() => Err(duplicates_without_dedup()),
        Some(p) => crate::io::refuse_two_on_stdout("--duplicates", p, output),
        None => Ok(()),
    }
}

/// The sidecar path of a PGC file: its name with `.idx` appended.
pub fn index_path(pgc: &Path) -> PathBuf {
    let mut name = pgc.as_os_str().to_owned();
    name.push(".idx");
    PathBuf::from(name)
}
/// Loads and checks the index of `path`: `Ok(None)` when there is none;
/// a stale or damaged index is reported (unless `quiet`) and ignored.
fn load_index(path: &Path, file: &mut File, quiet: bool) -> Option<GameIndex> {
    let idx_path = index_path(path);
    let bytes = std::fs::read(&idx_path).ok()?;
    let checked = GameIndex::from_bytes(&bytes).and_then(|idx| idx.check(file).map(|()| idx));
    match checked {
        Ok(idx) => Some(idx),
        Err(e) => {
            if !quiet {
                let why = match e {
                    IndexError::Stale => {
                        "is stale (the PGC file changed); scanning instead; run `pgc index` again"
                            .to_string()
                    }
                    other => format!("is not usable ({other}); scanning instead"),
                };
                say(&format!("{} {why}", idx_path.display()));
            }
            None
        }
    }
}

/// Opens a PGC input as batches of whole games, keeping only `range`: with
/// an up-to-date FILE.idx the file is read from the first wanted game on;
/// otherwise the records before it are framed and dropped. A seekable
/// `.zst` file is decompressed frame by frame on `jobs` threads, from the
/// frame its index says holds the first wanted game.
///
/// # Errors
/// I/O, a bad seek table, or the input is PGN text.
pub fn open_batches(
    input: &Input,
    limits: Limits,
    range: Option<GameRange>,
    jobs: usize,
    quiet: bool,
) -> error::Result<PgcSplitter<Box<dyn Read>>> {
    if let Some(s) = input.open_seekable(range.map(|r| r.first), jobs, quiet, index_path)? {
        let splitter = PgcSplitter::resume(s.reader, limits, s.offset, s.games);
        return Ok(match range {
            Some(r) => splitter.select(r.first, r.last),
            None => splitter,
        });
    }
    // A game index serves a regular file alone: a pipe is read once, as a
    // stream, from its first byte.
    if let Some(r) = range
        && let Some(path) = input.path()
        && input.is_regular_file()
        && let Some(mut file) = input.open_file()?
        && let Some(idx) = load_index(path, &mut file, quiet)
    {
        let Some(&offset) = idx.offsets.get(r.first as usize) else {
            // Past the last game: nothing to read.
            return Ok(PgcSplitter::resume(
                Box::new(std::io::empty()),
                limits,
                0,
                idx.offsets.len() as u64,
            ));
        };
        // An entry that matches the file but holds no game start (a
        // damaged or hand-made index) is not followed.
        if GameIndex::starts_game(&mut file, offset).map_err(|e| Error::io(&input.name, &e))? {
            file.seek(SeekFrom::Start(offset))
                .map_err(|e| Error::io(&input.name, &e))?;
            let reader: Box<dyn Read> = Box::new(BufReader::with_capacity(256 << 10, file));
            return Ok(PgcSplitter::resume(reader, limits, offset, r.first).select(r.first, r.last));
        }
        if !quiet {
            say(&format!(
                "{}: its entry for game {} (byte {offset}) is no game start; scanning \
                 instead; run `pgc index` again",
                index_path(path).display(),
                r.first + 1
            ));
        }
    }
    let splitter = PgcSplitter::new(input.open_pgc()?, limits);
    Ok(match range {
        Some(r) => splitter.select(r.first, r.last),
        None => splitter,
    })
}

/// [`run_ordered`] on the calling thread: every job is next in order, so
/// one to run alone gets `state` to write its output to as it goes.
fn sequential<J, R, E, S>(
    state: &mut S,
    mut produce: impl FnMut(bool) -> Result<Option<Made<J, R>>, E>,
    helped: bool,
    alone: impl Fn(&J) -> bool,
    work: impl Fn(J, Option<&mut S>) -> R,
    mut consume: impl FnMut(R, &mut S) -> Result<(), E>,
) -> Result<(), E> {
    while let Some(made) = produce(helped)? {
        let r = match made {
            Made::Done(r) => r,
            Made::Job(job) if alone(&job) => work(job, Some(&mut *state)),
            Made::Job(job) => work(job, None),
        };
        consume(r, state)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs 1..=n; a job that is a multiple of 7 runs alone and writes its
    /// result straight to the output, the others hand theirs to `consume`.
    fn run(jobs: usize, n: u64, fail_produce_at: Option<u64>) -> (Vec<u64>, Result<(), String>) {
        run_with(jobs, false, n, fail_produce_at).0
    }

    /// [`run`], `helped` or not: a helping producer does the job itself
    /// when asked (unless it runs alone); also how many it did.
    fn run_with(
        jobs: usize,
        helped: bool,
        n: u64,
        fail_produce_at: Option<u64>,
    ) -> ((Vec<u64>, Result<(), String>), u64) {
        let mut next = 0;
        let mut out = Vec::new();
        let mut done_here = 0;
        let r = run_ordered_helped(
            jobs,
            &mut out,
            helped,
            |help| {
                if Some(next) == fail_produce_at {
                    return Err(format!("produce {next}"));
                }
                next += 1;
                if next > n {
                    return Ok(None);
                }
                if help && next % 7 != 0 {
                    done_here += 1;
                    return Ok(Some(Made::Done(Some(next * 2))));
                }
                Ok(Some(Made::Job(next)))
            },
            |&x| x % 7 == 0,
            |x, out: Option<&mut Vec<u64>>| {
                // Uneven work so that results arrive out of order.
                std::thread::sleep(std::time::Duration::from_micros((x * 7919) % 500));
                match out {
                    Some(out) => {
                        assert_eq!(x % 7, 0, "only the jobs to run alone");
                        out.push(x * 2);
                        None
                    }
                    None => Some(x * 2),
                }
            },
            |x, out| {
                out.extend(x);
                Ok(())
            },
        );
        ((out, r), done_here)
    }

    #[test]
    fn a_helping_thread_keeps_the_order() {
        let want: Vec<u64> = (1..=200).map(|x| x * 2).collect();
        let ((one, r), here) = run_with(1, true, 200, None);
        assert!(r.is_ok());
        assert_eq!(one, want);
        assert_eq!(
            here,
            200 - 200 / 7,
            "one job: every job but the alone ones here"
        );
        for jobs in [2, 3, 8] {
            let ((out, r), here) = run_with(jobs, true, 200, None);
            assert!(r.is_ok());
            assert_eq!(out, want, "{jobs} jobs");
            // The workers sleep: the calling thread finds them busy (with
            // 8 jobs every seventh job, run alone, comes first).
            assert!(jobs == 8 || here > 0, "{jobs} jobs: none done here");
        }
        let ((out, r), _) = run_with(2, true, 50, Some(10));
        assert_eq!(out, (1..=10).map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(r, Err("produce 10".into()));
    }

    #[test]
    fn same_order_for_every_job_count() {
        let (one, r) = run(1, 50, None);
        assert!(r.is_ok());
        // Every result in order, those of the jobs run alone included.
        assert_eq!(one, (1..=50).map(|x| x * 2).collect::<Vec<_>>());
        for jobs in [2, 3, 8] {
            assert_eq!(run(jobs, 50, None).0, one);
        }
    }

    #[test]
    fn a_produce_error_comes_after_earlier_results() {
        let (out, r) = run(3, 50, Some(10));
        assert_eq!(out, (1..=10).map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(r, Err("produce 10".into()));
    }

    #[test]
    fn batches_end_at_game_boundaries_and_keep_every_byte() {
        // Many small games with a noop between them.
        let game = [0x05u8, 0x02, 1, b'A', 1, b'B', 0x03, 2, 13, 12, 0x06, 0x00];
        let input: Vec<u8> = game
            .iter()
            .copied()
            .cycle()
            .take(game.len() * 30_000)
            .collect();
        let mut s = PgcSplitter::new(&input[..], Limits::default());
        let mut all = Vec::new();
        let mut games = 0;
        while let Some(b) = s.next_batch().unwrap() {
            assert_eq!(b.offset as usize, all.len());
            assert_eq!(b.games, games);
            // Every batch but the first starts right after a game end.
            assert!(b.offset == 0 || b.data[0] == 0x00);
            games += b.data.iter().filter(|&&x| x == 0x05).count() as u64;
            all.extend(b.data);
        }
        assert_eq!(all, input);
    }
}
