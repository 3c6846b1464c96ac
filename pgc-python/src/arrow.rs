//! Games tables (pgc-arrow's schema) handed to pyarrow through the Arrow C
//! data interface, without a copy: record batches made on threads as they
//! are read ([`ArrowBatches`], each an `__arrow_c_array__`, with the
//! schema as `__arrow_c_schema__`), and one record batch, as the Arrow
//! PyCapsule protocol defines them.

use crate::error::arrow_error;
use crate::games::parse_where;
use crate::threads::thread_count;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, to_ffi};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::SchemaRef;
use pgc_arrow::{Column, Converted, ExportOptions, GamesBuilder, Joiner, bulk_options, convert};
use pgc_core::filter::Filter;
use pgc_core::internals::Bounds;
use pgc_core::record::{Marker, record_len};
use pgc_core::{BulkReader, Limits};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyCapsule, PyTuple};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// The table of `columns` (None: the default ones), `uci` and `san`, read
/// with `limits`.
fn options(
    columns: Option<Vec<String>>,
    uci: bool,
    san: bool,
    limits: Limits,
) -> PyResult<ExportOptions> {
    let mut opts = match columns {
        None => ExportOptions::new(uci, san),
        Some(names) => ExportOptions::with_columns(&names, uci, san)
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
    };
    opts.limits = limits;
    Ok(opts)
}

/// One record batch, for `pyarrow.record_batch`.
#[pyclass(module = "pgc._pgc")]
pub(crate) struct ArrowBatch {
    batch: RecordBatch,
}

#[pymethods]
impl ArrowBatch {
    /// The batch as `(arrow_schema, arrow_array)` capsules.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).to_data();
        let (array, schema): (FFI_ArrowArray, FFI_ArrowSchema) =
            to_ffi(&data).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        PyTuple::new(py, [schema, array])
    }

    /// Rows.
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}

/// The games of one piece of `data` (whole records, at byte `offset` after
/// `games` games) made into rows: all of them, or those `filter` chooses
/// (decided on the tags and the main line's plies, as `pgc.read` does).
/// A game left out takes the records before it along; the records after
/// the last game are the piece's rest ([`Converted::rest`]).
fn convert_piece(
    data: &[u8],
    offset: u64,
    games: u64,
    builder: &mut GamesBuilder,
    filter: Option<&Filter>,
) -> Result<Converted, pgc_arrow::Error> {
    let Some(filter) = filter else {
        return convert(data, offset, games, builder);
    };
    let mut reader =
        BulkReader::new(data, bulk_options(builder.options())).starting_at(offset, games);
    let mut start = 0usize;
    while let Some(game) = reader.next_game()? {
        let end = usize::try_from(game.end_offset() - offset)
            .unwrap_or(data.len())
            .clamp(start, data.len());
        if filter.matches(game, game.plies()) {
            builder.push(game, &data[start..end])?;
        }
        start = end;
    }
    Ok(Converted {
        batch: builder.finish()?,
        rest: data[start..].to_vec(),
    })
}

/// What the converting threads, the cutting thread and the reader share.
struct Queue {
    /// `(offset, games before)` of each piece found so far: the data is
    /// cut at the first game start [`PIECE_BYTES`] or more after the
    /// previous cut, as `pgc export` cuts its batches.
    points: Vec<(usize, u64)>,
    /// Every piece is found.
    cut: bool,
    /// Pieces handed out so far (the next piece to convert).
    next_in: usize,
    /// Pieces taken by the reader so far.
    next_out: usize,
    /// Converted pieces not yet taken, by piece number.
    done: BTreeMap<usize, Result<Converted, pgc_arrow::Error>>,
    /// The reader is gone or failed: no more work.
    stop: bool,
}

/// The bytes of PGC a piece holds, about. Pieces depend on the data
/// only, so the batches are the same for every number of threads; small
/// pieces keep the threads busy to the end (with 1 MiB pieces, 11 of them
/// on two threads, one thread converted six while the other waited).
const PIECE_BYTES: usize = 256 << 10;

/// The pieces of one input and how to convert them.
struct Job {
    data: PyBackedBytes,
    opts: ExportOptions,
    filter: Option<Filter>,
    /// Pieces converted ahead of the reader, at most.
    window: usize,
    queue: Mutex<Queue>,
    changed: Condvar,
}

impl Job {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cutting thread: finds the pieces, game starts about
    /// [`PIECE_BYTES`] apart (framing the records, no move decoded), and
    /// hands each to the converting threads as soon as its end is known.
    /// Data that stops framing is one piece from the last cut on (its
    /// walk reports the error).
    fn cut(&self) {
        let data: &[u8] = &self.data;
        if data.len() > PIECE_BYTES {
            // Records measured where they lie, none copied.
            let mut bounds = Bounds::default();
            let (mut at, mut last) = (0usize, 0usize);
            while let Some(marker) = data.get(at).copied().and_then(Marker::from_byte)
                && let Ok(len) = record_len(&data[at..], &self.opts.limits)
            {
                let here = at;
                at += len;
                if !bounds.record(marker).0 || here - last < PIECE_BYTES {
                    continue;
                }
                last = here;
                let mut q = self.lock();
                if q.stop {
                    return;
                }
                q.points.push((here, bounds.games() - 1));
                drop(q);
                self.changed.notify_all();
            }
        }
        self.lock().cut = true;
        self.changed.notify_all();
    }

    /// A converting thread: takes the next piece whose end is known while
    /// the reader is less than `window` pieces behind.
    fn work(&self) {
        let mut builder = GamesBuilder::new(&self.opts);
        loop {
            let (i, start, games, end) = {
                let mut q = self.lock();
                loop {
                    if q.stop || (q.cut && q.next_in >= q.points.len()) {
                        return;
                    }
                    let i = q.next_in;
                    let known = i + 1 < q.points.len() || (q.cut && i < q.points.len());
                    if known && i < q.next_out + self.window {
                        break;
                    }
                    q = self.changed.wait(q).unwrap_or_else(PoisonError::into_inner);
                }
                let i = q.next_in;
                q.next_in += 1;
                let (start, games) = q.points[i];
                let end = q.points.get(i + 1).map_or(self.data.len(), |p| p.0);
                (i, start, games, end)
            };
            // A panic (a bug) loses the piece, reported in its place.
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                convert_piece(
                    &self.data[start..end],
                    start as u64,
                    games,
                    &mut builder,
                    self.filter.as_ref(),
                )
            }))
            .unwrap_or(Err(pgc_arrow::Error::Lost));
            self.lock().done.insert(i, r);
            self.changed.notify_all();
        }
    }

    /// The next converted piece in input order, waiting for it; `None`
    /// after the last.
    fn take(&self) -> Option<Result<Converted, pgc_arrow::Error>> {
        let mut q = self.lock();
        let at = q.next_out;
        let r = loop {
            if q.stop || (q.cut && at >= q.points.len()) {
                return None;
            }
            if let Some(r) = q.done.remove(&at) {
                break r;
            }
            q = self.changed.wait(q).unwrap_or_else(PoisonError::into_inner);
        };
        q.next_out += 1;
        q.stop |= r.is_err();
        drop(q);
        self.changed.notify_all();
        Some(r)
    }

    fn stop(&self) {
        self.lock().stop = true;
        self.changed.notify_all();
    }
}

/// The record batches of a games table, converted on threads while they
/// are read: one thread cuts the data into pieces, the others convert
/// them, at most a few pieces ahead of the reader.
/// Iterating gives `ArrowBatch`es, in input order.
#[pyclass(module = "pgc._pgc")]
pub(crate) struct ArrowBatches {
    job: Arc<Job>,
    threads: Vec<JoinHandle<()>>,
    joiner: Option<Joiner>,
    schema: SchemaRef,
}

impl ArrowBatches {
    /// The next batch, `None` at the end (runs without the GIL).
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, pgc_arrow::Error> {
        loop {
            let Some(joiner) = self.joiner.as_mut() else {
                return Ok(None);
            };
            match self.job.take() {
                Some(converted) => {
                    if let Some(batch) = joiner.push(converted?)? {
                        return Ok(Some(batch));
                    }
                }
                None => return self.joiner.take().map_or(Ok(None), Joiner::finish),
            }
        }
    }

    fn shut_down(&mut self) {
        self.job.stop();
        for t in self.threads.drain(..) {
            // A converting thread catches its panics (see `work`): joining
            // cannot fail.
            let _ = t.join();
        }
    }
}

impl Drop for ArrowBatches {
    fn drop(&mut self) {
        self.shut_down();
    }
}

#[pymethods]
impl ArrowBatches {
    /// The table's schema as an `arrow_schema` capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch (waiting for it without the GIL), or the end.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        let next = py.detach(|| self.next_batch());
        match next {
            Ok(batch) => Ok(batch.map(|batch| ArrowBatch { batch })),
            Err(e) => {
                self.joiner = None;
                py.detach(|| self.shut_down());
                Err(arrow_error(py, &e))
            }
        }
    }
}

/// The games table of PGC bytes as batches converted on `threads`
/// threads (0: one per core) as they are read (see [`ArrowBatches`]); the
/// rows are those of `pgc export`, in batches that are the same for every
/// number of threads. With
/// `where_`, the games that expression of pgc's filter language chooses.
/// Read with the limits `max_string` and `max_rav_depth`.
#[pyfunction]
#[pyo3(signature = (
    data, columns = None, uci = false, san = false, threads = 0, where_ = None, *,
    max_string = None, max_rav_depth = None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_arrow(
    data: PyBackedBytes,
    columns: Option<Vec<String>>,
    uci: bool,
    san: bool,
    #[pyo3(from_py_with = crate::threads::threads_arg)] threads: usize,
    where_: Option<&str>,
    max_string: Option<Bound<'_, PyAny>>,
    max_rav_depth: Option<Bound<'_, PyAny>>,
) -> PyResult<ArrowBatches> {
    let limits = crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    let opts = options(columns, uci, san, limits)?;
    let filter = parse_where(where_)?;
    let threads = thread_count(threads);
    let schema = opts.schema();
    let job = Arc::new(Job {
        data,
        window: 2 * threads,
        opts,
        filter,
        queue: Mutex::new(Queue {
            points: vec![(0, 0)],
            cut: false,
            next_in: 0,
            next_out: 0,
            done: BTreeMap::new(),
            stop: false,
        }),
        changed: Condvar::new(),
    });
    let cutter = Arc::clone(&job);
    let mut workers = vec![std::thread::spawn(move || cutter.cut())];
    for _ in 0..threads.min(job.data.len() / PIECE_BYTES + 1) {
        let job = Arc::clone(&job);
        workers.push(std::thread::spawn(move || job.work()));
    }
    Ok(ArrowBatches {
        job,
        threads: workers,
        joiner: Some(Joiner::default()),
        schema,
    })
}

/// The games of PGC records (the `pgc` column of a games table,
/// concatenated) as one record batch: a row per game, read with the
/// limits `max_string` and `max_rav_depth`. `lengths`: each cell's length
/// in `data`, as little-endian 64-bit integers; every cell must hold
/// whole PGC records (a game cut across two cells is refused, not
/// joined).
#[pyfunction]
#[pyo3(signature = (
    data, columns = None, uci = false, san = false, *, lengths = None, max_string = None,
    max_rav_depth = None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_to_arrow<'py>(
    py: Python<'py>,
    data: &[u8],
    columns: Option<Vec<String>>,
    uci: bool,
    san: bool,
    lengths: Option<&[u8]>,
    max_string: Option<Bound<'py, PyAny>>,
    max_rav_depth: Option<Bound<'py, PyAny>>,
) -> PyResult<ArrowBatch> {
    if let Some(lengths) = lengths {
        check_cells(data, lengths)?;
    }
    let limits = crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    let opts = options(columns, uci, san, limits)?;
    let schema = opts.schema();
    let batch = py
        .detach(|| {
            let mut builder = GamesBuilder::new(&opts);
            let converted = convert(data, 0, 0, &mut builder)?;
            // One push: the batch is held, and `finish` gives it back with
            // the records after its last game.
            let mut joiner = Joiner::default();
            joiner.push(converted)?;
            joiner.finish()
        })
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowBatch {
        batch: batch.unwrap_or_else(|| RecordBatch::new_empty(schema)),
    })
}

/// Checks that `data`, cut at the cell lengths `lengths` (little-endian
/// 64-bit integers), is cells of whole PGC records
/// ([`pgc_arrow::check_pgc_cell`]).
fn check_cells(data: &[u8], lengths: &[u8]) -> PyResult<()> {
    if !lengths.len().is_multiple_of(8) {
        return Err(PyValueError::new_err(format!(
            "cell lengths of {} bytes: expected 8 bytes a cell",
            lengths.len()
        )));
    }
    let mut rest = data;
    for (row, l) in lengths.chunks_exact(8).enumerate() {
        let len = l
            .try_into()
            .map(u64::from_le_bytes)
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= rest.len())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "row {}: the cell's length runs past the data",
                    row + 1
                ))
            })?;
        let (cell, after) = rest.split_at(len);
        pgc_arrow::check_pgc_cell(cell).map_err(|why| {
            PyValueError::new_err(format!(
                "row {}: the cell is not whole PGC records ({why})",
                row + 1
            ))
        })?;
        rest = after;
    }
    if !rest.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{} bytes after the last cell",
            rest.len()
        )));
    }
    Ok(())
}

/// Every column name of a games table, in schema order.
#[pyfunction]
pub(crate) fn column_names() -> Vec<&'static str> {
    Column::ALL.iter().map(|c| c.name()).collect()
}
