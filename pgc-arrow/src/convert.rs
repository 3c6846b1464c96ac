//! PGC bytes → record batches, on one thread or several; and back.

use crate::build::GamesBuilder;
use crate::error::Error;
use crate::schema::{Column, ExportOptions};
use arrow_array::builder::BinaryBuilder;
use arrow_array::{Array, ArrayRef, BinaryArray, LargeBinaryArray, RecordBatch};
use pgc_core::internals::Bounds;
use pgc_core::{BulkOptions, BulkReader, GameIndex};
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What [`convert`] reads of each game for a table with `opts`' columns:
/// the main line, its SAN when the table has `san`, typed comments when it
/// has `clocks`, `evals` or `mates`.
pub fn bulk_options(opts: &ExportOptions) -> BulkOptions {
    BulkOptions {
        variations: false,
        comments: [Column::Clocks, Column::Evals, Column::Mates]
            .iter()
            .chain(&Column::ENGINE)
            .any(|&c| opts.has(c)),
        san: opts.has(Column::San),
        // A table of tags (and `pgc`) only is made without replaying a move.
        moves: opts.columns().iter().any(|c| c.reads_moves()),
        limits: opts.limits,
    }
}

/// A run of PGC records made into rows.
#[derive(Debug)]
pub struct Converted {
    /// One row per game. A game's `pgc` holds the records between the game
    /// before it (or the start of the data) and its end.
    pub batch: RecordBatch,
    /// The records after the last game (all of the data when it holds no
    /// game): they belong to the `pgc` of the next game, wherever that is
    /// (see [`Joiner`]).
    pub rest: Vec<u8>,
}

/// Makes rows of the games of `data`, a run of whole PGC records that
/// starts at byte `offset` of its file after `games` games (these place
/// errors in the file).
///
/// # Errors
/// [`Error::Walk`]: the first record that does not frame, breaks the game
/// grammar, or holds an invalid move or extension payload, positioned.
pub fn convert(
    data: &[u8],
    offset: u64,
    games: u64,
    builder: &mut GamesBuilder,
) -> Result<Converted, Error> {
    let mut reader =
        BulkReader::new(data, bulk_options(builder.options())).starting_at(offset, games);
    let mut start = 0usize;
    while let Some(game) = reader.next_game()? {
        let end = usize::try_from(game.end_offset() - offset).unwrap_or(data.len());
        let end = end.min(data.len());
        builder.push(game, &data[start..end])?;
        start = end;
    }
    Ok(Converted {
        batch: builder.finish()?,
        rest: data[start..].to_vec(),
    })
}

/// The bytes a batch is cut at (after the game that reaches them) by
/// [`convert_par`]: batches depend on the data only, so the table is the
/// same for every number of threads.
pub const PAR_BATCH_BYTES: usize = 1 << 20;

/// Makes record batches of every game of `data` (a whole PGC file) on
/// `threads` threads. The batches are cut every [`PAR_BATCH_BYTES`] or so
/// at a game's start, whatever `threads` is: the output is identical for
/// every number of threads.
///
/// # Errors
/// [`Error::Walk`] for the first invalid game in file order;
/// [`Error::NoGame`] for records but no game to carry them.
pub fn convert_par(
    data: &[u8],
    threads: usize,
    opts: &ExportOptions,
) -> Result<Vec<RecordBatch>, Error> {
    let cuts = cut_points(data, opts)?;
    let slots: Vec<Mutex<Option<Result<Converted, Error>>>> =
        cuts.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut builder = GamesBuilder::new(opts);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(start, games)) = cuts.get(i) else {
                break;
            };
            let end = cuts.get(i + 1).map_or(data.len(), |c| c.0);
            let r = convert(&data[start..end], start as u64, games, &mut builder);
            if let Ok(mut slot) = slots[i].lock() {
                *slot = Some(r);
            }
        }
    };
    let threads = threads.clamp(1, cuts.len().max(1));
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    let mut joiner = Joiner::default();
    let mut out = Vec::new();
    for slot in slots {
        let converted = slot.into_inner().ok().flatten().ok_or(Error::Lost)??;
        out.extend(joiner.push(converted)?);
    }
    out.extend(joiner.finish()?);
    Ok(out)
}

/// Where [`convert_par`] cuts `data`: `(offset, games before)` of each
/// batch, at game starts (from the game index of `data`).
fn cut_points(data: &[u8], opts: &ExportOptions) -> Result<Vec<(usize, u64)>, Error> {
    let mut cuts = vec![(0usize, 0u64)];
    if data.len() <= PAR_BATCH_BYTES {
        return Ok(cuts);
    }
    let index = GameIndex::build(&mut Cursor::new(data), opts.limits).map_err(Error::Index)?;
    let mut last = 0usize;
    for (n, &o) in index.offsets.iter().enumerate() {
        let o = usize::try_from(o).unwrap_or(data.len());
        if o - last >= PAR_BATCH_BYTES {
            cuts.push((o, n as u64));
            last = o;
        }
    }
    Ok(cuts)
}

/// Puts the records [`convert`] leaves after a batch's last game
/// ([`Converted::rest`]) at the front of the next game's `pgc`, and those
/// after the very last game at the end of its `pgc`, so that the `pgc`
/// column, concatenated, is every byte of the input.
///
/// Batches come out one behind: [`Joiner::push`] returns the batch before
/// the one pushed, [`Joiner::finish`] the last.
#[derive(Debug, Default)]
pub struct Joiner {
    held: Option<RecordBatch>,
    carry: Vec<u8>,
}

impl Joiner {
    /// Takes the next batch; returns the one before it, once complete.
    ///
    /// # Errors
    /// [`Error::Arrow`] (a bug).
    pub fn push(&mut self, c: Converted) -> Result<Option<RecordBatch>, Error> {
        if c.batch.num_rows() == 0 {
            self.carry.extend_from_slice(&c.rest);
            return Ok(None);
        }
        let mut batch = c.batch;
        if !self.carry.is_empty() {
            batch = edit_pgc(&batch, 0, |b| {
                let mut v = std::mem::take(&mut self.carry);
                v.extend_from_slice(b);
                v
            })?;
        }
        self.carry = c.rest;
        Ok(self.held.replace(batch))
    }

    /// The last batch, with the records after the last game.
    ///
    /// # Errors
    /// [`Error::NoGame`] when records came but no game to carry them.
    pub fn finish(mut self) -> Result<Option<RecordBatch>, Error> {
        let Some(batch) = self.held.take() else {
            return if self.carry.is_empty() {
                Ok(None)
            } else {
                Err(Error::NoGame {
                    bytes: self.carry.len(),
                })
            };
        };
        if self.carry.is_empty() {
            return Ok(Some(batch));
        }
        let last = batch.num_rows() - 1;
        Ok(Some(edit_pgc(&batch, last, |b| {
            let mut v = b.to_vec();
            v.extend_from_slice(&self.carry);
            v
        })?))
    }
}

/// `batch` with the `pgc` of row `row` replaced by `f` of it (a batch
/// without the column is returned as it is).
fn edit_pgc(
    batch: &RecordBatch,
    row: usize,
    f: impl FnOnce(&[u8]) -> Vec<u8>,
) -> Result<RecordBatch, Error> {
    let Ok(i) = batch.schema().index_of(Column::Pgc.name()) else {
        return Ok(batch.clone());
    };
    let Some(old) = batch.column(i).as_any().downcast_ref::<BinaryArray>() else {
        return Ok(batch.clone());
    };
    let mut b = BinaryBuilder::with_capacity(old.len(), old.value_data().len());
    let mut f = Some(f);
    for r in 0..old.len() {
        if r == row
            && let Some(f) = f.take()
        {
            b.append_value(f(old.value(r)));
        } else {
            b.append_value(old.value(r));
        }
    }
    let mut columns = batch.columns().to_vec();
    columns[i] = Arc::new(b.finish()) as ArrayRef;
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// Appends the `pgc` column of `batch` (binary or large binary) to `out`:
/// the games' PGC records, as they were in the input.
///
/// # Errors
/// [`Error::NoPgcColumn`] without the column; [`Error::NullPgc`] for a row
/// whose `pgc` is null; [`Error::BadPgc`] for one whose `pgc` is empty or
/// does not frame as PGC records to its last byte (nothing is appended).
pub fn append_pgc(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<(), Error> {
    let schema = batch.schema();
    let Ok(i) = schema.index_of(Column::Pgc.name()) else {
        return Err(Error::NoPgcColumn);
    };
    let col = batch.column(i);
    if col.null_count() > 0 {
        let row = (0..col.len()).find(|&r| col.is_null(r)).unwrap_or(0);
        return Err(Error::NullPgc { row });
    }
    if let Some(a) = col.as_any().downcast_ref::<BinaryArray>() {
        (0..a.len()).try_for_each(|row| check_cell(row, a.value(row)))?;
        out.extend_from_slice(values_span(a.value_offsets(), a.value_data()));
    } else if let Some(a) = col.as_any().downcast_ref::<LargeBinaryArray>() {
        (0..a.len()).try_for_each(|row| check_cell(row, a.value(row)))?;
        out.extend_from_slice(values_span(a.value_offsets(), a.value_data()));
    } else {
        return Err(Error::PgcType {
            found: col.data_type().to_string(),
        });
    }
    Ok(())
}

/// Checks that a `pgc` cell is PGC records, whole ([`check_pgc_cell`]).
fn check_cell(row: usize, cell: &[u8]) -> Result<(), Error> {
    check_pgc_cell(cell).map_err(|message| Error::BadPgc { row, message })
}

/// Checks that a value of a `pgc` column is PGC records, whole: at least
/// one, framed to its last byte, with every game it begins ended in it
/// (what `pgc export` writes: a game's records, or the verbatim record of
/// text it kept as read).
///
/// # Errors
/// Why it is not: empty, where its records stop framing, or a game left
/// open at its end.
pub fn check_pgc_cell(cell: &[u8]) -> Result<(), String> {
    if cell.is_empty() {
        return Err("the cell is empty".into());
    }
    let mut r = pgc_core::Reader::new(cell);
    let mut bounds = Bounds::default();
    loop {
        match r.next_raw() {
            Ok(Some((_, marker, _))) => {
                bounds.record(marker);
            }
            Ok(None) if bounds.in_game() => {
                return Err(format!(
                    "a game begun in it has no game-end record by its last byte, {}",
                    cell.len()
                ));
            }
            Ok(None) => return Ok(()),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The bytes of every value of a binary array with no nulls, at once (the
/// values are contiguous).
fn values_span<'a, O: Copy + TryInto<usize>>(offsets: &[O], data: &'a [u8]) -> &'a [u8] {
    let at = |o: Option<&O>| o.and_then(|&o| o.try_into().ok()).unwrap_or(0);
    let (a, b) = (at(offsets.first()), at(offsets.last()));
    data.get(a..b).unwrap_or(&[])
}
