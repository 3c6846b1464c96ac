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

#[test]
fn skipped_variations_break_the_rules_for_moves_and_export_as_for_verify() {
    // 1. e4, then 300 RAVs each holding 1. d4 and the next (deeper than
    // the default limit of 256), closed; and a game whose RAV holds a RAV
    // with no move before it.
    let mut deep = vec![0x05, 0x03, 0x01, 13];
    for _ in 0..300 {
        deep.extend([0x08, 0x03, 0x01, 11]);
    }
    deep.extend([0x09; 300]);
    deep.push(0x06);
    let empty = [
        0x05, 0x03, 0x01, 13, 0x08, 0x03, 0x01, 11, 0x08, 0x08, 0x09, 0x09, 0x09, 0x06,
    ];
    let dir = temp_dir("skipped-ravs");
    for (data, byte, words) in [
        (&deep[..], 4 + 256 * 4, "--max-rav-depth"),
        (&empty[..], 9, "no move before it"),
    ] {
        let v = pgc(&["verify", "-"], data);
        assert_eq!(v.status.code(), Some(1), "{}", out(&v));
        assert!(out(&v).contains(&format!("byte {byte},")), "{}", out(&v));
        for (cmd, name) in [("moves", "moves.txt"), ("export", "games.parquet")] {
            let to = dir.join(name);
            let o = pgc(&[cmd, "-", "-o", s(&to), "--force"], data);
            assert_eq!(o.status.code(), Some(1), "pgc {cmd}: {}", err(&o));
            assert_eq!(bytes_named(&err(&o)), [byte], "pgc {cmd}: {}", err(&o));
            assert!(err(&o).contains(words), "pgc {cmd}: {}", err(&o));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
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

/// One PGC game of `plies` knight moves (Nf3 Nf6 Ng1 Ng8 over and over),
/// in long-moves records of 65,535 moves: about one byte a ply, whose
/// text (`decode`) is about 8 bytes a ply and whose positions (`moves
/// --format fen`) about 70.
fn knight_shuffle(plies: usize) -> Vec<u8> {
    // Game begin; the tag Event "k".
    let mut g = vec![0x05, 0x02, 5];
    g.extend(b"Event");
    g.extend([1, b'k']);
    // The ordinals of Nf3, Nf6, Ng1, Ng8 in their positions.
    let ordinals = [2u8, 2, 4, 5];
    let mut ply = 0;
    while ply < plies {
        let n = (plies - ply).min(0xffff);
        g.push(0x04);
        g.extend((n as u16).to_le_bytes());
        g.extend((ply..ply + n).map(|i| ordinals[i % 4]));
        ply += n;
    }
    // Termination `*`, game end.
    g.extend([0x80, 0x03, 0x01, 0x04, 0x06]);
    g
}

/// Small games around the huge one, so that batches before and after it
/// are in flight on other threads.
fn small_games(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.extend(knight_shuffle(1 + out.len() % 7));
    }
    out
}

/// A game of a million plies, among small games: its text is written out
/// in parts, so `decode` and every `moves` format stay within a bound
/// that does not grow with its text (a hundred megabytes of positions),
/// and the output is the same for every `-j` and as when the text is held
/// whole (under a `--where` that keeps every game).
#[test]
fn a_huge_game_is_written_in_parts_in_bounded_memory() {
    let dir = temp_dir("huge-game");
    let file = dir.join("huge.pgc");
    let mut pgc_bytes = small_games(3000);
    pgc_bytes.extend(knight_shuffle(1_000_000));
    pgc_bytes.extend(small_games(3000));
    std::fs::write(&file, &pgc_bytes).unwrap();
    let v = pgc(&["verify", s(&file)], b"");
    assert!(v.status.success(), "{}", out(&v));
    let text = dir.join("out.txt");
    for cmd in [
        &["decode"][..],
        &["decode", "--format", "jsonl"],
        &["moves"],
        &["moves", "--format", "san"],
        &["moves", "--format", "fen"],
        &["moves", "--format", "csv"],
    ] {
        let mut outputs = Vec::new();
        for j in ["1", "2", "3"] {
            let mut args = cmd.to_vec();
            args.extend(["-q", "-f", "-j", j, s(&file), "-o", s(&text)]);
            let Some((kib, o)) = peak_kib(&args) else {
                return;
            };
            assert!(o.status.success(), "{cmd:?} -j {j}: {}", err(&o));
            // Before, the text was held whole: 100 MB for the positions.
            assert!(kib < 64 << 10, "{cmd:?} -j {j}: peak {} MiB", kib >> 10);
            outputs.push(std::fs::read(&text).unwrap());
        }
        let mut args = cmd.to_vec();
        args.extend(["-q", "-j", "2", "--where", "Event = \"k\"", s(&file)]);
        let whole = pgc(&args, b"");
        assert!(whole.status.success(), "{cmd:?}: {}", err(&whole));
        assert!(whole.stdout.len() > 2 << 20, "{cmd:?}: more than one part");
        for (j, o) in outputs.iter().enumerate() {
            assert!(
                *o == whole.stdout,
                "{cmd:?} -j {}: not the same text",
                j + 1
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The case: `moves --format fen` of a 10 MB game (ten million
/// plies, 700 MB of positions) peaks under 256 MiB at `-j 2`; it took
/// 1 GB when the text was held whole.
#[test]
fn positions_of_a_ten_million_ply_game_stay_under_256_mib() {
    let dir = temp_dir("ten-million");
    let file = dir.join("huge.pgc");
    std::fs::write(&file, knight_shuffle(10_000_000)).unwrap();
    let args = [
        "moves",
        "--format",
        "fen",
        "-q",
        "-j",
        "2",
        s(&file),
        "-o",
        "/dev/null",
    ];
    if let Some((kib, o)) = peak_kib(&args) {
        assert!(o.status.success(), "{}", err(&o));
        assert!(kib <= 256 << 10, "peak {} MiB", kib >> 10);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A write that fails while a huge game's text is written in parts stops
/// the run with the error, as any other write error (here a full device).
#[test]
fn a_failed_write_of_a_part_stops_the_run() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let dir = temp_dir("full");
    let file = dir.join("huge.pgc");
    std::fs::write(&file, knight_shuffle(300_000)).unwrap();
    let o = pgc(
        &["moves", "--format", "fen", "-q", s(&file), "-o", s(full)],
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("/dev/full"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The positions of a huge game with variations, null moves and NAGs,
/// among games with a FEN tag, a Result tag and no termination record,
/// written in parts as the game is walked (not collected): the same lines
/// as when the text is held whole (under a `--where` that keeps every
/// game), for every `-j`, and the same games and error when the file is
/// cut inside or after the huge game.
#[test]
fn positions_written_in_parts_are_those_of_collected_games() {
    let dir = temp_dir("positions-parts");
    let cycle = "Nf3 (Nc3 Nc6 (Nf6) Nd5) Nf6 (-- Nc3 Nc6) Ng1 {c} $1 Ng8 ";
    let small = "[Event \"s\"]\n[Result \"0-1\"]\n\n1. e4 (1. d4 d5 (1... Nf6) 2. c4) 1... e5 2. Nf3 -- 3. Bc4 0-1\n\n";
    let fen = "[Event \"f\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n";
    let pgn = format!(
        "{}{fen}[Event \"v\"]\n[Result \"1-0\"]\n\n{}\n\n{}{fen}1. Rh2 *\n\n",
        small.repeat(5),
        cycle.repeat(30_000),
        small.repeat(3)
    );
    let pgn_file = dir.join("var.pgn");
    std::fs::write(&pgn_file, pgn).unwrap();
    let file = dir.join("var.pgc");
    let e = pgc(&["encode", "-q", s(&pgn_file), "-o", s(&file)], b"");
    assert!(e.status.success(), "{}", err(&e));
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.len() > 1 << 20);
    let cut = dir.join("cut.pgc");
    for (input, data) in [
        (&file, None),
        (&cut, Some(&bytes[..bytes.len() / 2])),
        (&cut, Some(&bytes[..bytes.len() - 3])),
    ] {
        if let Some(d) = data {
            std::fs::write(&cut, d).unwrap();
        }
        for extra in [
            &["--format", "fen"][..],
            &["--format", "fen", "--all"],
            &["--format", "epd", "--all", "--skip-plies", "3"],
        ] {
            let mut held = vec!["moves", "-q", "-j", "2", "--where", "Event != \"zz\""];
            held.extend(extra);
            held.push(s(input));
            let want = pgc(&held, b"");
            let status = if data.is_some() { 1 } else { 0 };
            assert_eq!(
                want.status.code(),
                Some(status),
                "{extra:?}: {}",
                err(&want)
            );
            assert!(want.stdout.len() > 4 << 20 || data.is_some(), "{extra:?}");
            for j in ["1", "2"] {
                let mut args = vec!["moves", "-q", "-j", j];
                args.extend(extra);
                args.push(s(input));
                let got = pgc(&args, b"");
                assert_eq!(got.status.code(), want.status.code(), "{extra:?} -j {j}");
                assert!(
                    got.stdout == want.stdout,
                    "{extra:?} -j {j}: not the same lines"
                );
                assert_eq!(err(&got), err(&want), "{extra:?} -j {j}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A huge game the file cuts short after part of its text was written
/// out: the error names the byte as `verify` does and the status is 1; a
/// file output is not kept (no half game under its name), while on stdout
/// the text written stays, cut before the damage.
#[test]
fn a_huge_game_cut_short_after_parts_were_written() {
    let dir = temp_dir("cut-parts");
    let whole = knight_shuffle(1_000_000);
    let file = dir.join("cut.pgc");
    std::fs::write(&file, &whole[..whole.len() / 2]).unwrap();
    let v = pgc(&["verify", s(&file)], b"");
    let first = out(&v).lines().next().unwrap_or_default().to_string();
    let want = bytes_named(&first)[0];
    let target = dir.join("out.pgn");
    let o = pgc(&["decode", "-q", s(&file), "-o", s(&target)], b"");
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert_eq!(bytes_named(&err(&o)).first(), Some(&want), "{}", err(&o));
    assert!(!target.exists(), "no output file after an error");
    for cmd in [&["decode", "-q"][..], &["moves", "-q"]] {
        let mut args = cmd.to_vec();
        args.push(s(&file));
        let o = pgc(&args, b"");
        assert_eq!(o.status.code(), Some(1), "{cmd:?}: {}", err(&o));
        assert_eq!(bytes_named(&err(&o)).first(), Some(&want), "{}", err(&o));
        // Parts of the game's text, never its end.
        assert!(o.stdout.len() >= 1 << 20, "{cmd:?}");
        assert!(!o.stdout.ends_with(b"*\n"), "{cmd:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
