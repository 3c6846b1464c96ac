//! `pgc decode`: PGC → PGN export format.
//!
//! The PGC is split into batches at game boundaries by measuring records
//! with [`record_len`] (a game is one 0x01 record or 0x05 … 0x06; records between
//! games go with the next game). Batches are decoded on worker threads with
//! a [`GameWalker`] and a [`Decoder`] and written in input order. A record
//! that cannot be framed ends the last batch, so the walker reports it with
//! its exact position, after every game before it has been decoded.

use crate::args::{DecodeArgs, DecodeFormat};
use crate::error::{Error, Result, Status};
use crate::io::{Input, Output};
use crate::parallel::{jobs, run_ordered};
use crate::progress::{Progress, say, summary_line};
use pgc_core::buffer::RefillBuffer;
use pgc_core::ext::ExtError;
use pgc_core::record::{FrameError, MAX_1994_RECORD, Marker, RecordRef, frame_common, record_len};
use pgc_core::visit::{GameInfo, GameVisitor, GameWalker, Ply, Variation, WalkError};
use pgc_core::{Limits, PgcReader};
use pgn_bridge::decode::{DecodeOptions, Decoder};
use pgn_bridge::jsonl::JsonlWriter;
use shakmaty::Chess;
use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};

/// A batch is cut after the game that brings it to this many bytes.
const BATCH_BYTES: usize = 128 << 10;

/// Splits a PGC stream into batches of whole games.
pub struct PgcSplitter<R> {
    buf: RefillBuffer<R>,
    /// Input offset of the first buffered byte.
    offset: u64,
    games: u64,
    in_game: bool,
    limits: Limits,
    done: bool,
    /// Only games `first..=last` (0-based) are kept (`--games`).
    first: u64,
    last: Option<u64>,
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
    /// A splitter over `inner` that bounds record lengths by `limits`.
    pub fn new(inner: R, limits: Limits) -> PgcSplitter<R> {
        PgcSplitter {
            buf: RefillBuffer::new(inner),
            offset: 0,
            games: 0,
            in_game: false,
            limits,
            done: false,
            first: 0,
            last: None,
        }
    }

    /// A splitter over input that starts mid-file, at a game boundary
    /// (after a seek by the game index): `offset` is the file offset of the
    /// first byte and `games` the number of games before it.
    pub fn resume(inner: R, limits: Limits, offset: u64, games: u64) -> PgcSplitter<R> {
        let mut s = PgcSplitter::new(inner, limits);
        s.offset = offset;
        s.games = games;
        s
    }

    /// Keeps only the games `first..=last` (0-based numbers in the whole
    /// file); records of other games are dropped and reading stops after
    /// `last`. The kept games are contiguous, so each batch still holds the
    /// input's bytes exactly and positions stay right.
    pub fn select(mut self, first: u64, last: Option<u64>) -> PgcSplitter<R> {
        self.first = first;
        self.last = last;
        self
    }

    /// Moves everything buffered into `data` and stops: the walker will
    /// report the record that could not be framed.
    fn give_up(&mut self, data: &mut Vec<u8>) {
        let n = self.buf.len();
        data.extend_from_slice(self.buf.take(n));
        self.offset += n as u64;
        self.done = true;
    }

    /// The next batch, or `None` at the end.
    ///
    /// # Errors
    /// I/O.
    pub fn next_batch(&mut self) -> io::Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        let mut batch = Batch {
            data: Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2)),
            offset: self.offset,
            games: self.games,
        };
        let bound = (u64::from(self.limits.max_string) + 16).max(MAX_1994_RECORD);
        // Bytes at the buffer's front measured for this batch and not yet
        // copied: a run of records is copied at once, not record by record.
        let mut run = 0usize;
        macro_rules! flush {
            () => {
                let n = std::mem::take(&mut run);
                if n > 0 {
                    batch.data.extend_from_slice(self.buf.take(n));
                }
            };
        }
        loop {
            if self.buf.len() == run {
                flush!();
                if self.buf.at_eof() {
                    self.done = true;
                    break;
                }
                self.buf.fill(1)?;
                continue;
            }
            if self.in_game && self.games > self.first {
                // Inside a kept game, every record but the game's end only
                // lengthens the run: the common ones are measured in a
                // tight loop, anything else takes the general way below.
                let buffered = self.buf.buffered();
                let mut at = run;
                while let Some(rest) = buffered.get(at..) {
                    match frame_common(rest) {
                        Some((rec, len)) if rec != RecordRef::GameEnd => at += len,
                        _ => break,
                    }
                }
                self.offset += (at - run) as u64;
                run = at;
                if self.buf.len() == run {
                    continue;
                }
            }
            let rest = self.buf.buffered().get(run..).unwrap_or(&[]);
            match record_len(rest, &self.limits) {
                Ok(len) => {
                    // Records between games belong to the game after them.
                    let was_in_game = self.in_game;
                    // `record_len` measured a record: its first byte is a marker.
                    let marker = rest.first().copied().unwrap_or(0);
                    let boundary = match marker {
                        b if b == Marker::ReducedGame as u8 && !self.in_game => {
                            self.games += 1;
                            true
                        }
                        b if b == Marker::GameBegin as u8 && !self.in_game => {
                            self.games += 1;
                            self.in_game = true;
                            false
                        }
                        b if b == Marker::GameEnd as u8 && self.in_game => {
                            self.in_game = false;
                            true
                        }
                        _ => false,
                    };
                    let game = if was_in_game || boundary || self.in_game {
                        self.games.saturating_sub(1)
                    } else {
                        self.games
                    };
                    if self.last.is_some_and(|last| game > last) {
                        flush!();
                        self.done = true;
                        break;
                    }
                    if game < self.first {
                        flush!();
                        self.buf.consume(len);
                        self.offset += len as u64;
                        if batch.data.is_empty() {
                            batch.offset = self.offset;
                            batch.games = self.games;
                        }
                        continue;
                    }
                    run += len;
                    self.offset += len as u64;
                    if boundary && batch.data.len() + run >= BATCH_BYTES {
                        flush!();
                        break;
                    }
                }
                Err(FrameError::Incomplete { need, .. }) => {
                    flush!();
                    let have = self.buf.len() as u64;
                    if self.buf.at_eof() || need > bound || need <= have {
                        self.give_up(&mut batch.data);
                        break;
                    }
                    // need <= bound, which fits in memory by the limits.
                    self.buf.fill(need as usize)?;
                }
                Err(FrameError::UnknownMarker(_) | FrameError::OverLimit { .. }) => {
                    flush!();
                    self.give_up(&mut batch.data);
                    break;
                }
            }
        }
        Ok((!batch.data.is_empty()).then_some(batch))
    }
}

/// A [`GameVisitor`] that counts plies and forwards everything to `inner`.
pub struct PlyCount<V> {
    /// The visitor.
    pub inner: V,
    /// Moves played (main lines, variations and null moves).
    pub plies: u64,
}

impl<V: GameVisitor> GameVisitor for PlyCount<V> {
    fn begin_game(&mut self, info: &GameInfo) {
        self.inner.begin_game(info);
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) {
        self.inner.tag(name, value);
    }
    fn begin_moves(&mut self, start: &Chess) {
        self.inner.begin_moves(start);
    }
    fn wants_san(&self) -> bool {
        self.inner.wants_san()
    }
    fn wants_before(&self) -> bool {
        self.inner.wants_before()
    }
    fn play(&mut self, ply: &Ply<'_>) {
        self.plies += 1;
        self.inner.play(ply);
    }
    fn null_move(&mut self, before: &Chess, spelling: &[u8]) {
        self.plies += 1;
        self.inner.null_move(before, spelling);
    }
    fn nag(&mut self, nag: u8) {
        self.inner.nag(nag);
    }
    fn begin_variation(&mut self) -> Variation {
        self.inner.begin_variation()
    }
    fn end_variation(&mut self) {
        self.inner.end_variation();
    }
    fn escape(&mut self, text: &[u8]) {
        self.inner.escape(text);
    }
    fn extension(&mut self, kind: u8, payload: &[u8]) {
        self.inner.extension(kind, payload);
    }
    fn end_game(&mut self) {
        self.inner.end_game();
    }
    fn outside(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.inner.outside(offset, record);
    }
    fn record(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.inner.record(offset, record);
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
    /// PGC bytes of the batch.
    pub bytes_in: u64,
    /// The error that stopped the batch, with input-relative positions.
    pub error: Option<WalkError>,
}

/// A visitor that renders games as text.
trait Render: GameVisitor {
    fn text(&mut self) -> &mut Vec<u8>;
    /// The payload the last game's codec refused, if any.
    fn take_error(&mut self) -> Option<ExtError>;
}

impl Render for Decoder {
    fn text(&mut self) -> &mut Vec<u8> {
        Decoder::text(self)
    }
    fn take_error(&mut self) -> Option<ExtError> {
        Decoder::take_error(self)
    }
}

impl Render for JsonlWriter {
    fn text(&mut self) -> &mut Vec<u8> {
        JsonlWriter::text(self)
    }
    fn take_error(&mut self) -> Option<ExtError> {
        JsonlWriter::take_error(self)
    }
}

/// Decodes a batch to PGN, adding to `tags_with_newlines` the tag values
/// written with spaces for newlines.
fn decode_batch(
    b: Batch,
    opts: DecodeOptions,
    limits: Limits,
    tags_with_newlines: &AtomicU64,
) -> Done {
    let (done, dec) = decode_batch_with(b, limits, Decoder::new(opts));
    tags_with_newlines.fetch_add(dec.tags_with_newlines, Ordering::Relaxed);
    done
}

fn decode_batch_with<V: Render>(b: Batch, limits: Limits, inner: V) -> (Done, V) {
    let mut walker = GameWalker::from_reader(PgcReader::with_limits(&b.data[..], limits));
    let mut v = PlyCount { inner, plies: 0 };
    let mut games = 0;
    let mut good = 0;
    let error = walk_batch(&mut walker, &mut v, &b, |v| {
        let e = v.inner.take_error();
        if e.is_none() {
            games += 1;
            good = v.inner.text().len();
        }
        e
    });
    let mut pgn = std::mem::take(v.inner.text());
    // Drop the text of a game cut short by an error.
    pgn.truncate(good);
    let done = Done {
        out: pgn,
        games,
        plies: v.plies,
        bytes_in: b.data.len() as u64,
        error,
    };
    (done, v.inner)
}

/// Walks every game of batch `b` with `v`, calling `game_done` after each
/// whole game (it returns the payload error the visitor met in the game, if
/// any, which stops the walk), and returns the error that stopped the walk
/// (if any) with its positions in the whole input rather than the batch.
pub fn walk_batch<V: GameVisitor>(
    walker: &mut GameWalker<&[u8]>,
    v: &mut V,
    b: &Batch,
    mut game_done: impl FnMut(&mut V) -> Option<ExtError>,
) -> Option<WalkError> {
    loop {
        match walker.walk_game(v) {
            Ok(true) => {
                if let Some(e) = game_done(v) {
                    let mut e = WalkError::from(e);
                    e.offset += b.offset;
                    e.game += b.games;
                    return Some(e);
                }
            }
            Ok(false) => return None,
            Err(mut e) => {
                e.offset += b.offset;
                e.game += b.games;
                return Some(e);
            }
        }
    }
}

/// Runs `pgc decode`.
///
/// # Errors
/// Usage, I/O, invalid PGC (positioned).
pub fn run(a: &DecodeArgs) -> Result<Status> {
    let opts = DecodeOptions {
        strict_export: a.strict_export,
    };
    let limits = a.batch.limits.pgc_limits();
    let format = a.format;
    let batches = PgcBatches {
        command: "decode",
        args: &a.batch,
    };
    let tags_with_newlines = AtomicU64::new(0);
    batches.run_noting(
        |b| match format {
            DecodeFormat::Pgn => decode_batch(b, opts, limits, &tags_with_newlines),
            DecodeFormat::Jsonl => decode_batch_with(b, limits, JsonlWriter::new()).0,
        },
        || newlines_note(tags_with_newlines.load(Ordering::Relaxed)),
    )
}

/// The line `pgc decode` prints before its summary when `n` tag values held
/// a newline, which a PGN tag line cannot hold.
fn newlines_note(n: u64) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} tag value(s) held a newline, which a PGN tag line cannot hold; each \
             newline was written as a space (`pgc verify` lists them)"
        )
    })
}

/// What every command that turns PGC batches into text shares: inputs in
/// order, batches at game boundaries (seeking with the index for `--games`),
/// `-j N` workers with output in input order, an atomic output, progress
/// and the summary line.
pub struct PgcBatches<'a> {
    /// `decode`, `moves`: for progress and messages.
    pub command: &'static str,
    /// Inputs, output, `--games`, `-j`, limits, `--quiet`.
    pub args: &'a crate::args::PgcBatchArgs,
}

impl PgcBatches<'_> {
    /// Runs `work` on every batch and writes its text in input order.
    ///
    /// # Errors
    /// Usage, I/O, invalid PGC (positioned).
    pub fn run(&self, work: impl Fn(Batch) -> Done + Sync) -> Result<Status> {
        self.run_noting(work, || None)
    }

    /// [`PgcBatches::run`], then prints the line `note` gives (if any, and
    /// unless `--quiet`) before the summary, once every batch is done.
    ///
    /// # Errors
    /// Usage, I/O, invalid PGC (positioned).
    pub fn run_noting(
        &self,
        work: impl Fn(Batch) -> Done + Sync,
        note: impl FnOnce() -> Option<String>,
    ) -> Result<Status> {
        let a = self.args;
        let inputs = Input::list(&a.inputs);
        let output = Output::create(a.output.output.as_deref(), a.output.force, &inputs)?;
        let jobs = jobs(a.jobs);
        let limits = a.limits.pgc_limits();
        let mut sink = output.sink()?;
        let mut progress = Progress::new(self.command, a.report.quiet);
        let (mut games, mut plies, mut bytes_in) = (0u64, 0u64, 0u64);
        for input in &inputs {
            let mut splitter = crate::index::open_batches(input, limits, a.games, a.report.quiet)?;
            run_ordered(
                jobs,
                || {
                    splitter
                        .next_batch()
                        .map_err(|e| Error::io(&input.name, &e))
                },
                &work,
                |d: Done| {
                    sink.put(&d.out)?;
                    games += d.games;
                    plies += d.plies;
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
        }
        let bytes_out = sink.written();
        sink.finish()?;
        output.commit()?;
        if let Some(line) = note() {
            progress.clear();
            if progress.verbose() {
                say(&line);
            }
        }
        progress.summary(&summary_line(
            games,
            plies,
            None,
            bytes_in,
            bytes_out,
            progress.elapsed(),
        ));
        Ok(Status::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_framing_error_keeps_its_position() {
        let mut input = vec![0x05, 0x03, 1, 13, 0x06];
        input.extend([0x05, 0x0b, 0x06]);
        let mut s = PgcSplitter::new(&input[..], Limits::default());
        let b = s.next_batch().unwrap().unwrap();
        let d = decode_batch(
            b,
            DecodeOptions::default(),
            Limits::default(),
            &AtomicU64::new(0),
        );
        let e = d.error.unwrap();
        assert_eq!((e.offset, e.game), (6, 1));
        assert_eq!(d.games, 1);
    }
}
