//! `pgc-peer`: the peer programs of the comparison in `benches/compare.sh`.
//!
//! Both subcommands read PGN with [`pgn_reader::Reader`] and play every
//! mainline move with [`shakmaty`], the fastest validating PGN reader we know
//! of in Rust. They are the yardstick the `pgc` rows are measured against.
//!
//! ```text
//! pgc-peer validate FILE         games and plies of every game, moves checked
//! pgc-peer naive-ordinals FILE   the same, plus the naive move ordinal per ply
//! ```
//!
//! `pgc-peer-uci` (`peer_uci.rs`) does the job of `pgc moves` from PGN; it is
//! a binary of its own so that this yardstick is compiled exactly as before.
//!
//! `FILE` may be plain PGN or zstd-compressed (`*.zst`); `-` reads stdin.
//!
//! The *naive* ordinal of a move is its index in the sorted list of the SAN
//! strings of all legal moves, found by building one `String` per legal move,
//! sorting and binary-searching. It is the obvious way to implement the move
//! ordinals of PGC (PGN standard, section 20) and deliberately allocates per
//! move, so that the benchmark shows what the allocation-free codec in
//! `pgc-core` saves.
//!
//! Exit status: 0 when every game was read and every move was legal, 1 when
//! the input was read but some games had errors (they are counted and
//! reported), 2 on usage or I/O errors. Messages are prefixed with
//! `pgc-peer:`.

use std::{
    io::{self, Write},
    ops::ControlFlow,
    process::ExitCode,
};

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen, san::San};

/// What to compute per ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Only check that every move is legal and play it.
    Validate,
    /// Also compute the naive (string-sorting) move ordinal.
    NaiveOrdinals,
}

/// Counters over all games of one input.
#[derive(Debug, Default)]
struct Stats {
    /// Games read, including games with errors.
    games: u64,
    /// Mainline plies played.
    plies: u64,
    /// Games abandoned because of a bad FEN or an illegal move.
    errors: u64,
    /// Sum of all naive ordinals (wrapping).
    ordinal_sum: u64,
    /// FNV-1a over the ordinal bytes, so that order matters too.
    ordinal_hash: u64,
}

/// FNV-1a 64-bit offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The visitor: plays the mainline of each game, skips variations.
struct Peer {
    /// Which work to do per ply.
    mode: Mode,
    /// Counters.
    stats: Stats,
    /// Reused scratch space for the SAN strings of the legal moves.
    sans: Vec<String>,
    /// Whether the first error message was printed (only one is, per input).
    reported: bool,
}

impl Peer {
    /// A visitor for `mode` with zeroed counters.
    fn new(mode: Mode) -> Peer {
        Peer {
            mode,
            stats: Stats {
                ordinal_hash: FNV_OFFSET,
                ..Stats::default()
            },
            sans: Vec::with_capacity(256),
            reported: false,
        }
    }

    /// Counts a broken game and prints the first such error.
    fn game_error(&mut self, what: std::fmt::Arguments<'_>) -> ControlFlow<()> {
        self.stats.errors += 1;
        if !self.reported {
            self.reported = true;
            eprintln!("pgc-peer: game {}: {what}", self.stats.games);
        }
        ControlFlow::Break(())
    }

    /// The naive ordinal of `m` in `pos`: the index of its SAN string in the
    /// sorted SAN strings of all legal moves.
    fn naive_ordinal(&mut self, pos: &Chess, m: shakmaty::Move) -> usize {
        self.sans.clear();
        self.sans.extend(
            pos.legal_moves()
                .into_iter()
                .map(|legal| San::from_move(pos, legal).to_string()),
        );
        self.sans.sort_unstable();
        let played = San::from_move(pos, m).to_string();
        self.sans
            .binary_search(&played)
            .expect("a legal move is among the legal moves")
    }
}

impl Visitor for Peer {
    type Tags = Option<Chess>;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.stats.games += 1;
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes())
                .map_err(|err| err.to_string())
                .and_then(|fen| {
                    fen.into_position(CastlingMode::Chess960)
                        .map_err(|err| err.to_string())
                });
            match pos {
                Ok(pos) => *tags = Some(pos),
                Err(err) => return self.game_error(format_args!("bad FEN tag: {err}")),
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(tags.unwrap_or_default())
    }

    fn san(&mut self, pos: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        let m = match san_plus.san.to_move(pos) {
            Ok(m) => m,
            Err(err) => {
                return self.game_error(format_args!(
                    "ply {}: {san_plus}: {err}",
                    self.stats.plies + 1
                ));
            }
        };
        if self.mode == Mode::NaiveOrdinals {
            let ordinal = self.naive_ordinal(pos, m);
            self.stats.ordinal_sum = self.stats.ordinal_sum.wrapping_add(ordinal as u64);
            self.stats.ordinal_hash =
                (self.stats.ordinal_hash ^ ordinal as u64).wrapping_mul(FNV_PRIME);
        }
        pos.play_unchecked(m);
        self.stats.plies += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _pos: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, _pos: Self::Movetext) -> Self::Output {}
}

/// Reads every game of `path` in `mode`.
fn run(mode: Mode, path: &str) -> io::Result<Stats> {
    let mut reader = Reader::new(pgc_benches::open(path)?);
    let mut peer = Peer::new(mode);
    reader.visit_all_games(&mut peer)?;
    Ok(peer.stats)
}

/// Prints the one-line summary on stdout.
fn report(mode: Mode, path: &str, stats: &Stats) -> io::Result<()> {
    let mut out = io::stdout().lock();
    write!(
        out,
        "{path}: games {} plies {} errors {}",
        stats.games, stats.plies, stats.errors
    )?;
    if mode == Mode::NaiveOrdinals {
        write!(
            out,
            " ordinal-sum {} ordinal-fnv {:016x}",
            stats.ordinal_sum, stats.ordinal_hash
        )?;
    }
    writeln!(out)?;
    out.flush()
}

/// Usage text for `-h` and usage errors.
const USAGE: &str = "usage: pgc-peer validate FILE\n       pgc-peer naive-ordinals FILE\n\
FILE may be PGN, zstd-compressed PGN (*.zst) or - for stdin.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, path) = match args.as_slice() {
        [cmd, path] if cmd == "validate" => (Mode::Validate, path),
        [cmd, path] if cmd == "naive-ordinals" => (Mode::NaiveOrdinals, path),
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("pgc-peer: bad arguments\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let stats = match run(mode, path) {
        Ok(stats) => stats,
        Err(err) => {
            eprintln!("pgc-peer: {path}: {err}");
            return ExitCode::from(2);
        }
    };
    match report(mode, path, &stats) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("pgc-peer: {err}");
            return ExitCode::from(2);
        }
    }
    if stats.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
