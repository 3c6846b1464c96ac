//! `pgc verify` on a file made the way the only other known PGC writer
//! makes them: after each 0x05 it writes the seven STR values as bare
//! string-1 items (no 0x02 records), then the moves, then 0x06, and it
//! sorts some SAN lists differently, so some of its ordinals name another
//! move than the one played. The verifier must report a problem in every
//! game, not stop at the first one.

mod common;

use common::{run, stdout};
use pgc_core::Verifier;
use shakmaty::san::San;
use shakmaty::{Chess, Position};

/// Real games: Event, Site, Date, White, Black, Result, SAN moves.
const GAMES: [[&str; 7]; 5] = [
    [
        "Paris Opera casual game",
        "Paris FRA",
        "1858.??.??",
        "Paul Morphy",
        "Duke Karl / Count Isouard",
        "1-0",
        "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 \
         Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#",
    ],
    [
        "London casual game",
        "London ENG",
        "1851.06.21",
        "Adolf Anderssen",
        "Lionel Kieseritzky",
        "1-0",
        "e4 e5 f4 exf4 Bc4 Qh4+ Kf1 b5 Bxb5 Nf6 Nf3 Qh6 d3 Nh5 Nh4 Qg5 Nf5 c6 g4 Nf6 Rg1 \
         cxb5 h4 Qg6 h5 Qg5 Qf3 Ng8 Bxf4 Qf6 Nc3 Bc5 Nd5 Qxb2 Bd6 Bxg1 e5 Qxa1+ Ke2 Na6 \
         Nxg7+ Kd8 Qf6+ Nxf6 Be7#",
    ],
    [
        "Cafe de la Regence",
        "Paris FRA",
        "1750.??.??",
        "Legall de Kermeur",
        "Saint Brie",
        "1-0",
        "e4 e5 Nf3 d6 Bc4 Bg4 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#",
    ],
    [
        "Berlin casual game",
        "Berlin GER",
        "1852.??.??",
        "Adolf Anderssen",
        "Jean Dufresne",
        "1-0",
        "e4 e5 Nf3 Nc6 Bc4 Bc5 b4 Bxb4 c3 Ba5 d4 exd4 O-O d3 Qb3 Qf6 e5 Qg6 Re1 Nge7 Ba3 \
         b5 Qxb5 Rb8 Qa4 Bb6 Nbd2 Bb7 Ne4 Qf5 Bxd3 Qh5 Nf6+ gxf6 exf6 Rg8 Rad1 Qxf3 Rxe7+ \
         Nxe7 Qxd7+ Kxd7 Bf5+ Ke8 Bd7+ Kf8 Bxe7#",
    ],
    [
        "New York Rosenwald",
        "New York USA",
        "1956.10.17",
        "Donald Byrne",
        "Robert James Fischer",
        "0-1",
        "Nf3 Nf6 c4 g6 Nc3 Bg7 d4 O-O Bf4 d5 Qb3 dxc4 Qxc4 c6 e4 Nbd7 Rd1 Nb6 Qc5 Bg4 Bg5 \
         Na4 Qa3 Nxc3 bxc3 Nxe4 Bxe7 Qb6 Bc4 Nxc3 Bc5 Rfe8+ Kf1 Be6 Bxb6 Bxc4+ Kg1 Ne2+ \
         Kf1 Nxd4+ Kg1 Ne2+ Kf1 Nc3+ Kg1 axb6 Qb4 Ra4 Qxb6 Nxd1 h3 Rxa2 Kh2 Nxf2 Re1 Rxe1 \
         Qd8+ Bf8 Nxe1 Bd5 Nf3 Ne4 Qb8 b5 h4 h5 Ne5 Kg7 Kg1 Bc5+ Kf1 Ng3+ Ke1 Bb4+ Kd1 \
         Bb3+ Kc1 Ne2+ Kb1 Nc3+ Kc1 Rc2#",
    ],
];

/// The ordinals of a game's moves, as that writer gives them: the true
/// ordinal ([`pgc_core::ordinal::encode`]), but on every fifth ply the
/// ordinal of the neighbouring move in the sorted list (a list sorted
/// another way), where there is one.
fn foreign_ordinals(san: &str, game: usize) -> Vec<u8> {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for (ply, token) in san.split_whitespace().enumerate() {
        let m = token
            .parse::<San>()
            .unwrap_or_else(|e| panic!("{token}: {e}"))
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("{token}: {e}"));
        let mut ord = pgc_core::ordinal::encode(&pos, m).expect("encode");
        let legal = pos.legal_moves().len();
        if (ply + game) % 5 == 3 && usize::from(ord ^ 1) < legal {
            ord ^= 1;
        }
        out.push(ord);
        pos.play_unchecked(m);
    }
    out
}

/// The file, and the byte range of each game in it.
fn foreign_file() -> (Vec<u8>, Vec<std::ops::Range<u64>>) {
    let mut bytes = Vec::new();
    let mut ranges = Vec::new();
    for g in 0..50 {
        let [event, site, date, white, black, result, san] = GAMES[g % GAMES.len()];
        let start = bytes.len() as u64;
        bytes.push(0x05);
        let round = (g / GAMES.len() + 1).to_string();
        for s in [event, site, date, &round, white, black, result] {
            bytes.push(u8::try_from(s.len()).expect("short"));
            bytes.extend_from_slice(s.as_bytes());
        }
        let ordinals = foreign_ordinals(san, g);
        bytes.push(0x04);
        bytes.extend_from_slice(&u16::try_from(ordinals.len()).expect("short").to_le_bytes());
        bytes.extend_from_slice(&ordinals);
        bytes.push(0x06);
        ranges.push(start..bytes.len() as u64);
    }
    (bytes, ranges)
}

#[test]
fn every_game_of_a_foreign_file_has_a_problem() {
    let (bytes, ranges) = foreign_file();
    // The library: a problem inside every game's bytes, the first at byte 1.
    let report = Verifier::new().verify(&bytes[..]).expect("verify");
    assert!(report.problems_dropped == 0, "{}", report.problems_dropped);
    assert_eq!(report.problems.first().map(|p| p.offset), Some(1));
    for (g, r) in ranges.iter().enumerate() {
        assert!(
            report.problems.iter().any(|p| r.contains(&p.offset)),
            "game {} ({r:?}) has no problem: {:?}",
            g + 1,
            report.problems
        );
    }
    assert!(report.games_with_problems >= 50, "{report:?}");
    assert!(report.junk_bytes > 0);

    // The command: exit 1, the first problem at byte 1 of game 1.
    let o = run(&["verify"], &bytes);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.lines()
            .next()
            .unwrap_or_default()
            .starts_with("-: byte 1, game 1: "),
        "{out}"
    );
    let last = out.lines().last().unwrap_or_default();
    assert!(last.contains(" games with problems, "), "{last}");
    assert!(last.contains(" bytes skipped"), "{last}");

    // --json carries every problem and the per-game summary.
    let o = run(&["verify", "--json"], &bytes);
    assert_eq!(o.status.code(), Some(1));
    let json = stdout(&o);
    let field = |name: &str| -> u64 {
        let key = format!("\"{name}\":");
        let at = json.find(&key).unwrap_or_else(|| panic!("{name}: {json}")) + key.len();
        json[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {json}"))
    };
    assert_eq!(field("games_with_problems"), report.games_with_problems);
    assert_eq!(field("bytes_skipped"), report.junk_bytes);
    let problems = &json[json.find("\"problems\":[").expect("problems")..];
    let problems = &problems[..problems.find("\"game_problems\"").unwrap_or(problems.len())];
    let offsets: Vec<u64> = problems
        .match_indices("\"offset\":")
        .filter_map(|(i, k)| {
            problems[i + k.len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .collect();
    assert_eq!(offsets.len(), report.problems.len(), "{json}");
    assert_eq!(offsets.first(), Some(&1));
    for (g, r) in ranges.iter().enumerate() {
        assert!(
            offsets.iter().any(|o| r.contains(o)),
            "game {} has no problem in the JSON",
            g + 1
        );
    }
    let per_game = json.find("\"game_problems\":[").expect("game_problems");
    assert!(
        json[per_game..].contains("\"offset\":1,\"game\":1,"),
        "{json}"
    );
}
