//! Hostile PGC for `pgc decode`: records outside games are written back or
//! reported, never dropped; every position an error prints is absolute in
//! the input and the one `pgc verify` gives, for every `-j` and `--games`;
//! memory stays bounded on endless noops.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;
use common::{run as pgc, stderr as err, stdout as out};

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgc-hostile-decode-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every number that follows `byte ` in `text`.
fn bytes_named(text: &str) -> Vec<u64> {
    text.split("byte ")
        .skip(1)
        .filter_map(|t| {
            let n: String = t.chars().take_while(char::is_ascii_digit).collect();
            n.parse().ok()
        })
        .collect()
}

/// The number after the first `game ` in `text`.
fn game_named(text: &str) -> Option<u64> {
    let t = text.split("game ").nth(1)?;
    t.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

#[test]
fn an_escape_between_games_is_written_back() {
    let pgc_bytes = [0x05, 0x06, 0x0a, 0x03, 0x00, b'a', b'b', b'c', 0x05, 0x06];
    let v = pgc(&["verify", "-"], &pgc_bytes);
    assert!(v.status.success(), "{}", err(&v));
    let o = pgc(&["decode", "-"], &pgc_bytes);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(text.lines().any(|l| l == "%abc"), "{text:?}");
    // Between the two games, in the records' order (each empty game is
    // written as its blank lines).
    let at = text.find("%abc").unwrap();
    assert!(at > 0 && text[at + 5..].contains('\n'), "{text:?}");
    // After the last game, and with every job count.
    let tail = [0x05, 0x06, 0x0a, 0x01, 0x00, b'z'];
    for j in ["1", "2"] {
        let o = pgc(&["decode", "-j", j, "-"], &tail);
        assert!(o.status.success(), "{}", err(&o));
        assert!(out(&o).ends_with("%z\n"), "{:?}", out(&o));
    }
}

#[test]
fn escape_lines_survive_encode_then_decode() {
    let pgn = "%first\n[Event \"a\"]\n\n1. e4 *\n%between\n\n[Event \"b\"]\n\n1. d4 *\n%last\n";
    let e = pgc(&["encode", "-"], pgn.as_bytes());
    assert!(e.status.success(), "{}", err(&e));
    let d = pgc(&["decode", "-"], &e.stdout);
    assert!(d.status.success(), "{}", err(&d));
    let text = out(&d);
    for line in ["%first", "%between", "%last"] {
        assert!(text.lines().any(|l| l == line), "{line} in {text:?}");
    }
}

#[test]
fn extensions_between_games_are_written_or_reported() {
    // A `;` comment (kind 0x02) and a layout record (kind 0x07, no PGN
    // text of its own outside a game) between two games.
    let mut pgc_bytes = vec![0x05, 0x06, 0x80, 0x02, 0x02, b'h', b'i'];
    let layout = {
        // A layout payload as the encoder writes it: take one from an
        // encoded game with CRLF line ends.
        let e = pgc(&["encode", "-"], b"[Event \"a\"]\r\n\r\n1. e4 *\r\n");
        assert!(e.status.success(), "{}", err(&e));
        let p = e.stdout;
        let at = p
            .windows(2)
            .position(|w| w == [0x80, 0x07])
            .expect("a layout record");
        let len = p[at + 2] as usize;
        p[at..at + 3 + len].to_vec()
    };
    pgc_bytes.extend(&layout);
    pgc_bytes.extend([0x05, 0x06]);
    let v = pgc(&["verify", "-"], &pgc_bytes);
    assert!(v.status.success(), "{}", err(&v));
    let o = pgc(&["decode", "-"], &pgc_bytes);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).lines().any(|l| l == ";hi"), "{:?}", out(&o));
    let e = err(&o);
    assert!(
        e.contains("1 record(s) outside games") && e.contains("0x07"),
        "{e}"
    );
}

#[test]
fn a_bad_payload_between_games_fails_decode_as_verify() {
    // A termination record outside a game with an unknown outcome code.
    let pgc_bytes = [0x05, 0x06, 0x80, 0x03, 0x01, 0x07];
    let v = pgc(&["verify", "-"], &pgc_bytes);
    assert!(!v.status.success(), "{}", out(&v));
    let o = pgc(&["decode", "-"], &pgc_bytes);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert_eq!(bytes_named(&err(&o))[0], 2, "{}", err(&o));
}

/// A PGN of `n` small games of different lengths.
fn many_games(n: usize) -> String {
    let moves = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    ];
    let mut pgn = String::new();
    for g in 0..n {
        pgn.push_str(&format!("[Event \"g{g}\"]\n[Round \"{}\"]\n\n", g * 7));
        for (i, m) in moves.iter().take(1 + g % moves.len()).enumerate() {
            if i % 2 == 0 {
                pgn.push_str(&format!("{}. ", i / 2 + 1));
            }
            pgn.push_str(m);
            pgn.push(' ');
        }
        pgn.push_str("*\n\n");
    }
    pgn
}

#[test]
fn error_positions_are_absolute_and_agree_with_verify() {
    let dir = temp_dir("positions");
    let pgn = dir.join("many.pgn");
    std::fs::write(&pgn, many_games(12_000)).unwrap();
    let full = dir.join("many.pgc");
    let e = pgc(&["encode", s(&pgn), "-o", s(&full), "-q"], b"");
    assert!(e.status.success(), "{}", err(&e));
    let bytes = std::fs::read(&full).unwrap();
    assert!(bytes.len() > 300_000, "{}", bytes.len());
    for cut_at in [bytes.len() - 7, 280_001] {
        let cut = dir.join("cut.pgc");
        std::fs::write(&cut, &bytes[..cut_at]).unwrap();
        let v = pgc(&["verify", s(&cut)], b"");
        assert!(!v.status.success());
        let first = out(&v).lines().next().unwrap().to_string();
        let (want_byte, want_game) = (bytes_named(&first)[0], game_named(&first).unwrap());
        let mut runs: Vec<Vec<String>> = vec![];
        for j in ["1", "2", "3"] {
            runs.push(vec!["-j".into(), j.into()]);
            for from in [1, want_game - 1, want_game] {
                runs.push(vec![
                    "-j".into(),
                    j.into(),
                    "--games".into(),
                    format!("{from}.."),
                ]);
            }
        }
        for args in &runs {
            let mut a: Vec<&str> = vec!["decode"];
            a.extend(args.iter().map(String::as_str));
            a.push(s(&cut));
            let o = pgc(&a, b"");
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let e = err(&o);
            let named = bytes_named(&e);
            assert!(!named.is_empty(), "{args:?}: {e}");
            assert!(
                named.iter().all(|&b| b == want_byte),
                "cut {cut_at} {args:?}: {e}\nverify: {first}"
            );
            assert_eq!(
                game_named(&e),
                Some(want_game),
                "cut {cut_at} {args:?}: {e}\nverify: {first}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jsonl_game_numbers_and_offsets_are_those_of_the_file() {
    let dir = temp_dir("jsonl");
    let pgn = dir.join("many.pgn");
    std::fs::write(&pgn, many_games(12_000)).unwrap();
    let full = dir.join("many.pgc");
    let e = pgc(&["encode", s(&pgn), "-o", s(&full), "-q"], b"");
    assert!(e.status.success(), "{}", err(&e));
    for j in ["1", "2"] {
        let o = pgc(&["decode", "--format", "jsonl", "-j", j, s(&full)], b"");
        assert!(o.status.success(), "{}", err(&o));
        let text = out(&o);
        let mut last_offset = None;
        for (i, line) in text.lines().enumerate() {
            let want = format!("{{\"game\":{},\"offset\":", i + 1);
            assert!(line.starts_with(&want), "line {i}: {line}");
            let offset: u64 = line[want.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap();
            assert!(last_offset.is_none_or(|l| offset > l), "line {i}: {line}");
            last_offset = Some(offset);
        }
        assert_eq!(text.lines().count(), 12_000);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Peak resident memory of `pgc args…` in KiB, measured by `/usr/bin/time
/// -v`, or `None` (with the reason printed) when that tool is missing.
fn peak_kib(args: &[&str]) -> Option<(u64, std::process::Output)> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipped: /usr/bin/time is missing (apt-get install time)");
        return None;
    }
    let o = Command::new(time)
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_pgc"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let e = err(&o);
    let kib = e
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {e}"));
    Some((kib, o))
}

#[test]
fn decoding_endless_noops_stays_in_bounded_memory() {
    let dir = temp_dir("noops");
    let zeros = dir.join("zeros.pgc");
    // 24 MB of noop records (0x00), then one game: more than the bound,
    // which a splitter holding every noop until the next game exceeds (a
    // debug build frames about a megabyte of noops a second).
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&zeros).unwrap());
        let block = vec![0u8; 1 << 20];
        for _ in 0..24 {
            f.write_all(&block).unwrap();
        }
        f.write_all(&[0x05, 0x06]).unwrap();
    }
    if let Some((kib, o)) = peak_kib(&["decode", "-j", "2", s(&zeros), "-o", "/dev/null"]) {
        assert!(o.status.success(), "{}", err(&o));
        // Batches of 128 KiB, at most 2 × 2 in flight, and the binary.
        assert!(kib < 16 << 10, "peak {kib} KiB");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_payload_is_reported_before_a_later_error_of_its_game() {
    // A termination record with outcome code 9 at byte 1, then an unknown
    // marker at byte 5 in the same game.
    let pgc_bytes = [0x05, 0x80, 0x03, 0x01, 0x09, 0x74, 0x06];
    let v = pgc(&["verify", "-"], &pgc_bytes);
    let first = out(&v).lines().next().unwrap_or_default().to_string();
    assert_eq!(bytes_named(&first).first(), Some(&1), "{first}");
    for cmd in [
        &["decode", "-"][..],
        &["decode", "-j", "2", "-"],
        &["moves", "-"],
    ] {
        let o = pgc(cmd, &pgc_bytes);
        assert_eq!(o.status.code(), Some(1), "{cmd:?}");
        assert_eq!(
            bytes_named(&err(&o)).first(),
            Some(&1),
            "{cmd:?}: {}",
            err(&o)
        );
    }
}
