//! Engine notes (kind 0x14, `spec/extensions-engine.md`): the comments
//! that chess engines and their match runners write after every move
//! (TCEC's `{d=40, mt=142203, …, pv=c4 c6 …}`, cutechess-cli's
//! `{+0.52/23 2.1s}`), kept as templates of literal text with typed
//! slots: numbers as integers with the format they were written in, and
//! move lists as ordinals replayed from a position of the line.
//!
//! A note is a sequence of [`NotePart`]s: literal bytes, numbers and move
//! lists. [`GameNotes`] collects a game's notes into one record (templates
//! shared by the notes that have the same literals and formats, values in
//! streams); [`GameNotesReader`] reads and checks it and hands the notes
//! out anchor by anchor, as the commands record does
//! ([`super::commands::Anchors`]). [`render_note`] writes a note as text,
//! replaying its move lists from the [`LinePositions`] of the move it
//! follows.
//!
//! ```
//! use pgc_core::ext::engine::*;
//! use pgc_core::VariantPosition;
//!
//! let start = VariantPosition::default();
//! let line = LinePositions { before: Some(&start), ..LinePositions::default() };
//! let mut note = EngineNote::new();
//! note.push_literal(b"d=");
//! note.push_number(23, NumberFormat::INTEGER);
//! note.push_literal(b", pv=");
//! assert!(note.push_moves_text(b"e4 e5 Nf3", &line));
//! let mut text = Vec::new();
//! render_note(&note, &line, &mut text).unwrap();
//! assert_eq!(text, b"d=23, pv=e4 e5 Nf3");
//!
//! let mut game = GameNotes::new();
//! assert!(game.push(0, &note));
//! let mut payload = Vec::new();
//! game.to_payload(&mut payload);
//! let mut reader = GameNotesReader::from_payload(&payload).unwrap();
//! let mut back = EngineNote::new();
//! assert!(reader.note_at(0, &mut back));
//! assert_eq!(back, note);
//! ```

use super::cursor::{Bytes, unzigzag, zigzag};
use super::error::{Found, PayloadError};
use super::placement::Placement;
use crate::item::put_varint;
use crate::ordinal::OrdinalError;
use crate::ordinal::memo::{CensusMemo, check_suffix_memo, find_canonical_memo};
pub use crate::trail::{LinePositions, LineTrail};
use crate::variant::VariantPosition;
use list_memo::ListMemo;
use shakmaty::{Chess, Move, Position};
use std::ops::{ControlFlow, Range};

/// Most templates one record holds.
pub const MAX_TEMPLATES: usize = 255;
/// Most streams one record holds.
pub const MAX_STREAMS: usize = 255;
/// Largest magnitude of a number (18 decimal digits).
pub const MAX_NUMBER: i64 = 999_999_999_999_999_999;
/// Most moves of one move list.
pub const MAX_MOVES: usize = 1024;
/// The move lists of a record, shared prefixes copied, hold at most this
/// many times the payload's bytes: a reader never allocates more than a
/// small multiple of what it was given.
pub const MAX_EXPANSION: usize = 16;

// ---------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------

/// When a number is written with a `+`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sign {
    /// Only negative numbers carry a sign (`-9`, `40`).
    Minus = 0,
    /// `+` before numbers above zero (`+0.52`, `0.00`, `-1.25`).
    Positive = 1,
    /// `+` before zero and above (`+0`, `+1`, `-1`).
    NonNegative = 2,
}

/// How a number is spelled: decimals, when a `+` is written, and the
/// zero-padded width of the integer part. One byte: bits 0–2 decimals
/// (0–7), bits 3–4 [`Sign`], bits 5–7 width − 1 (1–8 digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NumberFormat(u8);

impl NumberFormat {
    /// An integer with no `+` and no padding (`40`, `-1000`).
    pub const INTEGER: NumberFormat = NumberFormat(0);

    /// A format, if the parts are in range (decimals ≤ 7, width 1–8).
    pub const fn new(decimals: u8, sign: Sign, width: u8) -> Option<NumberFormat> {
        if decimals > 7 || width == 0 || width > 8 {
            return None;
        }
        Some(NumberFormat(
            decimals | (sign as u8) << 3 | (width - 1) << 5,
        ))
    }

    /// From its byte, if valid (the sign field is not 3).
    pub const fn from_byte(b: u8) -> Option<NumberFormat> {
        if (b >> 3) & 3 == 3 {
            None
        } else {
            Some(NumberFormat(b))
        }
    }

    /// Its byte.
    pub const fn to_byte(self) -> u8 {
        self.0
    }

    /// Digits after the decimal point: the value is in units of
    /// 10^-decimals.
    pub const fn decimals(self) -> u8 {
        self.0 & 7
    }

    /// When a `+` is written.
    pub const fn sign(self) -> Sign {
        match (self.0 >> 3) & 3 {
            1 => Sign::Positive,
            2 => Sign::NonNegative,
            _ => Sign::Minus,
        }
    }

    /// Integer digits, zero-padded (`00:02:56` has 2).
    pub const fn width(self) -> u8 {
        (self.0 >> 5) + 1
    }

    /// Writes `v` (in units of 10^-decimals) in this format.
    pub fn render(self, v: i64, out: &mut Vec<u8>) {
        let mut buf = Spelling::default();
        self.spell(v, &mut buf);
        out.extend_from_slice(buf.bytes());
    }

    /// Spells `v` into a buffer on the stack (at most 1 + 20 + 1 + 7
    /// bytes).
    fn spell(self, v: i64, out: &mut Spelling) {
        match self.sign() {
            _ if v < 0 => out.push(b'-'),
            Sign::Positive if v > 0 => out.push(b'+'),
            Sign::NonNegative => out.push(b'+'),
            _ => {}
        }
        let m = v.unsigned_abs();
        let scale = 10u64.pow(u32::from(self.decimals()));
        out.padded(m / scale, usize::from(self.width()));
        if self.decimals() > 0 {
            out.push(b'.');
            out.padded(m % scale, usize::from(self.decimals()));
        }
    }
}

/// A number's spelling, on the stack.
#[derive(Debug, Clone, Copy)]
struct Spelling {
    buf: [u8; 40],
    len: usize,
}

impl Default for Spelling {
    fn default() -> Self {
        Spelling {
            buf: [0; 40],
            len: 0,
        }
    }
}

impl Spelling {
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `v` in decimal, zero-padded to `width` digits.
    fn padded(&mut self, mut v: u64, width: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for _ in (digits.len() - i)..width {
            self.push(b'0');
        }
        for &d in &digits[i..] {
            self.push(d);
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The number at the start of `s` (`[+-]digits[.digits]`, at most 18
/// digits, a dot only between digits): its value, the format that writes
/// it back exactly, and its length; `None` when `s` does not start with
/// one, or when no format gives its spelling back (`-0`, `0012.5` wider
/// than 8 digits).
pub fn parse_number(s: &[u8]) -> Option<(i64, NumberFormat, usize)> {
    let (neg, plus, mut i) = match s.first()? {
        b'-' => (true, false, 1),
        b'+' => (false, true, 1),
        _ => (false, false, 0),
    };
    let int_start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = &s[int_start..i];
    if int_digits.is_empty() {
        return None;
    }
    let mut frac: &[u8] = &[];
    if s.get(i) == Some(&b'.') && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
        let f0 = i + 1;
        i = f0;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac = &s[f0..i];
    }
    if int_digits.len() + frac.len() > 18 || frac.len() > 7 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in int_digits.iter().chain(frac) {
        v = v * 10 + i64::from(d - b'0');
    }
    if neg {
        v = -v;
    }
    let width = if int_digits.len() > 1 && int_digits[0] == b'0' {
        u8::try_from(int_digits.len()).ok()?
    } else {
        1
    };
    let sign = match (plus, v) {
        (true, 0) => Sign::NonNegative,
        (true, _) => Sign::Positive,
        _ => Sign::Minus,
    };
    let f = NumberFormat::new(frac.len() as u8, sign, width)?;
    // The format writes the digits as read (the width is the padded
    // integer part's, the decimals the fraction's) and the sign as read,
    // except for a minus before zero (`-0`, `-0.00`), which no format
    // writes.
    let exact = !(neg && v == 0);
    debug_assert_eq!(exact, f.spells(v, &s[..i]));
    exact.then_some((v, f, i))
}

impl NumberFormat {
    /// Whether this format writes `v` as exactly `text`.
    pub fn spells(self, v: i64, text: &[u8]) -> bool {
        let mut buf = Spelling::default();
        self.spell(v, &mut buf);
        buf.bytes() == text
    }

    /// Whether this format and `other` write `v` alike (as
    /// `self.spells(v, t) == other.spells(v, t)` for every text `t`,
    /// without writing it).
    pub fn spells_alike(self, other: NumberFormat, v: i64) -> bool {
        if self == other {
            return true;
        }
        let sign = |f: NumberFormat| match f.sign() {
            _ if v < 0 => b'-',
            Sign::Positive if v > 0 => b'+',
            Sign::NonNegative => b'+',
            _ => 0,
        };
        // Digits of the integer part, padded to the width.
        let digits = |f: NumberFormat| {
            let int = v.unsigned_abs() / 10u64.pow(u32::from(f.decimals()));
            (int.checked_ilog10().unwrap_or(0) + 1).max(u32::from(f.width()))
        };
        self.decimals() == other.decimals()
            && sign(self) == sign(other)
            && digits(self) == digits(other)
    }
}

// ---------------------------------------------------------------------------
// Move lists
// ---------------------------------------------------------------------------

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
    const ALL: [MovesFrom; 3] = [
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

    const fn from_code(c: u64) -> Option<MovesFrom> {
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
fn encode_list(
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
fn write_move(out: &mut Vec<u8>, i: usize, san: &crate::ordinal::MoveText, after: &Chess) {
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

// ---------------------------------------------------------------------------
// Notes
// ---------------------------------------------------------------------------

/// A part of a note, as [`EngineNote::parts`] hands it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotePart<'a> {
    /// Bytes written as they are.
    Literal(&'a [u8]),
    /// A number in units of 10^-decimals of its format.
    Number(i64, NumberFormat),
    /// A move list as ordinals from a position of the line.
    Moves(MovesFrom, &'a [u8]),
    /// A move list that did not replay, kept as text.
    MovesText(&'a [u8]),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Piece {
    Literal(u32, u32),
    Number(i64, NumberFormat),
    Moves(MovesFrom, u32, u32),
    MovesText(u32, u32),
}

/// One engine note: literal text, numbers and move lists. Reused from
/// note to note (its buffers keep their capacity).
#[derive(Debug, Clone, Default)]
pub struct EngineNote {
    pieces: Vec<Piece>,
    bytes: Vec<u8>,
    /// The last move list of three moves or more this note replayed.
    memo: ListMemo,
    /// The one the note held before it was last cleared: a note reused
    /// for every other note of a game (one engine's, the other's notes
    /// between) replays its engine's principal variations partly from
    /// there.
    earlier: ListMemo,
}

/// Notes are equal when their parts are (what they keep to replay lists
/// faster is no part of them).
impl PartialEq for EngineNote {
    fn eq(&self, other: &EngineNote) -> bool {
        self.pieces == other.pieces && self.bytes == other.bytes
    }
}

impl Eq for EngineNote {}

impl EngineNote {
    /// An empty note.
    pub fn new() -> EngineNote {
        EngineNote::default()
    }

    /// Empties the note, keeping its buffers (and its last long move
    /// list, to replay the next note's lists from).
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.bytes.clear();
        std::mem::swap(&mut self.memo, &mut self.earlier);
        self.memo.forget();
    }

    fn range(&mut self, b: &[u8]) -> (u32, u32) {
        let s = self.bytes.len() as u32;
        self.bytes.extend_from_slice(b);
        (s, self.bytes.len() as u32)
    }

    /// Appends literal bytes (joined to a literal just before).
    pub fn push_literal(&mut self, b: &[u8]) {
        if b.is_empty() {
            return;
        }
        if let Some(Piece::Literal(_, e)) = self.pieces.last_mut()
            && *e as usize == self.bytes.len()
        {
            self.bytes.extend_from_slice(b);
            *e = self.bytes.len() as u32;
            return;
        }
        let (s, e) = self.range(b);
        self.pieces.push(Piece::Literal(s, e));
    }

    /// Appends a number (clamped to ±[`MAX_NUMBER`]).
    pub fn push_number(&mut self, v: i64, f: NumberFormat) {
        self.pieces
            .push(Piece::Number(v.clamp(-MAX_NUMBER, MAX_NUMBER), f));
    }

    /// Appends a move list given as ordinals from `from`.
    pub fn push_moves(&mut self, from: MovesFrom, ordinals: &[u8]) {
        let (s, e) = self.range(ordinals);
        self.pieces.push(Piece::Moves(from, s, e));
    }

    /// Appends a move list kept as text.
    pub fn push_moves_as_text(&mut self, text: &[u8]) {
        let (s, e) = self.range(text);
        self.pieces.push(Piece::MovesText(s, e));
    }

    /// Appends the move list `text` (SAN separated by single spaces) as
    /// ordinals from the first position of `line` it replays from
    /// (before the last move, before the one before, after the last
    /// move); false, appending nothing, when it replays from none.
    pub fn push_moves_text(&mut self, text: &[u8], line: &LinePositions<'_>) -> bool {
        self.push_moves_text_preferring(text, line, MovesFrom::Before)
    }

    /// [`EngineNote::push_moves_text`] trying `first` first.
    pub fn push_moves_text_preferring(
        &mut self,
        text: &[u8],
        line: &LinePositions<'_>,
        first: MovesFrom,
    ) -> bool {
        let order =
            std::iter::once(first).chain(MovesFrom::ALL.into_iter().filter(|&f| f != first));
        for from in order {
            let Some(pos) = from.position(line) else {
                continue;
            };
            let s = self.bytes.len() as u32;
            if encode_list(
                pos,
                text,
                &mut self.bytes,
                &self.earlier,
                Some(&mut self.memo),
            ) {
                self.pieces
                    .push(Piece::Moves(from, s, self.bytes.len() as u32));
                return true;
            }
        }
        false
    }

    /// The parts in order.
    pub fn parts(&self) -> impl Iterator<Item = NotePart<'_>> + '_ {
        self.pieces.iter().map(|p| match *p {
            Piece::Literal(s, e) => NotePart::Literal(&self.bytes[s as usize..e as usize]),
            Piece::Number(v, f) => NotePart::Number(v, f),
            Piece::Moves(from, s, e) => NotePart::Moves(from, &self.bytes[s as usize..e as usize]),
            Piece::MovesText(s, e) => NotePart::MovesText(&self.bytes[s as usize..e as usize]),
        })
    }

    /// What the note says in the terms engines use, read from its keys
    /// (`wv=`/`ev=` evaluation, `d=` depth, `sd=` selective depth, `mt=`
    /// move time, `n=` nodes, `pv=` principal variation) or from the
    /// cutechess-cli form `{+0.52/23 2.1s}`.
    pub fn summary(&self) -> NoteSummary<'_> {
        let mut s = NoteSummary::default();
        let mut key: &[u8] = &[];
        let mut literal: &[u8] = &[];
        let mut index = 0usize;
        let mut it = self.parts().peekable();
        // cutechess: [sign][M]number "/" number " " number "s…"
        let mut cute = 0u8;
        while let Some(p) = it.next() {
            match p {
                NotePart::Literal(b) => {
                    literal = b;
                    key = key_before(b);
                }
                NotePart::Number(v, f) => {
                    let mate = literal.ends_with(b"M")
                        && (literal.len() == 1
                            || !literal[literal.len() - 2].is_ascii_alphanumeric());
                    let next_lit = match it.peek() {
                        Some(NotePart::Literal(b)) => *b,
                        _ => &[][..],
                    };
                    if index == 0 && key.is_empty() && next_lit.starts_with(b"/") {
                        cute = 1;
                        let sign = if literal.ends_with(b"-M") { -1 } else { 1 };
                        s.figures.eval = Some(if mate {
                            Score::Mate(v * sign)
                        } else {
                            Score::Centipawns(to_hundredths(v, f))
                        });
                    } else if cute == 1 && literal == b"/" {
                        cute = 2;
                        s.figures.depth = u32::try_from(v).ok();
                    } else if cute == 2 && next_lit.starts_with(b"s") {
                        cute = 3;
                        s.figures.time_ms = u64::try_from(scale(v, f, 3)).ok();
                    } else {
                        match key {
                            b"wv" | b"ev" => {
                                s.figures.eval = Some(if mate {
                                    Score::Mate(v)
                                } else {
                                    Score::Centipawns(to_hundredths(v, f))
                                })
                            }
                            b"d" => s.figures.depth = u32::try_from(v).ok(),
                            b"sd" => s.figures.seldepth = u32::try_from(v).ok(),
                            b"n" => s.figures.nodes = u64::try_from(v).ok(),
                            b"mt" if next_lit.starts_with(b":") => {
                                // H:MM:SS as three numbers.
                                let mut hms = [v, 0, 0];
                                for slot in &mut hms[1..] {
                                    // The `:` between them.
                                    it.next();
                                    if let Some(NotePart::Number(x, _)) = it.next() {
                                        *slot = x;
                                    }
                                }
                                s.figures.time_ms =
                                    u64::try_from((hms[0] * 3600 + hms[1] * 60 + hms[2]) * 1000)
                                        .ok();
                            }
                            b"mt" => s.figures.time_ms = u64::try_from(scale(v, f, 0)).ok(),
                            _ => {}
                        }
                    }
                    index += 1;
                    key = &[];
                    literal = &[];
                }
                NotePart::Moves(from, o) => {
                    if key == b"pv" {
                        s.pv = Some((from, o));
                    }
                    index += 1;
                    key = &[];
                    literal = &[];
                }
                NotePart::MovesText(_) => {
                    index += 1;
                    key = &[];
                    literal = &[];
                }
            }
        }
        s
    }

    /// Whether the note has a number or a move list.
    pub fn has_values(&self) -> bool {
        self.pieces.iter().any(|p| !matches!(p, Piece::Literal(..)))
    }

    /// Appends the template of the note (its literals and formats, with
    /// each value's stream as `streams` assigns it) to `out`, and the
    /// stream of each value, in order, to `ids`.
    fn template(&self, out: &mut Vec<u8>, streams: &mut StreamKeys, ids: &mut Vec<u8>) {
        put_varint(out, self.pieces.len() as u64);
        let mut window = KeyWindow::default();
        for p in &self.pieces {
            let (kind, tag) = match *p {
                Piece::Literal(s, e) => {
                    let b = &self.bytes[s as usize..e as usize];
                    out.push(TAG_LITERAL);
                    put_varint(out, b.len() as u64);
                    out.extend_from_slice(b);
                    window.push(b);
                    continue;
                }
                Piece::Number(_, f) => (StreamKind::Numbers, [TAG_NUMBER, f.to_byte()]),
                Piece::Moves(..) | Piece::MovesText(..) => (StreamKind::Moves, [TAG_MOVES, 0]),
            };
            let id = streams.of(kind, &window);
            out.push(tag[0]);
            if kind == StreamKind::Numbers {
                out.push(tag[1]);
            }
            put_varint(out, u64::from(id));
            ids.push(id);
            window.push(&[0xff]);
        }
    }
}

/// An engine's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns, as the engine wrote them (TCEC's `wv=` is White's view,
    /// cutechess-cli's the engine's).
    Centipawns(i64),
    /// Mate in N moves (negative: the engine is mated).
    Mate(i64),
}

/// The figures of an engine note in the terms engines use, each `None`
/// when the note does not give it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineFigures {
    /// The evaluation.
    pub eval: Option<Score>,
    /// Search depth.
    pub depth: Option<u32>,
    /// Selective search depth.
    pub seldepth: Option<u32>,
    /// Time spent on the move, in milliseconds.
    pub time_ms: Option<u64>,
    /// Nodes searched.
    pub nodes: Option<u64>,
}

/// What a note says, read from its keys ([`EngineNote::summary`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoteSummary<'a> {
    /// Its figures.
    pub figures: EngineFigures,
    /// The principal variation: where it starts and its ordinals.
    pub pv: Option<(MovesFrom, &'a [u8])>,
}

/// The key a literal ends with (`, wv=` gives `wv`), if it ends with `=`.
fn key_before(b: &[u8]) -> &[u8] {
    let Some(rest) = b.strip_suffix(b"=") else {
        return &[];
    };
    let start = rest
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .map_or(0, |i| i + 1);
    &rest[start..]
}

/// `v` (in units of 10^-decimals) in units of 10^-`to`.
fn scale(v: i64, f: NumberFormat, to: u8) -> i64 {
    let d = i32::from(to) - i32::from(f.decimals());
    if d >= 0 {
        v.saturating_mul(10i64.saturating_pow(d as u32))
    } else {
        v / 10i64.pow((-d) as u32)
    }
}

/// A pawn value in hundredths (centipawns).
fn to_hundredths(v: i64, f: NumberFormat) -> i64 {
    scale(v, f, 2)
}

/// Writes `note` as text: its literals, its numbers in their formats, its
/// move lists replayed from `line`.
///
/// # Errors
/// A move list whose start position `line` does not have, or whose
/// ordinals name no legal move: the note cannot be written.
pub fn render_note(
    note: &EngineNote,
    line: &LinePositions<'_>,
    out: &mut Vec<u8>,
) -> Result<(), RenderError> {
    render_parts(note, line, out, None, |_| {})
}

/// [`render_note`], handing each move of the note's principal variation
/// (its [`NoteSummary::pv`]) to `on_pv` as the text is written, and
/// giving the note's [`EngineNote::summary`]: a reader that wants the
/// values as well as the text reads the keys and plays the moves once.
///
/// # Errors
/// As [`render_note`].
pub fn render_note_with_pv<'n>(
    note: &'n EngineNote,
    line: &LinePositions<'_>,
    out: &mut Vec<u8>,
    on_pv: impl FnMut(shakmaty::Move),
) -> Result<NoteSummary<'n>, RenderError> {
    let summary = note.summary();
    let pv = summary.pv.map(|(_, ordinals)| ordinals);
    render_parts(note, line, out, pv, on_pv)?;
    Ok(summary)
}

/// The parts of `note` written to `out`; the moves of the move list `pv`
/// (one of the note's own, told by identity) also go to `on_pv`.
fn render_parts(
    note: &EngineNote,
    line: &LinePositions<'_>,
    out: &mut Vec<u8>,
    pv: Option<&[u8]>,
    mut on_pv: impl FnMut(shakmaty::Move),
) -> Result<(), RenderError> {
    for part in note.parts() {
        match part {
            NotePart::Literal(b) | NotePart::MovesText(b) => out.extend_from_slice(b),
            NotePart::Number(v, f) => f.render(v, out),
            NotePart::Moves(_, []) => {}
            NotePart::Moves(from, ordinals) => {
                let pos = from.position(line).ok_or(RenderError::NoPosition(from))?;
                if pv.is_some_and(|pv| std::ptr::eq(pv, ordinals)) {
                    replay_moves(pos, ordinals, |i, san, m, after| {
                        write_move(out, i, san, after);
                        on_pv(m);
                    })?;
                } else {
                    render_moves(pos, ordinals, out)?;
                }
            }
        }
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

// ---------------------------------------------------------------------------
// The record
// ---------------------------------------------------------------------------

const TAG_LITERAL: u8 = 0;
const TAG_NUMBER: u8 = 1;
const TAG_MOVES: u8 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamKind {
    Numbers,
    Moves,
}

/// The last 8 bytes of a template before a value, a value counting as
/// one byte 0xff: `, mt=` before the hours of `mt=00:02:56`, `mt=\xff:`
/// before its minutes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct KeyWindow {
    buf: [u8; 8],
    len: u8,
}

impl KeyWindow {
    fn push(&mut self, b: &[u8]) {
        for &x in b.iter().skip(b.len().saturating_sub(8)) {
            if usize::from(self.len) < self.buf.len() {
                self.buf[usize::from(self.len)] = x;
                self.len += 1;
            } else {
                self.buf.copy_within(1.., 0);
                self.buf[7] = x;
            }
        }
    }
}

/// The writer's choice of streams: one per kind and the 8 template bytes
/// before the value ([`KeyWindow`]), so that a key's values (`mt=`) share
/// a stream whichever template they are in.
#[derive(Debug, Clone, Default)]
struct StreamKeys {
    keys: Vec<(StreamKind, KeyWindow)>,
}

impl StreamKeys {
    fn of(&mut self, kind: StreamKind, window: &KeyWindow) -> u8 {
        let k = (kind, *window);
        if let Some(i) = self.keys.iter().position(|x| *x == k) {
            return i as u8;
        }
        if self.keys.len() >= MAX_STREAMS {
            // Shared: values still go in order.
            return self.keys.iter().position(|x| x.0 == kind).unwrap_or(0) as u8;
        }
        self.keys.push(k);
        (self.keys.len() - 1) as u8
    }
}

/// A stream's values while a game's notes are collected.
#[derive(Debug, Clone)]
enum Stream {
    Numbers(Vec<i64>),
    /// Move lists.
    Moves(MoveStream),
}

/// A move stream while a game's notes are collected: the encoded lists,
/// and every list's ordinals whole, for the next lists to share.
#[derive(Debug, Clone, Default)]
struct MoveStream {
    out: Vec<u8>,
    /// Per list: whether it is ordinals, and its range in `full`.
    lists: Vec<(bool, u32, u32)>,
    full: Vec<u8>,
}

impl MoveStream {
    /// Appends a list of ordinals starting from `from`, sharing the
    /// longest prefix it can with the list one back (from its second move)
    /// or two back (from its third).
    fn push_ordinals(&mut self, from: MovesFrom, o: &[u8]) {
        let mut best = (0usize, 0u64);
        // A list of one move shares nothing: the field would cost its byte.
        for back in (1..=2usize).filter(|_| o.len() >= 2) {
            let Some(&(true, a, b)) = self.lists.len().checked_sub(back).map(|i| &self.lists[i])
            else {
                continue;
            };
            let prev = self
                .full
                .get(a as usize + back..b as usize)
                .unwrap_or_default();
            let shared = prev.iter().zip(o).take_while(|(x, y)| x == y).count();
            if shared > best.0 {
                best = (shared, back as u64);
            }
        }
        put_varint(&mut self.out, (o.len() as u64) << 2 | from as u64);
        if o.len() >= 2 {
            put_varint(&mut self.out, (best.0 as u64) << 2 | best.1);
        }
        self.out.extend_from_slice(&o[best.0..]);
        let a = self.full.len() as u32;
        self.full.extend_from_slice(o);
        self.lists.push((true, a, self.full.len() as u32));
    }

    /// Appends a list kept as text.
    fn push_text(&mut self, t: &[u8]) {
        put_varint(&mut self.out, (t.len() as u64) << 2 | 3);
        self.out.extend_from_slice(t);
        self.lists.push((false, 0, 0));
    }
}

/// The engine notes of one game, collected into one record (kind 0x14).
///
/// A note is kept only right after an anchor (as for the commands record,
/// [`super::commands::GameCommands`]), at most one per anchor.
#[derive(Debug, Clone, Default)]
pub struct GameNotes {
    templates: Vec<u8>,
    template_ends: Vec<usize>,
    scratch: Vec<u8>,
    keys: StreamKeys,
    /// The stream of each value of the note being pushed.
    ids: Vec<u8>,
    place: Placement,
    streams: Vec<Stream>,
    notes: u64,
    /// The predictor each numbers stream took in the game before (kept
    /// by [`GameNotes::clear`]): where a file's games share their engines'
    /// templates, the bound that makes the predictor search short.
    hints: Vec<Option<Predictor>>,
    search: Search,
}

impl GameNotes {
    /// An empty collection.
    pub fn new() -> GameNotes {
        GameNotes::default()
    }

    /// Forgets everything (for the next game), keeping the buffers.
    pub fn clear(&mut self) {
        self.templates.clear();
        self.template_ends.clear();
        self.keys.keys.clear();
        self.place.clear();
        self.streams.clear();
        self.notes = 0;
    }

    /// Whether no note was pushed (then write no record).
    pub fn is_empty(&self) -> bool {
        self.notes == 0
    }

    /// Notes pushed.
    pub fn len(&self) -> u64 {
        self.notes
    }

    /// Whether [`GameNotes::push`] would take a note for `anchor`.
    pub fn accepts(&self, anchor: u64) -> bool {
        self.place.accepts(anchor)
    }

    fn find_scratch(&self) -> Option<u32> {
        let mut start = 0;
        for (i, &end) in self.template_ends.iter().enumerate() {
            if self.templates[start..end] == self.scratch[..] {
                return Some(i as u32);
            }
            start = end;
        }
        None
    }

    /// Records `note` as the note after anchor `anchor`. False, recording
    /// nothing, when the anchor is not above the previous note's, the note
    /// is empty, or the game has [`MAX_TEMPLATES`] other templates.
    pub fn push(&mut self, anchor: u64, note: &EngineNote) -> bool {
        if !self.accepts(anchor) || note.pieces.is_empty() {
            return false;
        }
        let mark = self.keys.keys.len();
        self.scratch.clear();
        self.ids.clear();
        note.template(&mut self.scratch, &mut self.keys, &mut self.ids);
        let t = match self.find_scratch() {
            Some(t) => t,
            None if self.template_ends.len() >= MAX_TEMPLATES => {
                self.keys.keys.truncate(mark);
                return false;
            }
            None => {
                self.templates.extend_from_slice(&self.scratch);
                self.template_ends.push(self.templates.len());
                (self.template_ends.len() - 1) as u32
            }
        };
        self.place.push(anchor, t);
        // Values, to the streams the template names.
        let values = note
            .pieces
            .iter()
            .filter(|p| !matches!(p, Piece::Literal(..)));
        for (p, &id) in values.zip(&self.ids) {
            let id = usize::from(id);
            while self.streams.len() <= id {
                self.streams.push(Stream::Numbers(Vec::new()));
            }
            if !matches!(p, Piece::Number(..)) && !matches!(self.streams[id], Stream::Moves(..)) {
                self.streams[id] = Stream::Moves(MoveStream::default());
            }
            match (&mut self.streams[id], *p) {
                (Stream::Numbers(v), Piece::Number(x, _)) => v.push(x),
                (Stream::Moves(m), Piece::Moves(from, s, e)) => {
                    m.push_ordinals(from, &note.bytes[s as usize..e as usize]);
                }
                (Stream::Moves(m), Piece::MovesText(s, e)) => {
                    m.push_text(&note.bytes[s as usize..e as usize]);
                }
                _ => {}
            }
        }
        self.notes += 1;
        true
    }

    /// Appends the record payload (`spec/extensions-engine.md`). The
    /// bytes depend on this game's notes alone.
    pub fn to_payload(&mut self, out: &mut Vec<u8>) {
        put_varint(out, self.template_ends.len() as u64);
        out.extend_from_slice(&self.templates);
        self.place.write(out, self.template_ends.len());
        put_varint(out, self.streams.len() as u64);
        if self.hints.len() < self.streams.len() {
            self.hints.resize(self.streams.len(), None);
        }
        for (i, s) in self.streams.iter().enumerate() {
            match s {
                Stream::Numbers(v) => {
                    let hint = self.hints[i];
                    self.hints[i] = Some(write_numbers(
                        i,
                        v,
                        &self.streams,
                        hint,
                        &mut self.search,
                        out,
                    ));
                }
                Stream::Moves(m) => {
                    put_varint(out, m.lists.len() as u64);
                    out.extend_from_slice(&m.out);
                }
            }
        }
    }
}

/// Bytes of a LEB128 value.
fn leb_len(v: u64) -> usize {
    // By the count of leading zeros: one load in the writer's cost loops.
    const BY_ZEROS: [u8; 65] = {
        let mut t = [0u8; 65];
        let mut z = 0;
        while z <= 64 {
            let bits = 64 - z;
            t[z] = if bits == 0 { 1 } else { bits.div_ceil(7) as u8 };
            z += 1;
        }
        t
    };
    usize::from(BY_ZEROS[v.leading_zeros() as usize])
}

/// How a numbers stream predicts each value; the stream stores the
/// residuals `v[i] − prediction` (`spec/extensions-engine.md` section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Predictor {
    /// 0: nothing (the value itself).
    Value,
    /// 1: the value before.
    Previous,
    /// 2: the value two before.
    TwoBack,
    /// 3: `a[i] × b[i] / 10^scale` of two earlier streams (nodes from
    /// speed and time).
    Product { a: u8, b: u8, scale: u8 },
    /// 4: `v[i−2] − a[i] + bias` (time left from the time left two notes
    /// before, the move time of stream `a`, and the increment).
    TwoBackLess { a: u8, bias: i64 },
}

impl Predictor {
    /// The prediction of value `i`, given the values before it and the
    /// earlier streams' values (`None` where a stream is short, which a
    /// reader refuses and a writer never chooses).
    #[inline(always)]
    fn predict(self, own: &[i64], i: usize, stream: impl Fn(u8) -> Option<i64>) -> Option<i128> {
        let back = |k: usize| i.checked_sub(k).map(|j| i128::from(own[j]));
        Some(match self {
            Predictor::Value => 0,
            Predictor::Previous => back(1).unwrap_or(0),
            Predictor::TwoBack => back(2).unwrap_or(0),
            Predictor::Product { a, b, scale } => {
                let (x, y) = (stream(a)?, stream(b)?);
                // Truncated toward zero either way; 64 bits when it fits.
                match (x.checked_mul(y), 10i64.checked_pow(u32::from(scale))) {
                    (Some(p), Some(d)) => i128::from(p / d),
                    _ => i128::from(x) * i128::from(y) / 10i128.pow(u32::from(scale)),
                }
            }
            Predictor::TwoBackLess { a, bias } => match back(2) {
                Some(p) => p - i128::from(stream(a)?) + i128::from(bias),
                None => 0,
            },
        })
    }

    /// Bytes the predictor itself takes beyond the one of the plain ones.
    fn extra_bytes(self) -> usize {
        match self {
            Predictor::Value | Predictor::Previous | Predictor::TwoBack => 0,
            Predictor::Product { .. } => 4,
            Predictor::TwoBackLess { bias, .. } => 2 + leb_len(zigzag(bias)),
        }
    }

    fn write(self, out: &mut Vec<u8>) {
        match self {
            Predictor::Value => out.push(0),
            Predictor::Previous => out.push(1),
            Predictor::TwoBack => out.push(2),
            Predictor::Product { a, b, scale } => out.extend_from_slice(&[3, a, b, scale]),
            Predictor::TwoBackLess { a, bias } => {
                out.extend_from_slice(&[4, a]);
                put_varint(out, zigzag(bias));
            }
        }
    }
}

/// Calls `f` with the residual of each value of `v` under `p` (`None`
/// where one is beyond 64 bits or a stream it reads is short), in order,
/// until `f` breaks. The predictor's kind is fixed in each loop and the
/// streams it reads are looked up once: the writer tries dozens of
/// predictors on a game's streams, a fifth of encoding engine games when
/// the kind was matched and the stream found again for every value.
#[inline]
fn for_residuals(
    v: &[i64],
    p: Predictor,
    streams: &[Stream],
    mut f: impl FnMut(Option<i64>) -> ControlFlow<()>,
) {
    let numbers = |s: u8| match streams.get(usize::from(s)) {
        Some(Stream::Numbers(x)) => &x[..],
        _ => &[][..],
    };
    // `q` is `p` rebuilt with its kind known to the compiler, so that the
    // match in `predict` folds away inside each inlined loop.
    #[inline(always)]
    fn each(
        v: &[i64],
        q: Predictor,
        (a, xa): (u8, &[i64]),
        xb: &[i64],
        f: &mut impl FnMut(Option<i64>) -> ControlFlow<()>,
    ) {
        for i in 0..v.len() {
            let stream = |s: u8| if s == a { xa.get(i) } else { xb.get(i) }.copied();
            let r = q
                .predict(v, i, stream)
                .and_then(|pred| i64::try_from(i128::from(v[i]) - pred).ok());
            if f(r).is_break() {
                return;
            }
        }
    }
    let f = &mut f;
    match p {
        Predictor::Value => each(v, Predictor::Value, (0, &[]), &[], f),
        Predictor::Previous => each(v, Predictor::Previous, (0, &[]), &[], f),
        Predictor::TwoBack => each(v, Predictor::TwoBack, (0, &[]), &[], f),
        Predictor::Product { a, b, scale } => {
            let q = Predictor::Product { a, b, scale };
            each(v, q, (a, numbers(a)), numbers(b), f)
        }
        Predictor::TwoBackLess { a, bias } => {
            let q = Predictor::TwoBackLess { a, bias };
            each(v, q, (a, numbers(a)), &[], f)
        }
    }
}

/// Whether `p` predicts most of the first eight values of `v` within a
/// quarter of their size (a value of zero counts as not predicted): a
/// product of two streams that
/// does not is not counted whole (a predictor that fits no better than
/// this takes more bytes than the plain ones on engine data).
fn fits_roughly(v: &[i64], p: Predictor, streams: &[Stream]) -> bool {
    let (mut seen, mut close) = (0u32, 0u32);
    for_residuals(v, p, streams, |r| {
        // Values and residuals in step: `for_residuals` goes in order.
        let i = seen as usize;
        seen += 1;
        if let (Some(r), Some(&x)) = (r, v.get(i))
            && x != 0
            && r.unsigned_abs() <= x.unsigned_abs() / 4
        {
            close += 1;
        }
        if seen >= 8 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    2 * close > seen
}

/// Bytes of the residuals of `v` under `p` (`usize::MAX` if not usable,
/// or once the count reaches `limit`).
fn cost(v: &[i64], p: Predictor, streams: &[Stream], limit: usize) -> usize {
    let mut n = 0usize;
    for_residuals(v, p, streams, |r| {
        match r {
            Some(r) => n += leb_len(zigzag(r)),
            None => n = usize::MAX,
        }
        if n >= limit {
            n = usize::MAX;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    n
}

/// A numbers stream (`v`, stream `me` of `streams`): the predictor that
/// takes the fewest bytes, the count, the zig-zag residuals; returns the
/// predictor.
///
/// The candidates, in order (the first of the fewest bytes wins): the
/// plain predictors; then, where those leave more than two bytes a value,
/// for each earlier numbers stream `a` with as many values, the products
/// of `a` and each later such stream `b` at three scales (only where the
/// plain predictors leave more than three bytes a value: nodes), and
/// `a`'s time-left predictor. `hint` is the predictor this stream took in
/// the game before: its cost bounds the search, so that most candidates
/// stop counting early. It changes how long the search takes, never what
/// it finds; `search` holds the buffers.
fn write_numbers(
    me: usize,
    v: &[i64],
    streams: &[Stream],
    hint: Option<Predictor>,
    search: &mut Search,
    out: &mut Vec<u8>,
) -> Predictor {
    let bound = hint.map_or(usize::MAX, |h| {
        let extra = h.extra_bytes();
        cost(v, h, streams, usize::MAX).saturating_add(extra)
    });
    let mut best = best_predictor(v, me, streams, bound, search);
    if best.0 > bound {
        // The hint is not a candidate here: a search without its bound.
        best = best_predictor(v, me, streams, usize::MAX, search);
    }
    best.1.write(out);
    put_varint(out, v.len() as u64);
    for_residuals(v, best.1, streams, |r| {
        put_varint(out, zigzag(r.unwrap_or(0)));
        ControlFlow::Continue(())
    });
    best.1
}

/// Buffers of the predictor search, kept from stream to stream.
#[derive(Debug, Clone, Default)]
struct Search {
    /// Earlier numbers streams with as many values as the one searched.
    peers: Vec<u8>,
    /// The mean magnitude of each peer's values.
    means: Vec<f64>,
    /// Differences whose median is a time-left predictor's bias.
    diffs: Vec<i64>,
}

/// The first candidate of [`write_numbers`] of the fewest bytes, among
/// those of at most `bound` bytes (`(usize::MAX, Value)` if none is).
fn best_predictor(
    v: &[i64],
    me: usize,
    streams: &[Stream],
    bound: usize,
    search: &mut Search,
) -> (usize, Predictor) {
    let mut best = (usize::MAX, Predictor::Value);
    // A candidate of `extra` bytes beyond its residuals: counted only as
    // far as it could still win (fewer bytes than the best so far, and no
    // more than the bound).
    let try_one = |p: Predictor, best: &mut (usize, Predictor)| {
        let extra = p.extra_bytes();
        let limit = best.0.min(bound.saturating_add(1));
        let c = cost(v, p, streams, limit.saturating_sub(extra)).saturating_add(extra);
        if c < best.0 && c < limit {
            *best = (c, p);
        }
    };
    for p in [Predictor::Value, Predictor::Previous, Predictor::TwoBack] {
        try_one(p, &mut best);
    }
    // What the plain predictors leave decides which others are tried; an
    // unbounded count for it when the bound cut them all short.
    let plain = if best.0 == usize::MAX {
        [Predictor::Value, Predictor::Previous, Predictor::TwoBack]
            .into_iter()
            .map(|p| cost(v, p, streams, usize::MAX))
            .min()
            .unwrap_or(usize::MAX)
    } else {
        best.0
    };
    if plain <= 2 * v.len() {
        return best;
    }
    let numbers = |s: u8| match &streams[usize::from(s)] {
        Stream::Numbers(x) => &x[..],
        Stream::Moves(_) => &[][..],
    };
    let mean = |x: &[i64]| x.iter().map(|&v| (v as f64).abs()).sum::<f64>() / x.len() as f64;
    search.peers.clear();
    search.peers.extend(
        (0..me)
            .filter(|&s| matches!(&streams[s], Stream::Numbers(x) if x.len() == v.len()))
            .map(|s| s as u8),
    );
    search.means.clear();
    search
        .means
        .extend(search.peers.iter().map(|&s| mean(numbers(s))));
    let own_mean = mean(v).max(1.0);
    // A product only for a stream of more than three bytes a value
    // (nodes); it needs two streams of large values.
    let wide = plain > 3 * v.len();
    for (k, &a) in search.peers.iter().enumerate() {
        for (j, &b) in search.peers.iter().enumerate().skip(k).filter(|_| wide) {
            // The scale that brings a × b to v's magnitude, and its
            // neighbours.
            let ratio = search.means[k] * search.means[j] / own_mean;
            let guess = ratio.max(1.0).log10().round() as i64;
            for scale in (guess - 1).max(0)..=(guess + 1).min(18) {
                let p = Predictor::Product {
                    a,
                    b,
                    scale: scale as u8,
                };
                if fits_roughly(v, p, streams) {
                    try_one(p, &mut best);
                }
            }
        }
        // The median of v[i] - v[i-2] + a[i] as the bias.
        let x = numbers(a);
        search.diffs.clear();
        search
            .diffs
            .extend((2..v.len()).map(|i| v[i].wrapping_sub(v[i - 2]).wrapping_add(x[i])));
        if search.diffs.is_empty() {
            continue;
        }
        // The median: the value a sort would put in the middle.
        let middle = search.diffs.len() / 2;
        let (_, &mut bias, _) = search.diffs.select_nth_unstable(middle);
        try_one(Predictor::TwoBackLess { a, bias }, &mut best);
    }
    best
}

#[derive(Debug, Clone, Copy)]
enum TPiece {
    Literal(u32, u32),
    Number(NumberFormat, u8),
    Moves(u8),
}

/// Reads an engine-notes record and hands out the note of each anchor in
/// game order. Everything is checked by [`GameNotesReader::load`]; one
/// reader serves a whole file, reusing its buffers.
#[derive(Debug, Clone, Default)]
pub struct GameNotesReader {
    pieces: Vec<TPiece>,
    template_ends: Vec<usize>,
    literals: Vec<u8>,
    place: Placement,
    /// Per stream: its kind, and the range of its values in `numbers` or
    /// `moves`.
    streams: Vec<(StreamKind, Range<usize>)>,
    numbers: Vec<i64>,
    /// Move lists: (header code, range in `move_bytes`).
    moves: Vec<(u8, u32, u32)>,
    move_bytes: Vec<u8>,
    /// Per stream, the next value.
    at: Vec<usize>,
    scratch: EngineNote,
}

impl GameNotesReader {
    /// An empty reader.
    pub fn new() -> GameNotesReader {
        GameNotesReader::default()
    }

    /// Reads and checks a payload written by [`GameNotes::to_payload`].
    ///
    /// # Errors
    /// As [`GameNotesReader::load`].
    pub fn from_payload(payload: &[u8]) -> Result<GameNotesReader, PayloadError> {
        let mut g = GameNotesReader::default();
        g.load(payload)?;
        Ok(g)
    }

    /// Forgets the record read last, keeping the buffers.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.template_ends.clear();
        self.literals.clear();
        self.place.clear();
        self.streams.clear();
        self.numbers.clear();
        self.moves.clear();
        self.move_bytes.clear();
        self.at.clear();
    }

    /// Reads and checks a payload in place of the record read before. On
    /// error the reader holds no note.
    ///
    /// # Errors
    /// A [`PayloadError`] at the payload byte where the bytes end early or
    /// run on, a tag, format or predictor is unknown, a count exceeds the
    /// bytes left, a stream is of two kinds or of none, a stream does not
    /// hold exactly the values the templates need, or a value is out of
    /// range.
    pub fn load(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        self.clear();
        let r = self.read(payload);
        if r.is_err() {
            self.clear();
        }
        r
    }

    fn read(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let at = r.pos;
        let t = r.count(2, "a count of templates")?;
        if t == 0 || t > MAX_TEMPLATES {
            return Err(r.err_at(at, "1 to 255 templates", Found::Value(t as u64)));
        }
        // Per stream: kind, and values one note of each template needs.
        let mut kinds: Vec<Option<StreamKind>> = Vec::new();
        let mut uses: Vec<Vec<(u8, u64)>> = Vec::with_capacity(t);
        for _ in 0..t {
            let at = r.pos;
            let p = r.count(1, "a count of template pieces")?;
            if p == 0 {
                return Err(r.err_at(at, "a template of one or more pieces", Found::Value(0)));
            }
            let mut u: Vec<(u8, u64)> = Vec::new();
            for _ in 0..p {
                let at = r.pos;
                let (kind, stream) = match r.byte("a template piece")? {
                    TAG_LITERAL => {
                        let b = r.take_len("literal bytes")?;
                        if b.is_empty() {
                            return Err(r.err_at(
                                at + 1,
                                "a literal of one or more bytes",
                                Found::Value(0),
                            ));
                        }
                        let s = self.literals.len() as u32;
                        self.literals.extend_from_slice(b);
                        self.pieces
                            .push(TPiece::Literal(s, self.literals.len() as u32));
                        continue;
                    }
                    TAG_NUMBER => {
                        let fat = r.pos;
                        let f = r.byte("a number format")?;
                        let f = NumberFormat::from_byte(f).ok_or_else(|| {
                            r.err_at(
                                fat,
                                "a number format with a sign field of 0, 1 or 2",
                                Found::Byte(f),
                            )
                        })?;
                        let s = stream_id(&mut r)?;
                        self.pieces.push(TPiece::Number(f, s));
                        (StreamKind::Numbers, s)
                    }
                    TAG_MOVES => {
                        let s = stream_id(&mut r)?;
                        self.pieces.push(TPiece::Moves(s));
                        (StreamKind::Moves, s)
                    }
                    b => {
                        return Err(r.err_at(at, "a piece tag 0x00, 0x01 or 0x02", Found::Byte(b)));
                    }
                };
                let i = usize::from(stream);
                if kinds.len() <= i {
                    kinds.resize(i + 1, None);
                }
                match kinds[i] {
                    Some(k) if k != kind => {
                        return Err(r.err_at(
                            at,
                            "a stream holding one kind of value",
                            Found::Value(i as u64),
                        ));
                    }
                    _ => kinds[i] = Some(kind),
                }
                match u.iter_mut().find(|x| x.0 == stream) {
                    Some(x) => x.1 += 1,
                    None => u.push((stream, 1)),
                }
            }
            self.template_ends.push(self.pieces.len());
            uses.push(u);
        }
        self.place.read(&mut r, t)?;
        // What each stream must hold.
        let mut need = vec![0u64; kinds.len()];
        for &(ti, k) in self.place.template_runs() {
            for &(s, n) in &uses[ti as usize] {
                let slot = &mut need[usize::from(s)];
                *slot = n
                    .checked_mul(k)
                    .and_then(|x| slot.checked_add(x))
                    .ok_or_else(|| {
                        r.err_at(
                            r.pos,
                            "at most 2^64 - 1 values in a stream",
                            Found::Value(k),
                        )
                    })?;
            }
        }
        let at = r.pos;
        let s = r.count(1, "a count of streams")?;
        if s != kinds.len() {
            return Err(r.err_at(
                at,
                "as many streams as the templates name",
                Found::Value(s as u64),
            ));
        }
        for (i, kind) in kinds.iter().enumerate() {
            let Some(kind) = *kind else {
                return Err(r.err_at(
                    r.pos,
                    "a stream that a template names",
                    Found::Value(i as u64),
                ));
            };
            match kind {
                StreamKind::Numbers => {
                    let at = r.pos;
                    let p = match r.byte("a predictor")? {
                        0 => Predictor::Value,
                        1 => Predictor::Previous,
                        2 => Predictor::TwoBack,
                        3 => Predictor::Product {
                            a: r.byte("a stream")?,
                            b: r.byte("a stream")?,
                            scale: r.byte("a scale")?,
                        },
                        4 => Predictor::TwoBackLess {
                            a: r.byte("a stream")?,
                            bias: unzigzag(r.u64("a bias")?),
                        },
                        b => {
                            return Err(r.err_at(at, "a predictor 0 to 4", Found::Byte(b)));
                        }
                    };
                    let at_count = r.pos;
                    let n = r.count(1, "a count of numbers")?;
                    // Streams a predictor refers to: earlier numbers
                    // streams with as many values.
                    let refs: &[u8] = match &p {
                        Predictor::Product { a, b, .. } => &[*a, *b],
                        Predictor::TwoBackLess { a, .. } => std::slice::from_ref(a),
                        _ => &[],
                    };
                    let bad_ref = refs.iter().any(|&s| {
                        !matches!(self.streams.get(usize::from(s)),
                            Some((StreamKind::Numbers, range)) if range.len() == n)
                    });
                    if bad_ref || matches!(p, Predictor::Product { scale, .. } if scale > 18) {
                        return Err(r.err_at(
                            at,
                            "a predictor from earlier numbers streams of as many values, scale at most 18",
                            Found::Byte(3),
                        ));
                    }
                    let at = at_count;
                    if n as u64 != need[i] {
                        return Err(r.err_at(
                            at,
                            "as many numbers as the templates need",
                            Found::Value(n as u64),
                        ));
                    }
                    let start = self.numbers.len();
                    self.numbers.reserve(n);
                    for j in 0..n {
                        let at = r.pos;
                        let res = unzigzag(r.u64("a number")?);
                        let (own, streams) = (&self.numbers[start..], &self.streams);
                        let numbers = &self.numbers;
                        let pred = p.predict(own, j, |s| {
                            streams
                                .get(usize::from(s))
                                .and_then(|(_, range)| numbers.get(range.start + j).copied())
                        });
                        let v = pred.map(|x| x + i128::from(res));
                        match v {
                            Some(v) if v.unsigned_abs() <= MAX_NUMBER as u128 => {
                                self.numbers.push(v as i64)
                            }
                            _ => {
                                return Err(r.err_at(
                                    at,
                                    "a number of at most 18 digits",
                                    Found::Value(res.unsigned_abs()),
                                ));
                            }
                        }
                    }
                    self.streams.push((kind, start..self.numbers.len()));
                }
                StreamKind::Moves => {
                    let at = r.pos;
                    let n = r.count(1, "a count of move lists")?;
                    if n as u64 != need[i] {
                        return Err(r.err_at(
                            at,
                            "as many move lists as the templates need",
                            Found::Value(n as u64),
                        ));
                    }
                    let start = self.moves.len();
                    self.moves.reserve(n);
                    for _ in 0..n {
                        let at = r.pos;
                        let h = r.u64("a move list header")?;
                        let len = h >> 2;
                        if (h & 3) != 3 && len > MAX_MOVES as u64 {
                            return Err(r.err_at(
                                at,
                                "a move list of at most 1024 moves",
                                Found::Value(len),
                            ));
                        }
                        let s = self.move_bytes.len() as u32;
                        let mut shared = 0;
                        if h & 3 != 3 && len >= 2 {
                            let at = r.pos;
                            let sh = r.u64("a shared prefix")?;
                            let (n, back) = ((sh >> 2) as usize, (sh & 3) as usize);
                            let this = self.moves.len();
                            let prev = this
                                .checked_sub(back)
                                .filter(|&i| back > 0 && i >= start)
                                .map(|i| self.moves[i]);
                            let copy = match prev {
                                _ if n == 0 && back < 3 => Some(0..0),
                                Some((code, a, b)) if code != 3 && back < 3 => {
                                    let from = a as usize + back;
                                    (from + n <= b as usize && n as u64 <= len)
                                        .then_some(from..from + n)
                                }
                                _ => None,
                            };
                            let Some(copy) = copy else {
                                return Err(r.err_at(
                                    at,
                                    "a prefix shared with a list of ordinals one or two back in the stream, within its moves",
                                    Found::Value(sh),
                                ));
                            };
                            self.move_bytes.extend_from_within(copy);
                            shared = n;
                        }
                        let b = r.take(
                            usize::try_from(len)
                                .unwrap_or(usize::MAX)
                                .saturating_sub(shared),
                            "the bytes of a move list",
                        )?;
                        self.move_bytes.extend_from_slice(b);
                        if self.move_bytes.len() > payload.len().saturating_mul(MAX_EXPANSION) {
                            return Err(r.err_at(
                                at,
                                "move lists of at most 16 times the payload's size, shared prefixes included",
                                Found::Value(self.move_bytes.len() as u64),
                            ));
                        }
                        self.moves
                            .push(((h & 3) as u8, s, self.move_bytes.len() as u32));
                    }
                    self.streams.push((kind, start..self.moves.len()));
                }
            }
        }
        if r.pos != payload.len() {
            return Err(r.err_at(
                r.pos,
                "the end of the payload after the last stream",
                Found::Trailing(payload.len() - r.pos),
            ));
        }
        self.at = self.streams.iter().map(|s| s.1.start).collect();
        Ok(())
    }

    /// The number of notes in the record.
    pub fn len(&self) -> u64 {
        self.place.comments()
    }

    /// Whether the record holds no note.
    pub fn is_empty(&self) -> bool {
        self.place.is_empty()
    }

    /// The note after anchor `anchor` into `out`, if it has one. Ask for
    /// anchors in increasing order.
    pub fn note_at(&mut self, anchor: u64, out: &mut EngineNote) -> bool {
        let Some(n) = self.place.comment_at(anchor) else {
            return false;
        };
        while self.place.consumed() < n {
            let mut skip = std::mem::take(&mut self.scratch);
            self.take_next(&mut skip);
            self.scratch = skip;
        }
        self.take_next(out)
    }

    fn take_next(&mut self, out: &mut EngineNote) -> bool {
        out.clear();
        let Some(t) = self.place.next_template() else {
            return false;
        };
        let start = if t == 0 {
            0
        } else {
            self.template_ends[t as usize - 1]
        };
        let end = self.template_ends[t as usize];
        for &p in &self.pieces[start..end] {
            match p {
                TPiece::Literal(s, e) => out.push_literal(&self.literals[s as usize..e as usize]),
                TPiece::Number(f, s) => {
                    let i = self.at[usize::from(s)];
                    self.at[usize::from(s)] += 1;
                    out.push_number(self.numbers.get(i).copied().unwrap_or(0), f);
                }
                TPiece::Moves(s) => {
                    let i = self.at[usize::from(s)];
                    self.at[usize::from(s)] += 1;
                    let (code, a, b) = self.moves.get(i).copied().unwrap_or((3, 0, 0));
                    let bytes = &self.move_bytes[a as usize..b as usize];
                    match MovesFrom::from_code(u64::from(code)) {
                        Some(from) => out.push_moves(from, bytes),
                        None => out.push_moves_as_text(bytes),
                    }
                }
            }
        }
        true
    }
}

fn stream_id(r: &mut Bytes<'_>) -> Result<u8, PayloadError> {
    let at = r.pos;
    let s = r.u64("a stream number")?;
    u8::try_from(s)
        .ok()
        .filter(|&s| usize::from(s) < MAX_STREAMS)
        .ok_or_else(|| r.err_at(at, "a stream number below 255", Found::Value(s)))
}

mod list_memo;
#[cfg(test)]
mod tests;
