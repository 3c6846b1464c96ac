//! Property tests of the move-ordinal codec (section 20.2) against the
//! definition: the ordinal of a move is its index among the SAN strings of
//! all legal moves, sorted in ascending ASCII order.
//!
//! The reference is deliberately naive: shakmaty's `San::from_move` for every
//! legal move, as a `String`, sorted by bytes.
//!
//! - (a) every legal move of over 100,000 positions of seeded random games
//!   (biased towards promotions, castling and en passant; some from random
//!   Chess960 set-ups): `encode` gives the naive index, `decode` inverts it,
//!   and the table's SAN text equals shakmaty's;
//! - (b) the check suffix does not change the order: sorting `SanPlus`
//!   strings (with `+`/`#`) gives the same order;
//! - (c) every main-line position of every game of the corpus
//!   (`$PGC_CORPUS`, else `../shared/corpus` beside the workspace).

use arrayvec::ArrayString;
use pgc_core::OrdinalTable;
use pgc_core::internals::{find_canonical_in, select_in};
use pgc_core::ordinal::{decode, encode};
use pgc_core::start_position;
use pgc_tests::{chess960_fen, corpus_dir, corpus_files};
use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::san::San;
use shakmaty::variant::VariantPosition;
use shakmaty::{CastlingSide, Chess, Move, Position, Role};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// The naive reference: `(SAN, move)` for every legal move, sorted by SAN bytes.
fn naive(pos: &Chess) -> Vec<(String, Move)> {
    let mut v: Vec<(String, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (San::from_move(pos, m).to_string(), m))
        .collect();
    v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    v
}

/// Checks the codec on every legal move of `pos` against the reference:
/// the table's entries, and `encode`/`decode` of every move.
fn check_position(pos: &Chess) -> Vec<(String, Move)> {
    let reference = naive(pos);
    let mut table = OrdinalTable::new(pos).expect("at most 256 legal moves");
    assert_eq!(table.len(), reference.len());
    for ((ord, m, text), (i, (san, want))) in
        table.sorted_entries().zip(reference.iter().enumerate())
    {
        assert_eq!(
            (usize::from(ord), text.as_str(), m),
            (i, san.as_str(), *want),
            "position {}",
            fen(pos)
        );
    }
    for (i, (san, m)) in reference.iter().enumerate() {
        let ord = encode(pos, *m).expect("legal move");
        assert_eq!(usize::from(ord), i, "{san} in {}", fen(pos));
        assert_eq!(
            find_canonical_in(pos, san.as_bytes()),
            Some((*m, ord)),
            "{san} in {}",
            fen(pos)
        );
        assert_eq!(
            decode(pos, ord).expect("in range"),
            *m,
            "{san} in {}",
            fen(pos)
        );
        let plus = SanPlus::from_move(pos.clone(), *m).to_string();
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let suffix = pgc_core::variant::check_suffix(&VariantPosition::Chess(after));
        assert_eq!(
            plus.as_bytes(),
            [san.as_bytes(), suffix].concat(),
            "suffix of {san} in {}",
            fen(pos)
        );
    }
    for other in near_spellings(&reference) {
        assert!(
            reference.iter().any(|(s, _)| *s == other)
                || find_canonical_in(pos, other.as_bytes()).is_none(),
            "{other} is no legal move's SAN in {}",
            fen(pos)
        );
    }
    reference
}

/// Spellings one edit away from the legal moves' SAN: the capture mark
/// dropped or added, the first disambiguation character dropped, an origin
/// file or rank added, the target moved along its file or rank.
fn near_spellings(reference: &[(String, Move)]) -> Vec<String> {
    let mut out = Vec::new();
    for (san, m) in reference {
        let b = san.as_bytes();
        if let Some(i) = san.find('x') {
            out.push(format!("{}{}", &san[..i], &san[i + 1..]));
        } else if b.len() >= 3 && b[0].is_ascii_uppercase() && b[0] != b'O' {
            out.push(format!("{}x{}", &san[..b.len() - 2], &san[b.len() - 2..]));
        } else if b.len() == 2 {
            for f in [b[0].wrapping_sub(1), b[0] + 1] {
                out.push(format!("{}x{}", f as char, san));
            }
        }
        if b.len() >= 4 && b[0].is_ascii_uppercase() && b[1] != b'x' {
            out.push(format!("{}{}", &san[..1], &san[2..]));
        }
        if b[0].is_ascii_uppercase() && b[0] != b'O' {
            let from = m.from().expect("a piece move has an origin");
            out.push(format!("{}{}{}", &san[..1], from.file().char(), &san[1..]));
            out.push(format!("{}{}{}", &san[..1], from.rank().char(), &san[1..]));
        }
        let (head, to) = san.split_at(san.len().saturating_sub(2));
        if let [f, r] = *to.as_bytes() {
            for (f2, r2) in [
                (f, r + 1),
                (f, r.wrapping_sub(1)),
                (f + 1, r),
                (f.wrapping_sub(1), r),
            ] {
                out.push(format!("{head}{}{}", f2 as char, r2 as char));
            }
        }
    }
    out
}

/// The same check without building the naive list, for the millions of
/// corpus positions: each entry's SAN equals shakmaty's (formatted on the
/// stack) and the entries are strictly ascending by bytes. The table holds
/// exactly the legal moves, so its order *is* the naive sort.
fn check_position_fast(pos: &Chess, played: Move) {
    let mut table = OrdinalTable::new(pos).expect("at most 256 legal moves");
    let mut prev = ArrayString::<16>::new();
    let want = table.ordinal_of(played).expect("the played move is legal");
    for (ord, m, text) in table.sorted_entries() {
        // The census-based decoder lists one class only; it must pick the
        // same move and SAN as the full sorted table, for every ordinal.
        assert_eq!(
            select_in(pos, ord).expect("in range"),
            (m, text),
            "ordinal {ord} in {}",
            fen(pos)
        );
        let mut san = ArrayString::<16>::new();
        write!(san, "{}", San::from_move(pos, m)).expect("SAN fits in 16 bytes");
        assert_eq!(text.as_str(), san.as_str(), "in {}", fen(pos));
        assert!(
            prev.as_bytes() < san.as_bytes(),
            "{prev} !< {san} in {}",
            fen(pos)
        );
        prev = san;
    }
    let ord = encode(pos, played).expect("legal move");
    assert_eq!(ord, want, "encode in {}", fen(pos));
    assert_eq!(
        decode(pos, ord).expect("in range"),
        played,
        "in {}",
        fen(pos)
    );
}

/// (b): sorting SAN with its check suffix gives the same order of moves.
fn check_suffix_order(pos: &Chess, reference: &[(String, Move)]) -> bool {
    let mut plus: Vec<(String, Move)> = reference
        .iter()
        .map(|&(_, m)| (SanPlus::from_move(pos.clone(), m).to_string(), m))
        .collect();
    plus.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let with: Vec<Move> = plus.iter().map(|p| p.1).collect();
    let without: Vec<Move> = reference.iter().map(|p| p.1).collect();
    assert_eq!(with, without, "suffixes reorder moves in {}", fen(pos));
    plus.iter()
        .any(|p| p.0.ends_with('+') || p.0.ends_with('#'))
}

fn fen(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// What the random positions exercised.
#[derive(Debug, Default)]
struct Coverage {
    positions: u64,
    moves: u64,
    games: u64,
    promotion: u64,
    castle_king: u64,
    castle_queen: u64,
    en_passant: u64,
    in_check: u64,
    suffix_seen: u64,
}

impl Coverage {
    fn count(&mut self, pos: &Chess, moves: &[Move]) {
        self.positions += 1;
        self.moves += moves.len() as u64;
        let any = |f: &dyn Fn(&Move) -> bool| u64::from(moves.iter().any(f));
        self.promotion += any(&|m| m.is_promotion());
        self.en_passant += any(&|m| m.is_en_passant());
        self.castle_king += any(&|m| m.castling_side() == Some(CastlingSide::KingSide));
        self.castle_queen += any(&|m| m.castling_side() == Some(CastlingSide::QueenSide));
        self.in_check += u64::from(pos.is_check());
    }
}

/// Picks a move, biased towards the rare kinds so that they are tested.
fn pick(rng: &mut StdRng, moves: &[Move]) -> Move {
    // Promotions and en passant are taken when possible; castling rarely,
    // so that positions with castling rights last.
    let special: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| m.is_promotion() || m.is_en_passant())
        .collect();
    if !special.is_empty() && rng.gen_bool(0.6) {
        return special[rng.gen_range(0..special.len())];
    }
    let castles: Vec<Move> = moves.iter().copied().filter(|m| m.is_castle()).collect();
    if !castles.is_empty() && rng.gen_bool(0.05) {
        return castles[rng.gen_range(0..castles.len())];
    }
    // Pawn moves bring promotions and en passant chances; captures shorten
    // games less than uniform play would suggest, so favour pawns.
    let pawns: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| m.role() == Role::Pawn)
        .collect();
    if !pawns.is_empty() && rng.gen_bool(0.35) {
        return pawns[rng.gen_range(0..pawns.len())];
    }
    moves[rng.gen_range(0..moves.len())]
}

#[test]
fn random_games_match_the_naive_sort() {
    const POSITIONS: u64 = 100_000;
    let mut rng = StdRng::seed_from_u64(0x5047_4320_1994);
    let mut cov = Coverage::default();
    while cov.positions < POSITIONS {
        cov.games += 1;
        let mut pos = if cov.games % 8 == 0 {
            let fen = chess960_fen(|n| rng.gen_range(0..n));
            start_position(Some(fen.as_bytes())).expect("a legal Chess960 set-up")
        } else {
            Chess::default()
        };
        for _ in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            cov.count(&pos, &moves);
            let reference = check_position(&pos);
            // (b) on every position.
            if check_suffix_order(&pos, &reference) {
                cov.suffix_seen += 1;
            }
            let m = pick(&mut rng, &moves);
            pos.play_unchecked(m);
        }
    }
    println!("random games: {cov:?}");
    assert!(cov.positions >= POSITIONS);
    for (what, n) in [
        ("promotion", cov.promotion),
        ("kingside castling", cov.castle_king),
        ("queenside castling", cov.castle_queen),
        ("en passant", cov.en_passant),
        ("check", cov.in_check),
        ("check suffix", cov.suffix_seen),
    ] {
        assert!(n >= 200, "only {n} positions with {what}");
    }
}

/// Plays the main line of each standard or Chess960 game, checking every
/// position before a move.
#[derive(Default)]
struct CorpusCheck {
    games: u64,
    skipped: u64,
    positions: u64,
}

struct Tags {
    fen: Option<Vec<u8>>,
    playable: bool,
}

impl Visitor for CorpusCheck {
    type Tags = Tags;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Tags> {
        ControlFlow::Continue(Tags {
            fen: None,
            playable: true,
        })
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        match name {
            b"FEN" => tags.fen = Some(value.decode().into_owned()),
            b"Variant" => {
                let v = value.decode().to_ascii_lowercase();
                tags.playable = matches!(
                    &v[..],
                    b"standard"
                        | b"chess960"
                        | b"chess 960"
                        | b"fischerandom"
                        | b"from position"
                        | b""
                );
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<(), Chess> {
        if !tags.playable {
            self.skipped += 1;
            return ControlFlow::Break(());
        }
        // Chess960 castling rights are read in Chess960 mode, standard ones
        // too (start_position accepts both).
        match start_position(tags.fen.as_deref()) {
            Ok(pos) => {
                self.games += 1;
                ControlFlow::Continue(pos)
            }
            Err(_) => {
                self.skipped += 1;
                ControlFlow::Break(())
            }
        }
    }

    fn begin_variation(&mut self, _pos: &mut Chess) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn san(&mut self, pos: &mut Chess, san_plus: SanPlus) -> ControlFlow<()> {
        let Ok(m) = san_plus.san.to_move(pos) else {
            // A broken game: the positions so far were checked; stop here.
            return ControlFlow::Break(());
        };
        check_position_fast(pos, m);
        self.positions += 1;
        pos.play_unchecked(m);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _pos: Chess) {}
}

fn open(path: &Path) -> io::Result<Box<dyn Read>> {
    let file = File::open(path)?;
    if path.extension().is_some_and(|e| e == "zst") {
        Ok(Box::new(zstd::stream::read::Decoder::new(file)?))
    } else {
        Ok(Box::new(file))
    }
}

fn check_files(files: &[PathBuf]) -> CorpusCheck {
    let mut check = CorpusCheck::default();
    for path in files {
        let input = open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = Reader::new(input);
        while reader
            .read_game(&mut check)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .is_some()
        {}
    }
    check
}

#[test]
fn corpus_positions_match_the_naive_sort() {
    let Some(dir) = corpus_dir() else { return };
    let files: Vec<PathBuf> = corpus_files(&dir)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".pgn") || name.ends_with(".pgn.zst")
        })
        .collect();
    // Two halves on two threads: the corpus holds millions of positions.
    let (a, b) = files.split_at(files.len() / 2);
    let (x, y) = std::thread::scope(|s| {
        let h = s.spawn(|| check_files(b));
        let x = check_files(a);
        (x, h.join().expect("corpus thread"))
    });
    let (games, skipped, positions) = (
        x.games + y.games,
        x.skipped + y.skipped,
        x.positions + y.positions,
    );
    println!(
        "corpus {}: {} files, {games} games, {skipped} skipped, {positions} positions checked",
        dir.display(),
        files.len()
    );
    assert!(positions > 0, "no position checked in {}", dir.display());
}
