//! Engine notes (kind 0x14) over the engine-game files of the corpus: TCEC
//! seasons of both comment generations, cutechess-cli output.
//!
//! - Every file round-trips byte for byte, and its engine comments are
//!   stored as notes.
//! - Every stored principal variation, replayed with shakmaty from the
//!   position its note names, gives the SAN the original comment holds
//!   (the comment read from the input file, not from pgc's rendering).
//! - python-chess reads the original file, and the values pgc writes to
//!   JSON Lines (eval, depth, nodes, the PV in UCI) are what the comments
//!   say (`tests/python/engine_notes.py`); skipped with a printed reason
//!   when python-chess is missing, unless `PGC_REQUIRE_PYCHESS` is set.

use pgc_core::ext::engine::MovesFrom;
use pgc_core::{BulkEvent, BulkOptions, BulkReader, VariantPosition};
use pgn_bridge::{DecodeOptions, EncodeOptions, pgc_to_pgn, pgn_to_pgc};
use shakmaty::Position;
use shakmaty::san::SanPlus;
use std::path::{Path, PathBuf};
use std::process::Command;

const FILES: [&str; 9] = [
    "TCEC-Chess__tcecgames/master-archive/TCEC_Cup_8_Final.pgn",
    "TCEC-Chess__tcecgames/master-archive/TCEC_Season_1_-_Division_1.pgn.zst",
    "TCEC-Chess__tcecgames/master-archive/TCEC_Season_9_-_Superfinal.pgn.zst",
    "TCEC-Chess__tcecgames/master-archive/TCEC_Season_12_-_Superfinal.pgn.zst",
    "TCEC-Chess__tcecgames/master-archive/TCEC_Season_20_-_Frc3_Final.pgn.zst",
    "TCEC-Chess__tcecgames/master-archive/TCEC_Season_24_-_Dfrc_2_League_1.pgn.zst",
    "TCEC-Chess__tcecgames/master-archive/TCEC_Season_28_-_Bullet_2_Chess_Bonus.pgn.zst",
    "niklasf__python-chess/data/pgn/cutechess-fischerrandom.pgn",
    "niklasf__python-chess/data/pgn/stockfish-learning.pgn",
];

/// The comments of a PGN text in order, brace and `;` comments (tag lines
/// skipped; engine files have no `{` or `;` inside escapes).
fn comments(pgn: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < pgn.len() {
        match pgn[i] {
            b'[' if line_start => {
                i += pgn[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(pgn.len() - i);
            }
            b'{' => {
                let n = pgn[i..]
                    .iter()
                    .position(|&b| b == b'}')
                    .unwrap_or(pgn.len() - i);
                out.push(&pgn[i + 1..i + n]);
                i += n + 1;
                line_start = false;
                continue;
            }
            b';' => {
                let n = pgn[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(pgn.len() - i);
                out.push(&pgn[i + 1..i + n]);
                i += n;
                continue;
            }
            _ => {}
        }
        line_start = pgn.get(i) == Some(&b'\n');
        i += 1;
    }
    out
}

/// The SAN moves after `pv=` in a comment.
fn pv_of(comment: &[u8]) -> Option<Vec<String>> {
    let text = String::from_utf8_lossy(comment);
    let at = text.find("pv=")?;
    let list = text[at + 3..].split([',', '}']).next()?.trim_end();
    Some(
        list.split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

struct Checked {
    comments: usize,
    notes: usize,
    /// Notes whose comment has a `pv=`.
    with_pv: usize,
    pvs: usize,
    pv_moves: usize,
}

fn check_file(path: &Path) -> Checked {
    check_pgn(&path.display(), &pgc_tests::read_corpus_file(path))
}

/// Encodes `pgn`, checks that it decodes to the same bytes and that every
/// stored PV replays to its comment's SAN; `name` names it in messages.
fn check_pgn(name: &dyn std::fmt::Display, pgn: &[u8]) -> Checked {
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(pgn, &mut pgc, None, &EncodeOptions::default()).expect("encode");
    assert_eq!(stats.rejected, 0, "{name}");
    let mut back = Vec::new();
    pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default()).expect("decode");
    assert!(back == pgn, "{name}: not byte-identical");

    let originals = comments(pgn);
    let mut reader = BulkReader::new(
        &pgc[..],
        BulkOptions {
            comments: true,
            ..BulkOptions::default()
        },
    );
    let mut c = Checked {
        comments: 0,
        notes: 0,
        with_pv: 0,
        pvs: 0,
        pv_moves: 0,
    };
    while let Some(g) = reader.next_game().expect("read") {
        let VariantPosition::Chess(start) = g.start().clone() else {
            panic!("{name}: engine games are chess")
        };
        // Positions after, before, and before the previous move.
        let mut after = start;
        let mut before: Option<shakmaty::Chess> = None;
        let mut before_prev: Option<shakmaty::Chess> = None;
        for ev in g.events() {
            match ev {
                BulkEvent::Move(m) => {
                    before_prev = before.replace(after.clone());
                    after.play_unchecked(m);
                }
                BulkEvent::Comment(_) => c.comments += 1,
                BulkEvent::Engine(v) => {
                    c.notes += 1;
                    let original = originals[c.comments - 1];
                    c.with_pv += usize::from(pv_of(original).is_some());
                    let (Some(from), Some(want)) = (v.pv_from, pv_of(original)) else {
                        continue;
                    };
                    let mut pos = match from {
                        MovesFrom::After => after.clone(),
                        MovesFrom::Before => before.clone().expect("a move before"),
                        MovesFrom::BeforePrevious => before_prev.clone().expect("two moves"),
                    };
                    let got: Vec<String> = v
                        .pv
                        .iter()
                        .map(|&m| SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string())
                        .collect();
                    assert_eq!(
                        got,
                        want,
                        "{name} game {}: {}",
                        g.info().index + 1,
                        String::from_utf8_lossy(original)
                    );
                    c.pvs += 1;
                    c.pv_moves += got.len();
                }
                _ => {}
            }
        }
    }
    assert_eq!(c.comments, originals.len(), "{name}");
    c
}

#[test]
fn engine_comments_are_notes_and_every_pv_replays() {
    let Some(dir) = pgc_tests::corpus_dir() else {
        return;
    };
    for f in FILES {
        let c = check_file(&dir.join(f));
        eprintln!(
            "{f}: {} comments, {} notes, {} of {} PVs ({} moves) replayed",
            c.comments, c.notes, c.pvs, c.with_pv, c.pv_moves
        );
        // Only a game's first comment (before its first move) stays text.
        assert!(
            c.notes * 100 >= c.comments * 95,
            "{f}: {} of {}",
            c.notes,
            c.comments
        );
        // PVs stay text only where a move does not replay.
        assert!(
            c.pvs * 100 >= c.with_pv * 99,
            "{f}: {} of {} PVs",
            c.pvs,
            c.with_pv
        );
    }
}

/// Seeded random games with an engine note after every move, each PV the
/// game's own continuation for a few moves and then random legal moves:
/// a PV two plies on shares a part of the one before it (which the
/// encoder takes from that list rather than finding the moves again), and
/// departs from it at random, on promotions, castling and checks too.
#[test]
fn random_engine_games_round_trip_and_every_pv_replays() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use shakmaty::{Chess, Move};

    let mut rng = StdRng::seed_from_u64(0x5047_4320_0014);
    let san = |pos: &Chess, m: Move| SanPlus::from_move_and_play_unchecked(&mut pos.clone(), m);
    let mut pgn = String::new();
    for round in 1..=80 {
        let mut pos = Chess::default();
        let mut game: Vec<(Chess, Move)> = Vec::new();
        for _ in 0..rng.gen_range(6..90) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            game.push((pos.clone(), m));
            pos.play_unchecked(m);
        }
        pgn.push_str(&format!(
            "[Event \"Random engine game\"]\n[Round \"{round}\"]\n[Result \"*\"]\n\n"
        ));
        for (i, (before, m)) in game.iter().enumerate() {
            if i % 2 == 0 {
                pgn.push_str(&format!("{}. ", i / 2 + 1));
            }
            // The PV: the game's next moves, then moves of its own.
            let mut p = before.clone();
            let mut pv = Vec::new();
            for (_, g) in game.iter().skip(i).take(rng.gen_range(1..8)) {
                pv.push(san(&p, *g).to_string());
                p.play_unchecked(*g);
            }
            for _ in 0..rng.gen_range(0..10) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let own = moves[rng.gen_range(0..moves.len())];
                pv.push(san(&p, own).to_string());
                p.play_unchecked(own);
            }
            pgn.push_str(&format!(
                "{} {{d={}, pv={}, wv={}.{:02}, }}\n",
                san(before, *m),
                rng.gen_range(10..40),
                pv.join(" "),
                rng.gen_range(0..3),
                rng.gen_range(0..100)
            ));
        }
        pgn.push_str("*\n\n");
    }
    let c = check_pgn(&"random engine games", pgn.as_bytes());
    assert!(c.notes > 2_000, "{} notes", c.notes);
    assert_eq!(c.notes, c.comments);
    // Every PV is stored as moves and replays.
    assert_eq!(c.pvs, c.with_pv);
    assert_eq!(c.pvs, c.notes);
}

fn python() -> String {
    std::env::var("PGC_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

#[test]
fn python_chess_reads_what_the_notes_say() {
    let ok = Command::new(python())
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("PGC_REQUIRE_PYCHESS").is_none(),
            "python-chess is required (PGC_REQUIRE_PYCHESS is set): pip install chess"
        );
        eprintln!("skipping: python-chess not installed (pip install chess)");
        return;
    }
    let Some(dir) = pgc_tests::corpus_dir() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/engine_notes.py");
    let tmp = std::env::temp_dir().join(format!("pgc-engine-notes-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for f in [FILES[0], FILES[5], FILES[7]] {
        let pgn = pgc_tests::read_corpus_file(&dir.join(f));
        let mut pgc = Vec::new();
        pgn_to_pgc(&pgn[..], &mut pgc, None, &EncodeOptions::default()).expect("encode");
        let mut w = pgn_bridge::JsonlWriter::new();
        let mut walker = pgc_core::GameWalker::new(&pgc[..]);
        let mut jsonl = Vec::new();
        while walker.walk_game(&mut w).expect("walk") {
            assert!(w.take_error().is_none());
            jsonl.append(w.text());
        }
        let original: PathBuf = tmp.join("original.pgn");
        let decoded = tmp.join("decoded.jsonl");
        std::fs::write(&original, &pgn).unwrap();
        std::fs::write(&decoded, &jsonl).unwrap();
        let out = Command::new(python())
            .arg(&script)
            .arg(&original)
            .arg(&decoded)
            .output()
            .expect("run python");
        let says = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{f}: {says}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("{f}: {says}");
        assert!(says.contains("pv_moves="), "{says}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
