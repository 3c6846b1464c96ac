//! `pgc export` and `pgc import` end to end: PGN → Parquet → `pgc import`
//! is the PGC `pgc encode` writes, for every corpus file; the table is the
//! same for every `-j`; errors say what to do.

mod common;

use common::{Tmp, corpus_dir, pgc, stderr};
use std::path::{Path, PathBuf};

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read corpus dir").flatten() {
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

/// Runs pgc; exit 0 or 1 (rejected games) is a success here.
fn ok(args: &[&std::ffi::OsStr]) {
    let out = pgc().args(args).output().expect("run pgc");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "pgc {args:?}: {:?}\n{}",
        out.status,
        stderr(&out)
    );
}

#[test]
fn corpus_pgn_to_parquet_to_pgc_is_what_encode_writes() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("corpus");
    let (a, t, b) = (tmp.path("a.pgc"), tmp.path("t.parquet"), tmp.path("b.pgc"));
    let mut failures = Vec::new();
    let files = corpus_files(&dir);
    for path in &files {
        for p in [&a, &t, &b] {
            let _ = std::fs::remove_file(p);
        }
        ok(&[
            "encode".as_ref(),
            "-q".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            a.as_os_str(),
        ]);
        let e = pgc()
            .args([
                "export".as_ref(),
                "-q".as_ref(),
                path.as_os_str(),
                "-o".as_ref(),
                t.as_os_str(),
            ])
            .output()
            .expect("run pgc");
        if stderr(&e).contains("no game") && !t.exists() {
            // Every game of the file was rejected: its PGC is verbatim
            // text only, and a table holds games.
            let m = pgc()
                .args(["moves".as_ref(), "-q".as_ref(), a.as_os_str()])
                .output()
                .expect("moves");
            assert!(
                m.stdout.is_empty(),
                "{}: export says no game, moves finds some",
                path.display()
            );
            continue;
        }
        assert!(
            matches!(e.status.code(), Some(0 | 1)),
            "{}: {}",
            path.display(),
            stderr(&e)
        );
        ok(&[
            "import".as_ref(),
            "-q".as_ref(),
            t.as_os_str(),
            "-o".as_ref(),
            b.as_os_str(),
        ]);
        let (pa, pb) = (std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
        if pa != pb {
            failures.push(format!(
                "{}: import gives {} bytes, encode {}",
                path.display(),
                pb.len(),
                pa.len()
            ));
        }
    }
    println!("{} corpus files: PGN -> Parquet -> PGC", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_table_is_the_same_for_every_job_count_and_format_round_trips() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("jobs");
    let src = dir.join("hauva69__pgn4web/twic944.pgn.zst");
    let pgc_file = tmp.path("g.pgc");
    ok(&[
        "encode".as_ref(),
        "-q".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        pgc_file.as_os_str(),
    ]);
    let encoded = std::fs::read(&pgc_file).expect("pgc");
    for ext in ["parquet", "arrow", "arrows"] {
        let mut tables = Vec::new();
        for jobs in ["1", "2", "3"] {
            let t = tmp.path(&format!("t{jobs}.{ext}"));
            ok(&[
                "export".as_ref(),
                "-q".as_ref(),
                "-j".as_ref(),
                jobs.as_ref(),
                "--uci".as_ref(),
                "--san".as_ref(),
                "--row-group-size".as_ref(),
                "500".as_ref(),
                pgc_file.as_os_str(),
                "-o".as_ref(),
                t.as_os_str(),
            ]);
            tables.push(std::fs::read(&t).expect("table"));
            let back = tmp.path(&format!("b{jobs}.{ext}.pgc"));
            ok(&[
                "import".as_ref(),
                "-q".as_ref(),
                t.as_os_str(),
                "-o".as_ref(),
                back.as_os_str(),
            ]);
            assert!(
                std::fs::read(&back).expect("back") == encoded,
                "{ext} -j {jobs}: import is not the PGC"
            );
        }
        assert!(
            tables[0] == tables[1] && tables[1] == tables[2],
            "{ext}: -j changes the table"
        );
    }
}

#[test]
fn errors_say_what_to_do() {
    let tmp = Tmp::new("errors");
    let pgn = tmp.path("g.pgn");
    std::fs::write(&pgn, "[White \"A\"]\n\n1. e4 *\n").expect("write");
    let run = |args: &[&std::ffi::OsStr]| pgc().args(args).output().expect("run pgc");

    let t = tmp.path("t.csv");
    let out = run(&[
        "export".as_ref(),
        pgn.as_os_str(),
        "-o".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(".parquet, .arrow or .arrows"),
        "{}",
        stderr(&out)
    );
    assert!(!t.exists());

    let t = tmp.path("t.parquet");
    let out = run(&[
        "export".as_ref(),
        pgn.as_os_str(),
        "--columns".as_ref(),
        "White,Elo".as_ref(),
        "-o".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("\"Elo\""), "{}", stderr(&out));
    assert!(!t.exists());

    // A row group holds at least one row.
    let out = run(&[
        "export".as_ref(),
        pgn.as_os_str(),
        "--row-group-size".as_ref(),
        "0".as_ref(),
        "-o".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--row-group-size"),
        "{}",
        stderr(&out)
    );
    assert!(!t.exists());

    // A table without the pgc column cannot be imported.
    let out = run(&[
        "export".as_ref(),
        "-q".as_ref(),
        pgn.as_os_str(),
        "--columns".as_ref(),
        "White,plies".as_ref(),
        "-o".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let back = tmp.path("b.pgc");
    let out = run(&[
        "import".as_ref(),
        t.as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no `pgc` column"), "{}", stderr(&out));
    assert!(!back.exists());

    // An export is no Lichess-layout table: encode says what reads it.
    let out = run(&[
        "encode".as_ref(),
        t.as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("`pgc import`"), "{}", stderr(&out));
    assert!(!back.exists());

    // Stdin may hold an Arrow IPC stream; empty, it holds no table.
    let out = run(&[
        "import".as_ref(),
        "-".as_ref(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("stdin: not a Parquet or Arrow IPC table"),
        "{}",
        stderr(&out)
    );
    assert!(!back.exists());

    // PGN is no table.
    let out = run(&[
        "import".as_ref(),
        pgn.as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a Parquet or Arrow IPC file"),
        "{}",
        stderr(&out)
    );

    // Invalid PGC: positioned, and no output.
    let bad = tmp.path("bad.pgc");
    std::fs::write(&bad, [0x05u8, 0x03, 1, 20, 0x06]).expect("write");
    let t2 = tmp.path("t2.parquet");
    let out = run(&[
        "export".as_ref(),
        bad.as_os_str(),
        "-o".as_ref(),
        t2.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("byte 3, game 1"), "{}", stderr(&out));
    assert!(!t2.exists());
}

/// Runs pgc with `args` and `stdin`; exit 0 expected; its stdout.
fn out(args: &[&std::ffi::OsStr], stdin: &[u8]) -> (Vec<u8>, String) {
    use std::io::Write;
    let mut child = pgc()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run pgc");
    // Written from a thread while the output is read; pgc may stop
    // reading once it has the games it wants.
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let o = child.wait_with_output().expect("wait");
    writer.join().expect("stdin writer");
    assert_eq!(o.status.code(), Some(0), "pgc {args:?}: {}", stderr(&o));
    let err = stderr(&o);
    (o.stdout, err)
}

#[test]
fn games_exports_only_the_range_from_pgc_and_pgn() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("games");
    let src = dir.join("hauva69__pgn4web/twic944.pgn.zst");
    let pgc_file = tmp.path("g.pgc");
    ok(&[
        "encode".as_ref(),
        "-q".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        pgc_file.as_os_str(),
    ]);
    let pgc_bytes = std::fs::read(&pgc_file).expect("pgc");
    let os = |s: &str| std::ffi::OsString::from(s);
    for range in ["1", "5..9", "1200..", "..3"] {
        // What decode selects, as text: the reference.
        let (want, _) = out(
            &[
                &os("decode"),
                &os("-q"),
                &os("--games"),
                &os(range),
                pgc_file.as_os_str(),
            ],
            b"",
        );
        assert!(!want.is_empty(), "{range}");
        let t = tmp.path("t.parquet");
        // A PGC file (seeking), PGC on stdin (scanning), PGN.
        let sources: [(&std::ffi::OsStr, &[u8]); 3] = [
            (pgc_file.as_os_str(), b""),
            ("-".as_ref(), &pgc_bytes),
            (src.as_os_str(), b""),
        ];
        for (input, stdin) in sources {
            let _ = std::fs::remove_file(&t);
            out(
                &[
                    &os("export"),
                    &os("-q"),
                    &os("--games"),
                    &os(range),
                    input,
                    &os("-o"),
                    t.as_os_str(),
                ],
                stdin,
            );
            let (back, _) = out(&[&os("import"), &os("-q"), t.as_os_str()], b"");
            let (text, _) = out(&[&os("decode"), &os("-q")], &back);
            assert!(text == want, "--games {range} from {input:?}: other games");
        }
    }
    // A range past the end: a warning, an empty table.
    let t = tmp.path("none.parquet");
    let (_, err) = out(
        &[
            &os("export"),
            &os("--games"),
            &os("99999"),
            pgc_file.as_os_str(),
            &os("-o"),
            t.as_os_str(),
        ],
        b"",
    );
    assert!(
        err.contains("--games starts at game 99999, past the end"),
        "{err}"
    );
}

/// PGN text of `n` small distinct games.
fn games_text(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend(format!("[Event \"g{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 {{c {i}}} *\n\n").as_bytes());
    }
    out
}

#[test]
fn export_keeps_the_games_before_damage_and_past_an_oversized_game() {
    let tmp = Tmp::new("damage");
    let os = |s: &str| std::ffi::OsString::from(s);
    let text = games_text(30_000);
    let whole = zstd::encode_all(&text[..], 3).expect("zstd");
    let input = tmp.path("in.pgn.zst");
    std::fs::write(&input, &whole[..whole.len() * 2 / 3]).expect("write");
    let t = tmp.path("t.parquet");
    let o = pgc()
        .args([
            &os("export"),
            &os("-j"),
            &os("2"),
            input.as_os_str(),
            &os("-o"),
            t.as_os_str(),
        ])
        .output()
        .expect("run pgc");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("compressed byte") && err.contains("decompressed byte"),
        "{err}"
    );
    let (back, _) = out(&[&os("import"), &os("-q"), t.as_os_str()], b"");
    let (pgn, _) = out(&[&os("decode"), &os("-q")], &back);
    // Whole games in order, then what was read of the cut one, as read.
    assert!(pgn.len() > text.len() / 3, "games before the damage");
    assert!(
        text.starts_with(&pgn),
        "the table holds the text before the damage"
    );

    // A game over --max-game-bytes between two others: counted, the run
    // goes on.
    let mut big = games_text(1);
    big.extend(b"[Event \"big\"]\n\n1. e4 {");
    big.extend(std::iter::repeat_n(b'x', 5000));
    big.extend(b"} e5 *\n\n");
    big.extend(b"[Event \"after\"]\n\n1. d4 d5 *\n");
    let t = tmp.path("big.parquet");
    let o = pgc()
        .args([
            &os("export"),
            &os("--max-game-bytes"),
            &os("4096"),
            &os("-"),
            &os("-o"),
            t.as_os_str(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(&big)?;
            c.wait_with_output()
        })
        .expect("run pgc");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let (back, _) = out(&[&os("import"), &os("-q"), t.as_os_str()], b"");
    let (pgn, _) = out(&[&os("decode"), &os("-q")], &back);
    let pgn = String::from_utf8(pgn).expect("utf-8");
    assert!(
        pgn.contains("[Event \"g0\"]") && pgn.contains("[Event \"after\"]"),
        "{pgn}"
    );
    assert!(!pgn.contains("[Event \"big\"]"), "{pgn}");
}

#[test]
fn a_seekable_pgc_zst_exports_the_table_of_its_pgc() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("seekable");
    let src = dir.join("hauva69__pgn4web/twic944.pgn.zst");
    let (plain, zst) = (tmp.path("g.pgc"), tmp.path("g.pgc.zst"));
    for out in [&plain, &zst] {
        ok(&[
            "encode".as_ref(),
            "-q".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
    }
    let mut tables = Vec::new();
    for (input, jobs) in [(&plain, "1"), (&zst, "1"), (&zst, "2")] {
        let t = tmp.path(&format!("t{}.parquet", tables.len()));
        ok(&[
            "export".as_ref(),
            "-q".as_ref(),
            "-j".as_ref(),
            jobs.as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            t.as_os_str(),
        ]);
        tables.push(std::fs::read(&t).expect("table"));
    }
    assert!(tables[0] == tables[1], "the .pgc.zst's table differs");
    assert!(tables[0] == tables[2], "-j 2 on the .pgc.zst differs");
}

#[test]
fn records_without_a_game_are_blamed_on_the_input() {
    let tmp = Tmp::new("nogame");
    let (pgn, pgc_file, table) = (
        tmp.path("ws.pgn"),
        tmp.path("ws.pgc"),
        tmp.path("o.parquet"),
    );
    std::fs::write(&pgn, "  \n\n\t \n").unwrap();
    ok(&[
        "encode".as_ref(),
        "-q".as_ref(),
        pgn.as_os_str(),
        "-o".as_ref(),
        pgc_file.as_os_str(),
    ]);
    let out = pgc()
        .args([
            "export".as_ref(),
            "-q".as_ref(),
            pgc_file.as_os_str(),
            "-o".as_ref(),
            table.as_os_str(),
        ])
        .output()
        .unwrap();
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(
        e.starts_with(&format!("pgc: {}: ", pgc_file.display()))
            && e.contains("no game")
            && !table.exists(),
        "{e}"
    );
}

/// `pgc export in.pgn -o x.arrows; cat x.arrows | pgc import - -o y.pgc`:
/// an Arrow IPC stream is read from stdin (or a pipe) as it comes, and
/// gives the PGC the file gives. It was refused ("reads table files, not
/// stdin"). Parquet and Arrow IPC files are read by seeking: on stdin they
/// are refused with what to do instead.
#[test]
fn import_reads_an_arrow_ipc_stream_on_stdin() {
    let tmp = Tmp::new("import-stdin");
    let pgn = tmp.path("g.pgn");
    std::fs::write(
        &pgn,
        "[White \"A\"]\n\n1. e4 e5 *\n\n[White \"B\"]\n\n1. d4 d5 2. c4 1-0\n",
    )
    .expect("write");
    let (want, _) = out(&["encode".as_ref(), "-q".as_ref(), pgn.as_os_str()], b"");
    assert_eq!(want.first(), Some(&0x05), "a game");
    let table = |name: &str| {
        let t = tmp.path(name);
        let (_, _) = out(
            &[
                "export".as_ref(),
                "-q".as_ref(),
                pgn.as_os_str(),
                "-o".as_ref(),
                t.as_os_str(),
            ],
            b"",
        );
        std::fs::read(&t).expect("table")
    };
    let stream = table("x.arrows");
    let (got, err) = out(&["import".as_ref(), "-".as_ref()], &stream);
    assert_eq!(got, want, "the stream's PGC");
    // The bytes read from stdin are counted (7.6 KiB).
    assert!(
        err.contains("2 games, ") && err.contains(" KiB in") && !err.contains(" 0 B in"),
        "{err}"
    );
    // After a file, in order.
    let file = tmp.path("x.arrows");
    let (got, _) = out(
        &[
            "import".as_ref(),
            "-q".as_ref(),
            file.as_os_str(),
            "-".as_ref(),
        ],
        &stream,
    );
    assert_eq!(got, [&want[..], &want[..]].concat());
    for (name, holds) in [
        ("x.parquet", "a Parquet file"),
        ("x.arrow", "an Arrow IPC file"),
    ] {
        let data = table(name);
        let back = tmp.path("back.pgc");
        let o = common::run(&["import", "-", "-o", back.to_str().expect("utf-8")], &data);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("stdin holds {holds}, which is read by seeking"))
                && e.contains("give the file's name")
                && e.contains("--format arrows"),
            "{name}: {e}"
        );
        assert!(!back.exists());
    }
}
