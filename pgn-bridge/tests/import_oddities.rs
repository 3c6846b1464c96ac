//! The encoder against each import-format oddity (issue 3, "Done when" item
//! 6): tag escapes, move-number forms, zero castling, promotion without `=`,
//! over-disambiguation, missing and wrong check marks, `e.p.`, suffix
//! annotations, `$n`, comments of both kinds, escape lines, nested RAVs, the
//! termination markers, games without tags or several per line, BOM, CR LF,
//! NUL padding, Latin-1 bytes, Chess960, null moves, and the two reasons a
//! game is rejected.
//!
//! Each test encodes a small PGN with [`pgn_bridge::pgn_to_pgc`] and checks the
//! PGC by walking it with [`GameWalker`] (moves as UCI from shakmaty, NAGs,
//! comments, escape lines, null moves, tags) and/or the PGN that
//! [`pgn_bridge::pgc_to_pgn`] gives back. Expected values come from the 1994
//! standard (export format, NAGs 1–6 of section 10, tag escapes of 8.1.1) and
//! from the rules of chess (UCI moves written out by hand), never from the
//! encoder's own output.

use pgc_core::ext::ExtKind;
use pgc_core::item::Items;
use pgc_core::{GameInfo, Ply, Skip};
use pgc_core::{GameVisitor, GameWalker};
use pgn_bridge::{DecodeOptions, EncodeOptions};
use pgn_bridge::{EncodeStats, pgc_to_pgn, pgn_to_pgc};
use shakmaty::CastlingMode;
use std::ops::ControlFlow;

fn encode(pgn: &[u8]) -> (Vec<u8>, EncodeStats) {
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(pgn, &mut pgc, None, &EncodeOptions::default()).expect("encode");
    (pgc, stats)
}

fn decode(pgc: &[u8]) -> Vec<u8> {
    let mut pgn = Vec::new();
    pgc_to_pgn(pgc, &mut pgn, &Default::default()).expect("decode");
    pgn
}

/// The export format (section 8.2) of the games, whatever their layout.
fn export(pgc: &[u8]) -> Vec<u8> {
    let mut pgn = Vec::new();
    let opts = DecodeOptions {
        export: true,
        ..DecodeOptions::default()
    };
    pgc_to_pgn(pgc, &mut pgn, &opts).expect("decode --export");
    pgn
}

/// Encodes, asserts that every game was converted and that the text comes
/// back byte for byte, and returns the PGC and its export format.
fn round_trip(pgn: &[u8]) -> (Vec<u8>, String) {
    let (pgc, stats) = encode(pgn);
    assert_eq!(stats.rejected, 0, "rejects: {:?}", stats.rejects);
    assert_eq!(
        String::from_utf8_lossy(&decode(&pgc)),
        String::from_utf8_lossy(pgn),
        "the text comes back as read"
    );
    let back = export(&pgc);
    (pgc, String::from_utf8_lossy(&back).into_owned())
}

/// One walked game.
#[derive(Debug, Default)]
struct Game {
    tags: Vec<(Vec<u8>, Vec<u8>)>,
    /// Moves as UCI, `$n`, `(`, `)`, `{comment}`, `;line`, `%escape`,
    /// `null:spelling`, `termination:code`.
    tokens: Vec<String>,
    /// Raw comment payloads (exact bytes).
    comments: Vec<Vec<u8>>,
}

#[derive(Default)]
struct Walk {
    games: Vec<Game>,
    chess960: bool,
}

impl Walk {
    fn game(&mut self) -> &mut Game {
        self.games.last_mut().expect("inside a game")
    }
    fn push(&mut self, t: impl Into<String>) {
        self.game().tokens.push(t.into());
    }
}

impl GameVisitor for Walk {
    fn begin_game(&mut self, _info: &GameInfo) -> ControlFlow<()> {
        self.games.push(Game::default());
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.game().tags.push((name.to_vec(), value.to_vec()));
        ControlFlow::Continue(())
    }
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        let mode = if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        self.push(ply.mv.to_uci(mode).to_string());
        ControlFlow::Continue(())
    }
    fn null_move(
        &mut self,
        _before: &pgc_core::VariantPosition,
        spelling: &[u8],
    ) -> ControlFlow<()> {
        self.push(format!("null:{}", String::from_utf8_lossy(spelling)));
        ControlFlow::Continue(())
    }
    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        self.push(format!("${nag}"));
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.push("(");
        ControlFlow::Continue(Skip(false))
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.push(")");
        ControlFlow::Continue(())
    }
    fn escape(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.push(format!("%{}", String::from_utf8_lossy(text)));
        ControlFlow::Continue(())
    }
    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        match kind {
            ExtKind::COMMENT => {
                self.game().comments.push(payload.to_vec());
                self.push(format!("{{{}}}", String::from_utf8_lossy(payload)));
            }
            ExtKind::LINE_COMMENT => self.push(format!(";{}", String::from_utf8_lossy(payload))),
            ExtKind::TERMINATION => self.push(format!("termination:{}", payload[0])),
            ExtKind::LONG_NAG => {
                let n = Items::new(payload).varint().unwrap();
                self.push(format!("${n}"));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn walk_with(pgc: &[u8], chess960: bool) -> Vec<Game> {
    let mut w = Walk {
        games: Vec::new(),
        chess960,
    };
    let mut walker = GameWalker::new(pgc);
    while walker.walk_game(&mut w).expect("valid PGC") {}
    w.games
}

fn walk(pgc: &[u8]) -> Vec<Game> {
    walk_with(pgc, false)
}

/// The tokens of every game, without termination records (a game without a
/// Result tag always has one).
fn tokens(pgc: &[u8]) -> Vec<Vec<String>> {
    walk(pgc)
        .into_iter()
        .map(|g| {
            g.tokens
                .into_iter()
                .filter(|t| !t.starts_with("termination:"))
                .collect()
        })
        .collect()
}

/// The Seven Tag Roster with Event `event` and Result `result`.
fn str_tags(event: &str, result: &str) -> String {
    format!(
        "[Event \"{event}\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
         [White \"?\"]\n[Black \"?\"]\n[Result \"{result}\"]\n"
    )
}

/// The movetext of an export-format game: everything after the empty line.
fn movetext(pgn: &str) -> &str {
    pgn.split_once("\n\n").map_or(pgn, |x| x.1).trim_end()
}

fn fen_game(fen: &str, moves: &str) -> String {
    format!(
        "{}[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{moves}\n\n",
        str_tags("Oddity", "*")
    )
}

#[test]
fn tag_escapes_are_undone_and_redone() {
    let pgn = format!(
        "[Event \"A \\\"quoted\\\" name\"]\n[Site \"back\\\\slash\"]\n{}\n\n1. e4 *\n\n",
        "[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]"
    );
    let (pgc, back) = round_trip(pgn.as_bytes());
    let g = &walk(&pgc)[0];
    // Section 8.1.1: `\"` is a quote, `\\` a backslash.
    assert_eq!(g.tags[0].1, b"A \"quoted\" name");
    assert_eq!(g.tags[1].1, b"back\\slash");
    // Export re-escapes both.
    assert_eq!(back, pgn);
}

#[test]
fn move_number_forms() {
    // `1.`, `1...`, `1 .`, glued `2.Nf3`, and no number at all.
    let pgn = "1. e4 1... e5 2.Nf3 2 ... Nc6 3 . Bb5 a6 Bxc6 dxc6 *\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(
        tokens(&pgc)[0],
        [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6"
        ]
    );
    assert_eq!(
        back.trim_end(),
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 *"
    );
}

#[test]
fn zero_castling() {
    let pgn = fen_game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "1. 0-0 0-0-0 *");
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(tokens(&pgc)[0], ["e1g1", "e8c8"]);
    assert_eq!(movetext(&back), "1. O-O O-O-O *");
}

#[test]
fn castling_with_check() {
    let pgn = fen_game("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "1. O-O+ Ke7 *");
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(tokens(&pgc)[0], ["e1g1", "f8e7"]);
    assert_eq!(movetext(&back), "1. O-O+ Ke7 *");
}

#[test]
fn promotion_without_equals_sign() {
    let pgn = fen_game("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "1. e8Q Kb2 *");
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(tokens(&pgc)[0], ["e7e8q", "a2b2"]);
    assert_eq!(movetext(&back), "1. e8=Q Kb2 *");
}

#[test]
fn over_disambiguation() {
    // Only the g1 knight reaches e2: `Nge2` over-disambiguates (8.2.3.4).
    let pgn = "1. e4 e5 2. Nge2 Ng8e7 *\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(tokens(&pgc)[0], ["e2e4", "e7e5", "g1e2", "g8e7"]);
    assert_eq!(back.trim_end(), "1. e4 e5 2. Ne2 Ne7 *");
}

#[test]
fn missing_and_wrong_check_marks() {
    // Scholar's mate without `#`, and `e4+` / `Nc6+` that give no check.
    let pgn = "1. e4+ e5 2. Qh5 Nc6+ 3. Bc4 Nf6 4. Qxf7 1-0\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(
        tokens(&pgc)[0],
        ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    );
    assert_eq!(
        back.trim_end(),
        "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"
    );
}

#[test]
fn en_passant_marker() {
    // Separate and glued `e.p.` (import format); export writes a plain capture (8.2.3.3).
    let fen = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
    for moves in ["1. exd6 e.p. Kd7 *", "1. exd6e.p. Kd7 *"] {
        let pgn = fen_game(fen, moves);
        let (pgc, back) = round_trip(pgn.as_bytes());
        assert_eq!(tokens(&pgc)[0], ["e5d6", "e8d7"], "{moves}");
        assert_eq!(movetext(&back), "1. exd6 Kd7 *", "{moves}");
    }
}

#[test]
fn suffix_annotations_are_nags_1_to_6() {
    // Section 10: $1 !, $2 ?, $3 !!, $4 ??, $5 !?, $6 ?!.
    let pgn = "1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! *\n\n";
    let (pgc, _) = round_trip(pgn.as_bytes());
    assert_eq!(
        tokens(&pgc)[0],
        [
            "e2e4", "$1", "e7e5", "$2", "g1f3", "$3", "b8c6", "$4", "f1b5", "$5", "a7a6", "$6"
        ]
    );
}

#[test]
fn numeric_nags() {
    let pgn = "1. e4 $10 $200 e5 $0 2. Nf3 $300 *\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(
        tokens(&pgc)[0],
        ["e2e4", "$10", "$200", "e7e5", "$0", "g1f3", "$300"]
    );
    assert_eq!(back.trim_end(), "1. e4 $10 $200 1... e5 $0 2. Nf3 $300 *");
}

#[test]
fn multi_line_brace_comment_is_kept_exactly() {
    let pgn = b"1. e4 {first line\n  second line\r\nthird} e5 *\n\n";
    let (pgc, back) = round_trip(pgn);
    let g = &walk(&pgc)[0];
    assert_eq!(g.comments, [b"first line\n  second line\r\nthird".to_vec()]);
    assert!(
        back.contains("{first line\n  second line\r\nthird}"),
        "{back}"
    );
}

#[test]
fn semicolon_comment() {
    let pgn = "1. e4 ; to the end of the line { not a brace comment\ne5 *\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(
        tokens(&pgc)[0],
        [
            "e2e4",
            "; to the end of the line { not a brace comment",
            "e7e5"
        ]
    );
    assert!(back.contains("; to the end of the line { not a brace comment\n"));
}

#[test]
fn escape_lines_before_tags_and_in_movetext() {
    let pgn = format!(
        "%before the tags\n{}\n1. e4\n%in the movetext\ne5 *\n\n",
        str_tags("Escape", "*")
    );
    let (pgc, back) = round_trip(pgn.as_bytes());
    let games = walk(&pgc);
    assert_eq!(games.len(), 1);
    assert_eq!(
        games[0].tokens,
        ["%before the tags", "e2e4", "%in the movetext", "e7e5"]
    );
    assert!(back.starts_with("%before the tags\n[Event"), "{back}");
    assert!(back.contains("\n%in the movetext\n"), "{back}");
}

#[test]
fn nested_variations() {
    let pgn = "1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3)) 2. c4) 1... e5 *\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(
        tokens(&pgc)[0],
        [
            "e2e4", "(", "d2d4", "d7d5", "(", "g8f6", "c2c4", "(", "g1f3", ")", ")", "c2c4", ")",
            "e7e5"
        ]
    );
    assert_eq!(back.trim_end(), pgn.trim_end());
}

#[test]
fn the_four_termination_markers_and_a_missing_one() {
    let mut pgn = String::new();
    for r in ["1-0", "0-1", "1/2-1/2", "*"] {
        pgn += &format!("{}\n1. e4 {r}\n\n", str_tags("Result", r));
    }
    pgn += &format!("{}\n1. d4\n\n", str_tags("No marker", "*"));
    let (pgc, back) = round_trip(pgn.as_bytes());
    let games: Vec<Vec<String>> = walk(&pgc).into_iter().map(|g| g.tokens).collect();
    assert_eq!(games.len(), 5);
    for g in &games[..4] {
        assert_eq!(g, &["e2e4"], "marker equal to the Result tag: no record");
    }
    // Missing marker: a termination record with code 0 (extensions.md).
    assert_eq!(games[4], ["d2d4", "termination:0"]);
    let texts: Vec<&str> = back.split("\n\n[").collect();
    for (t, r) in texts.iter().zip(["1-0", "0-1", "1/2-1/2", "*"]) {
        assert!(t.trim_end().ends_with(&format!("1. e4 {r}")), "{t}");
    }
    assert!(back.ends_with("\n\n1. d4\n\n"), "{back}");
}

#[test]
fn games_without_tags_and_several_on_one_line() {
    let pgn = "1. e4 e5 1-0 1. d4 d5 0-1 1. c4 *\n\n";
    let (pgc, stats) = encode(pgn.as_bytes());
    assert_eq!((stats.games, stats.encoded), (3, 3));
    assert_eq!(
        tokens(&pgc),
        [vec!["e2e4", "e7e5"], vec!["d2d4", "d7d5"], vec!["c2c4"]]
    );
    let games = walk(&pgc);
    assert!(games.iter().all(|g| g.tags.is_empty()));
}

#[test]
fn utf8_bom_is_kept() {
    let mut pgn = b"\xef\xbb\xbf".to_vec();
    pgn.extend_from_slice(str_tags("Bom", "*").as_bytes());
    pgn.extend_from_slice(b"\n1. e4 *\n\n");
    let (pgc, stats) = encode(&pgn);
    assert_eq!(stats.encoded, 1);
    let g = &walk(&pgc)[0];
    assert_eq!(g.tags[0], (b"Event".to_vec(), b"Bom".to_vec()));
    assert_eq!(g.tokens, ["e2e4"]);
    assert_eq!(decode(&pgc), pgn);
}

#[test]
fn crlf_line_ends() {
    let pgn = str_tags("Crlf", "*").replace('\n', "\r\n") + "\r\n1. e4 e5 2. Nf3 *\r\n\r\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    assert_eq!(tokens(&pgc)[0], ["e2e4", "e7e5", "g1f3"]);
    // The export format has LF line ends (round_trip checked the CR LF).
    assert_eq!(back, pgn.replace("\r\n", "\n"));
}

#[test]
fn nul_padding_at_the_end() {
    let mut pgn = format!("{}\n1. e4 e5 *\n\n", str_tags("Nul", "*")).into_bytes();
    pgn.extend_from_slice(&[0; 64]);
    let (pgc, stats) = encode(&pgn);
    // The game is converted; the padding is not a game.
    assert_eq!(stats.encoded, 1, "{:?}", stats.rejects);
    assert_eq!(tokens(&pgc), [["e2e4", "e7e5"]]);
    for r in &stats.rejects {
        assert!(r.reason.to_string().contains("no PGN game"), "{r}");
    }
}

#[test]
fn latin1_bytes_are_kept_exactly() {
    let mut bytes = str_tags("Latin-1", "*")
        .replace("[White \"?\"]", "[White \"M_ller\"]")
        .into_bytes();
    let at = bytes.windows(6).position(|w| w == b"M_ller").unwrap();
    bytes[at + 1] = 0xfc; // Latin-1 u-umlaut
    bytes.extend_from_slice(b"\n1. e4 {caf\xe9 cr\xe8me} *\n\n");
    let (pgc, stats) = encode(&bytes);
    assert_eq!(stats.encoded, 1);
    let g = &walk(&pgc)[0];
    assert_eq!(g.tags[4], (b"White".to_vec(), b"M\xfcller".to_vec()));
    assert_eq!(g.comments, [b"caf\xe9 cr\xe8me".to_vec()]);
    assert_eq!(decode(&pgc), bytes);
}

#[test]
fn chess960_castling_with_xfen_and_shredder_fen() {
    // King on b1/b8, rooks on a and g: O-O puts the king on g1 (rook f1),
    // O-O-O on c1 (rook d1). Chess960 UCI writes castling as king-takes-rook.
    for fen in [
        "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w KQkq - 0 1",
        "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAga - 0 1",
    ] {
        let pgn = format!(
            "{}[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1. O-O O-O-O *\n\n",
            str_tags("Chess960", "*")
        );
        let (pgc, back) = round_trip(pgn.as_bytes());
        assert_eq!(walk_with(&pgc, true)[0].tokens, ["b1g1", "b8a8"], "{fen}");
        assert_eq!(movetext(&back), "1. O-O O-O-O *", "{fen}");
    }
}

#[test]
fn null_moves() {
    let pgn = "1. e4 -- 2. d4 Z0 3. c4 *\n\n";
    let (pgc, back) = round_trip(pgn.as_bytes());
    // After a null move the other side moves: 2. d4 and 3. c4 are White's.
    assert_eq!(
        tokens(&pgc)[0],
        ["e2e4", "null:", "d2d4", "null:Z0", "c2c4"]
    );
    let moves: Vec<&str> = back
        .split_whitespace()
        .filter(|t| !t.ends_with('.'))
        .collect();
    assert_eq!(moves, ["e4", "--", "d4", "Z0", "c4", "*"]);
}

#[test]
fn null_move_advances_the_move_number() {
    // spec/extensions.md, kind 0x04: "the side to move changes and the move
    // number advances as for a move". Export format is then `1. e4 -- 2. d4`.
    let pgn = "1. e4 -- 2. d4 Z0 3. c4 *\n\n";
    let (_, back) = round_trip(pgn.as_bytes());
    assert_eq!(back, pgn);
}

#[test]
fn move_numbers_follow_the_start_position_up_to_the_largest() {
    // Move numbers are written from the start position's number and side
    // and the ply's depth: Black first, a variation, a null move, and a
    // FEN whose move number cannot grow (shakmaty saturates it). The input
    // is in export format, so the export (no layout, no patch) must give it.
    for (fen, moves) in [
        (
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 7",
            "7... Kd7 8. e4 (8. e3 Ke7) 8... -- 9. e5 Kc6 *",
        ),
        (
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 4294967295",
            "4294967295... Kd7 4294967295. e4 (4294967295. e3) 4294967295... Kc6 4294967295.\n\
             e5 *",
        ),
        (
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 4294967294",
            "4294967294. e4 Kd7 4294967295. e5 Kc6 4294967295. e6 *",
        ),
    ] {
        let pgn = format!(
            "{}[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{moves}\n\n",
            str_tags("Numbers", "*")
        );
        let (_, back) = round_trip(pgn.as_bytes());
        assert_eq!(back, pgn);
    }
}

#[test]
fn unsupported_variant_is_rejected_with_its_reason() {
    let pgn = format!(
        "{}[Variant \"Shogi\"]\n\n1. e4 e5 2. Nf3 *\n\n",
        str_tags("Shogi", "*")
    );
    let (pgc, stats) = encode(pgn.as_bytes());
    assert_eq!((stats.games, stats.rejected), (1, 1));
    // No game in the PGC; the text is kept as read at its place.
    assert!(walk(&pgc).is_empty());
    assert_eq!(decode(&pgc), pgn.as_bytes());
    let r = &stats.rejects[0];
    assert!(r.reason.to_string().contains("unsupported variant"), "{r}");
    assert!(r.reason.to_string().contains("Shogi"), "{r}");
}

#[test]
fn illegal_move_is_rejected_with_reason_line_and_ply() {
    // Game 2 starts on line 11 (after game 1's 8 tag lines, empty line,
    // movetext line, empty line). After 1. e4 e5 (2 plies) `Ke3` is illegal.
    let good = format!("{}\n1. d4 *\n\n", str_tags("Good", "*"));
    let bad = format!("{}\n1. e4 e5 2. Ke3 Nc6 *\n\n", str_tags("Bad", "*"));
    assert_eq!(good.lines().count(), 10);
    let (pgc, stats) = encode(format!("{good}{bad}").as_bytes());
    assert_eq!((stats.games, stats.encoded, stats.rejected), (2, 1, 1));
    let r = &stats.rejects[0];
    assert_eq!(r.game, 1);
    assert_eq!(r.line, 11);
    assert_eq!(r.ply, 2);
    assert!(r.reason.to_string().contains("Ke3"), "{r}");
    assert_eq!(tokens(&pgc), [["d2d4"]]);
}

#[test]
fn a_move_number_no_move_follows_is_kept() {
    // `2.` before the result: the export writer makes numbers from moves,
    // so this one is kept as junk where it stood, and the game still comes
    // back byte for byte.
    let pgn = format!("{}\n1. e4 e5 2. 1-0\n\n", str_tags("Dangling", "1-0"));
    let (pgc, stats) = encode(pgn.as_bytes());
    assert_eq!((stats.encoded, stats.identical), (1, 1));
    assert_eq!(String::from_utf8_lossy(&decode(&pgc)), pgn);
    // Inside a variation and not byte-identical (a comment without spaces
    // makes the layout unreproducible): the number is still there.
    let pgn = format!(
        "{}\n1. e4 (1. d4 2.) 1... e5{{x}} 2. Nf3 3. *\n\n",
        str_tags("Var", "*")
    );
    let (_, back) = round_trip(pgn.as_bytes());
    assert!(back.contains("2.)"), "{back}");
    assert!(back.contains("3. *"), "{back}");
    assert_eq!(
        tokens(&encode(back.as_bytes()).0),
        tokens(&encode(pgn.as_bytes()).0)
    );
}

#[test]
fn a_lone_move_number_is_no_game_and_is_rejected_verbatim() {
    // `1` and then a new game's tags: nothing but a number, which is not a
    // game; it goes to the rejects, not into an empty PGC game.
    let good = format!("{}\n1. d4 *\n\n", str_tags("Good", "*"));
    let (pgc, stats) = encode(format!("1\n{good}").as_bytes());
    assert_eq!((stats.games, stats.encoded, stats.rejected), (2, 1, 1));
    assert!(
        stats.rejects[0].reason.to_string().contains("not PGN"),
        "{}",
        stats.rejects[0]
    );
    assert_eq!(tokens(&pgc), [["d2d4"]]);
}
