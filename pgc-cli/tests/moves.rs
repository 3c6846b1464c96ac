//! End-to-end tests of `pgc moves`, `pgc index` and `--games`: the output
//! of the real binary against what pgn-reader and shakmaty make of the
//! ORIGINAL PGN, game by game, in every format.
//!
//! The corpus is at `$PGC_CORPUS` or `../shared/corpus` relative to the
//! workspace root; corpus tests print why and pass when it is absent.

use pgn_reader::{Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::{Epd, Fen};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{pgc, root};

fn corpus_file(rel: &str) -> Option<PathBuf> {
    let base = std::env::var_os("PGC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"));
    let p = base.join(rel);
    if p.exists() {
        Some(p)
    } else {
        println!("skipped: {} not found (set PGC_CORPUS)", p.display());
        None
    }
}

fn run(args: &[&str]) -> Output {
    pgc().args(args).output().expect("run pgc")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "pgc {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8 output")
}

/// One game of the original PGN as pgn-reader + shakmaty see it.
#[derive(Debug, Clone, Default)]
struct Game {
    tags: Vec<(String, String)>,
    start: Chess,
    moves: Vec<Move>,
    outcome: Option<String>,
}

impl Game {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The documented rule: Chess960 castling when the Variant tag says so or
    /// the start position's castling rights are not the standard ones.
    fn mode(&self) -> CastlingMode {
        let v = self.tag("Variant").unwrap_or("").to_ascii_lowercase();
        if v.contains("960") || v.contains("fischer") || v.contains("frc") {
            return CastlingMode::Chess960;
        }
        CastlingMode::detect(&self.start.to_setup(EnPassantMode::Legal))
    }

    fn result(&self) -> String {
        self.outcome
            .clone()
            .or_else(|| self.tag("Result").map(str::to_string))
            .unwrap_or_else(|| "*".into())
    }

    fn uci_line(&self) -> String {
        let mode = self.mode();
        let mut parts: Vec<String> = self
            .moves
            .iter()
            .map(|&m| UciMove::from_move(m, mode).to_string())
            .collect();
        parts.push(self.result());
        parts.join(" ")
    }

    fn san_line(&self) -> String {
        let mut pos = self.start.clone();
        let mut parts: Vec<String> = Vec::new();
        for &m in &self.moves {
            parts.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        }
        parts.push(self.result());
        parts.join(" ")
    }

    fn position_lines(&self, epd: bool) -> Vec<String> {
        let mode = self.mode();
        let mut pos = self.start.clone();
        let mut out = Vec::new();
        let text = |p: &Chess| {
            if epd {
                Epd::from_position(p, EnPassantMode::Legal).to_string()
            } else {
                Fen::from_position(p, EnPassantMode::Legal).to_string()
            }
        };
        for (ply, &m) in self.moves.iter().enumerate() {
            out.push(format!(
                "{}\t{ply}\t{}\t{}",
                text(&pos),
                UciMove::from_move(m, mode),
                self.result()
            ));
            pos.play_unchecked(m);
        }
        out.push(format!(
            "{}\t{}\t-\t{}",
            text(&pos),
            self.moves.len(),
            self.result()
        ));
        out
    }
}

struct Collect;

impl Visitor for Collect {
    type Tags = Game;
    type Movetext = (Game, Chess);
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Game, Game> {
        ControlFlow::Continue(Game::default())
    }

    fn tag(&mut self, g: &mut Game, name: &[u8], value: RawTag<'_>) -> ControlFlow<Game> {
        let name = String::from_utf8_lossy(name).into_owned();
        let value = String::from_utf8_lossy(&value.decode()).into_owned();
        if name == "FEN" {
            g.start = pgc_core::start_position(Some(value.as_bytes())).expect("FEN");
        }
        g.tags.push((name, value));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, g: Game) -> ControlFlow<Game, (Game, Chess)> {
        let pos = g.start.clone();
        ControlFlow::Continue((g, pos))
    }

    fn san(&mut self, (g, pos): &mut (Game, Chess), san: SanPlus) -> ControlFlow<Game> {
        let m = san.san.to_move(pos).expect("legal move in the corpus");
        g.moves.push(m);
        pos.play_unchecked(m);
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut (Game, Chess)) -> ControlFlow<Game, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, (g, _): &mut (Game, Chess), o: Outcome) -> ControlFlow<Game> {
        g.outcome = Some(o.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, (g, _): (Game, Chess)) -> Game {
        g
    }
}

fn read_pgn(path: &Path) -> Vec<Game> {
    let f = std::fs::File::open(path).expect("open PGN");
    let mut r = Reader::new(f);
    let mut games = Vec::new();
    while let Some(g) = r.read_game(&mut Collect).expect("read PGN") {
        games.push(g);
    }
    games
}

/// Encodes `pgn` into a temporary directory; returns (dir, PGC path).
fn encode(pgn: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("games.pgc");
    ok(&[
        "encode",
        pgn.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
        "-q",
    ]);
    (dir, out)
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

fn check_all_formats(rel: &str) {
    let Some(pgn) = corpus_file(rel) else { return };
    let games = read_pgn(&pgn);
    assert!(!games.is_empty());
    let (_dir, pgc_path) = encode(&pgn);
    let p = pgc_path.to_str().expect("path");

    let uci = ok(&["moves", p, "-q"]);
    let want: Vec<String> = games.iter().map(Game::uci_line).collect();
    assert_eq!(lines(&uci), want, "uci");

    let san = ok(&["moves", p, "--format", "san", "-q"]);
    let want: Vec<String> = games.iter().map(Game::san_line).collect();
    assert_eq!(lines(&san), want, "san");

    for (format, epd) in [("fen", false), ("epd", true)] {
        let out = ok(&["moves", p, "--format", format, "-q"]);
        let want: Vec<String> = games.iter().flat_map(|g| g.position_lines(epd)).collect();
        assert_eq!(lines(&out), want, "{format}");
    }

    // -j 2 gives the same bytes as -j 1, in every format.
    for format in ["uci", "san", "fen"] {
        let one = ok(&["moves", p, "--format", format, "-j", "1", "-q"]);
        let two = ok(&["moves", p, "--format", format, "-j", "2", "-q"]);
        assert_eq!(one, two, "{format} -j 2");
    }
}

#[test]
fn capablanca_every_format_matches_shakmaty() {
    check_all_formats("louis-yay__AIchess/data/Capablanca.pgn");
}

#[test]
fn chess960_every_format_matches_shakmaty() {
    check_all_formats("niklasf__python-chess/data/pgn/cutechess-fischerrandom.pgn");
}

#[test]
fn games_ranges_with_and_without_the_index() {
    let Some(pgn) = corpus_file("louis-yay__AIchess/data/Capablanca.pgn") else {
        return;
    };
    let games = read_pgn(&pgn);
    let (_dir, pgc_path) = encode(&pgn);
    let p = pgc_path.to_str().expect("path");
    let all: Vec<String> = games.iter().map(Game::uci_line).collect();
    let n = all.len();
    let cases: Vec<(String, std::ops::Range<usize>)> = vec![
        ("17".into(), 16..17),
        ("1".into(), 0..1),
        (format!("{n}"), n - 1..n),
        ("100..200".into(), 99..200),
        ("..5".into(), 0..5),
        (format!("{}..", n - 3), n - 4..n),
        (format!("{}", n + 5), n..n),
    ];
    let check = |label: &str| {
        for (range, want) in &cases {
            let out = ok(&["moves", p, "--games", range, "-q"]);
            assert_eq!(
                lines(&out),
                all[want.clone()].to_vec(),
                "{label} --games {range}"
            );
            let j2 = ok(&["moves", p, "--games", range, "-j", "2", "-q"]);
            assert_eq!(out, j2, "{label} -j 2 --games {range}");
        }
    };
    check("no index");
    ok(&["index", p, "-q"]);
    let idx = PathBuf::from(format!("{p}.idx"));
    let bytes = std::fs::read(&idx).expect("index written");
    assert!(bytes.starts_with(b"PGCIDX1\n"));
    check("index");

    // decode --games: the same games as PGN, with and without the index.
    let dec = ok(&["decode", p, "--games", "100..102", "-q"]);
    assert_eq!(dec.matches("[Event ").count(), 3);
    assert!(dec.contains(games[99].tag("White").expect("White")));
    std::fs::remove_file(&idx).expect("remove index");
    assert_eq!(ok(&["decode", p, "--games", "100..102", "-q"]), dec);

    // A stale index is noticed and ignored.
    ok(&["index", p, "-q"]);
    let mut data = std::fs::read(&pgc_path).expect("read pgc");
    let cut = data.len() - 1;
    data.truncate(cut);
    std::fs::write(&pgc_path, &data).expect("write pgc");
    let o = run(&["moves", p, "--games", "17"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("stale"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        lines(&String::from_utf8_lossy(&o.stdout)),
        all[16..17].to_vec()
    );

    // An entry that matches the file but points inside a game is not
    // followed: `moves` and `decode` scan and give game 17.
    ok(&["index", p, "-q"]);
    let mut index =
        pgc_core::GameIndex::from_bytes(&std::fs::read(&idx).expect("index")).expect("index reads");
    index.offsets[16] += 1;
    std::fs::write(&idx, index.to_bytes()).expect("write index");
    let o = run(&["moves", p, "--games", "17"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("entry for game 17") && err.contains("no game start"),
        "{err}"
    );
    assert_eq!(
        lines(&String::from_utf8_lossy(&o.stdout)),
        all[16..17].to_vec()
    );
    let dec = ok(&["decode", p, "--games", "17", "-q"]);
    assert!(
        dec.contains(games[16].tag("White").expect("White")),
        "{dec}"
    );
    assert_eq!(dec.matches("[Event ").count(), 1);
}

#[test]
fn where_filters() {
    let Some(pgn) = corpus_file("louis-yay__AIchess/data/Capablanca.pgn") else {
        return;
    };
    let games = read_pgn(&pgn);
    let (_dir, pgc_path) = encode(&pgn);
    let p = pgc_path.to_str().expect("path");
    let num = |g: &Game, t: &str| g.tag(t).and_then(|v| v.parse::<f64>().ok());
    type Keep = Box<dyn Fn(&Game) -> bool>;
    let cases: Vec<(Vec<&str>, Keep)> = vec![
        (
            vec!["Result=1-0"],
            Box::new(|g: &Game| g.tag("Result") == Some("1-0")),
        ),
        (
            vec!["Result!=1-0"],
            Box::new(|g: &Game| g.tag("Result") != Some("1-0")),
        ),
        (
            vec!["Round>=10", "Result=1/2-1/2"],
            // Numeric: a tag that is not a number ("?") makes the
            // comparison false.
            Box::new(move |g: &Game| {
                num(g, "Round").is_some_and(|r| r >= 10.0) && g.tag("Result") == Some("1/2-1/2")
            }),
        ),
        (
            // A date: `??` parts are 0; a tag of another shape fails.
            vec!["Date<1920.01.01"],
            Box::new(|g: &Game| {
                let d = g.tag("Date").unwrap_or("");
                let b = d.as_bytes();
                let shaped = b.len() == 10
                    && b[..4].iter().all(u8::is_ascii_digit)
                    && b[4] == b'.'
                    && b[7] == b'.';
                shaped && d.replace('?', "0").as_str() < "1920.01.01"
            }),
        ),
        (
            vec!["Round>=10 or Result=1-0 and not White~Capablanca"],
            Box::new(move |g: &Game| {
                num(g, "Round").is_some_and(|r| r >= 10.0)
                    || (g.tag("Result") == Some("1-0")
                        && !g.tag("White").unwrap_or("").contains("Capablanca"))
            }),
        ),
    ];
    for (filters, keep) in cases {
        let mut args = vec!["moves", p, "-q"];
        for f in &filters {
            args.extend(["--where", f]);
        }
        let out = ok(&args);
        let want: Vec<String> = games
            .iter()
            .filter(|g| keep(g))
            .map(Game::uci_line)
            .collect();
        assert!(!want.is_empty(), "{filters:?} selects nothing");
        assert_eq!(lines(&out), want, "{filters:?}");
    }
    let o = run(&["moves", p, "--where", "WhiteElo"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn variations_with_all() {
    // 1. e4 (1. d4 d5) 1... e5 2. Nf3 *
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("v.pgn");
    std::fs::write(
        &pgn,
        "[Result \"*\"]\n\n1. e4 (1. d4 d5) 1... e5 2. Nf3 *\n",
    )
    .expect("write");
    let (_d, pgc_path) = encode(&pgn);
    let p = pgc_path.to_str().expect("path");
    assert_eq!(ok(&["moves", p, "-q"]), "e2e4 e7e5 g1f3 *\n");
    assert_eq!(
        ok(&["moves", p, "--all", "-q"]),
        "e2e4 ( d2d4 d7d5 ) e7e5 g1f3 *\n"
    );
    assert_eq!(
        ok(&["moves", p, "--all", "--format", "san", "-q"]),
        "e4 ( d4 d5 ) e5 Nf3 *\n"
    );
    let fen = ok(&["moves", p, "--all", "--format", "epd", "-q"]);
    let plies: Vec<&str> = fen
        .lines()
        .map(|l| l.split('\t').nth(1).expect("ply"))
        .collect();
    assert_eq!(plies, ["0", "0", "1", "2", "1", "2", "3"]);
}

#[test]
fn a_game_cut_short_by_a_bad_ordinal_is_not_written() {
    // Two games: 1. e4 e5 (ordinals 13 12 from the standard's table) with
    // Result 1-0, then 1. e4 and an ordinal no position reaches.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("bad.pgc");
    let mut bytes = vec![0x05, 0x02, 6];
    bytes.extend_from_slice(b"Result");
    bytes.push(3);
    bytes.extend_from_slice(b"1-0");
    bytes.extend_from_slice(&[0x03, 2, 13, 12, 0x06]);
    bytes.extend_from_slice(&[0x05, 0x03, 2, 13, 250, 0x06]);
    std::fs::write(&p, &bytes).expect("write");
    let path = p.to_str().expect("utf-8 path");
    for format in ["uci", "san"] {
        let o = run(&["moves", path, "--format", format, "-j", "1"]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        let first = if format == "uci" {
            "e2e4 e7e5 1-0\n"
        } else {
            "e4 e5 1-0\n"
        };
        assert_eq!(String::from_utf8_lossy(&o.stdout), first, "{format}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("game 2") && err.contains("ordinal 250"),
            "{err}"
        );
    }
}

/// Null moves advance the counters as any move does: the positions of
/// `1. e4 -- 2. d4 -- 3. Nf3` as python-chess gives them
/// (`board.push(chess.Move.null())`), in the fen and csv formats.
#[test]
fn null_moves_advance_the_move_counters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("null.pgn");
    std::fs::write(&pgn, "[Event \"n\"]\n\n1. e4 -- 2. d4 -- 3. Nf3 *\n").unwrap();
    let (_d, pgc_path) = encode(&pgn);
    let p = pgc_path.to_str().expect("path");
    let python_chess = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2",
        "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2",
        "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 1 3",
        "rnbqkbnr/pppppppp/8/8/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 2 3",
    ];
    let fen = ok(&["moves", p, "--format", "fen", "-q"]);
    let got: Vec<&str> = fen.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(got, python_chess, "fen");
    let csv = ok(&["moves", p, "--format", "csv", "-q"]);
    let got: Vec<&str> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(2))
        .collect();
    assert_eq!(got, python_chess[..5], "csv");
}
