//! The per-game engine-notes record, read and checked
//! ([`GameNotesReader`]).

use super::limits::{MAX_EXPANSION, MAX_MOVES, MAX_NUMBER, MAX_STREAMS, MAX_TEMPLATES};
use super::moves::MovesFrom;
use super::note::EngineNote;
use super::number::NumberFormat;
use super::predictor::{MAX_PLANES, MULTIPLY, PLANES, Predictor};
use super::stream::{StreamKind, TAG_LITERAL, TAG_MOVES, TAG_NUMBER};
use crate::ext::cursor::{Bytes, unzigzag};
use crate::ext::error::{Found, PayloadError};
use crate::ext::placement::Placement;
use std::ops::Range;

/// Header code bit of a list whose one move is implied, until it is
/// resolved.
const IMPLIED: u8 = 4;

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
    /// Lists of one implied move: their index in `moves` and the payload
    /// offset of their header, in list order.
    implied: Vec<(usize, usize)>,
    scratch: EngineNote,
}

impl GameNotesReader {
    /// An empty reader.
    pub fn new() -> GameNotesReader {
        GameNotesReader::default()
    }

    /// Reads and checks a payload written by [`GameNotes::to_payload`](super::GameNotes::to_payload).
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
        self.implied.clear();
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
                        let f = NumberFormat::from_byte(r.byte("a number format")?);
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
                    let kind_byte = r.byte("a predictor")?;
                    let planes = kind_byte & PLANES != 0;
                    let p = match kind_byte & !PLANES {
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
                        5 => Predictor::SpeedTime {
                            a: r.byte("a stream")?,
                            b: r.byte("a stream")?,
                            scale: r.byte("a scale")?,
                        },
                        _ => {
                            return Err(r.err_at(
                                at,
                                "a predictor 0 to 5 (0x80 to 0x85 with byte planes)",
                                Found::Byte(kind_byte),
                            ));
                        }
                    };
                    let at_count = r.pos;
                    let n = r.count(1, "a count of numbers")?;
                    // Streams a predictor refers to: earlier numbers
                    // streams with as many values.
                    let refs: &[u8] = match &p {
                        Predictor::Product { a, b, .. } | Predictor::SpeedTime { a, b, .. } => {
                            &[*a, *b]
                        }
                        Predictor::TwoBackLess { a, .. } => std::slice::from_ref(a),
                        _ => &[],
                    };
                    let bad_ref = refs.iter().any(|&s| {
                        !matches!(self.streams.get(usize::from(s)),
                            Some((StreamKind::Numbers, range)) if range.len() == n)
                    });
                    let scale = match p {
                        Predictor::Product { scale, .. } => scale & !MULTIPLY,
                        Predictor::SpeedTime { scale, .. } => scale,
                        _ => 0,
                    };
                    if bad_ref || scale > 18 {
                        return Err(r.err_at(
                            at,
                            "a predictor from earlier numbers streams of as many values, \
                             a power of ten of at most 18",
                            Found::Byte(kind_byte),
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
                    // Byte planes: the width, then `width` planes of `n` bytes
                    // each, lowest first.
                    let planes = if planes {
                        let at = r.pos;
                        let width = r.byte("a byte-plane width")?;
                        if !(2..=MAX_PLANES).contains(&width) {
                            return Err(r.err_at(
                                at,
                                "a byte-plane width of 2 to 8",
                                Found::Byte(width),
                            ));
                        }
                        let at = r.pos;
                        let width = usize::from(width);
                        let bytes = r.take(n * width, "the residuals' byte planes")?;
                        Some((at, width, bytes))
                    } else {
                        None
                    };
                    let start = self.numbers.len();
                    self.numbers.reserve(n);
                    for j in 0..n {
                        let (at, z) = match planes {
                            // Byte `k` of residual `j` is in plane `k`.
                            Some((at, width, bytes)) => (
                                at + j,
                                (0..width)
                                    .fold(0u64, |z, k| z | u64::from(bytes[k * n + j]) << (8 * k)),
                            ),
                            None => (r.pos, r.u64("a number")?),
                        };
                        let res = unzigzag(z);
                        let (own, streams) = (&self.numbers[start..], &self.streams);
                        let numbers = &self.numbers;
                        let v = p.value(res, own, j, |s| {
                            streams
                                .get(usize::from(s))
                                .and_then(|(_, range)| numbers.get(range.start + j).copied())
                        });
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
                        if h == 0 || h == 2 {
                            // One move the PV implies, found once every
                            // list is read (`resolve_implied`).
                            self.implied.push((self.moves.len(), at));
                            self.move_bytes.push(0);
                            self.moves
                                .push(((h as u8) | IMPLIED, s, self.move_bytes.len() as u32));
                            continue;
                        }
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
        if !self.implied.is_empty() {
            self.resolve_implied(payload)?;
        }
        Ok(())
    }

    /// Gives each implied list its move (`spec/extensions-engine.md`
    /// section 5), walking the notes in record order as [`Self::note_at`]
    /// hands them out: from after the last move, the second ordinal of the
    /// same note's PV; from before the move before the last, that of the
    /// note two notes back.
    fn resolve_implied(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let mut at = self.at.clone();
        let mut replies: [Option<u8>; 2] = [None, None];
        let mut lists: Vec<usize> = Vec::new();
        for &(t, k) in self.place.template_runs() {
            let start = if t == 0 {
                0
            } else {
                self.template_ends[t as usize - 1]
            };
            let pieces = &self.pieces[start..self.template_ends[t as usize]];
            if !pieces.iter().any(|p| matches!(p, TPiece::Moves(_))) {
                // Notes without lists: no reply (`k` may be any size).
                replies = if k >= 2 {
                    [None, None]
                } else {
                    [replies[1], None]
                };
                continue;
            }
            // Each note takes one list a piece: at most as many notes as
            // lists, which the streams hold.
            for _ in 0..k {
                lists.clear();
                for p in pieces {
                    if let TPiece::Moves(s) = *p {
                        lists.push(at[usize::from(s)]);
                        at[usize::from(s)] += 1;
                    }
                }
                let reply = lists.iter().find_map(|&i| match self.moves.get(i) {
                    Some(&(1, a, b)) if b - a >= 2 => Some(self.move_bytes[a as usize + 1]),
                    _ => None,
                });
                for &i in &lists {
                    let Some(&(code, a, _)) = self.moves.get(i) else {
                        continue;
                    };
                    if code & IMPLIED == 0 {
                        continue;
                    }
                    let from = code & 3;
                    let Some(ordinal) = (if from == 0 { reply } else { replies[0] }) else {
                        let header = self
                            .implied
                            .binary_search_by_key(&i, |&(list, _)| list)
                            .map_or(0, |j| self.implied[j].1);
                        let r = Bytes {
                            buf: payload,
                            pos: header,
                        };
                        return Err(r.err_at(
                            header,
                            if from == 0 {
                                "an implied move after a PV of two moves or more in its note"
                            } else {
                                "an implied move two notes after a PV of two moves or more"
                            },
                            Found::Value(u64::from(from)),
                        ));
                    };
                    self.move_bytes[a as usize] = ordinal;
                    self.moves[i].0 = from;
                }
                replies = [replies[1], reply];
            }
        }
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
