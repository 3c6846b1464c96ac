//! `pgc encode --strict`: 1994 records only, and a report per game and in
//! total of what was not kept. Expected counts are read off the PGN below.

mod common;
use common::pgc;

#[test]
fn strict_reports_per_game_and_in_total() {
    let dir = std::env::temp_dir().join(format!("pgc-strict-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let pgn = dir.join("in.pgn");
    // Game 1: two comments and a null move (the move after it is dropped).
    // Game 2: nothing to lose.
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 {first} e5 {second} 2. -- Nc6 *\n\n\
         [Event \"b\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n\n",
    )
    .expect("write");
    let out = dir.join("out.pgc");
    let report = dir.join("report.txt");
    let run = pgc()
        .args(["encode", "--strict", "--strict-report"])
        .arg(&report)
        .arg(&pgn)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run pgc");
    assert_eq!(run.status.code(), Some(0));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("--strict: not kept: 2 comments, 1 null move, 1 move after a null move"),
        "{err}"
    );
    let rep = std::fs::read_to_string(&report).expect("report");
    assert_eq!(rep.lines().count(), 1, "{rep}");
    assert!(
        rep.contains("game 1: not kept: 2 comments, 1 null move, 1 move after a null move"),
        "{rep}"
    );
    // A pure 1994 file: no extension marker 0x80 among its records.
    let info = pgc().arg("info").arg(&out).output().expect("info");
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(!info.contains("0x80"), "{info}");
    let _ = std::fs::remove_dir_all(&dir);
}
