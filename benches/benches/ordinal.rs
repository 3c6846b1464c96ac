//! The move-ordinal codec (section 20.2) against the naive definition, per
//! ply, on the main-line positions of real games.
//!
//! - `encode/codec`: [`pgc_core::ordinal::encode`] of the played move;
//! - `encode/naive`: every legal move's SAN as a `String`, sorted, and a
//!   binary search for the played move's SAN;
//! - `decode/codec`: [`pgc_core::ordinal::decode`] of the ordinal;
//! - `decode/naive`: every legal move's SAN as a `String`, sorted, indexed.
//!
//! Input: the main lines of `$PGC_BENCH_PGN`, else
//! `../shared/corpus/louis-yay__AIchess/data/Capablanca.pgn` beside the
//! workspace (the first 20,000 plies), else seeded random games.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_main};
use pgc_core::ordinal::{decode, encode};
use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::san::San;
use shakmaty::{Chess, Move, Position};
use std::ops::ControlFlow;
use std::path::PathBuf;

const MAX_PLIES: usize = 20_000;

/// Collects `(position, move)` for every main-line ply.
struct Plies(Vec<(Chess, Move)>);

impl Visitor for Plies {
    type Tags = Option<Vec<u8>>;
    type Movetext = Option<Chess>;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        if self.0.len() >= MAX_PLIES {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, fen: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            *fen = Some(value.decode().into_owned());
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, fen: Self::Tags) -> ControlFlow<(), Self::Movetext> {
        ControlFlow::Continue(pgc_core::start_position(fen.as_deref()).ok())
    }

    fn begin_variation(&mut self, _: &mut Self::Movetext) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn san(&mut self, pos: &mut Self::Movetext, san: SanPlus) -> ControlFlow<()> {
        let Some(p) = pos else {
            return ControlFlow::Break(());
        };
        let Ok(m) = san.san.to_move(p) else {
            return ControlFlow::Break(());
        };
        self.0.push((p.clone(), m));
        p.play_unchecked(m);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: Self::Movetext) {}
}

fn corpus_plies() -> Option<(String, Vec<(Chess, Move)>)> {
    let path = std::env::var_os("PGC_BENCH_PGN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/corpus/louis-yay__AIchess/data/Capablanca.pgn")
        });
    let file = std::fs::File::open(&path).ok()?;
    let mut reader = Reader::new(file);
    let mut plies = Plies(Vec::new());
    while let Ok(Some(())) = reader.read_game(&mut plies) {
        if plies.0.len() >= MAX_PLIES {
            break;
        }
    }
    plies.0.truncate(MAX_PLIES);
    (!plies.0.is_empty()).then(|| (path.display().to_string(), plies.0))
}

/// Fallback: seeded pseudo-random games (xorshift), 200 plies at most each.
fn random_plies() -> Vec<(Chess, Move)> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::new();
    while out.len() < MAX_PLIES {
        let mut pos = Chess::default();
        for _ in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = moves[(x % moves.len() as u64) as usize];
            out.push((pos.clone(), m));
            pos.play_unchecked(m);
        }
    }
    out
}

fn naive_sorted(pos: &Chess) -> Vec<(String, Move)> {
    let mut v: Vec<(String, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (San::from_move(pos, m).to_string(), m))
        .collect();
    v.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    v
}

fn naive_encode(pos: &Chess, m: Move) -> Option<usize> {
    let mut sans: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .map(|x| San::from_move(pos, x).to_string())
        .collect();
    sans.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let me = San::from_move(pos, m).to_string();
    sans.binary_search_by(|s| s.as_bytes().cmp(me.as_bytes()))
        .ok()
}

fn naive_decode(pos: &Chess, ordinal: u8) -> Option<Move> {
    naive_sorted(pos).get(usize::from(ordinal)).map(|e| e.1)
}

fn bench(c: &mut Criterion) {
    let (source, plies) = corpus_plies().unwrap_or_else(|| ("random games".into(), random_plies()));
    let ordinals: Vec<u8> = plies
        .iter()
        .map(|(p, m)| encode(p, *m).expect("legal move"))
        .collect();
    // The naive codec must agree before it is timed.
    for ((p, m), &o) in plies.iter().zip(&ordinals) {
        assert_eq!(naive_encode(p, *m), Some(usize::from(o)));
        assert_eq!(naive_decode(p, o), Some(*m));
    }
    eprintln!("ordinal bench: {} plies from {source}", plies.len());

    let mut g = c.benchmark_group("ordinal");
    g.throughput(Throughput::Elements(plies.len() as u64));
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("encode", "codec"), |b| {
        b.iter(|| {
            for (p, m) in &plies {
                black_box(encode(black_box(p), *m).ok());
            }
        })
    });
    g.bench_function(BenchmarkId::new("encode", "naive"), |b| {
        b.iter(|| {
            for (p, m) in &plies {
                black_box(naive_encode(black_box(p), *m));
            }
        })
    });
    g.bench_function(BenchmarkId::new("decode", "codec"), |b| {
        b.iter(|| {
            for ((p, _), &o) in plies.iter().zip(&ordinals) {
                black_box(decode(black_box(p), o).ok());
            }
        })
    });
    g.bench_function(BenchmarkId::new("decode", "naive"), |b| {
        b.iter(|| {
            for ((p, _), &o) in plies.iter().zip(&ordinals) {
                black_box(naive_decode(black_box(p), o));
            }
        })
    });
    g.finish();
}

// criterion_group! defines an undocumented pub fn.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
use group::benches;
criterion_main!(benches);
