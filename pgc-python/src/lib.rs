//! `pgc` for Python: PGN ↔ PGC byte for byte, the verifier's problems, and
//! games as tags and UCI moves, through pgc-core and pgn-bridge.
//!
//! ```python
//! import pgc
//! data = pgc.encode(open("games.pgn", "rb").read())
//! assert pgc.decode(data) == open("games.pgn", "rb").read()
//! for game in pgc.games(data):
//!     print(game["tags"].get("White"), game["uci"][:4])
//! ```

use pgc_core::{BulkOptions, BulkReader, Verifier};
use pgn_bridge::{DecodeOptions, EncodeOptions, pgc_to_pgn, pgn_to_pgc};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// A pgc error as a Python `ValueError`, its message positioned (byte,
/// game, ply) as the command line gives it.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// PGN → PGC. Games that cannot be converted stay in the PGC as read
/// (unless `strict`, which writes 1994 records only).
#[pyfunction]
#[pyo3(signature = (pgn, strict = false))]
fn encode<'py>(py: Python<'py>, pgn: &[u8], strict: bool) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = Vec::new();
    let opts = EncodeOptions {
        strict,
        ..EncodeOptions::default()
    };
    pgn_to_pgc(pgn, &mut out, None, &opts).map_err(value_error)?;
    Ok(PyBytes::new(py, &out))
}

/// PGC → PGN: the text the PGC was encoded from, byte for byte (`export`:
/// the export format of section 8.2 instead).
#[pyfunction]
#[pyo3(signature = (data, export = false))]
fn decode<'py>(py: Python<'py>, data: &[u8], export: bool) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = Vec::new();
    let opts = DecodeOptions {
        export,
        ..DecodeOptions::default()
    };
    pgc_to_pgn(data, &mut out, &opts).map_err(value_error)?;
    Ok(PyBytes::new(py, &out))
}

/// Checks PGC bytes written by any tool: a list of problems, each a dict
/// with `offset`, `game` (0-based or None), `ply` (or None), `marker` (or
/// None), `expected` and `found`. Empty when the data is valid.
#[pyfunction]
fn verify<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyList>> {
    let report = Verifier::new().verify(data).map_err(value_error)?;
    let list = PyList::empty(py);
    for p in &report.problems {
        let d = PyDict::new(py);
        d.set_item("offset", p.offset)?;
        d.set_item("game", p.game)?;
        d.set_item("ply", p.ply)?;
        d.set_item("marker", p.marker.map(|m| m.name()))?;
        d.set_item("expected", &p.expected)?;
        d.set_item("found", &p.found)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The games of PGC bytes: a list of dicts with `tags` (name → value, as
/// text), `uci` (the main line in UCI), `result` and `clocks` (the `[%clk]`
/// of each main-line move in milliseconds, None where a move has none).
///
/// A game the walker refuses raises `ValueError` with its position.
#[pyfunction]
fn games<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyList>> {
    let opts = BulkOptions {
        comments: true,
        ..BulkOptions::default()
    };
    let mut reader = BulkReader::new(data, opts);
    let list = PyList::empty(py);
    while let Some(g) = reader.next_game().map_err(value_error)? {
        let tags = PyDict::new(py);
        for (name, value) in g.tags() {
            tags.set_item(
                String::from_utf8_lossy(name),
                String::from_utf8_lossy(value),
            )?;
        }
        let mode = g.castling_mode();
        let uci: Vec<String> = g.moves().map(|m| m.to_uci(mode).to_string()).collect();
        let mut clocks: Vec<Option<u64>> = vec![None; uci.len()];
        for (ply, clock) in g.clocks() {
            if let Some(slot) = (ply as usize)
                .checked_sub(1)
                .and_then(|i| clocks.get_mut(i))
            {
                *slot = Some(clock.millis);
            }
        }
        let d = PyDict::new(py);
        d.set_item("tags", tags)?;
        d.set_item("uci", uci)?;
        d.set_item("result", String::from_utf8_lossy(g.result()))?;
        d.set_item("clocks", clocks)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The module `pgc`.
#[pymodule]
fn pgc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
