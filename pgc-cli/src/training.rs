//! Positions for training: one row per position before each main-line
//! move, with the Elo of both sides, the mover's clock, the eval and the
//! result (`pgc moves --format csv`, `pgc export --positions`).

use pgc_core::BulkEvent as Event;
use pgc_core::BulkGame;
use pgc_core::ext::commands::{Eval, TimeKind};
use pgc_core::{VariantPosition, variant_null_move};
use shakmaty::{CastlingMode, Color, Move, Position};

/// One training row: a position before a main-line move.
pub struct TrainingRow<'a> {
    /// 1-based game number.
    pub game: u64,
    /// 0 for the start position.
    pub ply: u32,
    /// The position.
    pub pos: &'a VariantPosition,
    /// The move played from it (`None`: a null move).
    pub mv: Option<Move>,
    /// How castling is written in UCI.
    pub mode: CastlingMode,
    /// The side to move's Elo, and the other's (whole numbers only).
    pub elo: Option<&'a [u8]>,
    /// See [`TrainingRow::elo`].
    pub opponent_elo: Option<&'a [u8]>,
    /// The mover's clock before the move, in milliseconds.
    pub clock: Option<u64>,
    /// The position's eval (White's view).
    pub eval: Option<Eval>,
    /// The result from the side to move's view: 1, 0.5 or 0.
    pub result: Option<f32>,
}

/// An Elo tag value when it is a whole number.
fn whole(v: Option<&[u8]>) -> Option<&[u8]> {
    v.filter(|v| !v.is_empty() && v.iter().all(u8::is_ascii_digit))
}

/// The training rows of a game: one per position before each main-line
/// move, from ply `skip` on, whose mover had at least `min_clock`
/// milliseconds (when given).
///
/// The clock of a row is the mover's time left before the move: the
/// `[%clk]` of the mover's previous move (Lichess writes the time left
/// after each move, increment included, which is the time the mover has
/// when its next turn begins). The first move of each side has none (the
/// game's start time is not recorded in the movetext). The eval is the
/// `[%eval]` after the move that reached the position: the evaluation of
/// that position (none for the start position).
pub fn training_rows(
    g: &BulkGame,
    skip: u32,
    min_clock: Option<u64>,
    mut emit: impl FnMut(&TrainingRow<'_>),
) {
    let mode = g.castling_mode();
    let mut pos = g.start().clone();
    let mut ply = 0u32;
    // The clock after each side's last move (White, Black).
    let mut clocks: [Option<u64>; 2] = [None, None];
    let mut last_mover: Option<usize> = None;
    let mut eval: Option<Eval> = None;
    let game = g.info().index + 1;
    let result = match g.result() {
        b"1-0" => Some([1.0, 0.0]),
        b"0-1" => Some([0.0, 1.0]),
        b"1/2-1/2" => Some([0.5, 0.5]),
        _ => None,
    };
    let elos = [whole(g.tag(b"WhiteElo")), whole(g.tag(b"BlackElo"))];
    let mut depth = 0u32;
    for ev in g.events() {
        let mv = match ev {
            Event::BeginVariation => {
                depth += 1;
                continue;
            }
            Event::EndVariation => {
                depth = depth.saturating_sub(1);
                continue;
            }
            _ if depth > 0 => continue,
            Event::Move(m) => Some(m),
            Event::NullMove => None,
            Event::Time(TimeKind::Clk, c) => {
                if let Some(side) = last_mover {
                    clocks[side] = Some(c.millis);
                }
                continue;
            }
            Event::Eval(e) => {
                eval = Some(e);
                continue;
            }
            _ => continue,
        };
        let side = usize::from(pos.turn() == Color::Black);
        let clock = clocks[side];
        if ply >= skip && min_clock.is_none_or(|m| clock.is_some_and(|c| c >= m)) {
            emit(&TrainingRow {
                game,
                ply,
                pos: &pos,
                mv,
                mode,
                elo: elos[side],
                opponent_elo: elos[1 - side],
                clock,
                eval,
                result: result.map(|r| r[side]),
            });
        }
        match mv {
            Some(m) => pos.play_unchecked(m),
            None => pos = variant_null_move(&pos).unwrap_or_else(|| pos.clone()),
        }
        // The clock of this move, if it has one, comes next.
        clocks[side] = None;
        last_mover = Some(side);
        eval = None;
        ply += 1;
    }
}
