//! pgc's errors as the Python exception `pgc.PgcError`, positioned, and
//! the warning `pgc.RejectedGamesWarning`, their messages in the words of
//! the Python keywords ([`python_words`]).

use crate::par_encode::Rejected;
use pgc_core::{Position, WalkError, WalkErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use std::ffi::CString;

create_exception!(
    pgc,
    PgcError,
    PyValueError,
    "Invalid PGN or PGC input. The message is the command line's (a limit \
     named by this package's keyword: max_string=..., max_rav_depth=...); the \
     attributes place it: offset (byte), line (PGN), game (0-based), ply, \
     marker (the PGC record's), expected and found (the game grammar's \
     rule), each None when unknown."
);

create_exception!(
    pgc,
    RejectedGamesWarning,
    PyUserWarning,
    "PGN games that could not be converted (an illegal move, a variant pgc \
     does not play): kept in the PGC as read, so the bytes come back, but \
     not read as games (left out with strict=True). The message gives \
     their number and the first ten with their places and reasons, as \
     `pgc encode` lists them."
);

/// Where and what, as far as known.
#[derive(Default)]
struct Place {
    pos: Position,
    marker: Option<&'static str>,
    expected: Option<String>,
    found: Option<String>,
}

/// The command line's limit options that the core's messages name, and
/// the keywords of the package's functions that raise the same limits.
const KEYWORDS: [(&str, &str); 2] = [
    ("--max-rav-depth", "max_rav_depth=..."),
    ("--max-string", "max_string=..."),
];

/// A message of the core for a Python user: the command line's limit
/// options it names (`raise it with --max-rav-depth`) as the keywords
/// that raise the same limits (`raise it with max_rav_depth=...`).
pub(crate) fn python_words(message: &str) -> String {
    KEYWORDS
        .iter()
        .fold(message.to_string(), |m, (flag, keyword)| {
            m.replace(flag, keyword)
        })
}

fn raise(py: Python<'_>, message: String, place: Place) -> PyErr {
    let err = PgcError::new_err(python_words(&message));
    let v = err.value(py);
    let set = || -> PyResult<()> {
        v.setattr("offset", place.pos.offset)?;
        v.setattr("line", place.pos.line)?;
        v.setattr("game", place.pos.game)?;
        v.setattr("ply", place.pos.ply)?;
        v.setattr("marker", place.marker)?;
        v.setattr("expected", place.expected)?;
        v.setattr("found", place.found)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

fn walk_place(e: &WalkError) -> Place {
    let (expected, found) = match &e.kind {
        WalkErrorKind::Structure(g) => (Some(g.expected()), Some(g.found())),
        _ => (None, None),
    };
    Place {
        pos: e.position(),
        marker: e.marker.map(|m| m.name()),
        expected,
        found,
    }
}

/// A walking error (invalid PGC) as `PgcError`.
pub(crate) fn walk_error(py: Python<'_>, e: &WalkError) -> PyErr {
    raise(py, e.to_string(), walk_place(e))
}

/// An error of pgn-bridge: invalid input as `PgcError`, a failed write as
/// `OSError`.
pub(crate) fn bridge_error(py: Python<'_>, e: &pgn_bridge::Error) -> PyErr {
    match e {
        pgn_bridge::Error::Walk(w) => walk_error(py, w),
        pgn_bridge::Error::Io(io) => PyOSError::new_err(io.to_string()),
        other => raise(
            py,
            other.to_string(),
            Place {
                pos: other.position().unwrap_or_default(),
                ..Place::default()
            },
        ),
    }
}

/// An error of pgc-arrow as `PgcError` (invalid input, or input a table
/// cannot hold: records but no game) or `ValueError` (a column name, a
/// table without `pgc`).
pub(crate) fn arrow_error(py: Python<'_>, e: &pgc_arrow::Error) -> PyErr {
    match e {
        pgc_arrow::Error::Walk(w) => walk_error(py, w),
        pgc_arrow::Error::Io(io) | pgc_arrow::Error::Index(io) => {
            raise(py, io.to_string(), Place::default())
        }
        pgc_arrow::Error::NoGame { .. } => raise(py, e.to_string(), Place::default()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// A message without a place as `PgcError`.
pub(crate) fn plain_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, message, Place::default())
}

/// Warns (`pgc.RejectedGamesWarning`) of the games `rejected` holds: how
/// many, what became of them, and the first few with their places and
/// reasons, raised `stacklevel` frames up (1: the caller). Nothing when
/// there are none.
pub(crate) fn warn_rejected(
    py: Python<'_>,
    rejected: &Rejected,
    strict: bool,
    stacklevel: i32,
) -> PyResult<()> {
    if rejected.count == 0 {
        return Ok(());
    }
    let fate = if strict {
        "left out (strict)"
    } else {
        "kept as read, not as games"
    };
    let mut message = format!(
        "{} PGN game(s) could not be converted, {fate}: {}",
        rejected.count,
        python_words(&rejected.first.join("; "))
    );
    if rejected.count > rejected.first.len() as u64 {
        message.push_str("; …");
    }
    // A NUL in a reason (the text of a token) cannot pass to C.
    let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    PyErr::warn(
        py,
        &py.get_type::<RejectedGamesWarning>(),
        &message,
        stacklevel,
    )
}
