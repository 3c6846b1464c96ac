//! The native part of the Python package `pgc` (`pgc._pgc`): PGN ↔ PGC
//! byte for byte, the verifier's problems, games as Python values, games
//! tables as Arrow record batches (through the Arrow C data interface) and
//! training arrays. The package (`python/pgc/`) wraps it; its docstrings and
//! stubs (`python/pgc/_pgc.pyi`) are the reference.
//!
//! Every conversion runs with the GIL released (`Python::detach`), on the
//! number of threads asked (`threads=0`: one per core). Every function that
//! reads PGC or PGN takes the keywords `max_string` and `max_rav_depth`, the
//! command line's `--max-string` and `--max-rav-depth` (the module
//! `limits` makes them `pgc_core::Limits`).

mod arrow;
mod error;
mod games;
mod input;
mod limits;
mod pages;
mod par_encode;
mod threads;
mod training;

use error::{PgcError, RejectedGamesWarning, bridge_error, python_words, walk_error};
use input::Data;
use limits::limits;
use pgc_core::Verifier;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// PGN → PGC on `threads` threads (0: one per core; the PGC is the same
/// for every number). Games that cannot be converted stay in the PGC as
/// read (unless `strict`, which writes 1994 records only): among them,
/// those with RAVs nested deeper than `max_rav_depth` or a payload longer
/// than `max_string`. Compressed PGN is decompressed first; PGC is
/// refused.
#[pyfunction]
#[pyo3(signature = (pgn, strict = false, threads = 0, *, max_string = None, max_rav_depth = None))]
fn encode<'py>(
    py: Python<'py>,
    pgn: Data<'py>,
    strict: bool,
    #[pyo3(from_py_with = crate::threads::threads_arg)] threads: usize,
    max_string: Option<Bound<'py, PyAny>>,
    max_rav_depth: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let limits = limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    let pgn = pgn.bytes();
    let text = py
        .detach(|| input::pgn_text(pgn))
        .map_err(|m| error::plain_error(py, m))?;
    let (out, rejected) = py
        .detach(|| par_encode::encode_pgn(&text, strict, threads, limits))
        .map_err(|e| bridge_error(py, &e))?;
    error::warn_rejected(py, &rejected, strict, 1)?;
    Ok(PyBytes::new(py, &out))
}

/// PGC → PGN: the text the PGC was encoded from, byte for byte (`export`:
/// the export format of section 8.2 instead), read with the limits
/// `max_string` and `max_rav_depth`.
#[pyfunction]
#[pyo3(signature = (data, export = false, *, max_string = None, max_rav_depth = None))]
fn decode<'py>(
    py: Python<'py>,
    data: Data<'py>,
    export: bool,
    max_string: Option<Bound<'py, PyAny>>,
    max_rav_depth: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let limits = limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    let data = data.bytes();
    if let Some(c) = pgn_bridge::sniff::compression(data) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "the data is compressed with {}; decompress it first, or give it to pgc.to_pgc \
             or pgc.read, which read zstd, gzip and bzip2",
            c.name()
        )));
    }
    if input::format_of(data) == pgn_bridge::sniff::Format::Pgn {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "the data is PGN text, not PGC: pgc.encode turns it into PGC",
        ));
    }
    let out = py
        .detach(|| games::pgn_of(data, export, limits))
        .map_err(|e| bridge_error(py, &e))?;
    Ok(PyBytes::new(py, &out))
}

/// One problem of PGC data found by `verify`.
#[pyclass(frozen, module = "pgc", get_all)]
struct Problem {
    /// Byte offset of the record (of the ordinal byte for a bad move).
    offset: u64,
    /// 0-based game, or None.
    game: Option<u64>,
    /// Ply within the game, or None.
    ply: Option<u32>,
    /// The record's marker name, or None.
    marker: Option<&'static str>,
    /// What the standard expects.
    expected: String,
    /// What the data holds instead.
    found: String,
    /// The problem as the command line prints it.
    message: String,
}

#[pymethods]
impl Problem {
    fn __str__(&self) -> &str {
        &self.message
    }

    fn __repr__(&self) -> String {
        format!("<pgc.Problem {}>", self.message)
    }

    /// The attribute `key` (`problem["offset"]` is `problem.offset`).
    fn __getitem__<'py>(slf: &Bound<'py, Self>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        const KEYS: [&str; 7] = [
            "offset", "game", "ply", "marker", "expected", "found", "message",
        ];
        if KEYS.contains(&key) {
            slf.getattr(key)
        } else {
            Err(pyo3::exceptions::PyKeyError::new_err(key.to_string()))
        }
    }
}

/// Checks PGC bytes written by any tool, as `pgc verify` does (text-patched
/// games rendered), with the limits `max_string` and `max_rav_depth`: the
/// problems found (empty when the data is valid), in input order.
#[pyfunction]
#[pyo3(signature = (data, *, max_string = None, max_rav_depth = None))]
fn verify<'py>(
    py: Python<'py>,
    data: Data<'py>,
    max_string: Option<Bound<'py, PyAny>>,
    max_rav_depth: Option<Bound<'py, PyAny>>,
) -> PyResult<Vec<Problem>> {
    let verifier = Verifier::new().limits(limits(max_string.as_ref(), max_rav_depth.as_ref())?);
    let data = data.bytes();
    let report = py
        .detach(|| pgn_bridge::verify(&verifier, data))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    Ok(report
        .problems
        .iter()
        .map(|p| Problem {
            offset: p.offset,
            game: p.game,
            ply: p.ply,
            marker: p.marker.map(|m| m.name()),
            expected: python_words(&p.expected),
            found: python_words(&p.found),
            message: python_words(&p.to_string()),
        })
        .collect())
}

/// The number of games of PGC bytes, every game walked (moves decoded and
/// checked) with the limits `max_string` and `max_rav_depth`: raises
/// `PgcError` at the first invalid one.
#[pyfunction]
#[pyo3(signature = (data, *, max_string = None, max_rav_depth = None))]
fn count_games(
    py: Python<'_>,
    data: &[u8],
    max_string: Option<Bound<'_, PyAny>>,
    max_rav_depth: Option<Bound<'_, PyAny>>,
) -> PyResult<u64> {
    let opts = pgc_core::BulkOptions {
        limits: limits(max_string.as_ref(), max_rav_depth.as_ref())?,
        ..pgc_core::BulkOptions::default()
    };
    let r = py.detach(|| {
        let mut reader = pgc_core::BulkReader::new(data, opts);
        let mut n = 0u64;
        while reader.next_game()?.is_some() {
            n += 1;
        }
        Ok::<u64, pgc_core::WalkError>(n)
    });
    r.map_err(|e| walk_error(py, &e))
}

/// The module `pgc._pgc`.
#[pymodule]
fn _pgc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PgcError", py.get_type::<PgcError>())?;
    m.add(
        "RejectedGamesWarning",
        py.get_type::<RejectedGamesWarning>(),
    )?;
    m.add_class::<Problem>()?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(count_games, m)?)?;
    m.add_function(wrap_pyfunction!(input::to_pgc, m)?)?;
    m.add_function(wrap_pyfunction!(input::decompress, m)?)?;
    m.add_function(wrap_pyfunction!(input::sniff, m)?)?;
    m.add_function(wrap_pyfunction!(games::check_options, m)?)?;
    m.add_class::<games::GameReader>()?;
    m.add_class::<games::GameRecord>()?;
    m.add_class::<arrow::ArrowBatches>()?;
    m.add_class::<arrow::ArrowBatch>()?;
    m.add_class::<training::Column>()?;
    m.add_function(wrap_pyfunction!(arrow::read_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::batch_to_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::column_names, m)?)?;
    m.add_function(wrap_pyfunction!(training::training_arrays, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
