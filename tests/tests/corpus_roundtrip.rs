//! PGN → PGC → PGN on every file of the shared corpus.
//!
//! 1. every game converts or is rejected with a reason (counts printed);
//! 2. PGC is a fixed point: encode(decode(encode(x))) == encode(x);
//! 3. PGN export is a fixed point;
//! 5. files in export or Lichess style come back byte for byte.

use pgc_tests::{corpus_dir, corpus_files, read_corpus_file, short};
use pgn_bridge::DecodeOptions;
use pgn_bridge::EncodeOptions;
use pgn_bridge::{pgc_to_pgn, pgn_to_pgc};

fn encode(pgn: &[u8]) -> (Vec<u8>, pgn_bridge::EncodeStats, Vec<u8>) {
    let mut pgc = Vec::new();
    let mut rejects = Vec::new();
    let stats =
        pgn_to_pgc(pgn, &mut pgc, Some(&mut rejects), &EncodeOptions::default()).expect("encode");
    (pgc, stats, rejects)
}

fn decode(pgc: &[u8]) -> Vec<u8> {
    let mut pgn = Vec::new();
    pgc_to_pgn(pgc, &mut pgn, &DecodeOptions::default()).expect("decode");
    pgn
}

/// Files that must come back byte for byte (export format or Lichess style).
const IDENTICAL: &[&str] = &[
    "lichess-org__database/2017-05.pgn.zst",
    "hauva69__pgn4web/twic944.pgn.zst",
    "notnil__chess/fixtures/pgns/0004.pgn",
    "notnil__chess/fixtures/pgns/0005.pgn",
    "jhlywa__chess.js/benchmarks/benchmark.pgn",
    "niklasf__python-chess/data/pgn/molinari-bordais-1979.pgn",
];

#[test]
fn corpus_round_trips() {
    let Some(dir) = corpus_dir() else { return };
    let mut failures = Vec::new();
    for path in corpus_files(&dir) {
        let name = short(&dir, &path);
        let pgn = read_corpus_file(&path);
        let (pgc1, stats, _rejects) = encode(&pgn);
        let text1 = decode(&pgc1);
        let (pgc2, stats2, _) = encode(&text1);
        let text2 = decode(&pgc2);
        println!(
            "{name}: {} games, {} encoded, {} rejected, {} byte-identical, {} plies, {} -> {} bytes{}",
            stats.games,
            stats.encoded,
            stats.rejected,
            stats.identical,
            stats.plies,
            pgn.len(),
            pgc1.len(),
            stats
                .rejects
                .first()
                .map(|r| format!("; first reject: {r}"))
                .unwrap_or_default()
        );
        if stats2.rejected != 0 {
            failures.push(format!(
                "{name}: {} games of our own output rejected: {:?}",
                stats2.rejected,
                stats2.rejects.first()
            ));
        }
        if pgc1 != pgc2 {
            failures.push(format!("{name}: PGC is not a fixed point"));
        }
        if text1 != text2 {
            failures.push(format!("{name}: PGN export is not a fixed point"));
        }
        if IDENTICAL.contains(&name.as_str()) && text1 != pgn {
            let at = text1
                .iter()
                .zip(&pgn)
                .position(|(a, b)| a != b)
                .unwrap_or(text1.len().min(pgn.len()));
            failures.push(format!(
                "{name}: not byte-identical from byte {at}: ours {:?} / original {:?}",
                String::from_utf8_lossy(&text1[at.saturating_sub(40)..(at + 40).min(text1.len())]),
                String::from_utf8_lossy(&pgn[at.saturating_sub(40)..(at + 40).min(pgn.len())])
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
