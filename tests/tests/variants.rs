//! The Lichess variants end to end: the sample files of `samples/variants/`
//! round-trip byte for byte with every game encoded, and python-chess, an
//! independent implementation of all eight variants, reads back what pgc
//! decodes: the same moves and the same SAN, on its own seeded random games
//! of every variant, on the samples and on the variant files of the corpus
//! (`tests/python/variant_games.py`).
//!
//! The python-chess check skips with a printed reason when python-chess is
//! not importable, unless `PGC_REQUIRE_PYCHESS` is set.

use pgc_core::variant::{Variant, VariantPosition, variant_of_tag};
use pgc_core::{GameVisitor, GameWalker};
use pgn_bridge::{DecodeOptions, EncodeOptions, pgc_to_pgn, pgn_to_pgc};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// PGN → PGC → PGN: the PGC, the PGN back, and the encoder's counts.
fn round_trip(pgn: &[u8]) -> (Vec<u8>, Vec<u8>, pgn_bridge::EncodeStats) {
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(pgn, &mut pgc, None, &EncodeOptions::default()).expect("encode");
    let mut back = Vec::new();
    pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default()).expect("decode");
    (pgc, back, stats)
}

/// The variant of each game's start position, and the plies walked.
#[derive(Default)]
struct Starts {
    tags: Vec<Variant>,
    starts: Vec<Variant>,
    plies: u64,
}

impl GameVisitor for Starts {
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        if name == b"Variant" {
            self.tags
                .push(variant_of_tag(value).expect("a known variant"));
        }
        ControlFlow::Continue(())
    }
    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.starts.push(start.variant());
        ControlFlow::Continue(())
    }
    fn play(&mut self, _ply: &pgc_core::Ply<'_>) -> ControlFlow<()> {
        self.plies += 1;
        ControlFlow::Continue(())
    }
}

fn sample_files() -> Vec<PathBuf> {
    let dir = repo_root().join("samples/variants");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("samples/variants")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_variant_sample_round_trips_byte_for_byte() {
    let files = sample_files();
    let mut seen = Vec::new();
    for path in &files {
        let pgn = std::fs::read(path).expect("read sample");
        let (pgc, back, stats) = round_trip(&pgn);
        let name = path.display();
        assert_eq!((stats.games, stats.encoded), (1, 1), "{name}: {stats:?}");
        assert!(back == pgn, "{name}: not byte for byte");
        let report = pgc_core::verify(&pgc[..], pgc_core::Limits::default()).expect("verify");
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        let mut starts = Starts::default();
        let mut w = GameWalker::new(&pgc[..]);
        while w.walk_game(&mut starts).expect("walk") {}
        // The walker plays the game by the rules its Variant tag names.
        assert_eq!(starts.tags, starts.starts, "{name}");
        assert_eq!(starts.plies, stats.plies, "{name}");
        seen.extend(starts.starts);
    }
    for v in Variant::ALL {
        assert!(seen.contains(&v), "no sample of {v}");
    }
}

fn python() -> String {
    std::env::var("PGC_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn pychess_available() -> bool {
    Command::new(python())
        .args(["-c", "import chess.variant"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn script() -> PathBuf {
    repo_root().join("tests/python/variant_games.py")
}

/// Runs the compare step on `original` and pgc's round trip of it; the
/// script's report on failure.
fn compare(tmp: &Path, original: &Path) -> Result<(), String> {
    let pgn = std::fs::read(original).expect("read");
    let (_, back, stats) = round_trip(&pgn);
    if stats.rejected != 0 {
        return Err(format!(
            "{}: {} game(s) rejected: {:?}",
            original.display(),
            stats.rejected,
            stats.rejects.first().map(ToString::to_string)
        ));
    }
    let decoded = tmp.join("decoded.pgn");
    std::fs::write(&decoded, &back).expect("write decoded");
    let out = Command::new(python())
        .arg(script())
        .arg("compare")
        .arg(original)
        .arg(&decoded)
        .output()
        .expect("run python");
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}:\n{}{}",
            original.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let p = std::env::temp_dir().join(format!("pgc-variants-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn python_chess_reads_back_the_moves_and_san_of_every_variant() {
    if !pychess_available() {
        assert!(
            std::env::var_os("PGC_REQUIRE_PYCHESS").is_none(),
            "python-chess is required (PGC_REQUIRE_PYCHESS is set): pip install chess"
        );
        eprintln!("skipping: python-chess not installed (pip install chess)");
        return;
    }
    let tmp = TempDir::new();
    let random = tmp.0.join("random.pgn");
    let out = Command::new(python())
        .arg(script())
        .args(["generate", "--seed", "20261124", "--games", "30"])
        .arg(&random)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "generate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
    let mut files = vec![random];
    files.extend(sample_files());
    if let Some(dir) = pgc_tests::corpus_dir() {
        for f in [
            "niklasf__python-chess/data/pgn/saturs-jannlee-zh-lichess.pgn",
            "niklasf__python-chess/data/pgn/knightvuillaume-jannlee-zh-lichess.pgn",
            "niklasf__python-chess/data/pgn/antichess-programfox.pgn",
            "pychess__pychess/testing/gamefiles/atomic.pgn",
            "niklasf__chessops/data/headers-and-moves-on-the-same-line.pgn",
        ] {
            files.push(dir.join(f));
        }
    }
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| compare(&tmp.0, f).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
