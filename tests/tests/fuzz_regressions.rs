//! Replays the fuzz targets' invariants without the fuzzer: every committed
//! seed (`fuzz/corpus/<target>/`) and every crash the fuzzers found
//! (`tests/fuzz-regressions/<target>-<what>`), through the very check
//! functions the targets run (`fuzz/src/checks.rs`, included here).
//!
//! A crash input is named after its target and the bug it found, and stays
//! here after the fix so the bug cannot come back.

#[path = "../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

fn check(target: &str) -> fn(&[u8]) {
    match target {
        "pgc_read" => checks::check_pgc,
        "pgn_read" => checks::check_pgn,
        "roundtrip" => checks::check_roundtrip,
        "byte_at_a_time" => checks::check_chunked,
        other => panic!("unknown fuzz target {other}"),
    }
}

fn replay(target: &str, path: &Path) {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let f = check(target);
    if std::panic::catch_unwind(|| f(&data)).is_err() {
        panic!("{target} fails on {}", path.display());
    }
}

#[test]
fn committed_seed_corpora_pass_every_check() {
    for target in ["pgc_read", "pgn_read", "roundtrip", "byte_at_a_time"] {
        let dir = root().join("fuzz/corpus").join(target);
        let inputs = files(&dir);
        assert!(!inputs.is_empty(), "{}: no seeds", dir.display());
        for path in inputs {
            replay(target, &path);
        }
    }
}

#[test]
fn every_crash_found_stays_fixed() {
    let inputs = files(&root().join("tests/fuzz-regressions"));
    assert!(!inputs.is_empty());
    for path in inputs {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let target = ["pgc_read", "pgn_read", "roundtrip", "byte_at_a_time"]
            .into_iter()
            .find(|t| name.starts_with(&format!("{t}-")))
            .unwrap_or_else(|| panic!("{name}: name it <target>-<what>"));
        replay(target, &path);
        // Every crash input is also a valid input for the other readers.
        checks::check_chunked(&[[0u8].as_slice(), &std::fs::read(&path).unwrap()].concat());
    }
}

/// A tag pair after a `;` comment or an unknown extension before the movetext
/// (found by pgn_read and pgc_read): the encoder wrote such PGC and the
/// walker refused it while the verifier accepted it.
#[test]
fn tags_after_a_line_comment_decode() {
    let pgn = b"; a comment before the tags\n[Event \"x\"]\n\n1. e4 *\n";
    let (pgc, stats) = checks::encode(pgn).unwrap();
    assert_eq!(stats.rejected, 0);
    let back = checks::decode(&pgc).unwrap();
    // Export text: the same, with the blank line that ends a game.
    assert!(back.starts_with(pgn), "{}", String::from_utf8_lossy(&back));
}
