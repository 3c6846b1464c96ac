//! One engine note ([`EngineNote`]): its parts, the figures it holds,
//! and its rendering.

use super::limits::MAX_NUMBER;
use super::list_memo::ListMemo;
use super::moves::{MovesFrom, RenderError, encode_list, render_moves, replay_moves, write_move};
use super::number::NumberFormat;
use super::stream::{KeyWindow, StreamKeys, StreamKind, TAG_LITERAL, TAG_MOVES, TAG_NUMBER};
use crate::item::put_varint;
use crate::trail::LinePositions;

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
pub(super) enum Piece {
    Literal(u32, u32),
    Number(i64, NumberFormat),
    Moves(MovesFrom, u32, u32),
    MovesText(u32, u32),
}

/// One engine note: literal text, numbers and move lists. Reused from
/// note to note (its buffers keep their capacity).
#[derive(Debug, Clone, Default)]
pub struct EngineNote {
    pub(super) pieces: Vec<Piece>,
    pub(super) bytes: Vec<u8>,
    /// The last move list of three moves or more this note replayed.
    pub(super) memo: ListMemo,
    /// The one the note held before it was last cleared: a note reused
    /// for every other note of a game (one engine's, the other's notes
    /// between) replays its engine's principal variations partly from
    /// there.
    pub(super) earlier: ListMemo,
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

    /// The reply the note's engine expects: the second ordinal of the
    /// note's first list of two moves or more from before the last move
    /// (its PV, which begins with the move played). A one-move list from
    /// after the last move equal to it, or from before the move before the
    /// last equal to that of the note two notes back, is implied
    /// (`spec/extensions-engine.md` section 5).
    pub(super) fn pv_reply(&self) -> Option<u8> {
        self.pieces.iter().find_map(|p| match *p {
            Piece::Moves(MovesFrom::Before, s, e) if e - s >= 2 => Some(self.bytes[s as usize + 1]),
            _ => None,
        })
    }

    /// Moves a one-move list to the start from which the note's PV
    /// implies it (`spec/extensions-engine.md` section 5), where it reads
    /// the same from there: a reply the engine expected (`pd=` of TCEC's
    /// early seasons) that also replays from before the move before the
    /// last is stored from after the last move, as the PV's second move.
    /// `two_back` is the reply of the note two notes before this one
    /// ([`GameNotes::two_back_reply`](super::GameNotes::two_back_reply)): a
    /// list from before the move before the last that it implies stays.
    pub fn prefer_implied(&mut self, line: &LinePositions<'_>, two_back: Option<u8>) {
        let Some(reply) = self.pv_reply() else {
            return;
        };
        let Some(after) = line.after else {
            return;
        };
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        for i in 0..self.pieces.len() {
            let Piece::Moves(from, s, e) = self.pieces[i] else {
                continue;
            };
            let Some(pos) = from.position(line).filter(|_| from != MovesFrom::After) else {
                continue;
            };
            let &[o] = &self.bytes[s as usize..e as usize] else {
                continue;
            };
            if from == MovesFrom::BeforePrevious && two_back == Some(o) {
                continue;
            }
            mine.clear();
            theirs.clear();
            if render_moves(pos, &[o], &mut mine).is_ok()
                && render_moves(after, &[reply], &mut theirs).is_ok()
                && mine == theirs
            {
                self.bytes[s as usize] = reply;
                self.pieces[i] = Piece::Moves(MovesFrom::After, s, e);
            }
        }
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
                            b"mt" if f.is_clock() => {
                                s.figures.time_ms = u64::try_from(scale(v, f, 3)).ok();
                            }
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
    pub(super) fn template(&self, out: &mut Vec<u8>, streams: &mut StreamKeys, ids: &mut Vec<u8>) {
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
pub(super) fn scale(v: i64, f: NumberFormat, to: u8) -> i64 {
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
