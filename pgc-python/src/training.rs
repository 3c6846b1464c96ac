//! Training arrays: every main-line position and move of every game as
//! flat arrays (one buffer per field), made on several threads without the
//! GIL and handed to NumPy as bytes (no Python object per move).
//!
//! Per position (the position a main-line move is played from):
//! - `board`: 64 bytes, square a1 = 0 … h8 = 63 (python-chess's numbering);
//!   0 empty, 1–6 White pawn, knight, bishop, rook, queen, king, 7–12 the
//!   same for Black;
//! - `turn`: 0 White to move, 1 Black;
//! - `castling`: bit 0 White king side, 1 White queen side, 2 Black king
//!   side, 3 Black queen side (castling rights);
//! - `ep`: the en passant square when an en passant capture is legal, else
//!   -1;
//! - `legal`: the number of legal moves.
//!
//! Per move: `from_sq`, `to_sq` (64 for a null move; castling as the UCI of
//! the game: `e1g1`, or king takes rook in Chess960), `promotion` (0, or
//! 2–5 knight to queen), `clock` (`[%clk]` in seconds, NaN if none),
//! `eval` (`[%eval]` in centipawns, NaN if none or a mate), `mate` (`#3` is
//! 3, `#-2` is -2, 0 if none).
//!
//! Per game: `offsets` (games + 1 entries: the moves of game `i` are
//! `offsets[i]..offsets[i+1]`).

use crate::error::walk_error;
use crate::threads::thread_count;
use pgc_core::ext::commands::{Eval, TimeKind};
use pgc_core::{BulkEvent as Event, BulkGame, BulkOptions, par_map};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingSide, Color, EnPassantMode, Piece, Position, Role};

#[derive(Default)]
struct Arrays {
    board: Vec<u8>,
    turn: Vec<u8>,
    castling: Vec<u8>,
    ep: Vec<i8>,
    legal: Vec<u16>,
    from_sq: Vec<u8>,
    to_sq: Vec<u8>,
    promotion: Vec<u8>,
    clock: Vec<f32>,
    eval: Vec<f32>,
    mate: Vec<i16>,
}

impl Arrays {
    /// Room for `plies` positions and moves.
    fn with_capacity(plies: usize) -> Arrays {
        Arrays {
            board: Vec::with_capacity(plies * 64),
            turn: Vec::with_capacity(plies),
            castling: Vec::with_capacity(plies),
            ep: Vec::with_capacity(plies),
            legal: Vec::with_capacity(plies),
            from_sq: Vec::with_capacity(plies),
            to_sq: Vec::with_capacity(plies),
            promotion: Vec::with_capacity(plies),
            clock: Vec::with_capacity(plies),
            eval: Vec::with_capacity(plies),
            mate: Vec::with_capacity(plies),
        }
    }

    fn push_move(&mut self, from: u8, to: u8, promotion: u8) {
        self.from_sq.push(from);
        self.to_sq.push(to);
        self.promotion.push(promotion);
        self.clock.push(f32::NAN);
        self.eval.push(f32::NAN);
        self.mate.push(0);
    }
}

/// The arrays of one game's main line: its moves played on one position
/// (no position is cloned per move).
fn game_arrays(g: &BulkGame) -> Arrays {
    let mode = g.castling_mode();
    let mut a = Arrays::with_capacity(g.moves().len());
    let mut pos = g.start().clone();
    let (mut depth, mut ply, mut seen_clock, mut seen_eval) = (0u32, 0usize, false, false);
    for event in g.events() {
        match event {
            Event::BeginVariation => depth += 1,
            Event::EndVariation => depth = depth.saturating_sub(1),
            Event::Move(m) if depth == 0 => {
                push_position(&mut a, &pos);
                match m.to_uci(mode) {
                    UciMove::Normal {
                        from,
                        to,
                        promotion,
                    } => a.push_move(
                        u8::from(from),
                        u8::from(to),
                        promotion.map_or(0, |r| r as u8),
                    ),
                    _ => a.push_move(64, 64, 0),
                }
                pos.play_unchecked(m);
                ply += 1;
                (seen_clock, seen_eval) = (false, false);
            }
            Event::NullMove if depth == 0 => {
                push_position(&mut a, &pos);
                a.push_move(64, 64, 0);
                // The walker accepted the null move: the position has one.
                match pgc_core::variant_null_move(&pos) {
                    Some(p) => pos = p,
                    None => break,
                }
                ply += 1;
                (seen_clock, seen_eval) = (false, false);
            }
            Event::Time(TimeKind::Clk, c) if depth == 0 && ply > 0 && !seen_clock => {
                seen_clock = true;
                if let Some(slot) = a.clock.last_mut() {
                    *slot = c.millis as f32 / 1000.0;
                }
            }
            Event::Eval(e) if depth == 0 && ply > 0 && !seen_eval => {
                seen_eval = true;
                match e {
                    Eval::Centipawns(cp) => {
                        if let Some(slot) = a.eval.last_mut() {
                            *slot = cp as f32;
                        }
                    }
                    Eval::Mate(n) => {
                        if let Some(slot) = a.mate.last_mut() {
                            *slot =
                                i16::try_from(n).unwrap_or(if n > 0 { i16::MAX } else { i16::MIN });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    a
}

fn push_position(a: &mut Arrays, pos: &pgc_core::VariantPosition) {
    // Piece by piece: a few bitboards, no lookup per square.
    let board = pos.board();
    let mut squares = [0u8; 64];
    for (color, base) in [(Color::White, 0u8), (Color::Black, 6)] {
        for role in Role::ALL {
            let code = role as u8 + base;
            for sq in board.by_piece(Piece { color, role }) {
                squares[usize::from(u8::from(sq)) & 63] = code;
            }
        }
    }
    a.board.extend_from_slice(&squares);
    a.turn.push(u8::from(pos.turn() == Color::Black));
    let c = pos.castles();
    let bit = |color, side, b: u8| if c.has(color, side) { b } else { 0 };
    a.castling.push(
        bit(Color::White, CastlingSide::KingSide, 1)
            | bit(Color::White, CastlingSide::QueenSide, 2)
            | bit(Color::Black, CastlingSide::KingSide, 4)
            | bit(Color::Black, CastlingSide::QueenSide, 8),
    );
    a.ep.push(
        pos.ep_square(EnPassantMode::Legal)
            .map_or(-1, |s| u8::from(s) as i8),
    );
    a.legal
        .push(u16::try_from(pos.legal_moves().len()).unwrap_or(u16::MAX));
}

/// The training arrays of PGC bytes, on `threads` threads (0: one per
/// core): a dict of name → (bytes, NumPy dtype string, per-item shape).
#[pyfunction]
#[pyo3(signature = (data, threads = 0))]
pub(crate) fn training_arrays<'py>(
    py: Python<'py>,
    data: &[u8],
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = thread_count(threads);
    let opts = BulkOptions {
        comments: true,
        ..BulkOptions::default()
    };
    let per_game = py
        .detach(|| par_map(data, threads, opts, game_arrays))
        .map_err(|e| walk_error(py, &e))?;
    let mut offsets = Vec::with_capacity(per_game.len() + 1);
    offsets.push(0i64);
    let mut total = 0i64;
    for g in &per_game {
        total += g.from_sq.len() as i64;
        offsets.push(total);
    }
    let g = &per_game;
    let d = PyDict::new(py);
    d.set_item("board", (bytes_u8(py, g, |a| &a.board)?, "u1", 64))?;
    d.set_item("turn", (bytes_u8(py, g, |a| &a.turn)?, "u1", 1))?;
    d.set_item("castling", (bytes_u8(py, g, |a| &a.castling)?, "u1", 1))?;
    d.set_item(
        "ep",
        (bytes_le(py, g, |a| &a.ep, i8::to_le_bytes)?, "i1", 1),
    )?;
    d.set_item(
        "legal",
        (bytes_le(py, g, |a| &a.legal, u16::to_le_bytes)?, "<u2", 1),
    )?;
    d.set_item("from_sq", (bytes_u8(py, g, |a| &a.from_sq)?, "u1", 1))?;
    d.set_item("to_sq", (bytes_u8(py, g, |a| &a.to_sq)?, "u1", 1))?;
    d.set_item("promotion", (bytes_u8(py, g, |a| &a.promotion)?, "u1", 1))?;
    d.set_item(
        "clock",
        (bytes_le(py, g, |a| &a.clock, f32::to_le_bytes)?, "<f4", 1),
    )?;
    d.set_item(
        "eval",
        (bytes_le(py, g, |a| &a.eval, f32::to_le_bytes)?, "<f4", 1),
    )?;
    d.set_item(
        "mate",
        (bytes_le(py, g, |a| &a.mate, i16::to_le_bytes)?, "<i2", 1),
    )?;
    let one = [offsets];
    d.set_item(
        "offsets",
        (bytes_le(py, &one, |o| o, i64::to_le_bytes)?, "<i8", 1),
    )?;
    Ok(d)
}

/// One field of every game, concatenated, written straight into a new
/// `bytes` (one byte a value).
fn bytes_u8<'py, A>(
    py: Python<'py>,
    games: &[A],
    field: impl Fn(&A) -> &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let len = games.iter().map(|g| field(g).len()).sum();
    PyBytes::new_with(py, len, |buf| {
        let mut at = 0;
        for g in games {
            let v = field(g);
            buf[at..at + v.len()].copy_from_slice(v);
            at += v.len();
        }
        Ok(())
    })
}

/// One field of every game, concatenated, written straight into a new
/// `bytes` (values little-endian).
fn bytes_le<'py, A, T: Copy, const N: usize>(
    py: Python<'py>,
    games: &[A],
    field: impl Fn(&A) -> &[T],
    to: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    let len = games.iter().map(|g| field(g).len() * N).sum();
    PyBytes::new_with(py, len, |buf| {
        let mut chunks = buf.chunks_exact_mut(N);
        for g in games {
            for (&x, out) in field(g).iter().zip(&mut chunks) {
                out.copy_from_slice(&to(x));
            }
        }
        Ok(())
    })
}
