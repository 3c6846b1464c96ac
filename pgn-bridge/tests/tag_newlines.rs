//! Tag values holding a newline, which a PGN tag line cannot hold (a tag
//! pair is one line, section 8.1.1 of the 1994 standard). PGC written by
//! another tool may hold one; the decoder writes a space for each newline,
//! counts the tag, and its PGN reads back with the same tags. Other control
//! bytes that a PGN reader lets through (a tab, a lone carriage return, NUL)
//! are kept, in PGC and in the PGN written from it: nothing a PGN file says
//! is dropped.
//!
//! PGC inputs are built by hand from section 20.4; expected texts are written
//! out by hand from the export format (8.1, 8.2), never copied from the
//! decoder's output.

use pgc_core::GameInfo;
use pgc_core::{GameVisitor, GameWalker, Limits, verify};
use pgn_bridge::DecodeOptions;
use pgn_bridge::EncodeOptions;
use pgn_bridge::{DecodeStats, EncodeStats, pgc_to_pgn, pgn_to_pgc};
use std::ops::ControlFlow;

type Tags = Vec<(Vec<u8>, Vec<u8>)>;

fn decode_with(pgc: &[u8], opts: &DecodeOptions) -> (String, DecodeStats) {
    let mut pgn = Vec::new();
    let stats = pgc_to_pgn(pgc, &mut pgn, opts).expect("decode");
    (String::from_utf8(pgn).expect("ASCII PGN"), stats)
}

fn encode(pgn: &[u8]) -> (Vec<u8>, EncodeStats) {
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(pgn, &mut pgc, None, &EncodeOptions::default()).expect("encode");
    assert_eq!(stats.rejected, 0, "rejects: {:?}", stats.rejects);
    (pgc, stats)
}

/// The tags of every game of `pgc`, as the walker gives them.
fn tags_of(pgc: &[u8]) -> Vec<Tags> {
    #[derive(Default)]
    struct Collect(Vec<Tags>);
    impl GameVisitor for Collect {
        fn wants_san(&self) -> bool {
            false
        }
        fn begin_game(&mut self, _info: &GameInfo) -> ControlFlow<()> {
            self.0.push(Vec::new());
            ControlFlow::Continue(())
        }
        fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
            if let Some(g) = self.0.last_mut() {
                g.push((name.to_vec(), value.to_vec()));
            }
            ControlFlow::Continue(())
        }
    }
    let mut walker = GameWalker::new(pgc);
    let mut c = Collect::default();
    while walker.walk_game(&mut c).expect("walk") {}
    c.0
}

fn tags(pairs: &[(&str, &str)]) -> Tags {
    pairs
        .iter()
        .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect()
}

/// `02 string-1 name string-1 value`.
fn tag_pair(name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut r = vec![0x02, name.len() as u8];
    r.extend(name);
    r.push(value.len() as u8);
    r.extend(value);
    r
}

#[test]
fn a_newline_in_a_tag_value_is_written_as_a_space_and_reads_back() {
    // Game 1: [Event "a<LF>b"] [Site "?"] [Result "*"] 1. e4 (13) e5 (12).
    let mut pgc = vec![0x05];
    pgc.extend(tag_pair(b"Event", b"a\nb"));
    pgc.extend(tag_pair(b"Site", b"?"));
    pgc.extend(tag_pair(b"Result", b"*"));
    pgc.extend([0x03, 2, 13, 12, 0x06]);
    // Game 2: a 0x01 reduced game whose Site is "x<CR><LF>y", 1. e4 e5:
    // the newline becomes a space, the carriage return stays.
    pgc.push(0x01);
    for s in [&b"?"[..], b"x\r\ny", b"?", b"?", b"?", b"?", b"*"] {
        pgc.push(s.len() as u8);
        pgc.extend(s);
    }
    pgc.extend([2, 0, 13, 12]);

    let (pgn, stats) = decode_with(&pgc, &DecodeOptions::default());
    let expected = "[Event \"a b\"]\n\
                    [Site \"?\"]\n\
                    [Result \"*\"]\n\
                    \n\
                    1. e4 e5 *\n\
                    \n\
                    [Event \"?\"]\n\
                    [Site \"x\r y\"]\n\
                    [Date \"?\"]\n\
                    [Round \"?\"]\n\
                    [White \"?\"]\n\
                    [Black \"?\"]\n\
                    [Result \"*\"]\n\
                    \n\
                    1. e4 e5 *\n\
                    \n";
    assert_eq!(pgn, expected);
    assert!(pgn.lines().any(|l| l == "[Event \"a b\"]"));
    assert_eq!((stats.games, stats.tags_with_newlines), (2, 2));

    // The PGN reads back, with the project's own reader, as the same games
    // with the same tags (a space where the newlines were).
    let (again, estats) = encode(pgn.as_bytes());
    assert_eq!(estats.games, 2);
    assert_eq!(
        tags_of(&again),
        [
            tags(&[("Event", "a b"), ("Site", "?"), ("Result", "*")]),
            tags(&[
                ("Event", "?"),
                ("Site", "x\r y"),
                ("Date", "?"),
                ("Round", "?"),
                ("White", "?"),
                ("Black", "?"),
                ("Result", "*"),
            ]),
        ]
    );
    // ... and decodes to the same text again.
    let (back, stats) = decode_with(&again, &DecodeOptions::default());
    assert_eq!(back, expected);
    assert_eq!(stats.tags_with_newlines, 0);
}

#[test]
fn other_control_bytes_are_kept_next_to_escapes_and_in_strict_export_order() {
    // [Round "say "hi"<TAB>now\"], [Event "<NUL><DEL>"], 1. e4.
    let mut pgc = vec![0x05];
    pgc.extend(tag_pair(b"Round", b"say \"hi\"\tnow\\"));
    pgc.extend(tag_pair(b"Event", b"\x00\x7f"));
    pgc.extend([0x03, 1, 13, 0x06]);
    let report = verify(&pgc[..], Limits::default()).expect("memory");
    assert!(report.is_ok(), "{:?}", report.problems);
    let (pgn, stats) = decode_with(&pgc, &DecodeOptions::default());
    assert_eq!(
        pgn,
        "[Round \"say \\\"hi\\\"\tnow\\\\\"]\n[Event \"\x00\x7f\"]\n\n1. e4\n\n"
    );
    assert_eq!(stats.tags_with_newlines, 0);
    // Strict export order: the Seven Tag Roster first, defaults filled in,
    // and the game ends with the marker its Result says (8.2.6).
    let strict = DecodeOptions {
        strict_export: true,
        ..DecodeOptions::default()
    };
    let (pgn, stats) = decode_with(&pgc, &strict);
    assert_eq!(
        pgn,
        "[Event \"\x00\x7f\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"say \\\"hi\\\"\tnow\\\\\"]\n\
         [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n1. e4 *\n\n"
    );
    assert_eq!(stats.tags_with_newlines, 0);
}

#[test]
fn a_long_tag_with_a_newline_is_written_with_a_space_and_a_tab_kept() {
    // A long-tag extension (kind 0x05): name "Annotator", value 300 bytes
    // of 'x' with a newline at value offset 10 and a tab at offset 20.
    let mut value = vec![b'x'; 300];
    value[10] = b'\n';
    value[20] = b'\t';
    let mut payload = vec![9];
    payload.extend(b"Annotator");
    payload.extend(&value);
    // LEB128 of 310: 0xb6 0x02.
    let mut pgc = vec![0x05, 0x80, 0x05, 0xb6, 0x02];
    pgc.extend(&payload);
    pgc.extend(tag_pair(b"Result", b"*"));
    pgc.extend([0x03, 1, 13, 0x06]);
    assert_eq!(payload.len(), 310);
    let (pgn, stats) = decode_with(&pgc, &DecodeOptions::default());
    let want = format!(
        "[Annotator \"{} {}\t{}\"]\n[Result \"*\"]\n\n1. e4 *\n\n",
        "x".repeat(10),
        "x".repeat(9),
        "x".repeat(279)
    );
    assert_eq!(pgn, want);
    assert_eq!(stats.tags_with_newlines, 1);
}

#[test]
fn the_encoder_keeps_a_tab_in_a_pgn_tag_byte_for_byte() {
    // Non-conforming PGN (section 7 asks for printing characters): a tab
    // inside a tag string. Lossless: the tab is kept.
    let pgn = b"[Event \"a\tb\"]\n[Result \"*\"]\n\n1. e4 *\n\n";
    let (pgc, stats) = encode(pgn);
    assert_eq!(tags_of(&pgc), [tags(&[("Event", "a\tb"), ("Result", "*")])]);
    assert_eq!(stats.identical, 1);
    let report = verify(&pgc[..], Limits::default()).expect("memory");
    assert!(report.is_ok(), "{:?}", report.problems);
    let (back, _) = decode_with(&pgc, &DecodeOptions::default());
    assert_eq!(back.as_bytes(), pgn);
}
