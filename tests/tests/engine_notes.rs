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
    let pgn = pgc_tests::read_corpus_file(path);
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(&pgn[..], &mut pgc, None, &EncodeOptions::default()).expect("encode");
    assert_eq!(stats.rejected, 0, "{}", path.display());
    let mut back = Vec::new();
    pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default()).expect("decode");
    assert!(back == pgn, "{}: not byte-identical", path.display());

    let originals = comments(&pgn);
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
            panic!("{}: engine games are chess", path.display())
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
                        "{} game {}: {}",
                        path.display(),
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
    assert_eq!(c.comments, originals.len(), "{}", path.display());
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
