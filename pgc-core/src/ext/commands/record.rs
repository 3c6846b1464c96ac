//! The per-game commands record: [`GameCommands`] writes it,
//! [`GameCommandsReader`] reads and checks it.

use super::columns::{
    COL_EVAL, COL_MARKS, ClockColumn, EvalColumn, MAX_TEMPLATES, T_CAL, T_CLK, T_CSL, T_EVAL,
    T_SPACE, T_WHITESPACE, check_clocks, check_evals, read_clocks, read_evals,
};
use super::comment::{Piece, Separator, TimeKind, TypedCommand, TypedComment, TypedPart};
use super::values::{Arrow, Clock, ClockFormat, Eval, EvalFormat, MarkColour, SquareMark};
use crate::ext::cursor::Bytes;
use crate::ext::error::{Found, PayloadError};
use crate::ext::placement::Placement;
use crate::item::put_varint;
use shakmaty::Square;

/// The typed comments of one game, for one extension record
/// ([`crate::ext::CLOCKS`]) written before the game's first move.
///
/// A typed comment is placed by its **anchor**: the item it follows
/// directly. Anchors are numbered from 0 in record order over the whole game
/// (variations included), counting every item of these kinds:
///
/// - a move (each ordinal of a 0x03/0x04 record),
/// - a null move (extension `NULL_MOVE`) or a wide move (extension
///   `WIDE_MOVE`),
/// - a NAG (0x07 record or extension `LONG_NAG`),
/// - a text comment (extension `COMMENT`).
///
/// A comment is typed only if the last item stored before it is an anchor
/// (so `e4 {[%clk 0:15:00]}`, `e4?! {[%eval 0.5]}` and
/// `e4 {text} {[%eval 0.5]}` are, but a comment after `)` or before the
/// first move is not), and at most one typed comment follows one anchor.
#[derive(Debug, Clone, Default)]
pub struct GameCommands {
    /// Serialized templates, one after the other.
    templates: Vec<u8>,
    template_ends: Vec<usize>,
    scratch: Vec<u8>,
    /// Where the comments stand and which template each uses.
    place: Placement,
    clocks: [ClockColumn; 4],
    evals: EvalColumn,
    marks: Vec<u8>,
    marks_count: u64,
    comments: u64,
}

impl GameCommands {
    /// An empty collection.
    pub fn new() -> GameCommands {
        GameCommands::default()
    }

    /// Forgets everything (for the next game), keeping the buffers.
    pub fn clear(&mut self) {
        self.templates.clear();
        self.template_ends.clear();
        self.place.clear();
        for c in &mut self.clocks {
            c.clear();
        }
        self.evals.clear();
        self.marks.clear();
        self.marks_count = 0;
        self.comments = 0;
    }

    /// Whether no comment was pushed (then write no record).
    pub fn is_empty(&self) -> bool {
        self.comments == 0
    }

    /// Number of comments pushed.
    pub fn len(&self) -> u64 {
        self.comments
    }

    /// Whether [`GameCommands::push`] would take a comment for `anchor`
    /// (anchors must increase).
    pub fn accepts(&self, anchor: u64) -> bool {
        self.place.accepts(anchor)
    }

    /// Records `c` as the comment right after anchor `anchor`. Returns
    /// false, recording nothing, if `anchor` is not above the previous
    /// one's, `c` has no command, or the game already has
    /// [`MAX_TEMPLATES`] other templates: the caller then writes the
    /// comment as text.
    pub fn push(&mut self, anchor: u64, c: &TypedComment) -> bool {
        if !self.accepts(anchor) || c.pieces.iter().all(|p| matches!(p, Piece::Space(..))) {
            return false;
        }
        self.scratch.clear();
        c.template(&mut self.scratch);
        let mut start = 0;
        let mut found = None;
        for (i, &end) in self.template_ends.iter().enumerate() {
            if self.templates[start..end] == self.scratch[..] {
                found = Some(i as u32);
                break;
            }
            start = end;
        }
        let t = match found {
            Some(t) => t,
            None if self.template_ends.len() >= MAX_TEMPLATES => return false,
            None => {
                self.templates.extend_from_slice(&self.scratch);
                self.template_ends.push(self.templates.len());
                (self.template_ends.len() - 1) as u32
            }
        };
        self.place.push(anchor, t);
        for part in c.parts() {
            match part {
                TypedPart::Space(_) => {}
                TypedPart::Command(_, TypedCommand::Time(k, clock, _)) => {
                    self.clocks[k as usize].push(clock)
                }
                TypedPart::Command(_, TypedCommand::Eval(e, _)) => self.evals.push(e),
                TypedPart::Command(_, TypedCommand::Arrows(a)) => {
                    put_varint(&mut self.marks, (a.len() as u64) << 1 | 1);
                    for x in a {
                        self.marks.push((x.colour as u8) << 6 | x.from as u8);
                        self.marks.push(x.to as u8);
                    }
                    self.marks_count += 1;
                }
                TypedPart::Command(_, TypedCommand::Squares(a)) => {
                    put_varint(&mut self.marks, (a.len() as u64) << 1);
                    for x in a {
                        self.marks.push((x.colour as u8) << 6 | x.square as u8);
                    }
                    self.marks_count += 1;
                }
            }
        }
        self.comments += 1;
        true
    }

    /// Appends the record payload (`spec/extensions-commands.md`).
    pub fn to_payload(&self, out: &mut Vec<u8>) {
        put_varint(out, self.template_ends.len() as u64);
        out.extend_from_slice(&self.templates);
        self.place.write(out, self.template_ends.len());
        let mut mask = 0;
        for (i, c) in self.clocks.iter().enumerate() {
            if !c.is_empty() {
                mask |= 1 << i;
            }
        }
        if !self.evals.is_empty() {
            mask |= COL_EVAL;
        }
        if self.marks_count > 0 {
            mask |= COL_MARKS;
        }
        out.push(mask);
        for c in self.clocks.iter().filter(|c| !c.is_empty()) {
            c.to_payload(out);
        }
        if !self.evals.is_empty() {
            self.evals.to_payload(out);
        }
        if self.marks_count > 0 {
            put_varint(out, self.marks_count);
            out.extend_from_slice(&self.marks);
        }
    }
}

/// A template piece after reading.
#[derive(Debug, Clone, Copy)]
enum TPiece {
    Space(u32, u32),
    Time(Separator, TimeKind, ClockFormat),
    Eval(Separator, EvalFormat),
    Arrows(Separator),
    Squares(Separator),
}

/// Reads a commands record and hands out the typed comment of each anchor
/// (see [`GameCommands`]) in game order. Everything is checked by
/// [`GameCommandsReader::load`], so handing comments out cannot fail
/// afterwards.
///
/// One reader serves a whole file: [`GameCommandsReader::load`] reuses its
/// buffers, so that reading the records of many games allocates nothing
/// once the buffers have grown.
#[derive(Debug, Clone, Default)]
pub struct GameCommandsReader {
    pieces: Vec<TPiece>,
    /// End index in `pieces` of each template.
    template_ends: Vec<usize>,
    /// Per template, how many values of each column one comment uses.
    uses: Vec<[u64; 7]>,
    space: Vec<u8>,
    place: Placement,
    clocks: [Vec<u64>; 4],
    evals: Vec<Eval>,
    arrows: Vec<Arrow>,
    /// End index in `arrows` of each `[%cal]` list.
    arrow_ends: Vec<u32>,
    squares: Vec<SquareMark>,
    /// End index in `squares` of each `[%csl]` list.
    square_ends: Vec<u32>,
    // Cursors.
    clock_at: [usize; 4],
    eval_at: usize,
    arrows_at: usize,
    squares_at: usize,
    scratch: TypedComment,
    /// [`GameCommandsReader::check`] remembers the template section of the
    /// last payload it took (its bytes, and the values of each column one
    /// comment uses): a payload that begins with the same bytes has the
    /// same templates.
    check_head: Vec<u8>,
    check_uses: Vec<[u64; 7]>,
}

impl GameCommandsReader {
    /// An empty reader (it holds no comment until a payload is loaded).
    pub fn new() -> GameCommandsReader {
        GameCommandsReader::default()
    }

    /// Reads and checks a payload written by [`GameCommands::to_payload`].
    ///
    /// # Errors
    /// As [`GameCommandsReader::load`].
    pub fn from_payload(payload: &[u8]) -> Result<GameCommandsReader, PayloadError> {
        let mut g = GameCommandsReader::default();
        g.load(payload)?;
        Ok(g)
    }

    /// Forgets the record read last (the reader then holds no comment),
    /// keeping the buffers.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.template_ends.clear();
        self.uses.clear();
        self.space.clear();
        self.place.clear();
        for c in &mut self.clocks {
            c.clear();
        }
        self.evals.clear();
        self.arrows.clear();
        self.arrow_ends.clear();
        self.squares.clear();
        self.square_ends.clear();
        self.clock_at = [0; 4];
        self.eval_at = 0;
        self.arrows_at = 0;
        self.squares_at = 0;
    }

    /// Reads and checks a payload written by [`GameCommands::to_payload`]
    /// in place of the record read before, reusing the buffers. On error
    /// the reader holds no comment.
    ///
    /// # Errors
    /// A [`PayloadError`] at the payload byte where the bytes end early or
    /// run on, a tag or format byte is unknown, a count exceeds the bytes
    /// left (nothing is allocated that the payload does not justify), or the
    /// columns do not hold exactly the values the templates need.
    pub fn load(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        self.clear();
        let r = self.read(payload, true);
        if r.is_err() {
            self.clear();
        }
        r
    }

    /// Checks a payload as [`GameCommandsReader::load`] does (the same
    /// errors), without keeping the column values: the reader then holds
    /// no comment.
    ///
    /// # Errors
    /// As [`GameCommandsReader::load`].
    pub(crate) fn check(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        self.clear();
        let r = self.read(payload, false);
        self.clear();
        r
    }

    /// Reads a payload; the column values are kept only with `keep`.
    fn read(&mut self, payload: &[u8], keep: bool) -> Result<(), PayloadError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let g = self;
        // Templates.
        let t;
        if !keep && !g.check_head.is_empty() && payload.starts_with(&g.check_head) {
            r.pos = g.check_head.len();
            g.uses.extend_from_slice(&g.check_uses);
            t = g.check_uses.len();
        } else {
            let at = r.pos;
            t = r.count(1, "a template count")?;
            if t == 0 {
                return Err(r.err_at(at, "at least one template", Found::Value(0)));
            }
            for _ in 0..t {
                let n = r.count(1, "a template's piece count")?;
                let mut u = [0u64; 7];
                for _ in 0..n {
                    let at = r.pos;
                    let tag = r.byte("a template piece tag")?;
                    let bad_tag = |r: &Bytes<'_>| {
                        r.err_at(
                            at,
                            "a template piece tag (0x00, 0x01, or 0x02-0x08 with a separator 0-2 in bits 4-5)",
                            Found::Byte(tag),
                        )
                    };
                    let sep = match tag {
                        T_WHITESPACE | T_SPACE => Separator::Space,
                        _ => Separator::from_code(tag >> 4).ok_or_else(|| bad_tag(&r))?,
                    };
                    let low = match tag & 0x0f {
                        _ if tag <= T_SPACE => tag,
                        l if l > T_SPACE => l,
                        _ => 0xff,
                    };
                    let p = match low {
                        T_WHITESPACE | T_SPACE => {
                            let s = if tag == T_SPACE {
                                b" "
                            } else {
                                r.take_len("template whitespace")?
                            };
                            if let Some(i) = s
                                .iter()
                                .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                            {
                                let at = r.pos - s.len() + i;
                                return Err(r.err_at(at, "whitespace", Found::Byte(s[i])));
                            }
                            if s.is_empty() {
                                return Err(r.err_at(
                                    at + 1,
                                    "a whitespace length of 1 or more",
                                    Found::Value(0),
                                ));
                            }
                            let a = g.space.len() as u32;
                            g.space.extend_from_slice(s);
                            TPiece::Space(a, g.space.len() as u32)
                        }
                        0x02..=0x05 => {
                            let k = TimeKind::ALL[usize::from((tag & 0x0f) - T_CLK)];
                            let at = r.pos;
                            let b = r.byte("a clock format byte")?;
                            let f = ClockFormat::from_byte(b).ok_or_else(|| {
                                r.err_at(
                                    at,
                                    "a clock format byte (hour width 1-9 in bits 2-5, bits 6-7 clear)",
                                    Found::Byte(b),
                                )
                            })?;
                            u[k as usize] += 1;
                            TPiece::Time(sep, k, f)
                        }
                        T_EVAL => {
                            let at = r.pos;
                            let b = r.byte("an eval format byte")?;
                            let f = EvalFormat::from_byte(b).ok_or_else(|| {
                                r.err_at(at, "an eval format byte (bits 3-7 clear)", Found::Byte(b))
                            })?;
                            u[4] += 1;
                            TPiece::Eval(sep, f)
                        }
                        T_CAL => {
                            u[5] += 1;
                            TPiece::Arrows(sep)
                        }
                        T_CSL => {
                            u[6] += 1;
                            TPiece::Squares(sep)
                        }
                        _ => return Err(bad_tag(&r)),
                    };
                    g.pieces.push(p);
                }
                if u.iter().all(|&x| x == 0) {
                    return Err(r.err_at(
                        r.pos.saturating_sub(1),
                        "a template with at least one command",
                        Found::Value(n as u64),
                    ));
                }
                g.template_ends.push(g.pieces.len());
                g.uses.push(u);
            }
            if !keep {
                g.check_head.clear();
                g.check_head
                    .extend_from_slice(payload.get(..r.pos).unwrap_or_default());
                g.check_uses.clear();
                g.check_uses.extend_from_slice(&g.uses);
            }
        }
        // Placement and template runs.
        g.place.read(&mut r, t)?;
        // What the columns must hold.
        let mut need = [0u64; 7];
        for &(ti, k) in g.place.template_runs() {
            for (n, u) in need.iter_mut().zip(g.uses[ti as usize]) {
                *n = u
                    .checked_mul(k)
                    .and_then(|x| n.checked_add(x))
                    .ok_or_else(|| {
                        r.err_at(
                            r.pos,
                            "at most 2^64 - 1 values in a column",
                            Found::Value(k),
                        )
                    })?;
            }
        }
        let at = r.pos;
        let mask = r.byte("the column mask")?;
        let want_mask = need[..6]
            .iter()
            .enumerate()
            .fold(0u8, |m, (i, &n)| if n > 0 { m | 1 << i } else { m })
            | if need[6] > 0 { COL_MARKS } else { 0 };
        if mask != want_mask {
            return Err(r.err_at(
                at,
                "the column mask the templates call for",
                Found::Byte(mask),
            ));
        }
        for (slot, &n) in g.clocks.iter_mut().zip(&need[..4]) {
            if n > 0 {
                let at = r.pos;
                let len = if keep {
                    read_clocks(&mut r, slot)?;
                    slot.len()
                } else {
                    check_clocks(&mut r)?
                };
                if len as u64 != n {
                    return Err(r.err_at(
                        at,
                        "a clock count equal to the templates' clock commands",
                        Found::Value(len as u64),
                    ));
                }
            }
        }
        if need[4] > 0 {
            let at = r.pos;
            let len = if keep {
                read_evals(&mut r, &mut g.evals)?;
                g.evals.len()
            } else {
                check_evals(&mut r)?
            };
            if len as u64 != need[4] {
                return Err(r.err_at(
                    at,
                    "an eval count equal to the templates' eval commands",
                    Found::Value(len as u64),
                ));
            }
        }
        if mask & COL_MARKS != 0 {
            let at = r.pos;
            let n = r.count(1, "a mark list count")?;
            if n as u64 != need[5].saturating_add(need[6]) {
                return Err(r.err_at(
                    at,
                    "a mark list count equal to the templates' cal and csl commands",
                    Found::Value(n as u64),
                ));
            }
            // Lists of each kind, counted (`keep` or not).
            let (mut arrow_lists, mut square_lists) = (0u64, 0u64);
            for _ in 0..n {
                let at = r.pos;
                let h = r.u64("a mark list header")?;
                let k = usize::try_from(h >> 1)
                    .map_err(|_| r.err_at(at, "a mark list length", Found::Value(h)))?;
                if h & 1 == 1 {
                    let b = r.take(k.saturating_mul(2), "the squares of the arrows")?;
                    arrow_lists += 1;
                    if keep {
                        g.arrows.extend(b.chunks_exact(2).map(|x| Arrow {
                            colour: MarkColour::from_code(x[0] >> 6),
                            from: Square::new(u32::from(x[0] & 63)),
                            to: Square::new(u32::from(x[1] & 63)),
                        }));
                        g.arrow_ends.push(g.arrows.len() as u32);
                    }
                } else {
                    let b = r.take(k, "the squares of the marks")?;
                    square_lists += 1;
                    if keep {
                        g.squares.extend(b.iter().map(|&x| SquareMark {
                            colour: MarkColour::from_code(x >> 6),
                            square: Square::new(u32::from(x & 63)),
                        }));
                        g.square_ends.push(g.squares.len() as u32);
                    }
                }
            }
            if arrow_lists != need[5] || square_lists != need[6] {
                return Err(r.err_at(
                    at,
                    "as many arrow and square lists as the templates' cal and csl commands",
                    Found::Value(arrow_lists),
                ));
            }
        }
        if r.pos != payload.len() {
            return Err(r.err_at(
                r.pos,
                "the end of the payload after the last column",
                Found::Trailing(payload.len() - r.pos),
            ));
        }
        Ok(())
    }

    /// The number of typed comments in the record.
    pub fn len(&self) -> u64 {
        self.place.comments()
    }

    /// Whether the record holds no comment (never true after a successful
    /// [`GameCommandsReader::load`]).
    pub fn is_empty(&self) -> bool {
        self.place.is_empty()
    }

    /// Whether anchor `anchor` carries a typed comment.
    pub fn has_comment_at(&self, anchor: u64) -> bool {
        self.place.has_comment_at(anchor)
    }

    /// The typed comment after anchor `anchor` into `out`, if it has one.
    /// Call it for anchors in increasing order (every anchor, or only some):
    /// the reader keeps cursors and never goes back.
    pub fn typed_at(&mut self, anchor: u64, out: &mut TypedComment) -> bool {
        let Some(ordinal) = self.place.comment_at(anchor) else {
            return false;
        };
        // Comments of anchors the caller did not ask for still use values.
        while self.place.consumed() < ordinal {
            let mut skip = std::mem::take(&mut self.scratch);
            self.take_next(&mut skip);
            self.scratch = skip;
        }
        self.take_next(out)
    }

    /// Calls `f` with the typed comment after anchor `anchor`, if it has
    /// one (in a buffer the reader keeps). Same order rule as
    /// [`GameCommandsReader::typed_at`].
    pub fn with_typed_at<T>(
        &mut self,
        anchor: u64,
        f: impl FnOnce(&TypedComment) -> T,
    ) -> Option<T> {
        let mut c = std::mem::take(&mut self.scratch);
        let r = self.typed_at(anchor, &mut c).then(|| f(&c));
        self.scratch = c;
        r
    }

    /// The next comment in record order.
    fn take_next(&mut self, out: &mut TypedComment) -> bool {
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
                TPiece::Space(a, b) => out.push_space(&self.space[a as usize..b as usize]),
                TPiece::Time(sep, k, f) => {
                    let v = self.clocks[k as usize]
                        .get(self.clock_at[k as usize])
                        .copied()
                        .unwrap_or(0);
                    self.clock_at[k as usize] += 1;
                    out.push_time(sep, k, Clock { millis: v }, f);
                }
                TPiece::Eval(sep, f) => {
                    let e = self
                        .evals
                        .get(self.eval_at)
                        .copied()
                        .unwrap_or(Eval::Centipawns(0));
                    self.eval_at += 1;
                    out.push_eval(sep, e, f);
                }
                TPiece::Arrows(sep) => {
                    let i = self.arrows_at;
                    let a = list(&self.arrows, &self.arrow_ends, i);
                    self.arrows_at += 1;
                    out.push_arrows(sep, a.iter().copied().map(Some));
                }
                TPiece::Squares(sep) => {
                    let i = self.squares_at;
                    let a = list(&self.squares, &self.square_ends, i);
                    self.squares_at += 1;
                    out.push_squares(sep, a.iter().copied().map(Some));
                }
            }
        }
        true
    }
}

/// List `i` of a flat column with end indices.
fn list<'a, T>(items: &'a [T], ends: &[u32], i: usize) -> &'a [T] {
    let start = if i == 0 {
        0
    } else {
        ends.get(i - 1).map_or(0, |&e| e as usize)
    };
    let end = ends.get(i).map_or(start, |&e| e as usize);
    items.get(start..end).unwrap_or_default()
}
