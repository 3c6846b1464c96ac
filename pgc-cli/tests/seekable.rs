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

#[test]
fn games_on_seekable_pick_the_games_of_plain_pgc() {
    let f = fixture(24_000, 4096);
    ok(&["index", "-q", p(&f.pgc)]);
    ok(&["index", "-q", p(&f.zst)]);
    let idx = std::fs::read(f.dir.path().join("games.pgc.zst.idx")).unwrap();
    assert_eq!(&idx[..8], b"PGCZIX1\n");
    for range in [
        "1",
        "1..5",
        "2000..2010",
        "9999..10010",
        "23990..",
        "23999..30000",
    ] {
        for cmd in ["decode", "moves"] {
            let want = ok(&[cmd, "-q", "--games", range, p(&f.pgc)]);
            assert!(!want.is_empty(), "{cmd} {range}");
            for jobs in ["1", "3"] {
                let got = ok(&[cmd, "-q", "-j", jobs, "--games", range, p(&f.zst)]);
                assert_eq!(got, want, "{cmd} --games {range} -j {jobs}");
            }
        }
    }
    // The Round tag says which game was picked.
    let one = String::from_utf8(ok(&["decode", "-q", "--games", "12345", p(&f.zst)])).unwrap();
    assert!(one.contains("[Round \"12345\"]"), "{one}");
    assert_eq!(one.matches("[Event ").count(), 1);
    // With the index, frames before the game's are not read: damage in one
    // of them (in the middle of the file, which the index's fingerprint
    // does not cover) does not matter.
    let z = std::fs::read(&f.zst).unwrap();
    let table = seek_table(&z);
    let mut at = 0;
    let mut damaged = z.clone();
    for &(c, _) in &table {
        if at > 8192 {
            damaged[at + c / 2] ^= 0xff;
            break;
        }
        at += c;
    }
    assert!(at > 8192 && at < z.len() / 2, "a frame in the first half");
    std::fs::write(&f.zst, &damaged).unwrap();
    let last = ok(&["decode", "-q", "--games", "23999..", p(&f.pgc)]);
    assert_eq!(ok(&["decode", "-q", "--games", "23999..", p(&f.zst)]), last);
    // Without the index the file is scanned, and the damage found.
    std::fs::remove_file(f.dir.path().join("games.pgc.zst.idx")).unwrap();
    let o = run_env(&["decode", "-q", "--games", "23999..", p(&f.zst)], None);
    // A fault of the data (exit 1, as for a damaged zstd stream), which
    // names where the good data ends: the damaged frame's start.
    assert_eq!(o.status.code(), Some(1), "the damaged frame is read");
    let start: u64 = table
        .iter()
        .scan(0usize, |off, &(c, d)| {
            let here = (*off, d);
            *off += c;
            Some(here)
        })
        .take_while(|&(off, _)| off < at)
        .map(|(_, d)| d as u64)
        .sum();
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        e.contains("zstd frame")
            && e.contains(&format!("after {start} good decompressed bytes"))
            && start > 0,
        "{e}"
    );
    // Every game before the damaged frame is written.
    let o = run_env(&["decode", "-q", p(&f.zst)], None);
    assert_eq!(o.status.code(), Some(1));
    let whole = ok(&["decode", "-q", p(&f.pgc)]);
    assert!(!o.stdout.is_empty() && whole.starts_with(&o.stdout));
    std::fs::write(&f.zst, &z).unwrap();
    assert_eq!(
        ok(&["decode", "-q", "--games", "12345", p(&f.zst)]),
        one.as_bytes()
    );
    // Every game, for every -j.
    let all = ok(&["moves", "-q", p(&f.pgc)]);
    for jobs in ["1", "2", "4"] {
        assert_eq!(
            ok(&["moves", "-q", "-j", jobs, p(&f.zst)]),
            all,
            "-j {jobs}"
        );
    }
}

#[test]
fn a_bad_seek_table_is_a_positioned_error() {
    let f = fixture(3000, 4096);
    let z = std::fs::read(&f.zst).unwrap();
    let n = z.len();
    let bad = f.dir.path().join("bad.pgc.zst");
    // A frame count the file cannot hold.
    let mut huge = z.clone();
    huge[n - 9..n - 5].copy_from_slice(&0x07ff_ffffu32.to_le_bytes());
    std::fs::write(&bad, &huge).unwrap();
    for cmd in ["decode", "moves", "index"] {
        let o = run_env(&[cmd, "-q", p(&bad)], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{cmd}: {err}");
        assert!(
            err.contains(&format!("footer at byte {}", n - 9)) && err.contains("134217727 frames"),
            "{cmd}: {err}"
        );
    }
    // Sizes that do not add up: the first frame listed longer than the file.
    let frames = u32::from_le_bytes(z[n - 9..n - 5].try_into().unwrap()) as usize;
    let table_at = n - (8 + frames * 8 + 9);
    let mut sizes = z.clone();
    sizes[table_at + 8..table_at + 12].copy_from_slice(&(n as u32).to_le_bytes());
    std::fs::write(&bad, &sizes).unwrap();
    let o = run_env(&["decode", "-q", p(&bad)], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("seek table at byte {table_at}")),
        "{err}"
    );
    // A one-stream .zst cannot be indexed, but is read.
    let one = f.dir.path().join("one.pgc.zst");
    std::fs::write(
        &one,
        zstd::encode_all(&std::fs::read(&f.pgc).unwrap()[..], 3).unwrap(),
    )
    .unwrap();
    let o = run_env(&["index", "-q", p(&one)], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("seekable"));
    assert_eq!(
        ok(&["decode", "-q", "--games", "17", p(&one)]),
        ok(&["decode", "-q", "--games", "17", p(&f.pgc)])
    );
}

/// The lines of `pgc split --ranges`: (part, start, end, first game, games).
fn ranges(file: &Path, n: &str) -> Vec<[u64; 5]> {
    let out = String::from_utf8(ok(&["split", "--ranges", "-n", n, p(file)])).unwrap();
    out.lines()
        .map(|l| {
            let v: Vec<u64> = l.split('\t').map(|x| x.parse().expect(l)).collect();
            v.try_into().expect(l)
        })
        .collect()
}

fn verifies(file: &Path) {
    let o = run_env(&["verify", p(file)], None);
    assert_eq!(
        o.status.code(),
        Some(0),
        "verify {}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn split_parts_concatenate_to_the_input_and_verify() {
    let f = fixture(24_000, 4096);
    let plain = std::fs::read(&f.pgc).unwrap();
    let prefix = f.dir.path().join("part");
    ok(&["split", "-q", "-n", "5", p(&f.pgc), "-o", p(&prefix)]);
    let mut joined = Vec::new();
    let r = ranges(&f.pgc, "5");
    assert_eq!(r.len(), 5);
    let mut games = 0;
    for (k, line) in r.iter().enumerate() {
        let part = f.dir.path().join(format!("part.{}.pgc", k + 1));
        let bytes = std::fs::read(&part).unwrap();
        assert_eq!(line[0], k as u64 + 1);
        assert_eq!(line[1], joined.len() as u64, "ranges follow each other");
        assert_eq!(bytes, plain[line[1] as usize..line[2] as usize]);
        assert!(matches!(bytes[0], 0x01 | 0x05), "part {k} starts a game");
        // About a fifth each.
        let fifth = plain.len() / 5;
        assert!(
            bytes.len().abs_diff(fifth) < fifth / 10,
            "part {k}: {}",
            bytes.len()
        );
        verifies(&part);
        // The part holds the games the line says, numbered as in the file.
        assert_eq!(line[3], games + 1);
        let first = String::from_utf8(ok(&["decode", "-q", "--games", "1", p(&part)])).unwrap();
        assert!(
            first.contains(&format!("[Round \"{}\"]", line[3])),
            "{first}"
        );
        games += line[4];
        joined.extend_from_slice(&bytes);
    }
    assert_eq!(joined, plain);
    assert_eq!(games, 24_000);
    // Parts are not overwritten without --force.
    let o = run_env(
        &["split", "-q", "-n", "5", p(&f.pgc), "-o", p(&prefix)],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    ok(&[
        "split",
        "-q",
        "-n",
        "5",
        "--force",
        p(&f.pgc),
        "-o",
        p(&prefix),
    ]);
}

#[test]
fn split_does_not_cut_at_a_damaged_index_entry() {
    let f = fixture(3_000, 4096);
    let want = ranges(&f.pgc, "4");
    ok(&["index", "-q", p(&f.pgc)]);
    // Every entry one byte into its game: size and fingerprint still match.
    let idx_path = f.dir.path().join("games.pgc.idx");
    let mut idx = pgc_core::GameIndex::from_bytes(&std::fs::read(&idx_path).unwrap()).unwrap();
    for o in idx.offsets.iter_mut().skip(1) {
        *o += 1;
    }
    std::fs::write(&idx_path, idx.to_bytes()).unwrap();
    assert_eq!(
        ranges(&f.pgc, "4"),
        want,
        "cuts fall on game starts, as without the index"
    );
    let o = run_env(&["split", "--ranges", "-n", "4", p(&f.pgc)], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is no game start"), "{err}");
}

/// More parts than games: the parts follow each other and hold every game
/// once, some of them empty, with or without a game index, and with no
/// word of a damaged index (the cut of an empty part at the end of the
/// file is the file's end, no game start).
#[test]
fn split_into_more_parts_than_games_gives_empty_parts() {
    let f = fixture(5, 4096);
    let size = std::fs::metadata(&f.pgc).unwrap().len();
    for indexed in [false, true] {
        if indexed {
            ok(&["index", "-q", p(&f.pgc)]);
        }
        for n in ["8", "16", "40"] {
            let o = run_env(&["split", "--ranges", "-n", n, p(&f.pgc)], None);
            assert_eq!(o.status.code(), Some(0), "indexed={indexed}, n={n}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                !err.contains("no game start"),
                "indexed={indexed}, n={n}: {err}"
            );
            let r = ranges(&f.pgc, n);
            assert_eq!(r.len().to_string(), n, "indexed={indexed}");
            let (mut at, mut games) = (0, 0);
            for line in &r {
                assert_eq!((line[1], line[3]), (at, games + 1), "n={n}: {r:?}");
                (at, games) = (line[2], games + line[4]);
            }
            assert_eq!((at, games), (size, 5), "indexed={indexed}, n={n}: {r:?}");
        }
    }
}

#[test]
fn split_of_a_seekable_file_cuts_between_frames() {
    let f = fixture(24_000, 4096);
    let plain = std::fs::read(&f.pgc).unwrap();
    let z = std::fs::read(&f.zst).unwrap();
    let prefix = f.dir.path().join("zpart");
    ok(&["split", "-q", "-n", "3", p(&f.zst), "-o", p(&prefix)]);
    let r = ranges(&f.zst, "3");
    let mut joined = Vec::new();
    let mut decompressed = Vec::new();
    for (k, line) in r.iter().enumerate() {
        let part = f.dir.path().join(format!("zpart.{}.pgc.zst", k + 1));
        let bytes = std::fs::read(&part).unwrap();
        // The part is the range's frames and a seek table of its own.
        let range = &z[line[1] as usize..line[2] as usize];
        assert_eq!(&bytes[..range.len()], range);
        let table = seek_table(&bytes);
        let listed: usize = table.iter().map(|e| e.0).sum();
        assert_eq!(listed, range.len());
        // The range alone is a zstd stream of whole games.
        let data = zstd::decode_all(range).expect("a range decompresses alone");
        assert!(matches!(data[0], 0x01 | 0x05));
        assert_eq!(zstd_d(&part), data);
        verifies(&part);
        decompressed.extend_from_slice(&data);
        joined.extend_from_slice(&bytes);
    }
    assert_eq!(decompressed, plain);
    // Concatenated, the parts are one seekable file with the input's data.
    let cat = f.dir.path().join("cat.pgc.zst");
    std::fs::write(&cat, &joined).unwrap();
    assert_eq!(zstd_d(&cat), plain);
    assert_eq!(
        ok(&["moves", "-q", "-j", "2", p(&cat)]),
        ok(&["moves", "-q", p(&f.pgc)])
    );
    ok(&["index", "-q", p(&cat)]);
    assert_eq!(
        ok(&["decode", "-q", "--games", "20000..20003", p(&cat)]),
        ok(&["decode", "-q", "--games", "20000..20003", p(&f.pgc)])
    );
    // A one-stream .zst cannot be split.
    let one = f.dir.path().join("one.pgc.zst");
    std::fs::write(&one, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();
    let o = run_env(&["split", "--ranges", "-n", "2", p(&one)], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("seekable"));
}

#[test]
fn a_seekable_file_through_a_pipe_is_read_as_a_stream() {
    let f = fixture(3000, 4096);
    let want = ok(&["moves", "-q", p(&f.pgc)]);
    // A named pipe: nothing may be read from it before the stream is.
    let fifo = f.dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let zst = f.zst.clone();
    let fifo_w = fifo.clone();
    let writer = std::thread::spawn(move || {
        std::fs::write(&fifo_w, std::fs::read(&zst).unwrap()).unwrap();
    });
    assert_eq!(ok(&["moves", "-q", "-j", "2", p(&fifo)]), want);
    writer.join().unwrap();
    // stdin.
    let mut c = pgc();
    c.args(["moves", "-q", "-"]);
    c.stdin(std::fs::File::open(&f.zst).unwrap());
    let o = c.output().unwrap();
    assert_eq!(o.stdout, want);
}

/// A seekable file as another writer may make it: frames cut every
/// `every` bytes, inside games and records, and the seek table written
/// here by the published layout.
fn foreign_seekable(data: &[u8], every: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut entries = Vec::new();
    for chunk in data.chunks(every) {
        let z = zstd::encode_all(chunk, 3).unwrap();
        entries.push((z.len() as u32, chunk.len() as u32));
        out.extend_from_slice(&z);
    }
    out.extend_from_slice(&0x184d_2a5eu32.to_le_bytes());
    out.extend_from_slice(&((entries.len() * 8 + 9) as u32).to_le_bytes());
    for (c, d) in &entries {
        out.extend_from_slice(&c.to_le_bytes());
        out.extend_from_slice(&d.to_le_bytes());
    }
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.push(0);
    out.extend_from_slice(&0x8f92_eab1u32.to_le_bytes());
    out
}

#[test]
fn frames_cut_inside_games_are_read_and_never_started_at() {
    let f = fixture(3000, 4096);
    let plain = std::fs::read(&f.pgc).unwrap();
    let foreign = f.dir.path().join("foreign.pgc.zst");
    // 997 bytes: frames start inside games and inside records.
    std::fs::write(&foreign, foreign_seekable(&plain, 997)).unwrap();
    assert_eq!(zstd_d(&foreign), plain);
    ok(&["index", "-q", p(&foreign)]);
    for range in ["1", "5..9", "1234..1240", "2999..", "1500..1500"] {
        for jobs in ["1", "2"] {
            assert_eq!(
                ok(&["decode", "-q", "-j", jobs, "--games", range, p(&foreign)]),
                ok(&["decode", "-q", "--games", range, p(&f.pgc)]),
                "--games {range} -j {jobs}"
            );
        }
    }
    // Split cuts only where a frame starts a game: every part verifies.
    let prefix = f.dir.path().join("fpart");
    ok(&["split", "-q", "-n", "4", p(&foreign), "-o", p(&prefix)]);
    let mut all = Vec::new();
    for k in 1..=4 {
        let part = f.dir.path().join(format!("fpart.{k}.pgc.zst"));
        verifies(&part);
        all.extend(zstd_d(&part));
    }
    assert_eq!(all, plain);
}

#[test]
fn a_stale_frame_index_is_said_and_ignored() {
    let f = fixture(6000, 4096);
    ok(&["index", "-q", p(&f.zst)]);
    // Rewritten with other frames: the index no longer fits.
    ok_env(
        &["encode", "-q", "--force", p(&f.pgn), "-o", p(&f.zst)],
        Some(1 << 20),
    );
    let o = run_env(&["decode", "--games", "5000..5002", p(&f.zst)], None);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("games.pgc.zst.idx is stale"), "{err}");
    assert_eq!(
        o.stdout,
        ok(&["decode", "-q", "--games", "5000..5002", p(&f.pgc)])
    );
    // A game index of another kind in its place.
    ok(&["index", "-q", p(&f.pgc)]);
    std::fs::copy(
        f.dir.path().join("games.pgc.idx"),
        f.dir.path().join("games.pgc.zst.idx"),
    )
    .unwrap();
    let o = run_env(&["decode", "--games", "5000", p(&f.zst)], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not usable"));
    assert_eq!(
        o.stdout,
        ok(&["decode", "-q", "--games", "5000", p(&f.pgc)])
    );
}

#[test]
fn split_refuses_a_one_stream_compression_by_its_whole_magic() {
    let f = fixture(2_000, 4096);
    let plain = std::fs::read(&f.pgc).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &plain).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    std::io::Write::write_all(&mut bz, &plain).unwrap();
    let one_stream = zstd::encode_all(&plain[..], 3).unwrap();
    for (name, bytes) in [
        ("gz", gz.finish().unwrap()),
        ("bz2", bz.finish().unwrap()),
        ("zst", one_stream),
        // xz: only its magic, which names it before anything is read.
        ("xz", b"\xfd7zXZ\0\0\x04\xe6\xd6\xb4\x46".to_vec()),
    ] {
        let path = f.dir.path().join(format!("games.pgc.{name}"));
        std::fs::write(&path, bytes).unwrap();
        let o = run_env(&["split", "--ranges", "-n", "2", p(&path)], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{name}");
        assert!(err.contains("is compressed as one stream"), "{name}: {err}");
    }
}

/// `pgc verify` checks the seek table as `decode` follows it: a table
/// whose compressed sizes run past the file, or a frame that does not
/// decompress to the table's size, is a problem (exit 1), and `decode`
/// fails on the same files.
#[test]
fn verify_checks_the_seek_table_as_decode_follows_it() {
    let f = fixture(3000, 2048);
    let z = std::fs::read(&f.zst).unwrap();
    let table = seek_table(&z);
    assert!(table.len() >= 2, "several frames");
    let at = z.len() - (8 + table.len() * 8 + 9);
    let bad = f.dir.path().join("bad.pgc.zst");
    // Entry 0's compressed size (+100), then its decompressed size (+1).
    for (field, what) in [(0, "compressed bytes"), (4, "decompressed bytes")] {
        let mut b = z.clone();
        let i = at + 8 + field;
        let v = u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let v = if field == 0 { v + 100 } else { v + 1 };
        b[i..i + 4].copy_from_slice(&v.to_le_bytes());
        std::fs::write(&bad, &b).unwrap();
        let o = run_env(&["verify", p(&bad)], None);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(o.status.code(), Some(1), "{what}: {out}");
        assert!(
            out.contains("seek table") && out.contains("invalid"),
            "{what}: {out}"
        );
        let o = run_env(&["decode", "-q", p(&bad)], None);
        assert_eq!(o.status.code(), Some(1), "{what}: decode");
        let o = run_env(&["verify", "--json", p(&bad)], None);
        let json = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(
            json.contains("\"valid\":false") && json.contains("seek table"),
            "{what}: {json}"
        );
    }
    assert_eq!(run_env(&["verify", p(&f.zst)], None).status.code(), Some(0));
}

/// `pgc verify` reads a seekable file frame by frame, as `decode` does: a
/// damaged frame in the middle ends the data at the frame's start, the
/// games before it are checked, and nothing after it is reported as
/// problems of its own.
#[test]
fn verify_stops_at_a_damaged_frame_where_it_starts() {
    let f = fixture(12_000, 2048);
    let z = std::fs::read(&f.zst).unwrap();
    let table = seek_table(&z);
    assert!(table.len() >= 4, "several frames: {}", table.len());
    let (at, start) = table[..2]
        .iter()
        .fold((0, 0), |(a, s), &(c, d)| (a + c, s + d));
    let mut b = z.clone();
    b[at + table[2].0 / 2] ^= 0xff;
    let bad = f.dir.path().join("bad.pgc.zst");
    std::fs::write(&bad, &b).unwrap();
    let o = run_env(&["verify", p(&bad)], None);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!("after {start} good decompressed bytes"))
            && out.contains("zstd frame 3")
            && out.contains(&format!("invalid: 1 problem in {start} bytes")),
        "{out}"
    );
}
