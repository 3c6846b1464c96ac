//! The game's result: the Result tag (section 8.1.1.7) against the game
//! termination marker (section 8.2.6).
//!
//! The decoder writes the termination marker from the Result tag. When the
//! marker says the same, nothing more is stored; when it differs (or one of
//! them is missing), a TERMINATION extension record keeps the marker as
//! written. A marker with records after it (a `;` comment, an escape line)
//! keeps its place with that record even when it agrees.

use pgc_core::ext::Outcome;

/// What the records must say about the termination marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Termination {
    /// The Result tag gives the marker: no record.
    FromTag,
    /// A TERMINATION record with the marker.
    Record {
        /// The marker ([`Outcome::Missing`] when the game had none).
        outcome: Outcome,
        /// Whether the Result tag says the same (then the record only keeps
        /// the marker's place; strict mode loses nothing by leaving it out).
        agrees: bool,
    },
}

/// Reconciles the Result tag's value (`None`: no Result tag) with the
/// termination marker (`None`: no marker at depth 0); `records_after`:
/// records were added after the marker.
pub(crate) fn reconcile(
    result_tag: Option<&[u8]>,
    marker: Option<Outcome>,
    records_after: bool,
) -> Termination {
    let outcome = marker.unwrap_or(Outcome::Missing);
    let agrees = result_tag.is_some_and(|v| v == outcome.as_bytes());
    if agrees && !records_after {
        Termination::FromTag
    } else {
        Termination::Record { outcome, agrees }
    }
}
