//! Move lists of engine notes: principal variations as move ordinals.

use super::limits::MAX_MOVES;
use super::list_memo::ListMemo;
use crate::ext::error::{Found, PayloadError};
use crate::ordinal::OrdinalError;
use crate::ordinal::memo::{CensusMemo, check_suffix_memo, find_canonical_memo};
use crate::trail::LinePositions;
use crate::variant::VariantPosition;
use shakmaty::Move;
use shakmaty::{Chess, Position};

/// Where a move list starts (the low two bits of its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MovesFrom {
    /// The position after the last move (a predicted reply).
    After = 0,
    /// The position before the last move (a principal variation that
    /// begins with the move played).
    Before = 1,
    /// The position before the move before the last (the move the engine
    /// expected its opponent to play).
    BeforePrevious = 2,
}

impl MovesFrom {
    pub(super) const ALL: [MovesFrom; 3] = [
        MovesFrom::Before,
        MovesFrom::BeforePrevious,
        MovesFrom::After,
    ];

    /// The position of `line` a list of this start replays from.
    pub fn position<'a>(self, line: &LinePositions<'a>) -> Option<&'a VariantPosition> {
        match self {
            MovesFrom::After => line.after,
            MovesFrom::Before => line.before,
            MovesFrom::BeforePrevious => line.before_previous,
        }
    }

    pub(super) const fn from_code(c: u64) -> Option<MovesFrom> {
        match c {
            0 => Some(MovesFrom::After),
            1 => Some(MovesFrom::Before),
            2 => Some(MovesFrom::BeforePrevious),
            _ => None,
        }
    }
}

/// The ordinals of the moves of `text` (SAN moves separated by single
/// spaces, each in its canonical spelling with the check suffix it
/// should have) played from `pos`, appended to `out`; false (with `out`
/// as it was) when a move is not legal there, or not spelled exactly as
/// [`render_moves`] writes it. Standard chess and Chess960 only.
pub fn encode_moves(pos: &VariantPosition, text: &[u8], out: &mut Vec<u8>) -> bool {
    encode_list(pos, text, out, &ListMemo::default(), None)
}

/// [`encode_moves`], taking the moves `text` shares with the list kept in
/// `earlier` from there, and keeping `text` in `keep` when it has three
/// moves or more (a shorter list leaves `keep` as it was).
pub(super) fn encode_list(
    pos: &VariantPosition,
    text: &[u8],
    out: &mut Vec<u8>,
    earlier: &ListMemo,
    keep: Option<&mut ListMemo>,
) -> bool {
    let VariantPosition::Chess(c) = pos else {
        return false;
    };
    if text.is_empty() {
        return true;
    }
    // Where the third move starts, looked for only when the list is kept.
    let third = keep
        .as_ref()
        .and_then(|_| memchr::memchr_iter(b' ', text).nth(1))
        .map(|space| space + 1);
    let mut keep = keep.filter(|_| third.is_some());
    if let Some(k) = keep.as_deref_mut() {
        k.forget();
    }
    // Move `i`, played in `p`, kept from the third move on.
    let note = |keep: &mut Option<&mut ListMemo>, i: usize, p: &Chess, m: Move, ordinal: u8| {
        if let Some(k) = keep.as_deref_mut()
            && i >= 2
        {
            if i == 2 {
                k.start = Some(p.clone());
            }
            k.moves.push(m);
            k.ordinals.push(ordinal);
        }
    };
    let mark = out.len();
    let mut p: Chess = c.clone();
    let (shared, skip) = earlier.shared(c, text);
    for (i, (&m, &ordinal)) in earlier.moves[..shared]
        .iter()
        .zip(&earlier.ordinals[..shared])
        .enumerate()
    {
        note(&mut keep, i, &p, m, ordinal);
        p.play_unchecked(m);
        out.push(ordinal);
    }
    // The census facts of the position after a move, found for its check
    // suffix, serve to read the next move.
    let mut memo = CensusMemo::new();
    let rest = (skip < text.len()).then(|| text[skip..].split(|&b| b == b' '));
    for (i, token) in rest.into_iter().flatten().enumerate() {
        let i = shared + i;
        let (body, suffix) = match token {
            [b @ .., b'#'] | [b @ .., b'+'] => (b, &token[b.len()..]),
            _ => (token, &token[token.len()..]),
        };
        // Only SAN's letters: the census compares keys padded with NULs.
        let san_bytes = body.iter().all(|b| {
            matches!(b, b'a'..=b'h' | b'1'..=b'8' | b'K' | b'Q' | b'R' | b'B' | b'N' | b'O' | b'x' | b'=' | b'-')
        });
        let found = (i < MAX_MOVES && san_bytes && body.len() <= 7)
            .then(|| find_canonical_memo(&p, &mut memo, body))
            .flatten();
        let Some((m, ordinal)) = found else {
            return refuse(out, mark, keep);
        };
        note(&mut keep, i, &p, m, ordinal);
        p.play_unchecked(m);
        memo.clear();
        if suffix != check_suffix_memo(&p, &mut memo) {
            return refuse(out, mark, keep);
        }
        out.push(ordinal);
    }
    if let (Some(k), Some(third)) = (keep, third) {
        k.text.extend_from_slice(&text[third..]);
    }
    true
}

/// A list that does not replay: `out` as it was, nothing kept.
fn refuse(out: &mut Vec<u8>, mark: usize, keep: Option<&mut ListMemo>) -> bool {
    out.truncate(mark);
    if let Some(k) = keep {
        k.forget();
    }
    false
}

/// Writes the moves of `ordinals` played from `pos` in SAN with check
/// suffixes, separated by single spaces.
///
/// # Errors
/// The first ordinal that names no legal move, with its index; a position
/// of another variant than standard chess and Chess960.
pub fn render_moves(
    pos: &VariantPosition,
    ordinals: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    replay_moves(pos, ordinals, |i, san, _, after| {
        write_move(out, i, san, after)
    })
}

/// Move `i` of a move list in SAN, after a space unless it is the first.
#[inline]
pub(super) fn write_move(
    out: &mut Vec<u8>,
    i: usize,
    san: &crate::ordinal::MoveText,
    after: &Chess,
) {
    if i > 0 {
        out.push(b' ');
    }
    out.extend_from_slice(san.as_bytes());
    out.extend_from_slice(crate::ordinal::check_suffix(after));
}

/// Plays the moves of `ordinals` from `pos`, calling `f` with each
/// move's index, SAN body, the move and the position after it.
///
/// # Errors
/// As [`render_moves`].
pub fn replay_moves(
    pos: &VariantPosition,
    ordinals: &[u8],
    mut f: impl FnMut(usize, &crate::ordinal::MoveText, shakmaty::Move, &Chess),
) -> Result<(), RenderError> {
    let VariantPosition::Chess(c) = pos else {
        return Err(RenderError::Variant);
    };
    let mut p: Chess = c.clone();
    for (i, &o) in ordinals.iter().enumerate() {
        let (m, san) = crate::ordinal::select_in(&p, o)
            .map_err(|error| RenderError::Move { index: i, error })?;
        p.play_unchecked(m);
        f(i, &san, m, &p);
    }
    Ok(())
}

/// Why a note could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// The line has no such position (a variation just began, a null move).
    NoPosition(MovesFrom),
    /// A move list in a position of another variant than standard chess
    /// and Chess960 (notes type moves in those only).
    Variant,
    /// An ordinal of a move list names no legal move.
    Move {
        /// Its index in the list.
        index: usize,
        /// What is wrong with it.
        error: OrdinalError,
    },
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::NoPosition(from) => write!(
                f,
                "an engine note's move list starts {} the last move, which the line does not have here",
                match from {
                    MovesFrom::After => "after",
                    MovesFrom::Before => "before",
                    MovesFrom::BeforePrevious => "before the move before",
                }
            ),
            RenderError::Variant => {
                f.write_str("an engine note's move list starts in a variant position other than chess and Chess960")
            }
            RenderError::Move { index, error } => {
                write!(f, "move {} of an engine note's move list: {error}", index + 1)
            }
        }
    }
}

impl std::error::Error for RenderError {}

impl RenderError {
    /// The error as readers report a refused payload (positioned at the
    /// record the note follows).
    pub fn to_payload_error(&self) -> PayloadError {
        let (expected, found) = match self {
            RenderError::NoPosition(_) => (
                "a move list starting from a position the line has there (spec/extensions-engine.md)",
                Found::Value(0),
            ),
            RenderError::Variant => ("a move list in standard chess or Chess960", Found::Value(0)),
            RenderError::Move { index, .. } => (
                "a move list whose ordinals name legal moves",
                Found::Value(*index as u64 + 1),
            ),
        };
        PayloadError {
            at: 0,
            expected,
            found,
        }
    }
}
