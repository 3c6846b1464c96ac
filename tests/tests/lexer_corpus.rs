//! The PGN reader over every file of the real-world corpus
//! (`$PGC_CORPUS`, default `../shared/corpus` next to the workspace root).
//!
//! For each file: the raw game slices concatenate to the input, reading one
//! byte at a time gives the same events as reading at once, and for files
//! whose MANIFEST says every game has one `[Event ` line, the game count
//! equals that line count. `.zst` files are decompressed with the `zstd`
//! command.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::{self, Read};

use pgc_tests::{corpus_dir, corpus_files, read_corpus_file};
use pgn_bridge::reader::PgnReader;
use pgn_bridge::visitor::{GameStart, Visitor};

/// Hashes every event (kind and bytes) of a game; returns (hash, raw).
#[derive(Default)]
struct Events {
    h: DefaultHasher,
    tokens: u64,
}

impl Events {
    fn ev(&mut self, kind: u8, bytes: &[u8]) {
        kind.hash(&mut self.h);
        bytes.hash(&mut self.h);
        self.tokens += 1;
    }
}

impl Visitor for Events {
    type Output = (u64, Vec<u8>);
    fn begin_game(&mut self, s: GameStart) {
        (s.index, s.offset, s.line).hash(&mut self.h);
    }
    fn bom(&mut self) {
        self.ev(0, b"");
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) {
        self.ev(1, name);
        self.ev(2, value);
    }
    fn begin_movetext(&mut self) {
        self.ev(3, b"");
    }
    fn move_number(&mut self, number: u32, dots: u8, raw: &[u8]) {
        (number, dots).hash(&mut self.h);
        self.ev(4, raw);
    }
    fn san(&mut self, token: &[u8]) {
        self.ev(5, token);
    }
    fn en_passant_marker(&mut self, raw: &[u8]) {
        self.ev(6, raw);
    }
    fn nag_token(&mut self, raw: &[u8], nag: u32, is_suffix: bool) {
        (nag, is_suffix).hash(&mut self.h);
        self.ev(7, raw);
    }
    fn comment(&mut self, text: &[u8]) {
        self.ev(8, text);
    }
    fn line_comment(&mut self, text: &[u8]) {
        self.ev(9, text);
    }
    fn escape_line(&mut self, text: &[u8]) {
        self.ev(10, text);
    }
    fn begin_variation(&mut self) {
        self.ev(11, b"");
    }
    fn end_variation(&mut self) {
        self.ev(12, b"");
    }
    fn outcome(&mut self, raw: &[u8]) {
        self.ev(13, raw);
    }
    fn whitespace(&mut self, ws: &[u8]) {
        self.ev(14, ws);
    }
    fn junk(&mut self, raw: &[u8]) {
        self.ev(15, raw);
    }
    fn end_game(&mut self, raw: &[u8]) -> (u64, Vec<u8>) {
        self.ev(16, raw);
        let h = std::mem::take(&mut self.h).finish();
        (h, raw.to_vec())
    }
}

/// A reader that returns one byte per call.
struct OneByte<'a>(&'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

fn read_all<R: Read>(reader: R) -> Vec<(u64, Vec<u8>)> {
    let mut reader = PgnReader::new(reader);
    let mut v = Events::default();
    let mut games = Vec::new();
    while let Some(g) = reader.read_game(&mut v).unwrap() {
        games.push(g);
    }
    games
}

fn event_lines(data: &[u8]) -> usize {
    data.split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"[Event "))
        .count()
}

/// Files where MANIFEST's `[Event` count equals its game estimate and every
/// game starts with an `[Event ` line (directory or file name fragments).
const EVENT_COUNT_AGREES: &[&str] = &[
    "louis-yay__AIchess/data/",
    "TCEC-Chess__tcecgames/",
    "twic944.pgn",
    "cup.pgn",
    "linares_2002.pgn",
    "world_matches.pgn",
    "FWWRC.pgn",
    "eco.pgn",
    "chess-informant-sample.pgn",
    "mate_in_3.pgn",
    "benchmark.pgn",
];

#[test]
fn corpus() {
    let Some(dir) = corpus_dir() else { return };
    let paths = corpus_files(&dir);
    let (mut total_games, mut total_bytes, mut compared) = (0usize, 0usize, 0usize);
    for path in &paths {
        let data = read_corpus_file(path);
        let name = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let games = read_all(&data[..]);
        let concat: Vec<u8> = games.iter().flat_map(|g| g.1.iter().copied()).collect();
        assert!(
            concat == data,
            "{name}: raw game slices do not reassemble the input"
        );

        // One byte per read: same events. Large files only in release-ish
        // builds would be slow, so cap the size.
        if data.len() <= 4 << 20 {
            let trickled = read_all(OneByte(&data));
            assert!(
                trickled == games,
                "{name}: one-byte reads change the events"
            );
        }

        if EVENT_COUNT_AGREES.iter().any(|f| name.contains(f)) {
            assert_eq!(
                games.len(),
                event_lines(&data),
                "{name}: games vs [Event lines"
            );
            compared += 1;
        }
        println!("{name}: {} games, {} bytes", games.len(), data.len());
        total_games += games.len();
        total_bytes += data.len();
    }
    println!(
        "{} files, {total_games} games, {total_bytes} bytes; {compared} game counts checked",
        paths.len()
    );
    assert!(compared > 30, "too few files compared: {compared}");
}

/// Rough lexing throughput on the bulk master games (ignored by default; run
/// with `cargo test --release -p pgc-tests --test lexer_corpus -- --ignored
/// --nocapture`).
#[test]
#[ignore]
fn throughput() {
    #[derive(Default)]
    struct Count(u64);
    impl Visitor for Count {
        type Output = ();
        fn san(&mut self, _t: &[u8]) {
            self.0 += 1;
        }
        fn end_game(&mut self, _raw: &[u8]) {}
    }
    let Some(root) = corpus_dir() else { return };
    let data: Vec<u8> = corpus_files(&root.join("louis-yay__AIchess/data"))
        .iter()
        .map(|p| read_corpus_file(p))
        .collect::<Vec<_>>()
        .concat();
    // The boundary scanner alone.
    let t = std::time::Instant::now();
    let (mut pos, mut scanned) = (0, 0);
    while pos < data.len() {
        let ctx = pgn_bridge::lexer::LexContext {
            at_line_start: pos == 0 || data[pos - 1] == b'\n',
            at_input_start: pos == 0,
        };
        pos += pgn_bridge::lexer::scan_game(&data[pos..], true, ctx)
            .unwrap()
            .len;
        scanned += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "scan only: {scanned} games, {:.0} MB/s",
        data.len() as f64 / 1e6 / secs
    );
    let t = std::time::Instant::now();
    let mut reader = PgnReader::new(&data[..]);
    let mut c = Count::default();
    let mut games = 0;
    while reader.read_game(&mut c).unwrap().is_some() {
        games += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{games} games, {} SAN, {:.1} MB in {secs:.3} s: {:.0} MB/s",
        c.0,
        data.len() as f64 / 1e6,
        data.len() as f64 / 1e6 / secs
    );
}
