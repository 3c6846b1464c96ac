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
//! 4. through the project's PGN bridge, PGN → PGC gives exactly `NAME.pgc`
//!    and PGC → PGN gives exactly `NAME.pgn` ([`pgn_bridge_round_trip`]).

use pgc_core::ext::ExtKind;
use pgc_core::record::{RecordRef, frame};
use pgc_core::{GameVisitor, GameWalker, Limits};
use pgc_core::{Ply, Skip};
use std::ops::ControlFlow;
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
    in_moves: bool,
}

impl GameVisitor for Tokens {
    fn begin_game(&mut self, _info: &pgc_core::GameInfo) -> ControlFlow<()> {
        self.games.push(Vec::new());
        ControlFlow::Continue(())
    }
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        self.push(ply.san.to_string());
        ControlFlow::Continue(())
    }
    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        self.push(format!("${nag}"));
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.push("(".to_string());
        ControlFlow::Continue(Skip(false))
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.push(")".to_string());
        ControlFlow::Continue(())
    }
    fn begin_moves(&mut self, _start: &pgc_core::VariantPosition) -> ControlFlow<()> {
        self.in_moves = true;
        ControlFlow::Continue(())
    }
    fn null_move(
        &mut self,
        _before: &pgc_core::VariantPosition,
        spelling: &[u8],
    ) -> ControlFlow<()> {
        let s = if spelling.is_empty() { b"--" } else { spelling };
        self.push(String::from_utf8_lossy(s).into_owned());
        ControlFlow::Continue(())
    }
    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        match kind {
            ExtKind::LONG_NAG => {
                let n = pgc_core::item::Items::new(payload).varint().unwrap();
                self.push(format!("${n}"));
            }
            // Junk in the movetext is a token of the PGN text; in the tag
            // section it is a line the PGN side skips with the tags.
            ExtKind::JUNK if self.in_moves => {
                self.push(String::from_utf8_lossy(payload).into_owned());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
    fn end_game(&mut self) {
        self.in_moves = false;
    }
    /// Text kept as read between games (a game that could not be
    /// converted): its games, as the PGN side reads them.
    fn outside(&mut self, _offset: u64, record: &RecordRef<'_>) {
        if let RecordRef::Extension { kind, payload } = *record
            && ExtKind(kind) == ExtKind::VERBATIM
        {
            let text = String::from_utf8(payload.to_vec()).expect("vector text is UTF-8");
            self.games.extend(pgn_tokens(&text));
        }
    }
}

impl Tokens {
    fn push(&mut self, t: String) {
        self.games.last_mut().expect("inside a game").push(t);
    }
}

/// Per game, the SAN, NAG and bracket tokens of a PGN text: tags, escape
/// lines, comments, move numbers and results are dropped. A game ends at its
/// result or, when it has none, where the next game's tags begin.
fn pgn_tokens(pgn: &str) -> Vec<Vec<String>> {
    let pgn = pgn.trim_start_matches('\u{feff}');
    let mut games = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut movetext = false;
    let ended = |t: &str| {
        matches!(
            t.split(|c: char| c.is_whitespace() || c == '\0')
                .rfind(|w| !w.is_empty()),
            Some("1-0" | "0-1" | "1/2-1/2" | "*")
        )
    };
    // A line ends at LF, CR LF or a CR alone (classic Mac OS text).
    for line in pgn.split(['\n', '\r']) {
        if line.starts_with('[') {
            if movetext && !ended(&text) {
                // No termination marker: mark the game's end for the loop below.
                text.push_str(" <end>\n");
            }
            movetext = false;
            continue;
        }
        if line.starts_with('%') {
            continue;
        }
        movetext |= !line
            .trim_matches(|c: char| c.is_whitespace() || c == '\0')
            .is_empty();
        text.push_str(line);
        text.push('\n');
    }
    if movetext && !ended(&text) {
        text.push_str(" <end>\n");
    }
    let mut chars = text.chars().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, cur: &mut Vec<String>, games: &mut Vec<Vec<String>>| {
        let w = std::mem::take(word);
        if w.is_empty() {
            return;
        }
        if matches!(w.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*" | "<end>") {
            games.push(std::mem::take(cur));
        } else if w.starts_with(|c: char| c.is_ascii_digit())
            && w.trim_end_matches('.').bytes().all(|b| b.is_ascii_digit())
        {
            // A move number indication: digits then periods.
        } else if let Some((_, mv)) = w
            .split_once('.')
            .filter(|(n, mv)| n.bytes().all(|b| b.is_ascii_digit()) && !mv.is_empty())
        {
            // A move number glued to its move (`1.e4`, `1...e5`).
            cur.push(mv.trim_start_matches('.').to_string());
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
            // NUL pads some archives; readers take it as whitespace.
            c if c.is_whitespace() || c == '\0' => flush(&mut word, &mut cur, &mut games),
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
            // A checkmate the text writes with `+` (a layout bit of
            // ChessBase's exports) is the walker's `#`.
            let w: Vec<String> = w
                .iter()
                .zip(e)
                .map(|(w, e)| match w.strip_suffix('#') {
                    Some(body) if *e == format!("{body}+") => e.clone(),
                    _ => w.clone(),
                })
                .chain(w.iter().skip(e.len()).cloned())
                .collect();
            assert_eq!(&w, e, "{name}: game {}", i + 1);
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

/// The full PGN <-> PGC check through `pgn-bridge`: for every vector,
/// PGN → PGC gives exactly `NAME.pgc` and PGC → PGN gives exactly `NAME.pgn`
/// (each `.pgn` is either in export format or carries what its layout and
/// extension records reproduce).
#[test]
fn pgn_bridge_round_trip() {
    for name in vector_names() {
        let pgn = read(&name, "pgn");
        let pgc = read(&name, "pgc");
        let mut encoded = Vec::new();
        let stats = pgn_bridge::pgn_to_pgc(&pgn[..], &mut encoded, None, &Default::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // `text-rejected` is about a game that cannot be converted.
        let rejected = u64::from(name == "text-rejected");
        assert_eq!(stats.rejected, rejected, "{name}: {:?}", stats.rejects);
        assert!(encoded == pgc, "{name}: pgn_to_pgc(.pgn) differs from .pgc");
        let mut decoded = Vec::new();
        pgn_bridge::pgc_to_pgn(&pgc[..], &mut decoded, &Default::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            String::from_utf8_lossy(&decoded),
            String::from_utf8_lossy(&pgn),
            "{name}: pgc_to_pgn(.pgc) differs from .pgn"
        );
    }
}
