//! Limits checked before anything is allocated or recursed.
//!
//! A PGC length field may claim up to 4 GiB (string-4) and a file may nest
//! RAVs without end. Every reader checks a claimed length or a depth against
//! these limits *before* it reserves memory or descends, and reports which
//! limit was hit and how to raise it.

/// Resource limits for reading PGC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest string or extension payload accepted, in bytes. Default 16 MiB.
    pub max_string: u32,
    /// Deepest RAV nesting accepted. Default 256.
    pub max_rav_depth: u32,
}

impl Limits {
    /// The default limits: 16 MiB strings, RAV depth 256.
    pub const DEFAULT: Limits = Limits {
        max_string: 16 << 20,
        max_rav_depth: 256,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// The most worker threads a conversion uses, however many are asked for.
pub const MAX_THREADS: usize = 256;

/// The number of worker threads for a request: `requested`, or one per
/// core; at least 1, at most 4 × the cores and at most [`MAX_THREADS`]
/// (more threads than that only cost memory: each holds batches of its
/// own).
pub fn worker_threads(requested: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = cores.saturating_mul(4).min(MAX_THREADS);
    requested.unwrap_or(cores).clamp(1, most)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_threads_are_clamped() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(worker_threads(Some(0)), 1);
        assert_eq!(worker_threads(Some(1)), 1);
        assert_eq!(worker_threads(Some(20_000)), (4 * cores).min(256));
        assert_eq!(worker_threads(Some(usize::MAX)), (4 * cores).min(256));
        assert_eq!(worker_threads(None), cores.min(256));
    }
}
