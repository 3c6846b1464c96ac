//! The move ordinal in every Lichess variant, on seeded random games: every
//! legal move of every position reached is encoded to its ordinal and decoded
//! back, and the ordinal is the move's index among the SAN strings of all
//! legal moves sorted in ASCII order, computed here from shakmaty's SAN.

use pgc_core::ordinal::variant::{decode_in, encode_in, find_in, select_in};
use pgc_core::variant::{Variant, VariantPosition};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use shakmaty::san::San;
use shakmaty::{Move, Position};

/// Positions checked per variant.
const POSITIONS: usize = 10_000;

/// The legal moves of `pos` with their SAN bodies, sorted by SAN bytes.
fn sorted_san(pos: &VariantPosition) -> Vec<(String, Move)> {
    let mut v: Vec<(String, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (San::from_move(pos, m).to_string(), m))
        .collect();
    v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    v
}

/// Checks every legal move of `pos`; returns how many there were.
fn check_position(pos: &VariantPosition) -> usize {
    let sorted = sorted_san(pos);
    for w in sorted.windows(2) {
        assert_ne!(w[0].0, w[1].0, "two moves with one SAN in {pos:?}");
    }
    for (i, (san, m)) in sorted.iter().enumerate() {
        let i = u16::try_from(i).expect("fewer than 65536 moves");
        assert_eq!(encode_in(pos, *m).unwrap(), i, "{san} in {pos:?}");
        let (back, text) = select_in(pos, i).unwrap();
        assert_eq!((back, text.as_str()), (*m, san.as_str()), "{pos:?}");
        assert_eq!(find_in(pos, san.as_bytes()), Some((*m, i)), "{pos:?}");
        if let Ok(byte) = u8::try_from(i) {
            assert_eq!(decode_in(pos, byte).unwrap(), *m);
        }
    }
    // One past the last ordinal is out of range.
    if let Ok(past) = u8::try_from(sorted.len()) {
        assert!(decode_in(pos, past).is_err());
    }
    sorted.len()
}

fn random_games(variant: Variant, seed: u64) -> (usize, usize, usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut positions, mut moves, mut most) = (0, 0, 0);
    while positions < POSITIONS {
        let mut pos = VariantPosition::new(variant);
        for _ in 0..rng.gen_range(20..300) {
            let n = check_position(&pos);
            positions += 1;
            moves += n;
            most = most.max(n);
            let legal = pos.legal_moves();
            let Some(&m) = legal.choose(&mut rng) else {
                break;
            };
            pos.play_unchecked(m);
            if pos.is_game_over() {
                positions += 1;
                moves += check_position(&pos);
                break;
            }
        }
    }
    (positions, moves, most)
}

#[test]
fn every_legal_move_of_random_games_in_every_lichess_variant() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let (positions, moves, most) = random_games(variant, 0x5eed_0000 + i as u64);
        assert!(positions >= POSITIONS);
        eprintln!("{variant}: {positions} positions, {moves} moves, at most {most} legal");
    }
}

#[test]
fn a_crazyhouse_position_with_over_256_legal_moves() {
    // One piece of each kind in White's pocket: four to drop on 62 empty
    // squares, the pawn on 48, and three king moves.
    let fen = "k7/8/8/8/8/8/8/K7[QRBNP] w - - 0 1";
    let pos = pgc_core::variant_start_position(Variant::Crazyhouse, Some(fen.as_bytes())).unwrap();
    let n = check_position(&pos);
    assert_eq!(n, 4 * 62 + 48 + 3);
}
