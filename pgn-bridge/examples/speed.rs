//! Rough timing of PGN -> PGC -> PGN on one file (plain PGN).
//! `cargo run --release -p pgn-bridge --example speed FILE`.

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: speed FILE");
    let pgn = std::fs::read(&path).expect("read");
    let t = Instant::now();
    let mut pgc = Vec::new();
    let s = pgn_bridge::pgn_to_pgc(&pgn[..], &mut pgc, None, &Default::default()).expect("encode");
    let e = t.elapsed();
    let t = Instant::now();
    let mut out = Vec::new();
    if std::env::var_os("SKIP_DECODE").is_none() {
        pgn_bridge::pgc_to_pgn(&pgc[..], &mut out, &Default::default()).expect("decode");
    }
    let d = t.elapsed();
    println!(
        "{} games {} plies: encode {:.3}s ({:.1} MB/s), decode {:.3}s; {} -> {} bytes",
        s.games,
        s.plies,
        e.as_secs_f64(),
        pgn.len() as f64 / e.as_secs_f64() / 1e6,
        d.as_secs_f64(),
        pgn.len(),
        pgc.len()
    );
}
