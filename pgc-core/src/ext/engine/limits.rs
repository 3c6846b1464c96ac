//! The bounds of an engine-notes record.

/// Most templates one record holds.
pub const MAX_TEMPLATES: usize = 255;
/// Most streams one record holds.
pub const MAX_STREAMS: usize = 255;
/// Largest magnitude of a number (18 decimal digits).
pub const MAX_NUMBER: i64 = 999_999_999_999_999_999;
/// Most moves of one move list.
pub const MAX_MOVES: usize = 1024;
/// The move lists of a record, shared prefixes copied, hold at most this
/// many times the payload's bytes: a reader never allocates more than a
/// small multiple of what it was given.
pub const MAX_EXPANSION: usize = 16;
