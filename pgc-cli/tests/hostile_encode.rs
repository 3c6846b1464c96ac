//! `pgc encode` on hostile PGN and damaged compressed input: what it writes
//! is always readable by `pgc decode` and `pgc verify` with their default
//! limits, a truncated game is never completed silently, a damaged stream
//! keeps the games before the damage, and memory stays a small multiple of
//! the largest game.

use std::fs;
use std::path::Path;

mod common;
use common::{run, stderr};

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn code(o: &std::process::Output) -> Option<i32> {
    o.status.code()
}

/// Encodes `pgn` with a rejects file: (exit status, stderr, PGC, rejects).
fn encode_with_rejects(pgn: &[u8], extra: &[&str]) -> (Option<i32>, String, Vec<u8>, Vec<u8>) {
    let d = tmp();
    let input = d.path().join("in.pgn");
    let out = d.path().join("out.pgc");
    let rej = d.path().join("rej.pgn");
    fs::write(&input, pgn).unwrap();
    let mut args = vec!["encode", p(&input), "-o", p(&out), "--rejects", p(&rej)];
    args.extend_from_slice(extra);
    let o = run(&args, b"");
    let pgc_bytes = fs::read(&out).unwrap_or_default();
    let rejects = fs::read(&rej).unwrap_or_default();
    (code(&o), stderr(&o), pgc_bytes, rejects)
}

/// What `pgc decode` makes of `pgc_bytes`, which it must accept.
fn decode(pgc_bytes: &[u8]) -> Vec<u8> {
    let o = run(&["decode", "-q"], pgc_bytes);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    o.stdout
}

/// `pgc verify` accepts `pgc_bytes` with its default limits.
fn verifies(pgc_bytes: &[u8]) {
    let d = tmp();
    let f = d.path().join("x.pgc");
    fs::write(&f, pgc_bytes).unwrap();
    let o = run(&["verify", p(&f)], b"");
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
}

// ---- 6. Encode writes only what decode and verify read ----

/// A tag value, a comment and junk over the readers' 16 MiB default are
/// rejected at encode with a reason naming the limit, the game kept in the
/// rejects file; the other games are written and read back.
#[test]
fn payloads_over_the_read_limit_are_rejected_at_encode() {
    let big = "x".repeat((16 << 20) + 1);
    let good = "[Event \"ok\"]\n\n1. e4 e5 *\n\n";
    for game in [
        format!("[Event \"a\"]\n[White \"{big}\"]\n\n1. e4 *\n\n"),
        format!("[Event \"a\"]\n\n1. e4 {{{big}}} *\n\n"),
        format!("[Event \"a\"]\n\n1. e4 ;{big}\n*\n\n"),
    ] {
        let pgn = format!("{good}{game}{good}");
        let (status, err, out, rejects) = encode_with_rejects(pgn.as_bytes(), &[]);
        assert_eq!(status, Some(1), "{err}");
        assert!(
            err.contains("--max-string") && err.contains("game 2"),
            "{err}"
        );
        assert!(
            rejects.windows(game.len()).any(|w| w == game.as_bytes()),
            "the rejected game is kept whole"
        );
        verifies(&out);
        // The rejected game is kept as read between the two others.
        assert_eq!(decode(&out), pgn.as_bytes());
    }
}

/// Just under the limit, a long tag is written, and decode and verify read
/// it with their defaults.
#[test]
fn a_payload_at_the_read_limit_is_written_and_read_back() {
    // The long-tag payload: a varint of the name's length, the name, the value.
    let value = "y".repeat((16 << 20) - 1 - "White".len());
    let pgn = format!("[Event \"a\"]\n[White \"{value}\"]\n\n1. e4 *\n");
    let (status, err, out, _) = encode_with_rejects(pgn.as_bytes(), &[]);
    assert_eq!(status, Some(0), "{err}");
    verifies(&out);
    assert_eq!(decode(&out), pgn.as_bytes());
}

// ---- 10. A truncated game is reported, never completed ----

#[test]
fn truncated_games_are_rejected_verbatim() {
    let good = "[Event \"a\"]\n\n1. e4 e5 *\n\n";
    for (tail, inside) in [
        ("[White \"", "a tag"),
        ("[Event \"b\"]\n[White \"Ca", "a tag"),
        ("[Event \"b\"]\n\n1. e4 e5 (", "a variation"),
        ("[Event \"b\"]\n\n1. e4 e5 (1... c5 2. Nf3 ", "a variation"),
        ("[Event \"b\"]\n\n1. e4 {never closed", "a { comment"),
        ("[a\"\"]{", "a { comment"),
    ] {
        let pgn = format!("{good}{tail}");
        let (status, err, out, rejects) = encode_with_rejects(pgn.as_bytes(), &[]);
        assert_eq!(status, Some(1), "{tail:?}: {err}");
        assert!(
            err.contains(&format!("ends inside {inside}"))
                && err.contains("game 2 (line 5, byte 25)"),
            "{tail:?}: {err}"
        );
        assert!(String::from_utf8_lossy(&rejects).contains(tail), "{tail:?}");
        // Kept as read at its place: the text comes back whole.
        assert_eq!(decode(&out), pgn.as_bytes());
    }
}

/// The 6-byte input `[a""]{` no longer grows on every round: encode,
/// decode, encode again gives the same bytes.
#[test]
fn round_trips_of_truncated_input_are_a_fixed_point() {
    let mut text = b"[a\"\"]{".to_vec();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let o = run(&["encode", "-q"], &text);
        let pgc_bytes = o.stdout;
        text = decode(&pgc_bytes);
        seen.push(text.clone());
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[1], seen[2]);
}

/// A game that leaves a variation open and is followed by another game is
/// an import file, not a truncated one: its variations are closed.
#[test]
fn an_open_variation_before_the_next_game_is_closed() {
    let pgn = "1. e4 (1. d4\n\n[Event \"b\"]\n\n1. e4 *\n";
    let o = run(&["encode", "-q"], pgn.as_bytes());
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(decode(&o.stdout), pgn.as_bytes());
    let e = run(&["decode", "-q", "--export"], &o.stdout);
    let text = String::from_utf8(e.stdout).unwrap();
    assert!(text.contains("(1. d4)"), "{text}");
}

// ---- 14. NAGs beyond 32 bits ----

#[test]
fn a_nag_beyond_32_bits_is_rejected_not_clamped() {
    let pgn = b"[Event \"a\"]\n\n1. e4 $99999999999999999999999 *\n";
    let (status, err, out, rejects) = encode_with_rejects(pgn, &[]);
    assert_eq!(status, Some(1), "{err}");
    assert!(err.contains("$99999999999999999999999"), "{err}");
    assert_eq!(decode(&out), pgn, "kept as read");
    assert!(rejects.ends_with(pgn));
    // The largest NAG itself is fine.
    let o = run(&["encode", "-q"], b"1. e4 $4294967295 *\n");
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(decode(&o.stdout), b"1. e4 $4294967295 *\n");
}

// ---- 11. Damaged compressed input keeps the games before the damage ----

/// `n` small games, each with a distinct comment (so that compression
/// leaves enough blocks to cut between).
fn games_text(n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut out = Vec::new();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend(format!("[Event \"g{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 {{c {x}}} *\n\n").as_bytes());
    }
    out
}

fn compress(kind: &str, data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    match kind {
        "zst" => zstd::encode_all(data, 3).unwrap(),
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        _ => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

#[test]
fn damaged_compressed_input_keeps_the_games_before_the_damage() {
    let text = games_text(40_000);
    for kind in ["zst", "gz", "bz2"] {
        let whole = compress(kind, &text);
        let truncated = whole[..whole.len() * 2 / 3].to_vec();
        let mut corrupted = whole.clone();
        let mid = corrupted.len() * 2 / 3;
        for b in &mut corrupted[mid..mid + 64] {
            *b ^= 0x5a;
        }
        let mut cases = vec![("truncated", truncated)];
        // gzip and bzip2 check their CRC only at the end of a member or a
        // block: corrupted data may decompress to garbage first, which
        // then reads as PGN junk. zstd refuses a damaged block whole.
        if kind == "zst" {
            cases.push(("corrupted", corrupted));
        }
        for (what, damaged) in cases {
            // One job converts each game as it reads it; more jobs split
            // first: the same output and rejects either way.
            let mut seen: Option<(Vec<u8>, Vec<u8>)> = None;
            for jobs in ["1", "2"] {
                let d = tmp();
                let input = d.path().join(format!("in.pgn.{kind}"));
                let out = d.path().join("out.pgc");
                let rej = d.path().join("rej.pgn");
                fs::write(&input, &damaged).unwrap();
                let o = run(
                    &[
                        "encode",
                        p(&input),
                        "-o",
                        p(&out),
                        "--rejects",
                        p(&rej),
                        "-j",
                        jobs,
                    ],
                    b"",
                );
                let err = stderr(&o);
                assert_eq!(code(&o), Some(1), "{kind} {what}: {err}");
                assert!(
                    err.contains("compressed byte") && err.contains("decompressed byte"),
                    "{kind} {what}: {err}"
                );
                let pgc_bytes = fs::read(&out).expect("the output is written");
                verifies(&pgc_bytes);
                let back = decode(&pgc_bytes);
                assert!(!back.is_empty(), "{kind} {what}: games before the damage");
                assert!(
                    text.starts_with(&back),
                    "{kind} {what}: whole games, in order, then what was read of the cut one"
                );
                // The game at the damage is in the rejects file, with the text
                // that was read of it, which the output also keeps as read.
                let rejects = fs::read(&rej).unwrap();
                let cut = String::from_utf8_lossy(&rejects);
                assert!(cut.contains("damaged"), "{kind} {what}: {cut}");
                let body = cut.split_once('\n').map_or("", |(_, b)| b).as_bytes();
                assert!(!body.is_empty(), "{kind} {what}");
                let body = body.strip_suffix(b"\n").unwrap_or(body);
                assert!(back.ends_with(body), "{kind} {what}");
                let whole = &back[..back.len() - body.len()];
                assert!(whole.ends_with(b"*\n\n"), "{kind} {what}");
                // The rejects name the input, in a directory of its own.
                let rejects = String::from_utf8_lossy(&rejects)
                    .replace(p(&input), "IN")
                    .into_bytes();
                match &seen {
                    None => seen = Some((pgc_bytes, rejects)),
                    Some(s) => assert!(
                        s.0 == pgc_bytes && s.1 == rejects,
                        "{kind} {what}: -j 1 and -j 2 differ"
                    ),
                }
            }
        }
    }
}

#[test]
fn verify_reports_damaged_compressed_pgc_and_checks_the_next_file() {
    let d = tmp();
    let pgn = d.path().join("in.pgn");
    fs::write(&pgn, games_text(4_000)).unwrap();
    let good = d.path().join("good.pgc");
    let o = run(&["encode", "-q", p(&pgn), "-o", p(&good)], b"");
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let pgc_bytes = fs::read(&good).unwrap();
    for kind in ["zst", "gz", "bz2"] {
        let whole = compress(kind, &pgc_bytes);
        let cut = d.path().join(format!("cut.pgc.{kind}"));
        fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
        let o = run(&["verify", p(&cut), p(&good)], b"");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        // Problems in the data (exit 1), not an I/O error (exit 2); the
        // file after it is still checked.
        assert_eq!(code(&o), Some(1), "{kind}: {out}{}", stderr(&o));
        assert!(
            out.contains(&format!("{}: the ", p(&cut)))
                && out.contains("data is damaged before compressed byte")
                && out.contains(&format!("{}: ok: ", p(&good))),
            "{kind}: {out}"
        );
        let o = run(&["verify", "--json", p(&cut), p(&good)], b"");
        let json = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(code(&o), Some(1), "{kind}: {json}");
        assert!(
            json.starts_with("{\"valid\":false,")
                && json.contains("\"found\":\"damaged compressed data\"")
                && json.contains("\"valid\":true"),
            "{kind}: {json}"
        );
    }
}

#[test]
fn readers_of_damaged_compressed_pgc_fail_on_the_data() {
    let d = tmp();
    let pgn = d.path().join("in.pgn");
    fs::write(&pgn, games_text(4_000)).unwrap();
    let good = d.path().join("good.pgc");
    let o = run(&["encode", "-q", p(&pgn), "-o", p(&good)], b"");
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let pgc_bytes = fs::read(&good).unwrap();
    for kind in ["zst", "gz", "bz2"] {
        let whole = compress(kind, &pgc_bytes);
        let cut = d.path().join(format!("cut.pgc.{kind}"));
        fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
        let out = d.path().join("out");
        for args in [
            vec!["decode", p(&cut), "-o", p(&out), "--force"],
            vec!["moves", p(&cut), "-o", p(&out), "--force"],
            vec!["info", p(&cut)],
            vec!["export", p(&cut), "-o", "x.parquet", "--force"],
        ] {
            let mut args = args;
            let parquet = d.path().join("x.parquet");
            if let Some(a) = args.iter_mut().find(|a| **a == "x.parquet") {
                *a = p(&parquet);
            }
            let o = run(&args, b"");
            // A fault of the data (exit 1), not of reading it (exit 2).
            assert_eq!(code(&o), Some(1), "{kind} {args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("data is damaged before compressed byte"),
                "{kind} {args:?}: {}",
                stderr(&o)
            );
        }
    }
}

// ---- 3. Encoding memory is a small multiple of the largest game ----

/// Peak resident memory, in bytes, of `pgc args…` as `/usr/bin/time -v`
/// reports it; `None` (with a note) where there is no such program.
fn peak_rss(args: &[&str]) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipped: /usr/bin/time is not installed (apt-get install time)");
        return None;
    }
    let o = std::process::Command::new(time)
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_pgc"))
        .args(args)
        .output()
        .expect("run /usr/bin/time");
    let err = String::from_utf8_lossy(&o.stderr);
    let kb: u64 = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in: {err}"));
    Some(kb * 1024)
}

/// One game of `nags` NAGs (3 bytes each), the worst case for the encoder's
/// per-token records.
fn nag_game(nags: usize) -> Vec<u8> {
    let mut g = b"[Event \"e\"]\n\n1. e4 ".to_vec();
    g.extend(b"$1 ".repeat(nags));
    g.extend(b"*\n\n");
    g
}

/// The documented bound (README, Limits): encode holds about 3 × the
/// largest game per batch being converted (its text, the layout's record
/// of where the text differs from the rendering, the PGC, held once), plus
/// a fixed few MiB. The test allows 8 × per game in flight and 32 MiB; before
/// the bound, a game of NAGs took 19 ×.
#[test]
fn encode_memory_is_a_small_multiple_of_the_game() {
    let d = tmp();
    let game = nag_game(4_000_000);
    let size = game.len() as u64;
    let one = d.path().join("one.pgn");
    fs::write(&one, &game).unwrap();
    let two = d.path().join("two.pgn");
    fs::write(&two, [&game[..], &game[..]].concat()).unwrap();
    let out = d.path().join("out.pgc");
    let base = 32 << 20;
    for (input, jobs, games) in [(&one, "1", 1), (&two, "2", 2)] {
        let Some(peak) = peak_rss(&[
            "encode",
            "-q",
            "-j",
            jobs,
            p(input),
            "-o",
            p(&out),
            "--force",
        ]) else {
            return;
        };
        let bound = games * 8 * size + base;
        assert!(
            peak <= bound,
            "-j {jobs}, {games} games of {size} bytes: peak {peak} over {bound}"
        );
        assert!(fs::metadata(&out).unwrap().len() > 0);
    }
}

/// The issue's case: two games of twenty million NAGs (57 MiB each, under
/// the default `--max-game-bytes`) with a small game between them encode
/// under 256 MiB at `-j 1` and `-j 2`: a huge game is converted alone,
/// never two at once (they took 460 MB then), and the reader's buffer
/// grown for one is given back before it is converted (with one job too,
/// where other games are converted as they are read).
#[test]
fn two_huge_games_stay_under_256_mib() {
    let d = tmp();
    let game = nag_game(20_000_000);
    let small = b"[Event \"s\"]\n\n1. d4 d5 *\n\n";
    let input = d.path().join("two.pgn");
    fs::write(&input, [&game[..], small, &game[..]].concat()).unwrap();
    let out = d.path().join("two.pgc");
    for jobs in ["1", "2"] {
        let args = ["encode", "-q", "-f", "-j", jobs, p(&input), "-o", p(&out)];
        let Some(peak) = peak_rss(&args) else {
            return;
        };
        assert!(peak <= 256 << 20, "-j {jobs}: peak {} MiB", peak >> 20);
        // Three games, in order.
        let o = run(&["moves", "-q", p(&out)], b"");
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        assert_eq!(o.stdout, b"e2e4 *\nd2d4 d7d5 *\ne2e4 *\n");
    }
}

/// A 50 MB line of junk between two games: the game it makes is kept as
/// read, the file comes back byte for byte, and the run peaks under
/// 256 MiB at `-j 1` and `-j 2`, with and without a rejects file; under a smaller
/// `--max-game-bytes` it is a reject naming the flag.
#[test]
fn a_50_mb_junk_line_between_games_is_kept_in_bounded_memory() {
    let d = tmp();
    let game = b"[Event \"a\"]\n\n1. e4 e5 *\n\n";
    let mut text = game.to_vec();
    text.extend(std::iter::repeat_n(b'x', 50_000_000));
    text.extend(b"\n\n");
    text.extend(game);
    let input = d.path().join("junk.pgn");
    fs::write(&input, &text).unwrap();
    let out = d.path().join("junk.pgc");
    let rej = d.path().join("junk.rej");
    for jobs in ["1", "2"] {
        for extra in [&[][..], &["--rejects", p(&rej)][..]] {
            let mut args = vec!["encode", "-q", "-f", "-j", jobs, p(&input), "-o", p(&out)];
            args.extend_from_slice(extra);
            let Some(peak) = peak_rss(&args) else {
                return;
            };
            assert!(
                peak <= 256 << 20,
                "-j {jobs} {extra:?}: peak {} MiB",
                peak >> 20
            );
            assert!(
                decode(&fs::read(&out).unwrap()) == text,
                "-j {jobs} {extra:?}: not the same bytes"
            );
        }
    }
    let o = run(
        &[
            "encode",
            "-f",
            "--max-game-bytes",
            "10000000",
            p(&input),
            "-o",
            p(&out),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(1));
    assert!(stderr(&o).contains("--max-game-bytes"), "{}", stderr(&o));
}

// ---- 14. Blank lines are no game ----

/// Blank lines beyond `--max-game-bytes` are no game, not "game 1 … is
/// larger than"; a game after them is converted with its true line.
#[test]
fn blank_lines_over_the_limit_are_no_game() {
    let blank = vec![b'\n'; 1 << 20];
    let o = run(&["encode", "--max-game-bytes", "100000"], &blank);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("0 games"), "{}", stderr(&o));
    let mut pgn = blank.clone();
    pgn.extend(b"[Event \"a\"]\n\n1. e4 Ke7 *\n");
    let (status, err, out, _) = encode_with_rejects(&pgn, &["--max-game-bytes", "100000"]);
    assert_eq!(status, Some(1), "{err}");
    // The rejected game is kept as read, with the blank lines kept before it.
    let back = decode(&out);
    assert!(pgn.ends_with(&back) && back.ends_with(b"[Event \"a\"]\n\n1. e4 Ke7 *\n"));
    // The game starts with the blank lines kept before it: its position is
    // past those dropped.
    assert!(
        err.contains("rejected game 1 (line ") && !err.contains("(line 1,"),
        "{err}"
    );
    assert!(!err.contains("larger than"), "{err}");
}

// ---- 14. A game over --max-game-bytes is a rejected game ----

/// One game over the limit no longer aborts the run: it is rejected (its
/// whole text kept as read in the output and in the rejects file) and the
/// games after it are converted.
#[test]
fn a_game_over_the_size_limit_is_rejected_and_the_run_goes_on() {
    let first = "[Event \"a\"]\n\n1. e4 e5 *\n\n";
    let big = format!(
        "[Event \"big\"]\n\n1. e4 {{{}\n\n",
        "x\n[no tag\n".repeat(30_000)
    );
    let last = "[Event \"c\"]\n\n1. d4 d5 *\n";
    let pgn = format!("{first}{big}{last}");
    for jobs in ["1", "2"] {
        let (status, err, out, rejects) =
            encode_with_rejects(pgn.as_bytes(), &["--max-game-bytes", "100000", "-j", jobs]);
        assert_eq!(status, Some(1), "{err}");
        assert!(
            err.contains("rejected game 2 (line 5, byte 25)") && err.contains("--max-game-bytes"),
            "{err}"
        );
        // Kept as read in the output, as other rejected games are.
        assert_eq!(decode(&out), pgn.as_bytes());
        let rejects = String::from_utf8(rejects).unwrap();
        let (header, body) = rejects.split_once('\n').unwrap();
        assert!(
            header.contains("larger than the limit of 100000 bytes"),
            "{header}"
        );
        assert_eq!(body, big);
        // Without a rejects file too (the text goes through a temporary
        // file all the same).
        let o = run(
            &["encode", "-q", "--max-game-bytes", "100000", "-j", jobs],
            pgn.as_bytes(),
        );
        assert_eq!(code(&o), Some(1), "{}", stderr(&o));
        assert_eq!(decode(&o.stdout), pgn.as_bytes());
    }
}

// ---- One job reads each game once ----

/// With one job each game is converted as it is read; a game that runs
/// past the reader's buffer is read again and converted from its copy
/// (over 1 MiB: after its batch, once the buffer is given back). Small
/// games, such games, a rejected game among them, and a game over
/// `--max-game-bytes`: `-j 1` writes what `-j 2` writes, rejects
/// included, and the output decodes to the input.
#[test]
fn one_job_converts_games_as_read_like_two() {
    let small = |i: usize| format!("[Event \"{i}\"]\n\n1. e4 {{note {i}}} e5 2. Nf3 1-0\n\n");
    let long = |n: usize, tag: &str| {
        let mut g = format!("[Event \"{tag}\"]\n\n1. d4 {{").into_bytes();
        g.resize(n, b'w');
        g.extend(b"} d5 (1... Nf6 2. c4) 2. c4 *\n\n");
        g
    };
    let mut pgn = Vec::new();
    for i in 0..300 {
        pgn.extend(small(i).bytes());
    }
    pgn.extend(long(300_000, "straddles"));
    pgn.extend(b"[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n\n");
    for i in 0..200 {
        pgn.extend(small(i).bytes());
    }
    pgn.extend(long(3_000_000, "huge"));
    for i in 0..50 {
        pgn.extend(small(i).bytes());
    }
    pgn.extend(long(5_000_000, "over the limit"));
    for i in 0..5 {
        pgn.extend(small(i).bytes());
    }
    let limit = ["--max-game-bytes", "4000000"];
    let (c1, e1, pgc1, rej1) = encode_with_rejects(&pgn, &[&["-j", "1"][..], &limit].concat());
    let (c2, e2, pgc2, rej2) = encode_with_rejects(&pgn, &[&["-j", "2"][..], &limit].concat());
    assert_eq!(c1, Some(1), "{e1}");
    assert_eq!(c2, Some(1), "{e2}");
    assert!(
        e1.contains("Ke3") && e1.contains("--max-game-bytes"),
        "{e1}"
    );
    assert!(pgc1 == pgc2, "-j 1 and -j 2 write different PGC");
    // The rejects name the input, in a directory of its own each run.
    let named = |r: &[u8]| {
        String::from_utf8_lossy(r)
            .lines()
            .map(|l| match l.split_once("in.pgn:") {
                Some((_, rest)) if l.starts_with("% pgc: rejected ") => format!("IN:{rest}"),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
    };
    assert!(!rej1.is_empty());
    assert!(
        named(&rej1) == named(&rej2),
        "-j 1 and -j 2 write different rejects"
    );
    verifies(&pgc1);
    // The whole input comes back byte for byte, the game over the limit
    // (never held whole: verbatim records of at most 1 MiB each) included.
    assert!(decode(&pgc1) == pgn, "the decode is the input");
    // With --strict the game over the limit leaves the output, as every
    // rejected game's text does.
    let (c, e, strict, _) = encode_with_rejects(&pgn, &[&["--strict"][..], &limit].concat());
    assert_eq!(c, Some(1), "{e}");
    let back = decode(&strict);
    assert!(
        !back.windows(20).any(|w| w == b"[Event \"over the li")
            && back.windows(20).any(|w| w == b"[Event \"straddles\"]\n"),
        "--strict keeps the games it converts and drops the one over the limit"
    );
}

#[test]
fn places_count_lone_cr_and_crlf_line_ends() {
    // Classic Mac OS line ends (a CR alone), and CRLF.
    for (nl, line) in [("\r", 3), ("\r\n", 3), ("\n", 3)] {
        let pgn = format!("[Event \"a\"]{nl}{nl}1. e5 *{nl}");
        let (code, err, _, _) = encode_with_rejects(pgn.as_bytes(), &[]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains(&format!("ply 1 (line {line}, ")),
            "{nl:?}: {err}"
        );
    }
    let pgn = "[Event \"a\"]\r\r1. e4 *\r\r[Event \"b\"]\r\r1. e5 *\r";
    let (_, err, _, _) = encode_with_rejects(pgn.as_bytes(), &[]);
    assert!(err.contains("rejected game 2 (line 5, "), "{err}");
}

#[test]
fn lone_cr_text_keeps_escape_lines_and_line_comments_as_such() {
    // In classic Mac OS text a `%` after a CR is an escape line and a `;`
    // comment ends at the next CR: both games convert, none is rejected,
    // and the file comes back byte for byte.
    let pgn = b"[Event \"a\"]\r\r% note\r1. e4 ; aside\re5 *\r%x\r[Event \"b\"]\r\r1. d4 *\r";
    let (code, err, pgc_bytes, rejects) = encode_with_rejects(pgn, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("2 games, 3 plies, 0 rejected"), "{err}");
    assert!(rejects.is_empty());
    verifies(&pgc_bytes);
    assert_eq!(decode(&pgc_bytes), pgn);
}
