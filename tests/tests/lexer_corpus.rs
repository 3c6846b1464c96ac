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
use std::ops::ControlFlow;

use pgc_tests::{corpus_dir, corpus_files, read_corpus_file};
use pgn_bridge::PgnReader;
use pgn_bridge::{GameStart, Skip, Visitor};

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
    fn begin_game(&mut self, s: GameStart) -> ControlFlow<()> {
        (s.index, s.offset, s.line).hash(&mut self.h);
        ControlFlow::Continue(())
    }
    fn bom(&mut self) -> ControlFlow<()> {
        self.ev(0, b"");
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.ev(1, name);
        self.ev(2, value);
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.ev(3, b"");
        ControlFlow::Continue(())
    }
    fn move_number(&mut self, number: u32, dots: u8, raw: &[u8]) -> ControlFlow<()> {
        (number, dots).hash(&mut self.h);
        self.ev(4, raw);
        ControlFlow::Continue(())
    }
    fn san(&mut self, token: &[u8]) -> ControlFlow<()> {
        self.ev(5, token);
        ControlFlow::Continue(())
    }
    fn en_passant_marker(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.ev(6, raw);
        ControlFlow::Continue(())
    }
    fn nag_token(&mut self, raw: &[u8], nag: u32, is_suffix: bool) -> ControlFlow<()> {
        (nag, is_suffix).hash(&mut self.h);
        self.ev(7, raw);
        ControlFlow::Continue(())
    }
    fn comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.ev(8, text);
        ControlFlow::Continue(())
    }
    fn line_comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.ev(9, text);
        ControlFlow::Continue(())
    }
    fn escape_line(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.ev(10, text);
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.ev(11, b"");
        ControlFlow::Continue(Skip(false))
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.ev(12, b"");
        ControlFlow::Continue(())
    }
    fn outcome(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.ev(13, raw);
        ControlFlow::Continue(())
    }
    fn whitespace(&mut self, ws: &[u8]) -> ControlFlow<()> {
        self.ev(14, ws);
        ControlFlow::Continue(())
    }
    fn junk(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.ev(15, raw);
        ControlFlow::Continue(())
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
        fn san(&mut self, _t: &[u8]) -> ControlFlow<()> {
            self.0 += 1;
            ControlFlow::Continue(())
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
        let ctx = pgn_bridge::internals::LexContext {
            at_line_start: pos == 0 || data[pos - 1] == b'\n',
            at_input_start: pos == 0,
        };
        pos += pgn_bridge::internals::scan_game(&data[pos..], true, ctx)
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

/// Logs every event of a game as (kind, bytes); can skip every variation
/// and break after a number of events.
struct Log {
    ev: Vec<(u8, Vec<u8>)>,
    skip_variations: bool,
    /// Break once this many events were logged in a game (`usize::MAX`:
    /// never); the number is taken from `break_after` at each game.
    break_after: fn(u64) -> usize,
    limit: usize,
}

impl Log {
    fn new(skip_variations: bool, break_after: fn(u64) -> usize) -> Log {
        Log {
            ev: Vec::new(),
            skip_variations,
            break_after,
            limit: usize::MAX,
        }
    }

    fn ev(&mut self, kind: u8, bytes: &[u8]) -> ControlFlow<()> {
        self.ev.push((kind, bytes.to_vec()));
        if self.ev.len() >= self.limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl Visitor for Log {
    type Output = Vec<(u8, Vec<u8>)>;
    fn begin_game(&mut self, s: GameStart) -> ControlFlow<()> {
        self.limit = (self.break_after)(s.index);
        let at = format!("{} {} {}", s.index, s.offset, s.line);
        self.ev(0, at.as_bytes())
    }
    fn bom(&mut self) -> ControlFlow<()> {
        self.ev(1, b"")
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.ev(2, &[name, b"=", value].concat())
    }
    fn end_tags(&mut self) -> ControlFlow<()> {
        self.ev(3, b"")
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.ev(4, b"")
    }
    fn move_number(&mut self, _number: u32, _dots: u8, raw: &[u8]) -> ControlFlow<()> {
        self.ev(5, raw)
    }
    fn san(&mut self, token: &[u8]) -> ControlFlow<()> {
        self.ev(6, token)
    }
    fn en_passant_marker(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.ev(7, raw)
    }
    fn nag_token(&mut self, raw: &[u8], _nag: u32, _is_suffix: bool) -> ControlFlow<()> {
        self.ev(8, raw)
    }
    fn comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.ev(9, text)
    }
    fn line_comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.ev(10, text)
    }
    fn escape_line(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.ev(11, text)
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.ev(BEGIN_VARIATION, b"")?;
        ControlFlow::Continue(Skip(self.skip_variations))
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.ev(END_VARIATION, b"")
    }
    fn outcome(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.ev(14, raw)
    }
    fn whitespace(&mut self, ws: &[u8]) -> ControlFlow<()> {
        self.ev(15, ws)
    }
    fn junk(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.ev(16, raw)
    }
    fn end_game(&mut self, raw: &[u8]) -> Self::Output {
        self.ev.push((END_GAME, raw.to_vec()));
        std::mem::take(&mut self.ev)
    }
}

const BEGIN_VARIATION: u8 = 12;
const END_VARIATION: u8 = 13;
const END_GAME: u8 = 17;

/// The events a visitor that skips every variation should see: those
/// strictly inside a variation at depth 0 are left out.
fn outside_variations(events: &[(u8, Vec<u8>)]) -> Vec<(u8, Vec<u8>)> {
    let mut depth = 0u64;
    let mut kept = Vec::new();
    for e in events {
        match e.0 {
            BEGIN_VARIATION => {
                if depth == 0 {
                    kept.push(e.clone());
                }
                depth += 1;
            }
            END_VARIATION => {
                depth -= 1;
                if depth == 0 {
                    kept.push(e.clone());
                }
            }
            END_GAME => kept.push(e.clone()),
            _ if depth == 0 => kept.push(e.clone()),
            _ => {}
        }
    }
    kept
}

/// On every corpus file: a visitor that skips every variation sees the
/// events of one that does not, minus those inside variations; one that
/// breaks after `k` events sees the first `k` and then `end_game`; the
/// games and their raw bytes stay the same.
#[test]
fn skip_and_break_corpus() {
    let Some(dir) = corpus_dir() else { return };
    let (mut games, mut skipped, mut broken) = (0u64, 0u64, 0u64);
    for path in corpus_files(&dir) {
        let data = read_corpus_file(&path);
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let mut full_reader = PgnReader::new(&data[..]);
        let mut skip_reader = PgnReader::new(&data[..]);
        let mut break_reader = PgnReader::new(&data[..]);
        let mut full_log = Log::new(false, |_| usize::MAX);
        let mut skip_log = Log::new(true, |_| usize::MAX);
        // 1 breaks in begin_game; larger numbers in the tags or movetext.
        let mut break_log = Log::new(false, |game| 1 + (game as usize * 7) % 60);
        let mut game = 0u64;
        while let Some(full) = full_reader.read_game(&mut full_log).unwrap() {
            let skip = skip_reader.read_game(&mut skip_log).unwrap();
            let expected = outside_variations(&full);
            skipped += (full.len() - expected.len()) as u64;
            assert!(
                skip.as_ref() == Some(&expected),
                "{name}: game {game}: skipping variations"
            );
            let brk = break_reader.read_game(&mut break_log).unwrap().unwrap();
            let k = 1 + (game as usize * 7) % 60;
            let n = full.len() - 1;
            if k < n {
                broken += 1;
                assert_eq!(brk.len(), k + 1, "{name}: game {game}: break after {k}");
                assert!(
                    brk[..k] == full[..k],
                    "{name}: game {game}: break after {k}"
                );
                assert!(brk[k] == full[n], "{name}: game {game}: raw after a break");
            } else {
                assert!(brk == full, "{name}: game {game}");
            }
            game += 1;
        }
        games += game;
        assert!(skip_reader.read_game(&mut skip_log).unwrap().is_none());
        assert!(break_reader.read_game(&mut break_log).unwrap().is_none());
    }
    println!("{games} games, {skipped} events skipped, {broken} games broken off");
    assert!(skipped > 100_000 && broken > 10_000, "{skipped} {broken}");
}
