//! PGC → moves for bulk loading ([`pgc_core::bulk`]) on real games, with
//! the pgn-reader validating reader on the equivalent PGN as the peer, in
//! the same run.
//!
//! - `bulk/moves`: [`BulkReader`], main lines, every move as a shakmaty
//!   `Move` (what `pgc moves` does before formatting);
//! - `bulk/positions`: the same plus every main-line position
//!   ([`pgc_core::BulkGame::positions`]);
//! - `bulk/par_map-2`: [`pgc_core::par_map`] on two threads;
//! - `bulk/pgn-reader-validate`: pgn-reader + shakmaty on the PGN, every
//!   main-line SAN to a move (`pgc-peer validate`).
//!
//! Throughput is in bytes of the *equivalent PGN* (group `bulk`) and in
//! plies (group `bulk-plies`), so PGC and PGN rows compare directly.
//!
//! Input: `$PGC_BENCH_PGN`, else
//! `../shared/corpus/louis-yay__AIchess/data/Capablanca.pgn` beside the
//! workspace. Without it the benchmark prints why and measures nothing.

use criterion::{Criterion, Throughput, black_box, criterion_main};
use pgc_core::{BulkOptions, BulkReader, par_map};
use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, Position};
use std::ops::ControlFlow;
use std::path::PathBuf;

/// pgn-reader + shakmaty, every main-line SAN to a move: `pgc-peer validate`.
struct Validate {
    plies: u64,
}

impl Visitor for Validate {
    type Tags = Option<Vec<u8>>;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, fen: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            *fen = Some(value.decode().into_owned());
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, fen: Self::Tags) -> ControlFlow<(), Chess> {
        ControlFlow::Continue(pgc_core::start_position(fen.as_deref()).unwrap_or_default())
    }

    fn begin_variation(&mut self, _: &mut Chess) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn san(&mut self, pos: &mut Chess, san: SanPlus) -> ControlFlow<()> {
        match san.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                self.plies += 1;
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(()),
        }
    }

    fn end_game(&mut self, _: Chess) {}
}

fn count_moves(pgc: &[u8]) -> u64 {
    let mut r = BulkReader::new(pgc, BulkOptions::default());
    let mut n = 0;
    while let Ok(Some(g)) = r.next_game() {
        n += g.moves().len() as u64;
    }
    n
}

fn bench(c: &mut Criterion) {
    let path = std::env::var_os("PGC_BENCH_PGN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/corpus/louis-yay__AIchess/data/Capablanca.pgn")
        });
    let Ok(pgn) = std::fs::read(&path) else {
        eprintln!("bulk: {} not found; set PGC_BENCH_PGN", path.display());
        return;
    };
    let mut pgc = Vec::new();
    let opts = pgn_bridge::EncodeOptions::default();
    if let Err(e) = pgn_bridge::pgn_to_pgc(&pgn[..], &mut pgc, None, &opts) {
        eprintln!("bulk: cannot encode {}: {e}", path.display());
        return;
    }
    let plies = count_moves(&pgc);
    eprintln!(
        "bulk: {}: {} bytes of PGN, {} bytes of PGC, {plies} main-line plies",
        path.display(),
        pgn.len(),
        pgc.len()
    );

    let mut g = c.benchmark_group("bulk");
    g.throughput(Throughput::Bytes(pgn.len() as u64));
    g.bench_function("moves", |b| b.iter(|| black_box(count_moves(&pgc))));
    g.bench_function("positions", |b| {
        b.iter(|| {
            let mut r = BulkReader::new(&pgc[..], BulkOptions::default());
            let mut n = 0u64;
            while let Ok(Some(game)) = r.next_game() {
                for p in game.positions() {
                    n += u64::from(p.pos.turn().is_white());
                }
            }
            black_box(n)
        })
    });
    g.bench_function("par_map-2", |b| {
        b.iter(|| {
            black_box(
                par_map(&pgc, 2, BulkOptions::default(), |g| g.moves().len()).map(|v| v.len()),
            )
        })
    });
    g.bench_function("pgn-reader-validate", |b| {
        b.iter(|| {
            let mut v = Validate { plies: 0 };
            let mut r = Reader::new(&pgn[..]);
            while let Ok(Some(())) = r.read_game(&mut v) {}
            black_box(v.plies)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("bulk-plies");
    g.throughput(Throughput::Elements(plies));
    g.bench_function("moves", |b| b.iter(|| black_box(count_moves(&pgc))));
    g.finish();
}

// criterion_group! defines an undocumented pub fn.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
