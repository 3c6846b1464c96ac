//! End-to-end tests: run the built `pgc` binary for every command and every
//! convention of the command line (stdin/stdout, compression, several
//! inputs, concatenation, `-j`, rejects, exit codes, broken pipe, atomic
//! output, SIGKILL) and on hand-made broken PGC files.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

mod common;
use common::{pgc, root, run, stderr, stdout};

fn sample(name: &str) -> PathBuf {
    root().join("samples").join(name)
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Asserts a command succeeded and returns its stdout.
fn ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let o = run(args, stdin);
    assert_eq!(code(&o), 0, "pgc {args:?}: {}", stderr(&o));
    o.stdout
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read")
}

/// The first three games of mixed.pgn (the fourth is rejected).
fn mixed_good() -> Vec<u8> {
    let text = read(&sample("mixed.pgn"));
    let s = String::from_utf8(text).expect("utf-8");
    let cut = s.find("[Event \"Broken game\"]").expect("broken game");
    s.as_bytes()[..cut].to_vec()
}

fn encode(pgn: &[u8]) -> Vec<u8> {
    ok(&["encode", "-q"], pgn)
}

fn decode(pgc_bytes: &[u8]) -> Vec<u8> {
    ok(&["decode", "-q"], pgc_bytes)
}

/// Files left in a directory (to check that no temporary file remains).
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A sizeable PGN: a corpus file repeated, or the samples repeated when the
/// corpus is absent.
fn big_pgn(copies: usize) -> Vec<u8> {
    let corpus = std::env::var_os("PGC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"));
    let capa = corpus.join("louis-yay__AIchess/data/Capablanca.pgn");
    let one = match std::fs::read(&capa) {
        Ok(b) => b,
        Err(_) => {
            eprintln!(
                "note: {} not found (set PGC_CORPUS); using the samples repeated instead",
                capa.display()
            );
            let mut b = read(&sample("opera.pgn"));
            b.extend(mixed_good());
            let one = b.clone();
            for _ in 0..200 {
                b.extend(&one);
            }
            b
        }
    };
    let mut all = Vec::with_capacity(one.len() * copies);
    for _ in 0..copies {
        all.extend_from_slice(&one);
        if !all.ends_with(b"\n\n") {
            all.extend_from_slice(b"\n\n");
        }
    }
    all
}

// ---------------------------------------------------------------- encode/decode

#[test]
fn a_tag_over_255_bytes_is_a_tag_to_every_reader() {
    // Stored as a long-tag extension record (its value needs more than a
    // byte of length), it is a tag to JSON Lines, `--where` and `moves`.
    let long = "x".repeat(300);
    let pgn = format!("[Event \"{long}\"]\n[Black \"b\"]\n\n1. e4 1-0\n");
    let pgc_bytes = encode(pgn.as_bytes());
    assert_eq!(decode(&pgc_bytes), pgn.as_bytes());
    let json = String::from_utf8(ok(&["decode", "-q", "--format", "jsonl"], &pgc_bytes)).unwrap();
    assert!(
        json.contains(&format!("\"Event\":\"{long}\",\"Black\":\"b\"")),
        "{json}"
    );
    let kept = ok(&["decode", "-q", "--where", "Event~xxxx"], &pgc_bytes);
    assert_eq!(kept, pgn.as_bytes());
    let none = ok(&["decode", "-q", "--where", "Event=y"], &pgc_bytes);
    assert!(none.is_empty());
}

#[test]
fn lines_from_other_tools_read_as_python_chess_reads_them() {
    // A comment after the termination marker is the game's; a tag name
    // repeated on the next line stays in its game; long algebraic with
    // hyphens is read; a small file whose comment holds control bytes is
    // PGN. Every file comes back byte for byte.
    let cases: [(&[u8], &str); 4] = [
        (
            b"[Event \"x\"]\n\n1. e4 e5 1-0 {White won on time}\n\n[Event \"y\"]\n\n1. d4 d5 0-1\n",
            "e2e4 e7e5 1-0\nd2d4 d7d5 0-1\n",
        ),
        (
            b"[Event \"x\"]\n[White \"a\"]\n[White \"b\"]\n\n1. e4 1-0\n",
            "e2e4 1-0\n",
        ),
        (b"1. e2-e4 e7-e5 2. Ng1-f3 1-0\n", "e2e4 e7e5 g1f3 1-0\n"),
        (
            b"[Event \"x\"]\n\n1. e4 {a\x01b\x02c} e5 1-0\n",
            "e2e4 e7e5 1-0\n",
        ),
    ];
    for (pgn, moves) in cases {
        let o = run(&["encode"], pgn);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(stderr(&o).contains("0 rejected"), "{}", stderr(&o));
        assert_eq!(decode(&o.stdout), pgn);
        let listed = ok(&["moves", "-q"], &o.stdout);
        assert_eq!(String::from_utf8_lossy(&listed), moves);
    }
}

#[test]
fn opera_round_trips_through_files_byte_for_byte() {
    let d = tmp();
    let pgc_path = d.path().join("opera.pgc");
    let back = d.path().join("opera.pgn");
    let o = run(
        &["encode", p(&sample("opera.pgn")), "-o", p(&pgc_path)],
        b"",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The summary line.
    let e = stderr(&o);
    assert!(e.contains("pgc: 1 games, 36 plies, 0 rejected"), "{e}");
    assert!(
        e.contains(" in, ") && e.contains(" out (") && e.ends_with(" s\n"),
        "{e}"
    );
    ok(&["decode", p(&pgc_path), "-o", p(&back)], b"");
    assert_eq!(read(&back), read(&sample("opera.pgn")));
    assert_eq!(listing(d.path()), ["opera.pgc", "opera.pgn"]);
}

#[test]
fn decode_counts_the_text_it_gives_back_as_read() {
    // mixed.pgn: three games and a rejected one, kept as text.
    let pgn = read(&sample("mixed.pgn"));
    let pgc_bytes = run(&["encode", "-q"], &pgn).stdout;
    let o = run(&["decode"], &pgc_bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, pgn);
    let e = stderr(&o);
    assert!(
        e.contains("pgc: 3 games, ") && e.contains(" plies, 1 kept as text, "),
        "{e}"
    );
    // A selection writes games only, and counts no text; nor does the
    // strict export format, which has no place for it.
    for args in [
        &["decode", "--where", "Plies>0"][..],
        &["decode", "--strict-export"],
    ] {
        let o = run(args, &pgc_bytes);
        assert!(!stderr(&o).contains("kept as text"), "{}", stderr(&o));
    }
}

#[test]
fn stdin_and_stdout_with_dash_or_no_file() {
    let pgn = read(&sample("opera.pgn"));
    let a = ok(&["encode", "-q"], &pgn);
    let b = ok(&["encode", "-q", "-", "-o", "-"], &pgn);
    assert_eq!(a, b);
    assert_eq!(a[0], 0x05);
    assert_eq!(ok(&["decode", "-q", "-"], &a), pgn);
    // --quiet: nothing on stderr.
    let o = run(&["decode", "--quiet"], &a);
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
}

#[test]
fn zstd_in_and_out_and_gzip_bzip2_in() {
    let d = tmp();
    let pgn = read(&sample("opera.pgn"));
    let zpgc = d.path().join("opera.pgc.zst");
    ok(
        &["encode", "-q", p(&sample("opera.pgn")), "-o", p(&zpgc)],
        b"",
    );
    let z = read(&zpgc);
    assert_eq!(&z[..4], &[0x28, 0xb5, 0x2f, 0xfd], "zstd magic");
    let plain = encode(&pgn);
    assert_eq!(zstd::decode_all(&z[..]).expect("zstd"), plain);
    // .zst input, .zst output.
    let zpgn = d.path().join("back.pgn.zst");
    ok(&["decode", "-q", p(&zpgc), "-o", p(&zpgn)], b"");
    assert_eq!(zstd::decode_all(&read(&zpgn)[..]).expect("zstd"), pgn);
    // Compressed input on stdin is recognised by content.
    assert_eq!(ok(&["decode", "-q"], &z), pgn);
    // A .zst PGN input.
    let zin = zstd::encode_all(&pgn[..], 3).expect("zstd");
    assert_eq!(ok(&["encode", "-q"], &zin), plain);
    // gzip and bzip2 inputs.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&pgn).expect("gz");
    let gz = gz.finish().expect("gz");
    let gz_path = d.path().join("opera.pgn.gz");
    std::fs::write(&gz_path, &gz).expect("write");
    assert_eq!(ok(&["encode", "-q", p(&gz_path)], b""), plain);
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&pgn).expect("bz2");
    let bz = bz.finish().expect("bz2");
    let bz_path = d.path().join("opera.pgn.bz2");
    std::fs::write(&bz_path, &bz).expect("write");
    assert_eq!(ok(&["encode", "-q", p(&bz_path)], b""), plain);
    // Two concatenated zstd frames are read as one stream.
    let mut two = z.clone();
    two.extend_from_slice(&z);
    let mut want = pgn.clone();
    want.extend_from_slice(&pgn);
    assert_eq!(ok(&["decode", "-q"], &two), want);
    // xz and zip are named, and refused.
    for (data, name) in [(&b"\xfd7zXZ\0rest"[..], "xz"), (b"PK\x03\x04rest", "zip")] {
        let o = run(&["encode", "-q"], data);
        assert_eq!(o.status.code(), Some(2));
        let want = format!("compressed with {name}, which pgc does not read");
        assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    }
}

#[test]
fn text_that_starts_like_a_bzip2_header_stays_text() {
    // "BZh" and a digit are only the start of a bzip2 header: the file is
    // PGN text (here a line before the first game), kept byte for byte.
    let d = tmp();
    let mut pgn = b"BZh9 notes before the games\n".to_vec();
    pgn.extend_from_slice(&read(&sample("opera.pgn")));
    let path = d.path().join("notes.pgn");
    std::fs::write(&path, &pgn).expect("write");
    let pgc = d.path().join("notes.pgc");
    // The line is no game: it is kept as a rejected one (exit 1).
    let o = run(&["encode", "-q", p(&path), "-o", p(&pgc)], b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(ok(&["decode", "-q", p(&pgc)], b""), pgn);
    // The same text compressed with bzip2 is read through the compressor.
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&pgn).expect("bz2");
    let bz = bz.finish().expect("bz2");
    let o = run(&["encode", "-q"], &bz);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(o.stdout, read(&pgc));
}

#[test]
fn nul_bytes_alone_are_kept_as_pgn_padding() {
    // A file of NUL bytes (preallocated, or left by a crash) holds no
    // record and no text: encode keeps it, decode gives it back, whatever
    // its length.
    let d = tmp();
    for n in [1usize, 4096] {
        let path = d.path().join(format!("zeros{n}.pgn"));
        std::fs::write(&path, vec![0u8; n]).expect("write");
        let pgc = ok(&["encode", "-q", p(&path)], b"");
        assert_eq!(ok(&["decode", "-q"], &pgc), vec![0u8; n]);
    }
    // A run longer than the sniffer looks at (which frames as PGC padding
    // records) is PGN padding to `pgc encode` too, alone or before games.
    let game = b"[Event \"a\"]\n\n1. e4 e5 *\n".to_vec();
    for (n, after) in [(100_000usize, Vec::new()), (70_000, game)] {
        let mut text = vec![0u8; n];
        text.extend_from_slice(&after);
        let path = d.path().join(format!("zeros{n}.pgn"));
        std::fs::write(&path, &text).expect("write");
        let o = run(&["encode", p(&path)], b"");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let games = if after.is_empty() {
            "0 games"
        } else {
            "1 games, 2 plies"
        };
        assert!(stderr(&o).contains(games), "{}", stderr(&o));
        assert_eq!(ok(&["decode", "-q"], &o.stdout), text);
    }
    // A lone record marker is no PGC file: the message says it is cut off.
    let path = d.path().join("one.pgn");
    std::fs::write(&path, [0x01]).expect("write");
    let o = run(&["encode", "-q", p(&path)], b"");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("not PGN text") && e.contains("cut off"), "{e}");
}

/// PGN after a run of NUL bytes longer than the sniffer's window (64 KiB)
/// is PGN to the commands that read PGC too, as after a shorter run and as
/// `pgc encode` reads it: `pgc info` read it as PGC (70,000 no-op records,
/// then a failure at the first `[`). PGC after such a run, or NULs alone,
/// is still PGC.
#[test]
fn pgn_after_more_than_64_kib_of_nul_bytes_is_pgn_to_info() {
    let d = tmp();
    let game = b"[Event \"a\"]\n\n1. e4 e5 *\n";
    for n in [1_000usize, 70_000, 200_000] {
        let mut text = vec![0u8; n];
        text.extend_from_slice(game);
        let path = d.path().join(format!("padded{n}.pgn"));
        std::fs::write(&path, &text).expect("write");
        for command in ["info", "decode", "dump"] {
            for (name, stdin) in [(p(&path), &b""[..]), ("-", &text[..])] {
                let o = run(&[command, name], stdin);
                assert_eq!(code(&o), 2, "{command} {n} {name}: {}", stderr(&o));
                assert_eq!(
                    stderr(&o),
                    format!(
                        "pgc: {name} is PGN text, not PGC; use `pgc encode` to turn it into PGC\n"
                    ),
                    "{command} {n}"
                );
                assert!(o.stdout.is_empty(), "{command} {n}: {}", stdout(&o));
            }
        }
        let o = run(&["verify", p(&path)], b"");
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(
            stdout(&o).contains("is PGN text, not PGC"),
            "{}",
            stdout(&o)
        );
        // Encoded, it comes back byte for byte.
        let pgc = ok(&["encode", "-q", p(&path)], b"");
        assert_eq!(ok(&["decode", "-q"], &pgc), text);
    }
    // PGC after the run: no-op records, then the games.
    let games = encode(game);
    let mut padded = vec![0u8; 200_000];
    padded.extend_from_slice(&games);
    let o = run(&["info"], &padded);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("games        1 "), "{}", stdout(&o));
    assert_eq!(ok(&["decode", "-q"], &padded), game);
    // NULs alone, past the window: no-op records.
    let o = run(&["info"], &vec![0u8; 200_000]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("0x00 noop           200000"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn encode_and_decode_count_null_moves_as_plies() {
    // Six plies, two of them null moves: both directions say so.
    let pgn = b"1. e4 -- 2. d4 Nf6 3. -- Nc6 *";
    let o = run(&["encode"], pgn);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 games, 6 plies"), "{}", stderr(&o));
    let d = run(&["decode"], &o.stdout);
    assert!(stderr(&d).contains("1 games, 6 plies"), "{}", stderr(&d));
    assert_eq!(d.stdout, pgn);
}

#[test]
fn several_inputs_go_in_order_into_one_output() {
    let d = tmp();
    let mixed = d.path().join("mixed3.pgn");
    std::fs::write(&mixed, mixed_good()).expect("write");
    let opera = sample("opera.pgn");
    let both = ok(&["encode", "-q", p(&opera), p(&mixed)], b"");
    let mut want = encode(&read(&opera));
    want.extend(encode(&mixed_good()));
    assert_eq!(both, want);
    // And decode of several inputs.
    let a = d.path().join("a.pgc");
    let b = d.path().join("b.pgc");
    std::fs::write(&a, encode(&read(&opera))).expect("write");
    std::fs::write(&b, encode(&mixed_good())).expect("write");
    let mut want = read(&opera);
    want.extend(mixed_good());
    assert_eq!(ok(&["decode", "-q", p(&a), p(&b)], b""), want);
}

#[test]
fn concatenated_pgc_files_decode_to_the_concatenated_decodes() {
    let a = encode(&read(&sample("opera.pgn")));
    let b = encode(&mixed_good());
    let mut cat = a.clone();
    cat.extend_from_slice(&b);
    let mut want = decode(&a);
    want.extend(decode(&b));
    assert_eq!(decode(&cat), want);
    // Also valid for the verifier, with the games of both.
    let o = run(&["verify"], &cat);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("ok: 4 games"), "{}", stdout(&o));
}

#[test]
fn jobs_1_and_jobs_2_write_identical_bytes() {
    let pgn = big_pgn(3);
    let d = tmp();
    let input = d.path().join("big.pgn");
    std::fs::write(&input, &pgn).expect("write");
    let one = ok(&["encode", "-q", "-j", "1", p(&input)], b"");
    let two = ok(&["encode", "-q", "-j", "2", p(&input)], b"");
    assert!(one.len() > 100_000, "a sizeable output: {}", one.len());
    assert!(one == two, "encode -j 1 and -j 2 differ");
    let pgc_path = d.path().join("big.pgc");
    std::fs::write(&pgc_path, &one).expect("write");
    let one = ok(&["decode", "-q", "-j", "1", p(&pgc_path)], b"");
    let two = ok(&["decode", "-q", "-j", "2", p(&pgc_path)], b"");
    let three = ok(&["decode", "-q", "-j", "3", p(&pgc_path)], b"");
    assert!(one == two && two == three, "decode -j 1/2/3 differ");
    // The rejects too (the corpus may have some).
    let r1 = d.path().join("r1.pgn");
    let r2 = d.path().join("r2.pgn");
    let o1 = run(
        &["encode", "-q", "-j", "1", p(&input), "--rejects", p(&r1)],
        b"",
    );
    let o2 = run(
        &["encode", "-q", "-j", "2", p(&input), "--rejects", p(&r2)],
        b"",
    );
    assert_eq!(code(&o1), code(&o2));
    assert_eq!(read(&r1), read(&r2));
}

#[test]
fn batches_give_the_same_bytes_as_one_library_call() {
    // The command splits the input into batches of games; the result must be
    // what pgn_bridge::pgn_to_pgc makes of the whole input at once.
    let pgn = big_pgn(2);
    let mut want = Vec::new();
    let stats =
        pgn_bridge::pgn_to_pgc(&pgn[..], &mut want, None, &Default::default()).expect("pgn_to_pgc");
    let o = run(&["encode", "-q", "-j", "2"], &pgn);
    assert_eq!(code(&o), i32::from(stats.rejected > 0), "{}", stderr(&o));
    assert!(o.stdout == want, "pgc encode differs from pgn_to_pgc");
    let mut want_pgn = Vec::new();
    pgn_bridge::pgc_to_pgn(&want[..], &mut want_pgn, &Default::default()).expect("pgc_to_pgn");
    assert!(
        decode(&want) == want_pgn,
        "pgc decode differs from pgc_to_pgn"
    );
}

#[test]
fn rejects_file_holds_the_rejected_game_verbatim() {
    let d = tmp();
    let out = d.path().join("mixed.pgc");
    let rej = d.path().join("rejects.pgn");
    let mixed = sample("mixed.pgn");
    let o = run(
        &["encode", p(&mixed), "-o", p(&out), "--rejects", p(&rej)],
        b"",
    );
    assert_eq!(code(&o), 1, "rejected games give exit 1: {}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("rejected game 4 (line 40"), "{e}");
    assert!(e.contains("\"Ke3\""), "{e}");
    assert!(e.contains("pgc: 4 games, 18 plies, 1 rejected"), "{e}");
    let text = String::from_utf8(read(&mixed)).expect("utf-8");
    let broken = &text[text.find("[Event \"Broken game\"]").expect("game")..];
    let rejects = String::from_utf8(read(&rej)).expect("utf-8");
    let (first, rest) = rejects.split_once('\n').expect("a line");
    assert!(
        first.starts_with("% pgc: rejected ") && first.contains("mixed.pgn: game 4 (line 40"),
        "{first}"
    );
    assert_eq!(rest, broken);
    // The rejected game stays in the output at its place, as read: the
    // file comes back byte for byte, and `info` counts it.
    assert_eq!(decode(&read(&out)), read(&mixed));
    let i = run(&["info", p(&out)], b"");
    let want = format!("  PGN bytes    {} (decoded", read(&mixed).len());
    assert!(stdout(&i).contains(&want), "{}", stdout(&i));
    // With --strict only the three good games are in the output.
    let strict = d.path().join("strict.pgc");
    let o = run(&["encode", "--strict", p(&mixed), "-o", p(&strict)], b"");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let good = run(&["encode", "--strict"], &mixed_good());
    assert_eq!(decode(&read(&strict)), decode(&good.stdout));
}

#[test]
fn strict_reports_what_was_not_kept() {
    let o = run(&["encode", "--strict"], &read(&sample("opera.pgn")));
    assert_eq!(code(&o), 0);
    let e = stderr(&o);
    assert!(e.contains("--strict: not kept: 4 comments"), "{e}");
    // Only 1994 markers in the output.
    let v = run(&["info"], &o.stdout);
    assert!(!stdout(&v).contains("extension"), "{}", stdout(&v));
}

// ---------------------------------------------------------------- formats

#[test]
fn pgn_after_a_stray_control_byte_is_pgn_and_comes_back() {
    // A record marker first (0x01, 0x04, 0x00 before a line feed), then
    // text that does not frame as PGC records: PGN, kept byte for byte.
    for head in [&b"\x01"[..], b"\x04", b"\x00\n"] {
        let mut text = head.to_vec();
        text.extend_from_slice(&read(&sample("opera.pgn")));
        let o = run(&["encode"], &text);
        assert_eq!(code(&o), 0, "{head:?}: {}", stderr(&o));
        assert_eq!(decode(&o.stdout), text, "{head:?}");
    }
}

#[test]
fn pgn_padded_with_nul_bytes_comes_back() {
    // A short file padded to a 4 KiB block, as old tools write them, and
    // PGN after such a file: more NUL bytes than one in twenty.
    let mut text = read(&sample("opera.pgn"));
    text.resize(4096, 0);
    let mut two = text.clone();
    two.extend_from_slice(&read(&sample("opera.pgn")));
    for input in [text, two] {
        let o = run(&["encode"], &input);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(decode(&o.stdout), input);
    }
}

#[test]
fn formats_are_recognised_by_content() {
    let d = tmp();
    let pgc_bytes = encode(&read(&sample("opera.pgn")));
    // A PGC file named .pgn decodes; given to encode it is refused.
    let odd = d.path().join("really-pgc.pgn");
    std::fs::write(&odd, &pgc_bytes).expect("write");
    assert_eq!(
        ok(&["decode", "-q", p(&odd)], b""),
        read(&sample("opera.pgn"))
    );
    let o = run(&["encode", p(&odd)], b"");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).starts_with("pgc: ")
            && stderr(&o).contains("is a PGC file, not PGN; use `pgc decode`"),
        "{}",
        stderr(&o)
    );
    // Binary data that is no PGC either (0x0e is no record marker) is
    // not called PGC.
    let mut junk: Vec<u8> = (0u32..4000).map(|i| (i * 37 % 251) as u8).collect();
    junk[0] = 0x0e;
    let o = run(&["encode"], &junk);
    assert_eq!(code(&o), 2);
    // The junk's control bytes: 0x01-0x08 and 0x0e-0x1f but 0x1a and 0x1b.
    let control = junk
        .iter()
        .filter(|&&c| matches!(c, 0x01..=0x08 | 0x0e..=0x19 | 0x1c..=0x1f))
        .count();
    assert!(
        stderr(&o).contains("is not PGN text (")
            && stderr(&o).contains(&format!("{control} of its first 4000 bytes are control"))
            && stderr(&o).contains("nor PGC: read as PGC it fails")
            && stderr(&o).contains("unknown record marker 0x0e at byte 0"),
        "{}",
        stderr(&o)
    );
    // PGN given to decode.
    let o = run(&["decode", p(&sample("opera.pgn"))], b"");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("is PGN text, not PGC; use `pgc encode`"),
        "{}",
        stderr(&o)
    );
    // PGN given to verify is invalid PGC.
    let o = run(&["verify", p(&sample("opera.pgn"))], b"");
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("is PGN text"), "{}", stdout(&o));
    // Empty input: no games either way.
    assert!(ok(&["encode", "-q"], b"").is_empty());
    assert!(ok(&["decode", "-q"], b"").is_empty());
}

// ---------------------------------------------------------------- exit codes, errors, outputs

#[test]
fn exit_codes() {
    let opera = sample("opera.pgn");
    // 0
    assert_eq!(code(&run(&["encode", "-q", p(&opera)], b"")), 0);
    // 1: rejected games, invalid PGC.
    assert_eq!(
        code(&run(&["encode", "-q", p(&sample("mixed.pgn"))], b"")),
        1
    );
    assert_eq!(code(&run(&["verify"], &[0x05, 0x0b])), 1);
    assert_eq!(code(&run(&["decode"], &[0x05, 0x03, 1, 40, 0x06])), 1);
    // 2: usage and I/O.
    let o = run(&["encode", "--no-such-flag"], b"");
    assert_eq!(code(&o), 2);
    let o = run(&["frobnicate"], b"");
    assert_eq!(code(&o), 2);
    let o = run(&["encode", "/no/such/file.pgn"], b"");
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.starts_with("pgc: /no/such/file.pgn: cannot open: "),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    let o = run(&["decode", "-o", "/no/such/dir/out.pgn"], b"");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("/no/such/dir/out.pgn"),
        "{}",
        stderr(&o)
    );
    // Help is not an error.
    assert_eq!(code(&run(&["--help"], b"")), 0);
}

#[test]
fn refuses_to_overwrite_without_force_and_never_writes_an_input() {
    let d = tmp();
    let out = d.path().join("out.pgc");
    std::fs::write(&out, b"precious").expect("write");
    let opera = sample("opera.pgn");
    let o = run(&["encode", p(&opera), "-o", p(&out)], b"");
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("pgc: {} exists; use --force to overwrite\n", p(&out))
    );
    assert_eq!(read(&out), b"precious");
    ok(&["encode", "-q", p(&opera), "-o", p(&out), "--force"], b"");
    assert_eq!(read(&out)[0], 0x05);
    // The output is one of the inputs, even spelled differently.
    let copy = d.path().join("in.pgn");
    std::fs::copy(&opera, &copy).expect("copy");
    let other_spelling = d.path().join(".").join("in.pgn");
    let o = run(
        &["encode", p(&copy), "-o", p(&other_spelling), "--force"],
        b"",
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("is also an input"), "{}", stderr(&o));
    assert_eq!(read(&copy), read(&opera));
    assert_eq!(listing(d.path()), ["in.pgn", "out.pgc"]);
}

#[test]
fn a_failed_run_leaves_no_output_and_no_temporary_file() {
    let d = tmp();
    // Two good games, then an out-of-range ordinal: decode fails at the end.
    let mut bad = encode(&read(&sample("opera.pgn")));
    bad.extend(encode(&mixed_good()));
    let at = bad.len() + 3;
    bad.extend([0x05, 0x03, 1, 40, 0x06]);
    let input = d.path().join("bad.pgc");
    std::fs::write(&input, &bad).expect("write");
    let out = d.path().join("out.pgn");
    let o = run(&["decode", p(&input), "-o", p(&out)], b"");
    assert_eq!(code(&o), 1);
    let e = stderr(&o);
    assert!(
        e.contains(&format!("byte {at}, game 5, ply 1, 0x03 short-moves")),
        "{e}"
    );
    assert!(e.contains("run `pgc verify"), "{e}");
    assert_eq!(listing(d.path()), ["bad.pgc"]);
    // The same with -j 2.
    let o = run(&["decode", "-j", "2", p(&input), "-o", p(&out)], b"");
    assert_eq!(code(&o), 1);
    assert_eq!(listing(d.path()), ["bad.pgc"]);
}

#[test]
fn broken_pipe_exits_quietly() {
    let pgc_bytes = encode(&big_pgn(2));
    let d = tmp();
    let input = d.path().join("big.pgc");
    std::fs::write(&input, &pgc_bytes).expect("write");
    for jobs in ["1", "2"] {
        let mut child = pgc()
            .args(["decode", "-j", jobs, p(&input)])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut out = child.stdout.take().expect("stdout");
        let mut head = [0u8; 100];
        out.read_exact(&mut head).expect("read");
        drop(out);
        let o = child.wait_with_output().expect("wait");
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(o.stderr.is_empty(), "no message: {}", stderr(&o));
    }
}

#[test]
fn sigkill_leaves_no_partial_output() {
    let d = tmp();
    let input = d.path().join("big.pgn");
    std::fs::write(&input, big_pgn(20)).expect("write");
    let out = d.path().join("out.pgc");
    let mut child = pgc()
        .args(["encode", "-q", "-j", "1", p(&input), "-o", p(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(300));
    let finished = child.try_wait().expect("try_wait").is_some();
    let _ = child.kill(); // SIGKILL on Unix
    let _ = child.wait();
    if finished {
        eprintln!("note: the encoder finished within 300 ms; the kill came too late to test");
        return;
    }
    assert!(!out.exists(), "the target must not exist after SIGKILL");
}

// ---------------------------------------------------------------- verify, dump, info

/// Hand-made broken files: (name, bytes, expected verify line, expected dump error).
fn broken() -> Vec<(&'static str, Vec<u8>, &'static str, &'static str)> {
    let mut truncated = encode(&read(&sample("opera.pgn")));
    truncated.truncate(100);
    let mut reduced_inside = vec![0x05, 0x01];
    reduced_inside.extend([0; 7]);
    reduced_inside.extend([0, 0, 0x06]);
    vec![
        (
            "truncated",
            truncated,
            "byte 94, game 1, 0x02 tag-pair: expected 7 bytes for the record",
            "error: byte 94, game 1, ply 0, 0x02 tag-pair: truncated record at byte 94",
        ),
        (
            "unknown-marker",
            vec![0x05, 0x03, 1, 13, 0x0b, 0x06],
            "byte 4, game 1, ply 1: expected a record marker (0x00..=0x0a or 0x80), found byte 0x0b",
            "error: byte 4, game 1, ply 1, -: unknown record marker 0x0b at byte 4",
        ),
        (
            "unbalanced-variation",
            vec![0x05, 0x03, 1, 13, 0x08, 0x03, 1, 11, 0x06],
            "byte 8, game 1, ply 1, 0x06 game-end: expected 0x09 rav-end",
            "error: byte 8, game 1, ply 1, 0x06 game-end: game ends inside 1 open RAV(s)",
        ),
        (
            "ordinal-out-of-range",
            vec![0x05, 0x03, 2, 13, 40, 0x06],
            "byte 4, game 1, ply 2, 0x03 short-moves: expected an ordinal below 20 (legal moves), found 40",
            "error: byte 4, game 1, ply 2, 0x03 short-moves: ordinal 40 is out of range",
        ),
        (
            "reduced-inside-general",
            reduced_inside,
            "byte 1, game 1, 0x01 reduced-game: expected 0x06 game-end first",
            "error: byte 1, game 1, ply 0, 0x01 reduced-game: 0x01 reduced-game inside a general game",
        ),
        (
            "string-longer-than-file",
            vec![0x05, 0x02, 200, b'E', b'v'],
            "byte 1, game 1, 0x02 tag-pair: expected 202 bytes for the record (its string-1 included), found 4 byte(s) left",
            "error: byte 1, game 1, ply 0, 0x02 tag-pair: truncated record at byte 1: its string-1 (0x02 tag-pair) needs 202 bytes but the input has 4",
        ),
        (
            "escape-longer-than-file",
            vec![0x05, 0x0a, 0xff, 0x7f, b'x', 0x06],
            "byte 1, game 1, 0x0a escape-string: expected 32770 bytes",
            "error: byte 1, game 1, ply 0, 0x0a escape-string: truncated record at byte 1",
        ),
    ]
}

#[test]
fn verify_reports_positioned_problems_in_broken_files() {
    let d = tmp();
    for (name, bytes, want, _) in broken() {
        let f = d.path().join(format!("{name}.pgc"));
        std::fs::write(&f, &bytes).expect("write");
        let o = run(&["verify", p(&f)], b"");
        assert_eq!(code(&o), 1, "{name}");
        let out = stdout(&o);
        let first = out.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("{}: {want}", p(&f))),
            "{name}: {first}"
        );
        assert!(out.contains(": invalid: "), "{name}: {out}");
    }
    // A valid file.
    let o = run(&["verify", p(&sample("opera.pgn"))], b"");
    assert_eq!(code(&o), 1);
    let good = d.path().join("good.pgc");
    std::fs::write(&good, encode(&read(&sample("opera.pgn")))).expect("write");
    let o = run(&["verify", p(&good)], b"");
    assert_eq!(code(&o), 0);
    assert_eq!(
        stdout(&o),
        format!("{}: ok: 1 games, 36 plies, 440 bytes\n", p(&good))
    );
}

#[test]
fn verify_json() {
    let o = run(&["verify", "--json"], &[0x05, 0x03, 2, 13, 40, 0x06]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        "{\"valid\":false,\"files\":[{\"file\":\"-\",\"valid\":false,\"pgc\":true,\"games\":1,\"plies\":2,\"bytes\":6,\"problems_dropped\":0,\"problems\":[\
         {\"offset\":4,\"game\":1,\"ply\":2,\"marker\":\"short-moves\",\"marker_byte\":3,\
         \"expected\":\"an ordinal below 20 (legal moves)\",\"found\":\"40\",\
         \"message\":\"byte 4, game 1, ply 2, 0x03 short-moves: expected an ordinal below 20 (legal moves), found 40\"}],\
         \"games_with_problems\":1,\"bytes_skipped\":0,\"game_problems\":[\
         {\"offset\":4,\"game\":1,\"ply\":2,\"marker\":\"short-moves\",\"marker_byte\":3,\
         \"expected\":\"an ordinal below 20 (legal moves)\",\"found\":\"40\",\
         \"message\":\"byte 4, game 1, ply 2, 0x03 short-moves: expected an ordinal below 20 (legal moves), found 40\"}]}]}\n"
    );
    let o = run(&["verify", "--json"], &encode(&read(&sample("opera.pgn"))));
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("{\"valid\":true,"), "{}", stdout(&o));
}

/// `pgc verify a.pgc missing.pgc b.pgc`: the file that cannot be read is
/// reported in its place (an entry naming it and the I/O error, `--json`
/// or not), the other files are checked all the same, and the run exits 2
/// (an I/O error) naming it on stderr. It printed nothing of the others.
#[test]
fn verify_reports_a_missing_input_and_checks_the_others() {
    let d = tmp();
    let a = d.path().join("a.pgc");
    let b = d.path().join("b.pgc");
    let missing = d.path().join("missing.pgc");
    std::fs::write(&a, encode(&read(&sample("opera.pgn")))).expect("write");
    std::fs::write(&b, encode(&mixed_good())).expect("write");
    let args = [p(&a), p(&missing), p(&b)];
    let o = run(&[&["verify", "--json"][..], &args].concat(), b"");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let out = stdout(&o);
    let why = "cannot open: No such file or directory (os error 2); check the path";
    let message = format!("{}: {why}", p(&missing));
    let entry = format!(
        "{{\"file\":\"{}\",\"valid\":false,\"pgc\":null,\"error\":\"{message}\",\
         \"games\":0,\"plies\":0,\"bytes\":0,\"problems_dropped\":0,\"problems\":[\
         {{\"offset\":null,\"game\":null,\"ply\":null,\"marker\":null,\"marker_byte\":null,\
         \"expected\":\"a file to read\",\"found\":\"{why}\",\"message\":\"{message}\"}}],\
         \"games_with_problems\":0,\"bytes_skipped\":0,\"game_problems\":[]}}",
        p(&missing)
    );
    assert!(
        out.starts_with("{\"valid\":false,\"files\":[{\"file\":\""),
        "{out}"
    );
    assert!(out.contains(&entry), "{out}");
    for good in [&a, &b] {
        assert!(
            out.contains(&format!("{{\"file\":\"{}\",\"valid\":true,", p(good))),
            "{out}"
        );
    }
    // In input order: a, the missing file, b.
    let at = |f: &Path| out.find(&format!("\"file\":\"{}\"", p(f))).expect("entry");
    assert!(at(&a) < at(&missing) && at(&missing) < at(&b), "{out}");
    assert!(out.ends_with("]}\n"), "{out}");
    let err = stderr(&o);
    assert!(
        err.contains("1 of 3 inputs not checked") && err.contains(p(&missing)),
        "{err}"
    );
    // The text report: every file in order, the missing one not checked.
    let o = run(&[&["verify"][..], &args].concat(), b"");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("{}: ok: ", p(&a))),
        "{lines:?}"
    );
    assert_eq!(lines[1], format!("{}: not checked: {why}", p(&missing)));
    assert!(
        lines[2].starts_with(&format!("{}: ok: ", p(&b))),
        "{lines:?}"
    );
}

#[test]
fn dump_shows_records_moves_and_extensions() {
    let pgc_bytes = encode(&read(&sample("opera.pgn")));
    let o = run(&["dump"], &pgc_bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "0x00000000 game-begin (game 1)");
    assert_eq!(
        lines[1],
        "0x00000001 tag-pair Event \"Paris Opera, casual game\""
    );
    assert!(
        out.contains(" short-moves 4: 13 e4 /20, 12 e5 /20, 9 Nf3 /29, 22 d6 /29\n"),
        "{out}"
    );
    assert!(
        out.contains(
            " extension 0x01 comment (40 bytes) \"The Philidor Defence: solid but passive.\"\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(" simple-nag $6\n") && out.contains(" rav-begin\n"),
        "{out}"
    );
    assert!(out.contains("16 Rd8# /33\n"), "{out}");
    assert!(lines[lines.len() - 1].ends_with(" game-end"), "{out}");
    // A file argument works the same.
    let d = tmp();
    let f = d.path().join("opera.pgc");
    std::fs::write(&f, &pgc_bytes).expect("write");
    assert_eq!(ok(&["dump", p(&f)], b""), o.stdout);
}

#[test]
fn dump_shows_records_up_to_the_problem_then_the_error() {
    for (name, bytes, _, want) in broken() {
        let o = run(&["dump"], &bytes);
        assert_eq!(code(&o), 1, "{name}");
        let out = stdout(&o);
        let last = out.lines().last().unwrap_or_default();
        assert!(last.starts_with(want), "{name}: {last}\n{out}");
        assert!(
            out.starts_with("0x00000000 game-begin (game 1)\n"),
            "{name}: {out}"
        );
        assert!(stderr(&o).contains("not valid PGC"), "{name}");
    }
    // The moves before a bad ordinal are shown.
    let o = run(&["dump"], &[0x05, 0x03, 2, 13, 40, 0x06]);
    assert!(
        stdout(&o).contains("short-moves 2: 13 e4 /20\nerror: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn info_counts_games_plies_records_and_sizes() {
    let pgn = read(&sample("opera.pgn"));
    let pgc_bytes = encode(&pgn);
    let o = run(&["info"], &pgc_bytes);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "-:\n",
        "  games        1 (0 reduced 0x01, 1 general 0x05)\n",
        "  plies        36\n",
        &format!("  PGC bytes    {}\n", pgc_bytes.len()),
        &format!("  PGN bytes    {} (decoded", pgn.len()),
        "    0x08 rav-begin      1\n",
        "    0x07 simple-nag     3\n",
        "  extension records\n    0x01 comment        4\n",
        "  bytes/ply    12.22\n",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    // Several inputs get a total.
    let d = tmp();
    let f = d.path().join("a.pgc");
    std::fs::write(&f, &pgc_bytes).expect("write");
    let o = run(&["info", p(&f), p(&f)], b"");
    assert!(
        stdout(&o).contains("total:\n  games        2 "),
        "{}",
        stdout(&o)
    );
    // A broken file: counts up to the problem, exit 1.
    let o = run(&["info"], &[0x05, 0x03, 2, 13, 40, 0x06]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("byte 4, game 1, ply 2"),
        "{}",
        stderr(&o)
    );
}

// ---------------------------------------------------------------- limits

#[test]
fn limits_are_passed_through_and_name_their_flag() {
    let pgn = read(&sample("opera.pgn"));
    let pgc_bytes = encode(&pgn);
    // RAV depth: the opera game has one variation.
    let o = run(&["decode", "--max-rav-depth", "0"], &pgc_bytes);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--max-rav-depth"), "{}", stderr(&o));
    assert!(ok(&["decode", "-q", "--max-rav-depth", "1"], &pgc_bytes) == pgn);
    let o = run(&["verify", "--max-rav-depth", "0"], &pgc_bytes);
    assert_eq!(code(&o), 1);
    // Strings: the comments are up to 61 bytes.
    let o = run(&["decode", "--max-string", "50"], &pgc_bytes);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--max-string"), "{}", stderr(&o));
    let o = run(&["dump", "--max-string", "50"], &pgc_bytes);
    assert_eq!(code(&o), 1);
    // Game size.
    let o = run(&["encode", "--max-game-bytes", "100"], &pgn);
    assert_eq!(code(&o), 1);
    let e = stderr(&o);
    assert!(
        e.contains("--max-game-bytes") && e.contains("game 1"),
        "{e}"
    );
    // Encoding: a game with variations nested two deep is rejected at depth 1.
    let nested = b"1. e4 (1. d4 (1. c4 c5) d5) e5 *\n";
    assert_eq!(
        code(&run(&["encode", "-q", "--max-rav-depth", "2"], nested)),
        0
    );
    let o = run(&["encode", "--max-rav-depth", "1"], nested);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("1 rejected"), "{}", stderr(&o));
}

#[test]
fn encode_writes_strings_up_to_its_max_string() {
    // A comment of 61 bytes: over a limit of 50, the game is rejected
    // (kept as text) and the message names the flag; at 61 the comment
    // is stored, and reading the output needs the same limit.
    let pgn = b"1. e4 {abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghi} e5 *\n";
    let comment = 61;
    assert_eq!(pgn.len(), comment + 14);
    let o = run(&["encode", "--max-string", "50"], pgn);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("1 rejected") && e.contains("--max-string"),
        "{e}"
    );
    let o = run(&["encode", "-q", "--max-string", "61"], pgn);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let stored = o.stdout;
    assert_eq!(ok(&["decode", "-q", "--max-string", "61"], &stored), pgn);
    let o = run(&["decode", "--max-string", "60"], &stored);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    // No limit of zero bytes.
    let o = run(&["encode", "--max-string", "0"], pgn);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-string"), "{}", stderr(&o));
}

#[test]
fn an_input_with_no_game_keeps_its_whitespace() {
    // Escape lines (`%` in column 1) are no game either, as pgn-reader and
    // python-chess read them; a `%` elsewhere is a token.
    for input in [
        &b"\n"[..],
        b"\n\n  \r\n",
        b" \t\x0c\n\r\n\n\n",
        b"% a note\n",
        b"\n% one\r\n%two",
        b"\xef\xbb\xbf%% after a byte-order mark\n\n",
    ] {
        let pgc_bytes = encode(input);
        // One extension record (0x80) of kind 0x0a, verbatim text.
        assert_eq!(&pgc_bytes[..2], &[0x80, 0x0a], "{input:?}");
        assert_eq!(decode(&pgc_bytes), input);
        let v = run(&["verify"], &pgc_bytes);
        assert_eq!(code(&v), 0, "{}", stderr(&v));
        assert!(stdout(&v).contains("ok: 0 games"), "{}", stdout(&v));
        // Strict output has no extension record: nothing is left.
        assert!(ok(&["encode", "-q", "--strict"], input).is_empty());
    }
    assert!(encode(b"").is_empty());
    let o = run(&["encode", "-q"], b"  % not in column 1\n");
    assert_eq!(code(&o), 1, "a token that is no move: {}", stderr(&o));
}
