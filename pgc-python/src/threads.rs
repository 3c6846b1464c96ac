//! The number of threads a `threads` argument asks for.

/// Threads for a `threads` argument: 0 is one per core; at most 4 × the
/// cores and at most 256, as for the command line's `-j`
/// ([`pgc_core::worker_threads`]).
pub(crate) fn thread_count(threads: usize) -> usize {
    pgc_core::worker_threads((threads != 0).then_some(threads))
}
