//! The number of threads a `threads` argument asks for.

/// Threads for a `threads` argument: 0 is one per core.
pub(crate) fn thread_count(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}
