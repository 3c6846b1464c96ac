//! The reading limits of a call: its keywords `max_string` and
//! `max_rav_depth` (the command line's `--max-string` and
//! `--max-rav-depth`) as [`pgc_core::Limits`]. Every function of the
//! package that reads PGC or PGN builds its limits here.

use pgc_core::Limits;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;

/// The limits of the keywords `max_string` (longest string or extension
/// payload, in bytes) and `max_rav_depth` (deepest RAV nesting), each None
/// for the default ([`Limits::DEFAULT`]).
///
/// # Errors
/// `ValueError` for a value below 1 or over 2³² − 1; `TypeError` for a
/// value that is not an int (a bool included).
pub(crate) fn limits(
    max_string: Option<&Bound<'_, PyAny>>,
    max_rav_depth: Option<&Bound<'_, PyAny>>,
) -> PyResult<Limits> {
    let d = Limits::DEFAULT;
    Ok(Limits {
        max_string: limit("max_string", max_string, d.max_string)?,
        max_rav_depth: limit("max_rav_depth", max_rav_depth, d.max_rav_depth)?,
    })
}

/// One limit: `value` checked, or `default` when it is None.
fn limit(name: &str, value: Option<&Bound<'_, PyAny>>, default: u32) -> PyResult<u32> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(default);
    };
    let shown = value
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string());
    let out_of_range = || {
        PyValueError::new_err(format!(
            "{name}={shown}: expected an int from 1 to {} (None: the default, {default})",
            u32::MAX
        ))
    };
    // A bool is an int to Python, but `max_rav_depth=True` is a mistake.
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name}={shown}: expected an int or None, not bool"
        )));
    }
    match value.extract::<u32>() {
        Ok(0) => Err(out_of_range()),
        Ok(n) => Ok(n),
        // A negative int, or one over u32.
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Err(out_of_range()),
        Err(_) => {
            let kind = value
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            Err(PyTypeError::new_err(format!(
                "{name}={shown}: expected an int or None, not {kind}"
            )))
        }
    }
}
