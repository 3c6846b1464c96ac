//! Debug helper: for each game of a PGN file, encode it, decode it, encode
//! again, and show the first game whose PGC or text changes.
//! `cargo run -p pgn-bridge --example roundtrip FILE`.

use pgn_bridge::GameOutput;
use pgn_bridge::PgnToPgc;
use pgn_bridge::{pgc_to_pgn, pgn_to_pgc};

fn main() {
    let path = std::env::args().nth(1).expect("usage: roundtrip FILE");
    let pgn = std::fs::read(&path).expect("read");
    let pgn = if path.ends_with(".zst") {
        zstd_decode(&pgn)
    } else {
        pgn
    };
    let mut conv = PgnToPgc::new(&pgn[..], &Default::default());
    let mut i = 0;
    while let Some(out) = conv.next_game().expect("read") {
        i += 1;
        if !matches!(out, GameOutput::Encoded { .. }) {
            continue;
        }
        let pgc1 = conv.game_bytes().to_vec();
        let mut text1 = Vec::new();
        pgc_to_pgn(&pgc1[..], &mut text1, &Default::default()).expect("decode");
        let mut pgc2 = Vec::new();
        pgn_to_pgc(&text1[..], &mut pgc2, None, &Default::default()).expect("encode 2");
        if pgc1 != pgc2 {
            println!("game {i}: {out:?}");
            println!("pgc1 {:02x?}", &pgc1[..pgc1.len().min(60)]);
            println!("pgc2 {:02x?}", &pgc2[..pgc2.len().min(60)]);
            let at = pgc1
                .iter()
                .zip(&pgc2)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            println!(
                "differ at {at}: {:02x?} vs {:02x?}",
                &pgc1[at..(at + 20).min(pgc1.len())],
                &pgc2[at..(at + 20).min(pgc2.len())]
            );
            println!("--- text1\n{}", String::from_utf8_lossy(&text1));
            return;
        }
    }
    println!("all {i} games are fixed points");
}

fn zstd_decode(b: &[u8]) -> Vec<u8> {
    let mut child = std::process::Command::new("zstd")
        .args(["-dc"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("zstd");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = b.to_vec();
    let t = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &data));
    let out = child.wait_with_output().expect("zstd");
    let _ = t.join();
    out.stdout
}
