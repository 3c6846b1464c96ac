//! The conformance vectors of `spec/vectors/` against pgc-core.
//!
//! For every `NAME.pgc`:
//! 1. the bytes frame into records ([`frame`]) that re-encode
//!    ([`RecordRef::write_to`]) to exactly the same bytes;
//! 2. [`GameWalker`] replays every game without error;
//! 3. the moves it yields (SAN with `+`/`#`, main line and variations, with
//!    the NAGs and the variation brackets) equal the tokens of `NAME.pgn` once
//!    move numbers, comments, escape lines, tags and results are removed.
//!
//! The full PGN <-> PGC check through the project's PGN bridge goes in
//! [`pgn_bridge_round_trip`] (marked below).

use pgc_core::record::{RecordRef, frame};
use pgc_core::visit::{Ply, Variation};
use pgc_core::{GameVisitor, GameWalker, Limits};
use std::path::{Path, PathBuf};

fn vector_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/vectors")
}

/// The vector names (`NAME` of `NAME.pgc`), sorted.
fn vector_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(vector_dir())
        .expect("spec/vectors exists")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "pgc").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no vectors in spec/vectors");
    names
}

fn read(name: &str, ext: &str) -> Vec<u8> {
    let p: PathBuf = vector_dir().join(format!("{name}.{ext}"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Per game, the SAN, NAG and bracket tokens the walker yields.
#[derive(Default)]
struct Tokens {
    games: Vec<Vec<String>>,
}

impl GameVisitor for Tokens {
    fn begin_game(&mut self, _info: &pgc_core::visit::GameInfo) {
        self.games.push(Vec::new());
    }
    fn play(&mut self, ply: &Ply<'_>) {
        self.push(ply.san.to_string());
    }
    fn nag(&mut self, nag: u8) {
        self.push(format!("${nag}"));
    }
    fn begin_variation(&mut self) -> Variation {
        self.push("(".to_string());
        Variation::Enter
    }
    fn end_variation(&mut self) {
        self.push(")".to_string());
    }
}

impl Tokens {
    fn push(&mut self, t: String) {
        self.games.last_mut().expect("inside a game").push(t);
    }
}

/// Per game, the SAN, NAG and bracket tokens of a PGN text: tags, escape
/// lines, comments, move numbers and results are dropped.
fn pgn_tokens(pgn: &str) -> Vec<Vec<String>> {
    let mut games = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut text = String::new();
    for line in pgn.lines() {
        if line.starts_with('%') || line.starts_with('[') {
            continue;
        }
        text.push_str(line);
        text.push('\n');
    }
    let mut chars = text.chars().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, cur: &mut Vec<String>, games: &mut Vec<Vec<String>>| {
        let w = std::mem::take(word);
        if w.is_empty() {
            return;
        }
        if matches!(w.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            games.push(std::mem::take(cur));
        } else if w.starts_with(|c: char| c.is_ascii_digit())
            && w.trim_end_matches('.').bytes().all(|b| b.is_ascii_digit())
        {
            // A move number indication: digits then periods.
        } else {
            cur.push(w);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, &mut cur, &mut games);
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            ';' => {
                flush(&mut word, &mut cur, &mut games);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' | ')' => {
                flush(&mut word, &mut cur, &mut games);
                cur.push(c.to_string());
            }
            c if c.is_whitespace() => flush(&mut word, &mut cur, &mut games),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut cur, &mut games);
    assert!(cur.is_empty(), "movetext after the last result: {cur:?}");
    games
}

fn check_framing(name: &str, bytes: &[u8]) -> usize {
    let limits = Limits::default();
    let mut off = 0;
    let mut records = 0;
    let mut again = Vec::with_capacity(bytes.len());
    while off < bytes.len() {
        let (rec, n): (RecordRef<'_>, usize) = frame(&bytes[off..], &limits)
            .unwrap_or_else(|e| panic!("{name}: record at byte {off} does not frame: {e:?}"));
        let start = again.len();
        rec.write_to(&mut again).unwrap();
        assert_eq!(
            &again[start..],
            &bytes[off..off + n],
            "{name}: record at byte {off} ({}) re-encodes differently",
            rec.marker()
        );
        off += n;
        records += 1;
    }
    assert_eq!(again, bytes, "{name}");
    records
}

fn walk(name: &str, bytes: &[u8]) -> Vec<Vec<String>> {
    let mut walker = GameWalker::new(bytes);
    let mut tokens = Tokens::default();
    while walker
        .walk_game(&mut tokens)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    {}
    assert_eq!(
        walker.offset(),
        bytes.len() as u64,
        "{name}: bytes left over"
    );
    tokens.games
}

#[test]
fn every_vector_frames_and_re_encodes() {
    for name in vector_names() {
        let bytes = read(&name, "pgc");
        assert!(check_framing(&name, &bytes) > 0, "{name}: empty");
    }
}

#[test]
fn every_vector_replays_to_its_pgn_moves() {
    for name in vector_names() {
        let bytes = read(&name, "pgc");
        let pgn = String::from_utf8(read(&name, "pgn")).expect("vector PGN is ASCII");
        let walked = walk(&name, &bytes);
        let expected = pgn_tokens(&pgn);
        assert_eq!(walked.len(), expected.len(), "{name}: number of games");
        for (i, (w, e)) in walked.iter().zip(&expected).enumerate() {
            assert_eq!(w, e, "{name}: game {}", i + 1);
        }
    }
}

#[test]
fn every_vector_has_its_trio() {
    for name in vector_names() {
        for ext in ["pgn", "md"] {
            let p = vector_dir().join(format!("{name}.{ext}"));
            assert!(Path::new(&p).is_file(), "{} missing", p.display());
        }
    }
}

#[test]
fn concatenated_vectors_are_one_valid_file() {
    // A PGC file is a sequence of records: `cat a.pgc b.pgc` is valid.
    let mut all = Vec::new();
    let mut games = 0;
    for name in vector_names() {
        let bytes = read(&name, "pgc");
        games += walk(&name, &bytes).len();
        all.extend_from_slice(&bytes);
    }
    assert_eq!(walk("all", &all).len(), games);
}

// ---------------------------------------------------------------------------
// PGN BRIDGE CHECK (to be written with the pgn-bridge converter):
// for every vector, PGN -> PGC must give exactly `NAME.pgc`, and
// PGC -> PGN must give exactly `NAME.pgn` (the vectors are in export format).
// ---------------------------------------------------------------------------

/// Placeholder for the full PGN <-> PGC check through `pgn-bridge`.
#[test]
#[ignore = "pgn-bridge has no PGN <-> PGC converter yet; fill in this test then"]
fn pgn_bridge_round_trip() {
    for name in vector_names() {
        let _pgn = read(&name, "pgn");
        let _pgc = read(&name, "pgc");
        // pgn-bridge: assert_eq!(encode(&_pgn), _pgc); assert_eq!(decode(&_pgc), _pgn);
    }
}
