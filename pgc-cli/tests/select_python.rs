//! Choosing games, checked against python-chess (`tests/python/select_games.py`),
//! which applies the same rules on its own reading of the PGN:
//!
//! - every selection of README's "Choosing games" section selects the same
//!   games with `pgc decode --where` as the script's Python predicate;
//! - `--dedup` (and `--dedup=tags`) drops exactly the games the script
//!   finds repeating an earlier game's start position and main line, and
//!   `--duplicates` names the same first games;
//! - `pgc moves --format csv` writes the rows the script computes by
//!   replaying the games (Elo, clock, eval, result per position), with and
//!   without `--skip-plies` and `--min-clock`;
//! - `-j 1` and `-j 2` write the same bytes with `--where` and `--dedup`.
//!
//! The Python checks skip with a printed reason when python-chess is not
//! importable, unless `PGC_REQUIRE_PYCHESS` is set; every check skips
//! without the corpus, unless `PGC_REQUIRE_CORPUS` is set.

mod common;

use common::{Tmp, corpus_dir, pgc, root, stderr};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

const LICHESS: &str = "lichess-org__database/2017-05.pgn.zst";
const TWIC: &str = "hauva69__pgn4web/twic944.pgn.zst";
const EVALS: [&str; 2] = [
    "notnil__chess/fixtures/pgns/0004.pgn",
    "notnil__chess/fixtures/pgns/0005.pgn",
];

/// Whether python-chess is there; a failure instead when it is required.
fn python_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("PGC_REQUIRE_PYCHESS").is_none(),
            "python-chess is required (PGC_REQUIRE_PYCHESS is set): pip install chess, \
             or run scripts/test"
        );
        eprintln!("skipping: python-chess not installed (pip install chess)");
    }
    ok
}

/// Runs pgc, which must succeed; its stdout.
fn pgc_ok<S: AsRef<OsStr>>(args: &[S]) -> Vec<u8> {
    let out = pgc().args(args).output().expect("run pgc");
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_owned()).collect();
    assert!(
        out.status.success(),
        "pgc {shown:?}: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    out.stdout
}

/// Runs tests/python/select_games.py, which must succeed; its stdout.
fn script<S: AsRef<OsStr>>(args: &[S]) -> String {
    let out = Command::new("python3")
        .arg(root().join("tests/python/select_games.py"))
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "select_games.py: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The bytes of a corpus file (decompressed when it is a `.zst`).
fn corpus_bytes(dir: &Path, name: &str) -> Vec<u8> {
    let raw = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    if name.ends_with(".zst") {
        zstd::decode_all(&raw[..]).expect("zstd")
    } else {
        raw
    }
}

/// Writes the corpus files one after the other (a blank line between) to
/// `name` in `tmp`, and encodes them to `name.pgc`, with no game rejected.
fn concat(tmp: &Tmp, dir: &Path, files: &[&str], name: &str) -> (PathBuf, PathBuf) {
    let mut all = Vec::new();
    for f in files {
        all.extend(corpus_bytes(dir, f));
        all.extend_from_slice(b"\n\n");
    }
    let pgn = tmp.path(name);
    std::fs::write(&pgn, &all).expect("write pgn");
    let pgc_path = tmp.path(&format!("{name}.pgc"));
    let out = pgc()
        .arg("encode")
        .arg(&pgn)
        .arg("-o")
        .arg(&pgc_path)
        .output()
        .expect("run pgc");
    assert!(out.status.success(), "encode: {}", stderr(&out));
    assert!(stderr(&out).contains(", 0 rejected"), "{}", stderr(&out));
    (pgn, pgc_path)
}

/// The 1-based game numbers of `pgc decode --format jsonl` output.
fn game_numbers(jsonl: &[u8]) -> Vec<u64> {
    String::from_utf8_lossy(jsonl)
        .lines()
        .map(|l| {
            let rest = l.strip_prefix("{\"game\":").expect("a game line");
            let end = rest.find(',').expect("a comma");
            rest[..end].parse().expect("a game number")
        })
        .collect()
}

#[test]
fn readme_selections_choose_what_python_chess_chooses() {
    if !python_ready() {
        return;
    }
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("select-where");
    let (pgn, pgc_path) = concat(&tmp, &dir, &[TWIC, LICHESS, EVALS[1]], "mix.pgn");
    let total: u64 = script(&["count".as_ref(), pgn.as_os_str()])
        .trim()
        .parse()
        .expect("a count");
    let all = game_numbers(&pgc_ok(&[
        "decode".as_ref(),
        "-q".as_ref(),
        "--format".as_ref(),
        "jsonl".as_ref(),
        pgc_path.as_os_str(),
    ]));
    assert_eq!(
        all.len() as u64,
        total,
        "python-chess and pgc count games alike"
    );
    assert!(total > 3000);

    // The games that have csv rows (the games with moves).
    let row_games = |csv: &[u8]| {
        let mut games: Vec<u64> = String::from_utf8_lossy(csv)
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().expect("a game"))
            .collect();
        games.dedup();
        games
    };
    let has_rows = row_games(&pgc_ok(&[
        "moves".as_ref(),
        "-q".as_ref(),
        "--format".as_ref(),
        "csv".as_ref(),
        pgc_path.as_os_str(),
    ]));
    assert!(has_rows.len() as u64 > total - 20);
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let report = script(&["where".as_ref(), pgn.as_os_str()]);
    let mut checked = 0;
    let mut non_trivial = 0;
    for line in report.lines() {
        let (expr, numbers) = line.split_once('\t').expect("EXPR<TAB>numbers");
        assert!(
            readme.contains(&format!("`{expr}`")),
            "README's \"Choosing games\" section shows `{expr}`"
        );
        let want: Vec<u64> = numbers
            .split(',')
            .filter(|n| !n.is_empty())
            .map(|n| n.parse().expect("a number"))
            .collect();
        let got = game_numbers(&pgc_ok(&[
            "decode".as_ref(),
            "-q".as_ref(),
            "--format".as_ref(),
            "jsonl".as_ref(),
            "--where".as_ref(),
            expr.as_ref(),
            pgc_path.as_os_str(),
        ]));
        assert_eq!(got, want, "--where {expr}: pgc and python-chess differ");
        // moves (csv rows, whose first column is the game) and export
        // choose the same games: those games have moves, and export's
        // pgc column imports to what decode --where writes.
        let in_rows = row_games(&pgc_ok(&[
            "moves".as_ref(),
            "-q".as_ref(),
            "--format".as_ref(),
            "csv".as_ref(),
            "--where".as_ref(),
            expr.as_ref(),
            pgc_path.as_os_str(),
        ]));
        let with_moves: Vec<u64> = want
            .iter()
            .copied()
            .filter(|g| has_rows.binary_search(g).is_ok())
            .collect();
        assert_eq!(in_rows, with_moves, "moves --where {expr}");
        let table = tmp.path("where.parquet");
        let imported = tmp.path("where.pgc");
        let decoded = |p: &Path, w: Option<&str>| {
            let mut args: Vec<&OsStr> = vec!["decode".as_ref(), "-q".as_ref(), p.as_os_str()];
            if let Some(w) = w {
                args.extend(["--where", w].map(OsStr::new));
            }
            pgc_ok(&args)
        };
        // The default table, and one of `pgc` only, which replays no move
        // (a `Plies` filter reads the counted plies).
        for columns in [None, Some("pgc")] {
            let mut args: Vec<&OsStr> = vec!["export".as_ref(), "-q".as_ref(), "-f".as_ref()];
            if let Some(c) = columns {
                args.extend(["--columns", c].map(OsStr::new));
            }
            args.extend(["--where".as_ref(), expr.as_ref(), pgc_path.as_os_str()]);
            args.extend(["-o".as_ref(), table.as_os_str()]);
            pgc_ok(&args);
            pgc_ok(&[
                "import".as_ref(),
                "-q".as_ref(),
                "-f".as_ref(),
                table.as_os_str(),
                "-o".as_ref(),
                imported.as_os_str(),
            ]);
            assert!(
                decoded(&imported, None) == decoded(&pgc_path, Some(expr)),
                "export {columns:?} --where {expr}"
            );
        }
        checked += 1;
        non_trivial += usize::from(!want.is_empty() && (want.len() as u64) < total);
    }
    assert!(checked >= 10, "{report}");
    assert!(
        non_trivial >= 8,
        "most selections keep some games, not all: {report}"
    );
}

#[test]
fn dedup_drops_what_python_chess_finds_repeated() {
    if !python_ready() {
        return;
    }
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("select-dedup");
    // The TWIC file twice: every game of the second copy repeats one of the
    // first (and a few repeat within the first).
    let (pgn, pgc_path) = concat(&tmp, &dir, &[TWIC, LICHESS, TWIC], "dd.pgn");
    for (flag, py) in [("--dedup", None), ("--dedup=tags", Some("--tags"))] {
        let mut args: Vec<&OsStr> = vec!["dedup".as_ref(), pgn.as_os_str()];
        args.extend(py.map(OsStr::new));
        let want = script(&args);
        let dups = tmp.path("dups.jsonl");
        let kept = game_numbers(&pgc_ok(&[
            "decode".as_ref(),
            "-q".as_ref(),
            "--format".as_ref(),
            "jsonl".as_ref(),
            flag.as_ref(),
            "--duplicates".as_ref(),
            dups.as_os_str(),
            "-f".as_ref(),
            pgc_path.as_os_str(),
        ]));
        let text = std::fs::read_to_string(&dups).expect("duplicates file");
        let mut got = String::new();
        for line in text.lines() {
            let rest = line
                .strip_prefix("{\"duplicate_of\":")
                .expect("duplicate_of");
            let (first, rest) = rest.split_once(',').expect("a comma");
            let game = rest.strip_prefix("\"game\":").expect("game");
            let game = &game[..game.find(',').expect("a comma")];
            got.push_str(&format!("{game}\t{first}\n"));
        }
        assert_eq!(got, want, "{flag}: duplicates and the games they repeat");
        let dropped = want.lines().count();
        assert!(dropped >= 2953, "{flag}: the second copy is dropped");
        assert_eq!(kept.len() + dropped, 2953 * 2 + 298, "{flag}");
        // The PGN of the duplicates names the first game in a tag.
        let pgn_dups = tmp.path("dups.pgn");
        pgc_ok(&[
            "decode".as_ref(),
            "-q".as_ref(),
            flag.as_ref(),
            "--duplicates".as_ref(),
            pgn_dups.as_os_str(),
            "-f".as_ref(),
            "-o".as_ref(),
            tmp.path("kept.pgn").as_os_str(),
            pgc_path.as_os_str(),
        ]);
        let firsts: Vec<String> = std::fs::read_to_string(&pgn_dups)
            .expect("dups.pgn")
            .lines()
            .filter_map(|l| l.strip_prefix("[DuplicateOf \""))
            .map(|l| l.trim_end_matches("\"]").to_string())
            .collect();
        let want_firsts: Vec<&str> = want
            .lines()
            .map(|l| &l[l.find('\t').unwrap() + 1..])
            .collect();
        assert_eq!(firsts, want_firsts, "{flag}: PGN duplicates");
        // encode --dedup drops the same games from the PGN.
        let encoded = tmp.path("dedup.pgc");
        pgc_ok(&[
            "encode".as_ref(),
            "-q".as_ref(),
            flag.as_ref(),
            pgn.as_os_str(),
            "-o".as_ref(),
            encoded.as_os_str(),
            "-f".as_ref(),
        ]);
        let again = pgc_ok(&["decode".as_ref(), "-q".as_ref(), encoded.as_os_str()]);
        let kept_pgn = std::fs::read(tmp.path("kept.pgn")).expect("kept.pgn");
        assert!(
            again == kept_pgn,
            "{flag}: encode and decode keep the same games"
        );
        // export --dedup keeps the same rows: their pgc column imports to
        // the PGC of the same games; also in a table of `pgc` only, which
        // replays the moves for the key alone.
        for columns in [None, Some("pgc")] {
            let table = tmp.path("dedup.parquet");
            let mut args: Vec<&OsStr> = vec!["export".as_ref(), "-q".as_ref(), flag.as_ref()];
            if let Some(c) = columns {
                args.extend(["--columns", c].map(OsStr::new));
            }
            args.extend([pgc_path.as_os_str(), "-f".as_ref(), "-o".as_ref()]);
            args.push(table.as_os_str());
            pgc_ok(&args);
            let imported = tmp.path("imported.pgc");
            pgc_ok(&[
                "import".as_ref(),
                "-q".as_ref(),
                table.as_os_str(),
                "-f".as_ref(),
                "-o".as_ref(),
                imported.as_os_str(),
            ]);
            let exported = pgc_ok(&["decode".as_ref(), "-q".as_ref(), imported.as_os_str()]);
            assert!(
                exported == kept_pgn,
                "{flag} {columns:?}: export keeps the same games"
            );
        }
    }
}

#[test]
fn training_rows_match_python_chess_replaying_the_games() {
    if !python_ready() {
        return;
    }
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("select-rows");
    let mut evals = 0;
    let mut clocks = 0;
    for (i, f) in [LICHESS, EVALS[0], EVALS[1]].iter().enumerate() {
        let (pgn, pgc_path) = concat(&tmp, &dir, &[f], &format!("rows{i}.pgn"));
        for extra in [&[][..], &["--skip-plies", "7", "--min-clock", "20"][..]] {
            let mut args: Vec<&OsStr> = vec!["rows".as_ref(), pgn.as_os_str()];
            args.extend(extra.iter().map(OsStr::new));
            let want = script(&args);
            let mut args: Vec<&OsStr> = vec![
                "moves".as_ref(),
                "-q".as_ref(),
                "--format".as_ref(),
                "csv".as_ref(),
                pgc_path.as_os_str(),
            ];
            args.extend(extra.iter().map(OsStr::new));
            let got = String::from_utf8(pgc_ok(&args)).expect("UTF-8");
            assert!(got.lines().count() > 10, "{f} {extra:?}");
            if got != want {
                let at = got
                    .lines()
                    .zip(want.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                panic!(
                    "{f} {extra:?}: row {at} differs:\npgc:    {:?}\npython: {:?}",
                    got.lines().nth(at),
                    want.lines().nth(at)
                );
            }
            for row in got.lines().skip(1) {
                let cols: Vec<&str> = row.split(',').collect();
                assert_eq!(cols.len(), 9, "{row}");
                evals += usize::from(!cols[7].is_empty());
                clocks += usize::from(!cols[6].is_empty());
            }
        }
    }
    assert!(
        evals > 50 && clocks > 10_000,
        "evals {evals}, clocks {clocks}"
    );
}

#[test]
fn where_and_dedup_write_the_same_for_every_job_count() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("select-jobs");
    let (pgn, pgc_path) = concat(&tmp, &dir, &[TWIC, LICHESS, TWIC], "jobs.pgn");
    let sel = [
        "--where",
        "Plies>=40 and (Elo>=2300 or Speed=bullet)",
        "--dedup",
    ];
    let runs: [(&str, &[&str], &Path); 4] = [
        ("decode", &[], &pgc_path),
        (
            "moves",
            &["--format", "csv", "--skip-plies", "4"],
            &pgc_path,
        ),
        ("moves", &["--format", "uci"], &pgc_path),
        ("encode", &[], &pgn),
    ];
    for (n, (cmd, extra, input)) in runs.into_iter().enumerate() {
        let mut outs = Vec::new();
        for j in ["1", "2", "3"] {
            let mut args: Vec<&OsStr> = vec![cmd.as_ref(), "-q".as_ref(), input.as_os_str()];
            args.extend(sel.iter().chain(extra).map(OsStr::new));
            let dups = tmp.path(&format!("dups-{n}-{j}"));
            args.extend(["-j", j, "--duplicates"].map(OsStr::new));
            args.push(dups.as_os_str());
            args.extend(["-o", "-"].map(OsStr::new));
            outs.push((pgc_ok(&args), std::fs::read(&dups).expect("duplicates")));
        }
        assert!(
            !outs[0].0.is_empty() && !outs[0].1.is_empty(),
            "{cmd} {extra:?}"
        );
        assert!(
            outs[1] == outs[0],
            "{cmd} {extra:?}: -j 2 differs from -j 1"
        );
        assert!(
            outs[2] == outs[0],
            "{cmd} {extra:?}: -j 3 differs from -j 1"
        );
    }
    let mut tables = Vec::new();
    for j in ["1", "2", "3"] {
        let table = tmp.path(&format!("t{j}.parquet"));
        let mut args: Vec<&OsStr> = vec!["export".as_ref(), "-q".as_ref(), pgc_path.as_os_str()];
        args.extend(sel.iter().map(OsStr::new));
        args.extend(["-j", j, "-o"].map(OsStr::new));
        args.push(table.as_os_str());
        pgc_ok(&args);
        tables.push(std::fs::read(&table).expect("table"));
    }
    assert!(
        tables[1] == tables[0] && tables[2] == tables[0],
        "export -j"
    );
}

#[test]
fn bad_expressions_and_flags_are_usage_errors() {
    let tmp = Tmp::new("select-usage");
    let pgn = tmp.path("g.pgn");
    std::fs::write(
        &pgn,
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n",
    )
    .expect("write");
    let pgc_path = tmp.path("g.pgc");
    pgc_ok(&[
        "encode".as_ref(),
        "-q".as_ref(),
        pgn.as_os_str(),
        "-o".as_ref(),
        pgc_path.as_os_str(),
    ]);
    let run = |args: &[&str]| {
        let out = pgc().args(args).arg(&pgc_path).output().expect("run pgc");
        (out.status.code(), stderr(&out))
    };
    let (code, err) = run(&["decode", "--where", "White=a and (Black=b"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("column 21") && err.contains("expected `)`"),
        "{err}"
    );
    let (code, err) = run(&["moves", "--where", "Elo>=strong"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("column 6") && err.contains("a number"),
        "{err}"
    );
    let (code, err) = run(&["decode", "--duplicates", "d.pgn"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--duplicates needs --dedup"), "{err}");
    let (code, err) = run(&["moves", "--min-clock", "30"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--format csv"), "{err}");
    // The old NAME OP VALUE form, and the selection itself.
    let out = pgc_ok(&[
        "moves".as_ref(),
        "-q".as_ref(),
        "--where".as_ref(),
        "White = a".as_ref(),
        "--where".as_ref(),
        "Plies=2 and not Player=c".as_ref(),
        pgc_path.as_os_str(),
    ]);
    assert_eq!(out, b"e2e4 e7e5 1-0\n");
    let out = pgc_ok(&[
        "moves".as_ref(),
        "-q".as_ref(),
        "--where".as_ref(),
        "Plies>2 or Black!=b".as_ref(),
        pgc_path.as_os_str(),
    ]);
    assert_eq!(out, b"");
}

#[test]
fn export_positions_holds_the_csv_rows() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float32Type, Float64Type, Int32Type, UInt32Type, UInt64Type};
    use arrow_array::{Array, RecordBatch};

    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("select-positions");
    let (_pgn, pgc_path) = concat(&tmp, &dir, &[LICHESS, EVALS[0], EVALS[1]], "pos.pgn");
    let sel = [
        "--where",
        "Plies>=20",
        "--skip-plies",
        "3",
        "--min-clock",
        "15",
    ];
    let mut args: Vec<&OsStr> = vec!["moves".as_ref(), "-q".as_ref(), pgc_path.as_os_str()];
    args.extend(["--format", "csv"].iter().chain(&sel).map(OsStr::new));
    let csv = String::from_utf8(pgc_ok(&args)).expect("UTF-8");
    let table = tmp.path("pos.arrow");
    let mut args: Vec<&OsStr> = vec!["export".as_ref(), "-q".as_ref(), pgc_path.as_os_str()];
    args.extend(["--positions"].iter().chain(&sel).map(OsStr::new));
    args.extend(["-o".as_ref(), table.as_os_str()]);
    pgc_ok(&args);

    let file = std::fs::File::open(&table).expect("table");
    let mut reader = pgc_arrow::TableReader::open(file, None).expect("open table");
    let mut rows = vec![csv.lines().next().expect("header").to_string()];
    let text = |b: &RecordBatch, c: &str, i: usize| -> String {
        let a = b.column_by_name(c).expect(c);
        if a.is_null(i) {
            return String::new();
        }
        match c {
            "game" => a.as_primitive::<UInt64Type>().value(i).to_string(),
            "ply" => a.as_primitive::<UInt32Type>().value(i).to_string(),
            "elo" | "opponent_elo" => a.as_primitive::<Int32Type>().value(i).to_string(),
            "eval" => a.as_primitive::<Int32Type>().value(i).to_string(),
            "mate" => format!("#{}", a.as_primitive::<Int32Type>().value(i)),
            "clock" => a.as_primitive::<Float64Type>().value(i).to_string(),
            "result" => a.as_primitive::<Float32Type>().value(i).to_string(),
            _ => a.as_string::<i32>().value(i).to_string(),
        }
    };
    while let Some(b) = reader.next_batch().expect("batch") {
        for i in 0..b.num_rows() {
            let eval = format!("{}{}", text(&b, "eval", i), text(&b, "mate", i));
            let cols = [
                text(&b, "game", i),
                text(&b, "ply", i),
                text(&b, "fen", i),
                text(&b, "move", i),
                text(&b, "elo", i),
                text(&b, "opponent_elo", i),
                text(&b, "clock", i),
                eval,
                text(&b, "result", i),
            ];
            rows.push(cols.join(","));
        }
    }
    let want: Vec<&str> = csv.lines().collect();
    assert!(want.len() > 1000, "{}", want.len());
    assert_eq!(rows.len(), want.len());
    for (got, want) in rows.iter().zip(&want) {
        assert_eq!(got, want);
    }
}
