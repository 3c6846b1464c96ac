//! End-to-end tests of seekable `.pgc.zst` output (zstd's seekable format):
//! what the real `zstd` command makes of it, its seek table read here by a
//! parser of the test's own, `--games` and `-j` on it, and `pgc split`.
//!
//! The frames are made small with `PGC_ZSTD_FRAME_BYTES` so that a small
//! input has many.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::pgc;

/// `n` games, each with its number in the Round tag and a few moves that
/// vary with it.
fn games_pgn(n: usize) -> Vec<u8> {
    let moves = [
        "1. e4 e5 2. Nf3 Nc6",
        "1. d4 d5 2. c4 e6",
        "1. c4 e5 2. g3 Nf6",
    ];
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            "[Event \"seekable test\"]\n[Round \"{}\"]\n[Result \"*\"]\n\n{} {{game {}}} *\n\n",
            i + 1,
            moves[i % moves.len()],
            i + 1
        ));
    }
    out.into_bytes()
}

fn run_env(args: &[&str], frame_bytes: Option<usize>) -> Output {
    let mut c = pgc();
    c.args(args);
    if let Some(n) = frame_bytes {
        c.env("PGC_ZSTD_FRAME_BYTES", n.to_string());
    }
    c.output().expect("run pgc")
}

fn ok_env(args: &[&str], frame_bytes: Option<usize>) -> Vec<u8> {
    let o = run_env(args, frame_bytes);
    assert_eq!(
        o.status.code(),
        Some(0),
        "pgc {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn ok(args: &[&str]) -> Vec<u8> {
    ok_env(args, None)
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// `zstd -dc FILE`: the reference decompressor.
fn zstd_d(path: &Path) -> Vec<u8> {
    let o = Command::new("zstd")
        .args(["-dc", "-q"])
        .arg(path)
        .output()
        .expect("the zstd command (scripts/test installs it)");
    assert!(
        o.status.success(),
        "zstd -dc {}: {}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// The seek table at the end of `file`, read by the published layout:
/// (compressed, decompressed) size of each frame.
fn seek_table(file: &[u8]) -> Vec<(usize, usize)> {
    let n = file.len();
    let word = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(word(n - 4), 0x8f92_eab1, "seekable magic at the end");
    let frames = word(n - 9);
    assert_eq!(file[n - 5], 0, "descriptor: no checksums, no reserved bits");
    let table = 8 + frames * 8 + 9;
    let at = n - table;
    assert_eq!(word(at), 0x184d_2a5e, "skippable frame magic");
    assert_eq!(word(at + 4), frames * 8 + 9, "skippable frame size");
    (0..frames)
        .map(|i| (word(at + 8 + i * 8), word(at + 12 + i * 8)))
        .collect()
}

struct Fixture {
    dir: tempfile::TempDir,
    pgn: PathBuf,
    pgc: PathBuf,
    zst: PathBuf,
}

/// `games` games as PGN, as plain PGC and as seekable `.pgc.zst` with
/// frames of about `frame` bytes.
fn fixture(games: usize, frame: usize) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, games_pgn(games)).expect("write");
    let pgc = dir.path().join("games.pgc");
    let zst = dir.path().join("games.pgc.zst");
    ok(&["encode", "-q", p(&pgn), "-o", p(&pgc)]);
    ok_env(
        &["encode", "-q", "-j", "1", p(&pgn), "-o", p(&zst)],
        Some(frame),
    );
    Fixture { dir, pgn, pgc, zst }
}

#[test]
fn zstd_reads_the_seekable_output_and_the_table_adds_up() {
    let f = fixture(24_000, 4096);
    let plain = std::fs::read(&f.pgc).unwrap();
    let z = std::fs::read(&f.zst).unwrap();
    assert_eq!(
        &z[..4],
        &[0x28, 0xb5, 0x2f, 0xfd],
        "starts with a zstd frame"
    );
    assert_eq!(zstd_d(&f.zst), plain, "zstd -d gives the PGC");
    let table = seek_table(&z);
    assert!(table.len() > 10, "{} frames", table.len());
    let compressed: usize = table.iter().map(|e| e.0).sum();
    assert_eq!(compressed + 8 + table.len() * 8 + 9, z.len());
    let decompressed: usize = table.iter().map(|e| e.1).sum();
    assert_eq!(decompressed, plain.len());
    // Every frame decompresses alone and starts a game (0x05 or 0x01).
    let mut at = 0;
    let mut d = 0;
    for (i, &(c, n)) in table.iter().enumerate() {
        let data = zstd::decode_all(&z[at..at + c]).expect("one frame");
        assert_eq!(data, plain[d..d + n], "frame {i}");
        assert!(matches!(data[0], 0x01 | 0x05), "frame {i} starts a game");
        if i + 1 < table.len() {
            assert!(n >= 4096, "frame {i} ends only after the frame size");
        }
        at += c;
        d += n;
    }
    // The same bytes for every -j.
    for jobs in ["2", "3"] {
        let other = f.dir.path().join(format!("j{jobs}.pgc.zst"));
        ok_env(
            &["encode", "-q", "-j", jobs, p(&f.pgn), "-o", p(&other)],
            Some(4096),
        );
        assert_eq!(std::fs::read(&other).unwrap(), z, "-j {jobs}");
    }
    // pgc reads it back.
    assert_eq!(
        ok(&["decode", "-q", p(&f.zst)]),
        ok(&["decode", "-q", p(&f.pgc)])
    );
}

#[test]
fn an_empty_output_is_a_seekable_file_zstd_reads() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.pgn");
    std::fs::write(&empty, b"").unwrap();
    let zst = d.path().join("empty.pgc.zst");
    ok(&["encode", "-q", p(&empty), "-o", p(&zst)]);
    assert!(zstd_d(&zst).is_empty());
    let table = seek_table(&std::fs::read(&zst).unwrap());
    assert_eq!(table.len(), 1);
    assert_eq!(table[0].1, 0);
}
