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
