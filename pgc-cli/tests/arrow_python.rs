//! A real database over `pgc export`'s Parquet, and Parquet in the Lichess
//! dataset's layout into `pgc encode`, with DuckDB, pyarrow and
//! python-chess (`tests/python/`).
//!
//! - DuckDB answers three questions over the table of two corpus files
//!   (games per Result where WhiteElo >= 2400, the games of one player,
//!   the average plies per ECO code); python-chess answers them from the
//!   PGN; the answers must be equal. The `pgc` column DuckDB copies out
//!   gives, through `pgc import`, the PGC `pgc encode` writes.
//! - pyarrow writes the corpus's Lichess sample as a Lichess-layout
//!   Parquet (a column per tag, `movetext`); `pgc encode` of it gives the
//!   games `pgc encode` of the PGN gives.
//!
//! Skips with a printed reason when duckdb, pyarrow or python-chess is not
//! importable, unless `PGC_REQUIRE_PYCHESS` is set (`scripts/test`
//! installs them); and without the corpus, unless `PGC_REQUIRE_CORPUS` is.

mod common;

use common::{Tmp, corpus_dir, pgc, root, stderr};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

const LICHESS: &str = "lichess-org__database/2017-05.pgn.zst";
const TWIC: &str = "hauva69__pgn4web/twic944.pgn.zst";

/// Whether the Python packages are there; a failure instead when they are
/// required.
fn python_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import duckdb, pyarrow, chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("PGC_REQUIRE_PYCHESS").is_none(),
            "duckdb, pyarrow and python-chess are required (PGC_REQUIRE_PYCHESS is set): \
             pip install duckdb pyarrow chess, or run scripts/test"
        );
        eprintln!(
            "skipping: duckdb, pyarrow or python-chess not installed (pip install duckdb pyarrow chess)"
        );
    }
    ok
}

/// Runs pgc, which must succeed.
fn pgc_ok(args: &[&OsStr]) -> Vec<u8> {
    let out = pgc().args(args).output().expect("run pgc");
    assert!(
        out.status.success(),
        "pgc {args:?}: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    out.stdout
}

/// Runs a script of tests/python, which must succeed; its stdout.
fn python(script: &str, args: &[&OsStr]) -> String {
    let out = Command::new("python3")
        .arg(root().join("tests/python").join(script))
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{script}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn duckdb_answers_what_python_chess_reads_in_the_pgn() {
    if !python_ready() {
        return;
    }
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("duckdb");
    let inputs = [dir.join(LICHESS), dir.join(TWIC)];
    let table = tmp.path("games.parquet");
    let mut args: Vec<&OsStr> = vec!["export".as_ref(), "-q".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend(["-o".as_ref(), table.as_os_str()]);
    pgc_ok(&args);

    let mut args: Vec<&OsStr> = vec![table.as_os_str(), tmp.0.as_os_str()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    let report = python("duckdb_queries.py", &args);
    let mut answers: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    let mut player_games = 0usize;
    for line in report.lines() {
        let mut f = line.splitn(3, '\t');
        let (q, source, json) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        if q == "player" {
            player_games = source.parse().expect("a count");
        } else {
            answers.entry(q).or_default().insert(source, json);
        }
    }
    assert_eq!(
        answers.keys().copied().collect::<Vec<_>>(),
        ["eco_plies", "player_games", "result_counts"],
        "{report}"
    );
    for (q, by) in &answers {
        let (duck, pgn) = (by["duckdb"], by["pgn"]);
        assert!(duck.len() > 20, "{q}: a trivial answer: {duck}");
        assert_eq!(
            duck, pgn,
            "{q}: DuckDB over the table and python-chess over the PGN differ"
        );
    }
    // The TWIC games are rated: the WhiteElo >= 2400 query is not empty.
    assert!(
        answers["result_counts"]["duckdb"].contains("\"1-0\": "),
        "{report}"
    );
    assert!(player_games > 100, "{report}");

    // The pgc column as DuckDB wrote it gives back what encode writes.
    let encoded = tmp.path("encoded.pgc");
    let mut args: Vec<&OsStr> = vec!["encode".as_ref(), "-q".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend(["-o".as_ref(), encoded.as_os_str()]);
    pgc_ok(&args);
    let back = tmp.path("all.pgc");
    pgc_ok(&[
        "import".as_ref(),
        "-q".as_ref(),
        tmp.path("all.parquet").as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert!(
        std::fs::read(&back).expect("all.pgc") == std::fs::read(&encoded).expect("encoded"),
        "DuckDB's copy of the pgc column does not import to the encoded PGC"
    );
    // The player's games, selected by DuckDB, imported and decoded.
    let player = tmp.path("player.pgc");
    pgc_ok(&[
        "import".as_ref(),
        "-q".as_ref(),
        tmp.path("player.parquet").as_os_str(),
        "-o".as_ref(),
        player.as_os_str(),
    ]);
    let pgn = pgc_ok(&["decode".as_ref(), player.as_os_str()]);
    let pgn = String::from_utf8_lossy(&pgn);
    assert_eq!(pgn.matches("[Result ").count(), player_games);
}

#[test]
fn a_lichess_layout_parquet_encodes_to_the_games_of_its_pgn() {
    if !python_ready() {
        return;
    }
    let Some(dir) = corpus_dir() else { return };
    let tmp = Tmp::new("lichess");
    let src = dir.join(LICHESS);
    let table = tmp.path("lichess.parquet");
    let rows = python("lichess_layout.py", &[src.as_os_str(), table.as_os_str()]);
    assert_eq!(rows.trim(), "298");

    let (from_table, from_pgn) = (tmp.path("t.pgc"), tmp.path("p.pgc"));
    pgc_ok(&[
        "encode".as_ref(),
        "-q".as_ref(),
        table.as_os_str(),
        "-o".as_ref(),
        from_table.as_os_str(),
    ]);
    pgc_ok(&[
        "encode".as_ref(),
        "-q".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        from_pgn.as_os_str(),
    ]);
    // The games, not the layout of their text: the standard's export form.
    let decode =
        |p: &PathBuf| pgc_ok(&["decode".as_ref(), "--strict-export".as_ref(), p.as_os_str()]);
    let (a, b) = (decode(&from_table), decode(&from_pgn));
    assert_eq!(String::from_utf8_lossy(&a).matches("[Result ").count(), 298);
    assert!(
        a == b,
        "the games of the Lichess-layout table differ from the PGN's"
    );
}
