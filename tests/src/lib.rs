//! Workspace-level test helpers: where the shared corpus is and how to read
//! it, where a round trip's bytes first differ from the input, and random
//! Chess960 set-ups for the property tests.
//!
//! The corpus lives beside the checkout in `../shared/corpus` (or wherever
//! `$PGC_CORPUS` points). Tests that need it call [`corpus_dir`] and skip
//! with a printed reason when it is absent; `.ci/run` sets
//! `PGC_REQUIRE_CORPUS=1`, which turns that skip into a failure.

use std::path::{Path, PathBuf};

/// The corpus directory, or `None` (after printing why) when it is absent.
///
/// # Panics
/// When `PGC_REQUIRE_CORPUS` is set and the corpus is missing: CI must not
/// pass silently without its data.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PGC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if dir.join("MANIFEST.md").is_file() {
        return Some(dir);
    }
    if std::env::var_os("PGC_REQUIRE_CORPUS").is_some() {
        panic!("corpus not found at {} (set PGC_CORPUS)", dir.display());
    }
    eprintln!(
        "skipping: corpus not found at {} (set PGC_CORPUS)",
        dir.display()
    );
    None
}

/// Every PGN file of the corpus (`.pgn`, `.pgn.zst`, and the extensionless
/// fuzz seed), sorted by path.
pub fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "MANIFEST.md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The bytes of a corpus file, decompressed when it ends in `.zst`.
///
/// # Panics
/// When the file cannot be read.
pub fn read_corpus_file(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "zst") {
        zstd::decode_all(&raw[..]).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    } else {
        raw
    }
}

/// The path relative to the corpus directory, for messages.
pub fn short(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).display().to_string()
}

/// The FEN of a random Chess960 starting position, White to move; `below(n)`
/// is a random number below `n` (the caller's seeded generator).
pub fn chess960_fen(mut below: impl FnMut(usize) -> usize) -> String {
    let mut rank = [None::<char>; 8];
    rank[below(4) * 2] = Some('b');
    rank[below(4) * 2 + 1] = Some('b');
    for piece in ['q', 'n', 'n'] {
        let free: Vec<usize> = (0..8).filter(|&i| rank[i].is_none()).collect();
        rank[free[below(free.len())]] = Some(piece);
    }
    // The king between the rooks: the three squares left, in order.
    let mut rest = ['r', 'k', 'r'].into_iter();
    for slot in &mut rank {
        if slot.is_none() {
            *slot = rest.next();
        }
    }
    let black: String = rank.iter().flatten().collect();
    let white = black.to_ascii_uppercase();
    format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1")
}

/// Where `ours` (a round trip's bytes) first differs from `original`, with
/// `context` bytes of each around it: `from byte N (A bytes back, B
/// read): ours "…" / original "…"`.
pub fn first_difference(ours: &[u8], original: &[u8], context: usize) -> String {
    let at = ours
        .iter()
        .zip(original)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(original.len()));
    let show = |s: &[u8]| {
        String::from_utf8_lossy(&s[at.saturating_sub(context)..(at + context).min(s.len())])
            .into_owned()
    };
    format!(
        "from byte {at} ({} bytes back, {} read): ours {:?} / original {:?}",
        ours.len(),
        original.len(),
        show(ours),
        show(original)
    )
}
