//! Embedded commands end to end: `pgc info` counts typed and text comments by
//! command, and `pgc decode --format jsonl` gives clocks and evaluations as
//! numbers. Expected values are read off the PGN written here.

mod common;

/// Exit code, stdout and stderr of `pgc args…` fed `stdin`.
fn pgc(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let out = common::run(args, stdin);
    let err = common::stderr(&out);
    (out.status.code().unwrap_or(-1), out.stdout, err)
}

const GAME: &[u8] = b"[Event \"Rated Blitz game\"]\n[Result \"0-1\"]\n\n\
1. f3 { [%eval -0.5] [%clk 0:03:00] } 1... e5 { [%clk 0:02:58.4] } \
2. g4 { [%clk 0:02:57] } { a blunder } 2... Qh4# { [%clk 0:02:55] } 0-1\n\n";

#[test]
fn info_counts_typed_and_text_comments_by_command() {
    let (code, pgc_bytes, err) = pgc(&["encode", "-q"], GAME);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = pgc(&["info", "-"], &pgc_bytes);
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).expect("utf-8");
    // Four comments made only of commands, one of words.
    assert!(
        out.contains("comments     5 (4 as typed commands, 0 as engine notes, 1 as text)"),
        "{out}"
    );
    assert!(out.contains("[%clk]       4 typed, 0 in text"), "{out}");
    assert!(out.contains("[%eval]      1 typed, 0 in text"), "{out}");
    // And the text comes back byte for byte.
    let (code, back, err) = pgc(&["decode", "-q"], &pgc_bytes);
    assert_eq!(code, 0, "{err}");
    assert_eq!(back, GAME);
}

#[test]
fn jsonl_gives_clocks_and_evals_as_numbers() {
    let (_, pgc_bytes, _) = pgc(&["encode", "-q"], GAME);
    let (code, out, err) = pgc(&["decode", "-q", "--format", "jsonl"], &pgc_bytes);
    assert_eq!(code, 0, "{err}");
    let line = String::from_utf8(out).expect("utf-8");
    assert_eq!(line.lines().count(), 1);
    for want in [
        r#""result":"0-1""#,
        r#"{"uci":"f2f3","san":"f3","clk":180,"eval":{"cp":-50}}"#,
        r#"{"uci":"e7e5","san":"e5","clk":178.4}"#,
        r#"{"uci":"g2g4","san":"g4","clk":177,"comments":["a blunder"]}"#,
        r#"{"uci":"d8h4","san":"Qh4#","clk":175}"#,
    ] {
        assert!(line.contains(want), "{want} not in {line}");
    }
}

/// Engine notes are written with the predictor each numbers stream took
/// in the game before as a hint: with two or three jobs each worker sees
/// other games before a game, and the bytes must not change.
#[test]
fn engine_games_encode_the_same_for_every_job_count() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let file =
        corpus.join("TCEC-Chess__tcecgames/master-archive/TCEC_Season_20_-_Frc3_Final.pgn.zst");
    let path = file.to_str().expect("a UTF-8 path");
    let mut outputs = Vec::new();
    for j in ["1", "2", "3"] {
        let (code, out, err) = pgc(&["encode", "-q", "-j", j, path], b"");
        assert_eq!(code, 0, "-j {j}: {err}");
        outputs.push(out);
    }
    // Engine notes were written (kind 0x14 after an extension marker).
    assert!(outputs[0].windows(2).filter(|w| w == &[0x80, 0x14]).count() >= 40);
    assert!(outputs[1] == outputs[0], "-j 2 differs from -j 1");
    assert!(outputs[2] == outputs[0], "-j 3 differs from -j 1");
}
