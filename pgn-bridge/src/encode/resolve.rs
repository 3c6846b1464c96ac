//! SAN → move → ordinal, on the position of the line being read, with the
//! positions of the lines a variation interrupts kept on a stack.
//!
//! Per move the work is one legal-move generation: the ordinal table both
//! finds the move from its SAN (canonical SAN matches a key exactly; other
//! spellings go through shakmaty's lenient SAN parser) and gives its
//! ordinal (`pgc_core::ordinal`).

use super::RejectReason;
use pgc_core::ext::engine::{LinePositions, LineTrail};
use pgc_core::internals as ordinal;
use pgc_core::ordinal::variant as vord;
use pgc_core::variant::VariantPosition;
use shakmaty::san::San;
use shakmaty::{Chess, Move, MoveList, Position};

/// The position a line has reached.
#[derive(Debug, Clone)]
struct Line {
    /// The position to play the next move in, and the two before it.
    trail: LineTrail,
    /// Plies played to reach the current position (a variation starts one
    /// ply back).
    ply: u32,
    /// The census's facts of the current position once asked for (its
    /// check suffix is asked before the next move is resolved in it);
    /// cleared whenever the position changes.
    memo: ordinal::CensusMemo,
    /// The position's node in the opening cache ([`ordinal::SanCache`]),
    /// or [`ordinal::NO_SAN_NODE`].
    node: u32,
}

impl Line {
    fn at(pos: VariantPosition, ply: u32) -> Line {
        Line {
            trail: LineTrail::at(pos),
            ply,
            memo: ordinal::CensusMemo::new(),
            node: ordinal::NO_SAN_NODE,
        }
    }

    /// The position to play the next move in (the encoder's lines are never
    /// lost: a move that cannot be played rejects the game).
    #[inline(always)]
    fn pos(&self) -> &VariantPosition {
        self.trail.position()
    }
}

/// A move found for a SAN token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// The legal move.
    pub(crate) mv: Move,
    /// Its ordinal in the position (20.2); 256 or more only in a variant
    /// position with more than 256 legal moves (a wide move).
    pub(crate) ordinal: u16,
    /// The token is the move's canonical SAN (without check suffix).
    pub(crate) canonical: bool,
}

/// The positions of the line being read and of the lines its variations
/// interrupt.
#[derive(Debug, Clone)]
pub(crate) struct Resolver {
    line: Line,
    /// One entry per open variation: the line it interrupts.
    stack: Vec<Line>,
    /// The opening plies of games from the initial position, by token.
    openings: ordinal::SanCache,
    /// The node the move being played leads to (from `resolve_body` to
    /// `play`).
    next_node: u32,
}

impl Default for Resolver {
    fn default() -> Self {
        Resolver::new()
    }
}

impl Resolver {
    /// At the initial position, no variation open.
    pub(crate) fn new() -> Resolver {
        Resolver {
            line: Line::at(VariantPosition::Chess(Chess::default()), 0),
            stack: Vec::new(),
            openings: ordinal::SanCache::new(),
            next_node: ordinal::NO_SAN_NODE,
        }
    }

    /// Starts a game at `start`; `initial`: it is standard chess from the
    /// initial position, whose opening plies the cache remembers.
    pub(crate) fn reset(&mut self, start: VariantPosition, initial: bool) {
        let l = &mut self.line;
        l.trail.restart(start);
        l.ply = 0;
        l.memo.clear();
        l.node = if initial { 0 } else { ordinal::NO_SAN_NODE };
        self.stack.clear();
    }

    /// The position the next move is played in.
    pub(crate) fn position(&self) -> &VariantPosition {
        self.line.pos()
    }

    /// Plies played on the current line.
    pub(crate) fn ply(&self) -> u32 {
        self.line.ply
    }

    /// Variations open.
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The legal move a SAN token names, in the current position. The
    /// token may carry a check suffix (`+`, `#`, not checked here); import
    /// spellings are accepted: `0-0`, `e8Q`, `gxf6ep`, over-disambiguation
    /// (`Nge2`), long algebraic (`g1f3`, `Ng1-f3`).
    ///
    /// # Errors
    /// [`RejectReason::IllegalMove`] when no single legal move fits,
    /// [`RejectReason::NotAMove`] when the token is not SAN at all.
    #[cfg(test)]
    pub(crate) fn resolve(&mut self, token: &[u8]) -> Result<Resolved, RejectReason> {
        let (body, _) = split_suffix(token);
        self.resolve_body(body, token)
    }

    /// [`Resolver::resolve`] for a token already split from its check
    /// suffix: `body` without it, `token` with it (for the reject reason).
    pub(crate) fn resolve_body(
        &mut self,
        body: &[u8],
        token: &[u8],
    ) -> Result<Resolved, RejectReason> {
        let line = &mut self.line;
        self.next_node = ordinal::NO_SAN_NODE;
        let pos = match line.trail.position() {
            VariantPosition::Chess(c) => c,
            other => return resolve_variant(other, body, token),
        };
        if let Some(hit) = self.openings.get(line.node, body) {
            self.next_node = hit.child;
            return Ok(Resolved {
                mv: hit.mv,
                ordinal: hit.ordinal.into(),
                canonical: true,
            });
        }
        if let Some((mv, ordinal)) = ordinal::find_canonical_memo(pos, &mut line.memo, body) {
            self.next_node = self.openings.insert(line.node, line.ply, body, mv, ordinal);
            return Ok(Resolved {
                mv,
                ordinal: ordinal.into(),
                canonical: true,
            });
        }
        let moves = pos.legal_moves();
        let Some((index, canonical)) = find_move(body, &moves, pos) else {
            return Err(not_found(body, token));
        };
        let ordinal = ordinal::rank_of(pos, &moves, index).map_err(RejectReason::Ordinal)?;
        Ok(Resolved {
            mv: moves[index],
            ordinal: ordinal.into(),
            canonical,
        })
    }

    /// The check suffix the current position calls for after the move that
    /// led to it: `#` for mate, `+` for check, else nothing (section
    /// 8.2.3.4).
    pub(crate) fn check_suffix(&mut self) -> &'static [u8] {
        let line = &mut self.line;
        if let Some(s) = self.openings.suffix(line.node) {
            return s;
        }
        let s = match line.trail.position() {
            VariantPosition::Chess(c) => ordinal::check_suffix_memo(c, &mut line.memo),
            other => pgc_core::variant::check_suffix(other),
        };
        self.openings.set_suffix(line.node, s);
        s
    }

    /// Plays `mv` (the move [`Resolver::resolve_body`] found last) on the
    /// current line.
    pub(crate) fn play(&mut self, mv: Move) {
        let line = &mut self.line;
        line.trail.play(mv);
        line.memo.clear();
        line.ply += 1;
        line.node = std::mem::replace(&mut self.next_node, ordinal::NO_SAN_NODE);
    }

    /// Plays a null move on the current line.
    ///
    /// # Errors
    /// [`RejectReason::NullMoveInCheck`]: a null move cannot leave the king
    /// in check.
    pub(crate) fn null_move(&mut self, token: &[u8]) -> Result<(), RejectReason> {
        let after = pgc_core::variant_null_move(self.line.pos()).ok_or_else(|| {
            RejectReason::NullMoveInCheck {
                token: super::reject::quoted(token),
            }
        })?;
        self.advance(after);
        Ok(())
    }

    fn advance(&mut self, after: VariantPosition) {
        let line = &mut self.line;
        line.trail.null_to(after);
        line.memo.clear();
        line.ply += 1;
        line.node = ordinal::NO_SAN_NODE;
    }

    /// The positions an engine note after the line's last move can start
    /// its move lists from (`pgc_core::ext::engine::LinePositions`).
    pub(crate) fn note_positions(&self) -> LinePositions<'_> {
        self.line.trail.positions()
    }

    /// Opens a variation on the last move: the next move is an alternative
    /// to it.
    ///
    /// # Errors
    /// [`RejectReason::VariationsTooDeep`] when `limit` variations are open
    /// already; [`RejectReason::VariationBeforeMove`] when the line has no
    /// move yet. Nothing changes then.
    pub(crate) fn begin_variation(&mut self, limit: u32) -> Result<(), RejectReason> {
        if self.stack.len() >= limit as usize {
            return Err(RejectReason::VariationsTooDeep { limit });
        }
        let Some(prev) = self.line.trail.before().cloned() else {
            return Err(RejectReason::VariationBeforeMove);
        };
        let ply = self.line.ply.saturating_sub(1);
        let interrupted = std::mem::replace(&mut self.line, Line::at(prev, ply));
        self.stack.push(interrupted);
        Ok(())
    }

    /// Closes the innermost variation, back to the line it interrupted;
    /// false when none is open.
    pub(crate) fn end_variation(&mut self) -> bool {
        match self.stack.pop() {
            Some(line) => {
                self.line = line;
                self.line.trail.resume();
                true
            }
            None => false,
        }
    }
}

/// A SAN token split before its check suffix (`+`, `#`, or several).
pub(crate) fn split_suffix(token: &[u8]) -> (&[u8], &[u8]) {
    let end = token
        .iter()
        .rposition(|&b| b != b'+' && b != b'#')
        .map_or(0, |i| i + 1);
    token.split_at(end)
}

/// [`Resolver::resolve_body`] in a variant other than standard chess: the
/// variant's legal moves and SAN (`spec/ordinal.md` section 8).
fn resolve_variant(
    pos: &VariantPosition,
    body: &[u8],
    token: &[u8],
) -> Result<Resolved, RejectReason> {
    let (mv, ordinal, canonical) = match vord::find_in(pos, body) {
        Some((mv, ordinal)) => (mv, ordinal, true),
        None => {
            let moves = pos.legal_moves();
            let Some(mv) = find_move_in(body, &moves, pos) else {
                return Err(not_found(body, token));
            };
            let ordinal = vord::encode_in(pos, mv).map_err(RejectReason::Ordinal)?;
            (mv, ordinal, vord::san_body_in(pos, mv).as_bytes() == body)
        }
    };
    Ok(Resolved {
        mv,
        ordinal,
        canonical,
    })
}

/// Finds the legal move a SAN token names: its index in `moves` and whether
/// the token is the canonical SAN body. Import forms are accepted: `0-0`,
/// `e8Q`, over-disambiguation (`Nge2`), long algebraic (`g1f3`, `g1-f3`).
fn find_move(body: &[u8], moves: &MoveList, pos: &Chess) -> Option<(usize, bool)> {
    let m = find_move_in(body, moves, pos)?;
    let index = moves.iter().position(|&x| x == m)?;
    let canonical = ordinal::san_body(pos, moves, m).as_bytes() == body;
    Some((index, canonical))
}

/// The legal move among `moves` (the legal moves of `pos`) that a SAN token
/// in an import spelling names.
fn find_move_in<P: Position>(body: &[u8], moves: &MoveList, pos: &P) -> Option<Move> {
    let (buf, n) = import_spelling(body);
    let fixed = &buf[..n];
    let m = match San::from_ascii(fixed).map(|san| san.find_move(moves).copied()) {
        Ok(Ok(m)) => m,
        _ => {
            let uci = shakmaty::uci::UciMove::from_ascii(fixed).ok()?;
            uci.to_move(pos).ok()?
        }
    };
    Some(m)
}

/// Why no legal move fits a SAN token: an illegal move when its import
/// spelling is SAN, else not a move at all.
fn not_found(body: &[u8], token: &[u8]) -> RejectReason {
    let (buf, n) = import_spelling(body);
    let token = super::reject::quoted(token);
    match San::from_ascii(&buf[..n]) {
        Ok(_) => RejectReason::IllegalMove { token },
        Err(_) => RejectReason::NotAMove { token },
    }
}

/// A SAN token in an import spelling rewritten as shakmaty's SAN parser
/// reads it (the first `n` bytes of the buffer): zeros of `0-0` as the
/// letter O, no hyphen between the squares of long algebraic, no glued
/// `ep`, `=` before a promotion's piece.
fn import_spelling(body: &[u8]) -> ([u8; 16], usize) {
    let mut buf = [0u8; 16];
    let n = body.len().min(buf.len());
    buf[..n].copy_from_slice(&body[..n]);
    // Indexing below stays inside `buf` ([u8; 16]): `n <= 16`, and the
    // promotion fix-up checks `3 <= n < 16` first.
    if buf[0] == b'0' {
        // `0-0`, `0-0-0`: zeros for the letter O.
        for b in &mut buf[..n] {
            if *b == b'0' {
                *b = b'O';
            }
        }
    }
    let mut n = n;
    if n >= 5 && buf[0] != b'O' {
        // `e2-e4`, `Ng1-f3`: long algebraic with a hyphen between the
        // squares (python-chess reads it too). Castling's hyphens stay.
        if let Some(i) = (2..n - 2).find(|&i| {
            buf[i] == b'-' && matches!(buf[i - 1], b'1'..=b'8') && matches!(buf[i + 1], b'a'..=b'h')
        }) {
            buf.copy_within(i + 1..n, i);
            n -= 1;
        }
    }
    if n > 4 && buf[..n].ends_with(b"ep") && buf[..n].contains(&b'x') {
        // `gxf6ep`: an en passant capture marked with a glued `ep`.
        n -= 2;
    }
    if n >= 3
        && n < buf.len()
        && matches!(buf[n - 1], b'Q' | b'R' | b'B' | b'N')
        && matches!(buf[n - 2], b'1' | b'8')
        && buf[0].is_ascii_lowercase()
    {
        // `e8Q`, `cxd1N`: a promotion written without `=`.
        buf[n] = buf[n - 1];
        buf[n - 1] = b'=';
        n += 1;
    }
    (buf, n)
}
