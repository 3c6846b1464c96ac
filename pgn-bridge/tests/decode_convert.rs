//! PGC → PGN (the decoder) on records built by hand, and the one-call
//! conversions of `convert`. Ordinals are computed with
//! `pgc_core::ordinal::encode` on shakmaty moves; expected texts follow the
//! export format of the 1994 standard (section 8) and the rejects format
//! of `pgc encode --rejects`.

use pgc_core::ext::{self, Outcome};
use pgc_core::ordinal;
use pgn_bridge::DecodeOptions;
use pgn_bridge::{EncodeOptions, GameOutput, RejectReason};
use pgn_bridge::{Error, PgnToPgc, write_reject};
use pgn_bridge::{pgc_to_pgn, pgn_to_pgc};
use shakmaty::san::San;
use shakmaty::{Chess, Position};

/// The ordinals of `sans` played from the initial position.
fn ordinals(sans: &[&str]) -> Vec<u8> {
    let mut pos = Chess::default();
    sans.iter()
        .map(|s| {
            let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
            let o = ordinal::encode(&pos, m).unwrap();
            pos.play_unchecked(m);
            o
        })
        .collect()
}

fn s1(out: &mut Vec<u8>, s: &str) {
    out.push(s.len() as u8);
    out.extend_from_slice(s.as_bytes());
}

fn tag(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(0x02);
    s1(out, name);
    s1(out, value);
}

fn moves(out: &mut Vec<u8>, sans_before: &[&str], sans: &[&str]) {
    let all: Vec<&str> = sans_before.iter().chain(sans).copied().collect();
    let ords = ordinals(&all);
    out.push(0x03);
    out.push(sans.len() as u8);
    out.extend_from_slice(&ords[sans_before.len()..]);
}

fn decode(pgc: &[u8], opts: DecodeOptions) -> String {
    let mut out = Vec::new();
    pgc_to_pgn(pgc, &mut out, &opts).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_reduced_record_decodes_to_the_seven_tags_and_the_moves() {
    let mut pgc = vec![0x01];
    for v in ["Casual", "Here", "2024.03.04", "-", "A", "B", "0-1"] {
        s1(&mut pgc, v);
    }
    let ords = ordinals(&["f3", "e5", "g4", "Qh4#"]);
    pgc.extend_from_slice(&[4, 0]);
    pgc.extend_from_slice(&ords);
    assert_eq!(
        decode(&pgc, DecodeOptions::default()),
        "[Event \"Casual\"]\n[Site \"Here\"]\n[Date \"2024.03.04\"]\n[Round \"-\"]\n\
         [White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"
    );
}

#[test]
fn a_general_game_decodes_with_its_annotations_in_place() {
    let mut pgc = vec![0x05];
    tag(&mut pgc, "Event", "x");
    tag(&mut pgc, "Result", "*");
    moves(&mut pgc, &[], &["e4"]);
    pgc.extend_from_slice(&[0x07, 1]);
    pgc.extend_from_slice(&[0x80, ext::COMMENT, 4, b'b', b'e', b's', b't']);
    pgc.push(0x08);
    moves(&mut pgc, &[], &["d4", "d5"]);
    pgc.push(0x09);
    moves(&mut pgc, &["e4"], &["e5"]);
    pgc.push(0x06);
    assert_eq!(
        decode(&pgc, DecodeOptions::default()),
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 $1 {best} (1. d4 d5) 1... e5 *\n\n"
    );
}

#[test]
fn a_termination_record_is_the_marker_whatever_the_result_tag() {
    let mut pgc = vec![0x05];
    tag(&mut pgc, "Result", "1-0");
    moves(&mut pgc, &[], &["e4"]);
    pgc.extend_from_slice(&[0x80, ext::TERMINATION, 1, Outcome::Draw as u8]);
    pgc.push(0x06);
    assert_eq!(
        decode(&pgc, DecodeOptions::default()),
        "[Result \"1-0\"]\n\n1. e4 1/2-1/2\n\n"
    );
}

#[test]
fn strict_export_orders_the_tags_as_section_8_1_1_says() {
    let mut pgc = vec![0x05];
    tag(&mut pgc, "White", "W");
    tag(&mut pgc, "ECO", "C20");
    tag(&mut pgc, "Event", "E");
    tag(&mut pgc, "Annotator", "A");
    tag(&mut pgc, "Result", "*");
    pgc.push(0x06);
    // The Seven Tag Roster first, in its order, missing values as the
    // standard's unknowns; then the other tags in ASCII order.
    assert_eq!(
        decode(
            &pgc,
            DecodeOptions {
                strict_export: true,
                ..DecodeOptions::default()
            }
        ),
        "[Event \"E\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"W\"]\n\
         [Black \"?\"]\n[Result \"*\"]\n[Annotator \"A\"]\n[ECO \"C20\"]\n\n*\n\n"
    );
    // Without it the tags come as stored.
    assert!(decode(&pgc, DecodeOptions::default()).starts_with("[White \"W\"]\n[ECO \"C20\"]\n"));
}

#[test]
fn strict_export_ends_a_game_without_result_tag_with_a_marker() {
    // 1. e4 (ordinal 13), no Result tag and no termination record: the
    // export format fills in `[Result "*"]` and ends the game with `*`
    // (8.1.1, 8.2.6); without strict export the game ends as it was read.
    let mut pgc = vec![0x05];
    tag(&mut pgc, "Event", "E");
    pgc.extend([0x03, 1, 13, 0x06]);
    let strict = DecodeOptions {
        strict_export: true,
        ..DecodeOptions::default()
    };
    let text = decode(&pgc, strict);
    assert!(text.contains("[Result \"*\"]\n"), "{text}");
    assert!(text.ends_with("\n\n1. e4 *\n\n"), "{text:?}");
    assert!(decode(&pgc, DecodeOptions::default()).ends_with("\n\n1. e4\n\n"));
}

#[test]
fn strict_export_fills_in_the_result_tag_the_marker_gives() {
    // No Result tag and `1-0` ending the movetext: the Result tag strict
    // export fills in is the marker (8.2.6), with and without a comment
    // after it.
    for (pgn, end) in [
        ("[Event \"E\"]\n\n1. e4 e5 1-0\n", "1. e4 e5 1-0\n\n"),
        (
            "[Event \"E\"]\n\n1. e4 0-1 {lost}\n",
            "1. e4 0-1 {lost}\n\n",
        ),
        ("1. d4 1/2-1/2\n", "1. d4 1/2-1/2\n\n"),
    ] {
        let mut pgc = Vec::new();
        pgn_to_pgc(pgn.as_bytes(), &mut pgc, None, &EncodeOptions::default()).expect("encode");
        let strict = DecodeOptions {
            strict_export: true,
            ..DecodeOptions::default()
        };
        let text = decode(&pgc, strict);
        let marker = end.split(' ').find(|t| t.contains('-')).expect("a marker");
        let marker = marker.trim_end();
        assert!(text.contains(&format!("[Result \"{marker}\"]\n")), "{text}");
        assert!(text.ends_with(end), "{text:?}");
    }
}

#[test]
fn a_layout_record_gives_the_line_ends() {
    let mut pgc = vec![0x05, 0x80, ext::LAYOUT, 3, 0b1, 79, 2];
    tag(&mut pgc, "Result", "*");
    moves(&mut pgc, &[], &["e4"]);
    pgc.push(0x06);
    assert_eq!(
        decode(&pgc, DecodeOptions::default()),
        "[Result \"*\"]\r\n\r\n1. e4 *\r\n\r\n"
    );
}

#[test]
fn an_ordinal_out_of_range_is_an_error() {
    // The initial position has 20 legal moves: ordinal 20 is none of them.
    let pgc = [0x05, 0x03, 1, 20, 0x06];
    let mut out = Vec::new();
    let e = pgc_to_pgn(&pgc[..], &mut out, &DecodeOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Walk(_)), "{e}");
    assert!(e.to_string().contains("20"), "{e}");
}

const GOOD: &str = "[Event \"ok\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n";
const BAD: &str = "[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n";

#[test]
fn pgn_to_pgc_counts_and_keeps_rejects_verbatim() {
    let pgn = format!("{GOOD}{BAD}");
    let mut pgc = Vec::new();
    let mut rejects = Vec::new();
    let stats = pgn_to_pgc(
        pgn.as_bytes(),
        &mut pgc,
        Some(&mut rejects),
        &EncodeOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (
            stats.games,
            stats.encoded,
            stats.rejected,
            stats.identical,
            stats.plies
        ),
        (2, 1, 1, 1, 1)
    );
    assert_eq!(stats.bytes_in, pgn.len() as u64);
    assert_eq!(stats.bytes_out, pgc.len() as u64);
    assert_eq!(stats.rejects.len(), 1);
    assert_eq!(
        stats.rejects[0].reason,
        RejectReason::IllegalMove {
            token: "Ke3".into()
        }
    );
    // The bad game starts on line 6, at byte GOOD.len(); its third ply,
    // `Ke3`, two lines further on.
    let want = format!(
        "% pgc: rejected input: game 2 (line 6, byte {}), ply 3 (line 8, byte {}): illegal or \
         ambiguous move \"Ke3\" (expected a legal SAN move)\n{BAD}",
        GOOD.len(),
        GOOD.len() + BAD.find("Ke3").unwrap()
    );
    assert_eq!(String::from_utf8(rejects).unwrap(), want);
    // The whole text comes back byte for byte: the good game decoded, the
    // rejected one kept as read at its place.
    let mut back = Vec::new();
    let d = pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default()).unwrap();
    assert_eq!(String::from_utf8(back).unwrap(), pgn);
    assert_eq!(
        (d.games, d.bytes_in, d.bytes_out),
        (1, pgc.len() as u64, pgn.len() as u64)
    );
    // Strict: the rejected game is not in the output.
    let mut strict = Vec::new();
    let opts = EncodeOptions {
        strict: true,
        ..EncodeOptions::default()
    };
    pgn_to_pgc(pgn.as_bytes(), &mut strict, None, &opts).unwrap();
    let mut back = Vec::new();
    pgc_to_pgn(&strict[..], &mut back, &DecodeOptions::default()).unwrap();
    assert_eq!(String::from_utf8(back).unwrap(), GOOD);
}

#[test]
fn write_reject_ends_the_game_with_a_newline() {
    let reject = {
        let mut conv = PgnToPgc::new(BAD.as_bytes(), &EncodeOptions::default());
        match conv.next_game().unwrap().unwrap() {
            GameOutput::Rejected(r) => r,
            other => panic!("{other:?}"),
        }
    };
    let mut out = Vec::new();
    write_reject(&mut out, "f.pgn", &reject, b"1. Ke3 *").unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!(
            "% pgc: rejected f.pgn: game 1 (line 1, byte 0), ply 3 (line 3, byte {}): illegal or \
             ambiguous move \"Ke3\" (expected a legal SAN move)\n1. Ke3 *\n",
            BAD.find("Ke3").unwrap()
        )
    );
}

#[test]
fn pgn_to_pgc_streams_one_game_at_a_time() {
    let pgn = format!("{GOOD}{BAD}{GOOD}");
    let mut conv = PgnToPgc::new(pgn.as_bytes(), &EncodeOptions::default());
    let mut seen = Vec::new();
    while let Some(out) = conv.next_game().unwrap() {
        match out {
            GameOutput::Encoded { plies, .. } => {
                assert_eq!(plies, 1);
                // Event and Result only: a general game.
                let g = conv.game_bytes();
                assert_eq!((g[0], g[g.len() - 1]), (0x05, 0x06));
                seen.push("encoded");
            }
            GameOutput::Rejected(_) => {
                assert_eq!(conv.rejected_raw(), BAD.as_bytes());
                seen.push("rejected");
            }
        }
    }
    assert_eq!(seen, ["encoded", "rejected", "encoded"]);
    assert_eq!(conv.offset(), pgn.len() as u64);
}

#[test]
fn an_input_of_whitespace_only_comes_back_whole() {
    let input = b"\r\n\n \t\n";
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(&input[..], &mut pgc, None, &EncodeOptions::default()).unwrap();
    assert_eq!((stats.games, stats.bytes_in), (0, input.len() as u64));
    // A verbatim extension record: 0x80, kind 0x0a, the bytes.
    let mut expected = Vec::new();
    ext::verbatim::write(&mut expected, input, pgc_core::Limits::DEFAULT.max_string);
    assert_eq!(pgc, expected);
    let mut back = Vec::new();
    pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default()).unwrap();
    assert_eq!(back, input);
}

#[test]
fn max_game_bytes_of_the_options_bounds_a_game() {
    let pgn = format!(
        "{GOOD}\n[Event \"long\"]\n\n1. e4 {{{}}} *\n",
        "x".repeat(200)
    );
    let opts = |max_game_bytes| EncodeOptions {
        max_game_bytes,
        ..EncodeOptions::default()
    };
    let e = pgn_to_pgc(pgn.as_bytes(), Vec::new(), None, &opts(100)).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("PGN game #2") && text.contains("limit of 100 bytes"),
        "{text}"
    );
    let mut pgc = Vec::new();
    pgn_to_pgc(pgn.as_bytes(), &mut pgc, None, &opts(1000)).unwrap();
    let mut back = Vec::new();
    pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default()).unwrap();
    assert_eq!(back, pgn.as_bytes());
}
