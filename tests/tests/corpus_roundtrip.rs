//! PGN → PGC → PGN on every file of the shared corpus.
//!
//! 1. every game converts or is rejected with a reason (counts printed);
//! 2. every file comes back byte for byte, rejected games included (kept
//!    verbatim at their place), and every game counts as identical;
//! 3. PGC is a fixed point: encode(decode(encode(x))) == encode(x);
//! 4. in strict mode (1994 records only, no layout, no rejected text),
//!    the export is a fixed point;
//! 5. the games of other variants ([`VARIANT_FILES`]) are encoded as
//!    games, none kept verbatim.

use pgc_tests::{corpus_dir, corpus_files, first_difference, read_corpus_file, short};
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

fn encode_strict(pgn: &[u8]) -> Vec<u8> {
    let mut pgc = Vec::new();
    let opts = EncodeOptions {
        strict: true,
        ..EncodeOptions::default()
    };
    pgn_to_pgc(pgn, &mut pgc, None, &opts).expect("encode --strict");
    pgc
}

/// Files in export format or Lichess style: no game needs a text patch.
const EXPORT_STYLE: &[&str] = &[
    "lichess-org__database/2017-05.pgn.zst",
    "hauva69__pgn4web/twic944.pgn.zst",
    "notnil__chess/fixtures/pgns/0004.pgn",
    "notnil__chess/fixtures/pgns/0005.pgn",
    "jhlywa__chess.js/benchmarks/benchmark.pgn",
    "niklasf__python-chess/data/pgn/molinari-bordais-1979.pgn",
];

/// Files of Crazyhouse, Antichess and Atomic games, with their number of
/// games: every one is encoded (`pgc_core::variant`).
const VARIANT_FILES: &[(&str, u64)] = &[
    (
        "niklasf__python-chess/data/pgn/saturs-jannlee-zh-lichess.pgn",
        1,
    ),
    (
        "niklasf__python-chess/data/pgn/knightvuillaume-jannlee-zh-lichess.pgn",
        1,
    ),
    ("niklasf__python-chess/data/pgn/antichess-programfox.pgn", 2),
    ("pychess__pychess/testing/gamefiles/atomic.pgn", 10),
    (
        "niklasf__chessops/data/headers-and-moves-on-the-same-line.pgn",
        3,
    ),
];

/// Whether `pgc` holds an extension record of kind `kind`.
fn has_extension(pgc: &[u8], kind: pgc_core::ext::ExtKind) -> bool {
    use pgc_core::{Reader, RecordRef};
    let mut r = Reader::new(pgc);
    while let Ok(Some((_, rec))) = r.next_record() {
        if let RecordRef::Extension { kind: k, .. } = rec
            && k == kind.0
        {
            return true;
        }
    }
    false
}

#[test]
fn corpus_round_trips() {
    let Some(dir) = corpus_dir() else { return };
    let mut failures = Vec::new();
    let mut variant_files = 0;
    for path in corpus_files(&dir) {
        let name = short(&dir, &path);
        let pgn = read_corpus_file(&path);
        let (pgc1, stats, _rejects) = encode(&pgn);
        if let Some(&(_, games)) = VARIANT_FILES.iter().find(|(f, _)| *f == name) {
            variant_files += 1;
            if (stats.games, stats.encoded, stats.rejected) != (games, games, 0)
                || has_extension(&pgc1, pgc_core::ext::ExtKind::VERBATIM)
            {
                failures.push(format!(
                    "{name}: {} games, {} encoded, {} rejected; expected all {games} encoded",
                    stats.games, stats.encoded, stats.rejected
                ));
            }
        }
        let text1 = decode(&pgc1);
        let (pgc2, stats2, _) = encode(&text1);
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
        if text1 != pgn {
            failures.push(format!(
                "{name}: not byte-identical {}",
                first_difference(&text1, &pgn, 40)
            ));
        }
        if stats.identical != stats.encoded {
            failures.push(format!(
                "{name}: {} of {} encoded games counted identical",
                stats.identical, stats.encoded
            ));
        }
        if stats2.rejected != stats.rejected {
            failures.push(format!(
                "{name}: {} games rejected from our own output, {} from the file",
                stats2.rejected, stats.rejected
            ));
        }
        if pgc1 != pgc2 {
            failures.push(format!("{name}: PGC is not a fixed point"));
        }
        if EXPORT_STYLE.contains(&name.as_str())
            && has_extension(&pgc1, pgc_core::ext::ExtKind::TEXT_PATCH)
        {
            failures.push(format!("{name}: an export-style file needed a text patch"));
        }
        // Strict: the export format, which re-encodes to itself.
        let strict1 = decode(&encode_strict(&pgn));
        let strict2 = decode(&encode_strict(&strict1));
        if strict1 != strict2 {
            failures.push(format!("{name}: strict PGN export is not a fixed point"));
        }
        if has_extension(&encode_strict(&pgn), pgc_core::ext::ExtKind::VERBATIM) {
            failures.push(format!(
                "{name}: strict output keeps a rejected game's text"
            ));
        }
    }
    assert_eq!(
        variant_files,
        VARIANT_FILES.len(),
        "variant files in the corpus"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
