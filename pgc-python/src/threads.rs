//! The number of threads a `threads` argument asks for.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Threads for a `threads` argument: 0 is one per core; at most 4 × the
/// cores and at most 256, as for the command line's `-j`
/// ([`pgc_core::worker_threads`]).
pub(crate) fn thread_count(threads: usize) -> usize {
    pgc_core::worker_threads((threads != 0).then_some(threads))
}

/// A `threads` argument from Python: an int of 0 or more. A negative one
/// is a `ValueError` naming the argument (not the `OverflowError` of a
/// conversion to an unsigned number); a value that is no int, a
/// `TypeError`.
pub(crate) fn threads_arg(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    match obj.extract::<u64>() {
        // A huge count is capped (`thread_count`).
        Ok(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        Err(e) => match obj.extract::<i64>() {
            Ok(n) if n < 0 => Err(PyValueError::new_err(format!(
                "threads={n}: expected 0 (one thread per core) or a number of threads"
            ))),
            _ => Err(e),
        },
    }
}
