//! The PGN export writer (sections 3.2 and 8 of the 1994 standard), driven
//! token by token.
//!
//! It is a pure formatter over a `Vec<u8>`: it knows nothing of chess. The
//! PGC → PGN decoder feeds it moves from the ordinal table; the PGN → PGC
//! encoder feeds it each token as it reads it, reading the [`Layout`] facts
//! from the text as the writer first needs them (the line width is fitted
//! by the writer itself, [`WidthFit`]), and compares the rendering with
//! the text once, at the game's end: the layout, and a text patch where
//! they differ, are what must be stored for a byte-identical round trip.
//!
//! Rules, with the layout's defaults:
//! - tags `[Name "value"]`, one per line, `\` and `"` escaped (8.1.1), a
//!   newline in a value (only a PGC from elsewhere holds one) written as a
//!   space, then an empty line;
//! - movetext tokens separated by one space, a new line before a token that
//!   would make the line longer than `width` (79: "less than 80", 8.2.1),
//!   and after a comment before the game's first move where the line would
//!   be longer than 79, whatever the width; a comment right after a move
//!   stays on the move's line when the layout says so (`comment_glued`);
//! - `N.` before every white move, `N...` before a black move that starts the
//!   movetext or a variation or follows a comment, NAG or variation (8.2.2.2;
//!   after a comment or a NAG as the layout says);
//! - a comment is one token `{text}` with its text exactly as stored; line
//!   breaks inside it are its own (a long comment is never re-wrapped, so
//!   comment text survives any number of round trips unchanged);
//! - a `;` comment ends its line; a `%` escape line stands on its own line;
//! - after the last token, `trailer` newlines (2: end of line, empty line).

use crate::layout::Layout;
use pgc_core::record::is_tag_line_break;

/// Formats PGN export text into a buffer.
///
/// Tokens are collected into *words* (a `(` glues to the token after it, a
/// `)` or a suffix glyph to the token before it); the line-break decision is
/// made for a whole word, as a greedy writer that sees `g4#)` would.
#[derive(Debug, Clone)]
pub struct ExportWriter {
    layout: Layout,
    /// Bytes on the current line (movetext only), not counting `word`.
    col: usize,
    /// The word being built.
    word: Vec<u8>,
    /// The next token glues onto `word` (after a `(`).
    glue_next: bool,
    /// `word` holds a comment, which may span lines.
    word_lines: bool,
    /// The last token was a white move (a black reply may join its word).
    after_white: bool,
    /// The next black move needs `N...`.
    black_number: bool,
    /// A comment stood since the last move: the next black move needs
    /// `N...` when the layout says numbers follow comments.
    after_comment: bool,
    /// A NAG stood since the last move: the next black move needs `N...`
    /// when the layout says numbers follow NAGs.
    after_nag: bool,
    /// A move was written in the game (a move after it may start its own
    /// line).
    moved: bool,
    /// Tags were written (an empty line separates them from the movetext).
    tags: bool,
    /// `word` ends with a move (its number, a glyph or the black reply
    /// may stand before or after it in the word).
    word_is_move: bool,
    /// `word` is a comment right after a move (its line break is the
    /// layout's `comment_glued`).
    word_after_move: bool,
    /// The line width fitted to a text while it is rendered (encoder only).
    fit: WidthFit,
}

/// Fits the line width to a text while the writer renders it: the encoder
/// says, before each token, whether the text broke the line before it
/// ([`ExportWriter::text_breaks_before`]). Where the writer decides a
/// word's separator, it follows the text as long as one width gives every
/// decision so far: the widths from the longest line kept whole (`lo`) to
/// one less than the shortest line the text broke (`hi`). Beside it, the
/// thresholds of the layout's `overrun` (a word starts a new line once the
/// line holds that many bytes): from one more than the longest line kept
/// going (`over_lo`) to the shortest line broken (`over_hi`). When no width
/// gives the text's decisions but a threshold does, the writer follows the
/// threshold. Past both, the width (or threshold) is fixed (79, else 80,
/// else `lo`; 72, else `over_lo`) and the writer follows it. Off in the
/// decoder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WidthFit {
    on: bool,
    /// The width is fixed (the text's line breaks need no single width).
    frozen: bool,
    /// The longest line the text kept whole so far.
    lo: usize,
    /// The widest width that breaks every line the text broke so far.
    hi: usize,
    /// The least `overrun` threshold that keeps going every line the text
    /// kept going so far.
    over_lo: usize,
    /// The greatest `overrun` threshold that breaks every line the text
    /// broke so far.
    over_hi: usize,
    /// No `overrun` threshold gives the text's decisions.
    over_dead: bool,
    /// The text broke the line before the next token.
    break_next: bool,
    /// The text broke the line before the word being built.
    break_word: bool,
    /// The text broke the line between a move number and its move.
    break_after_number: bool,
    /// The last word written held a line end (a comment of several lines),
    /// or was a comment before the game's first move: a line break after it
    /// tells little of the width.
    after_lines: bool,
    /// The last word written was a comment before the game's first move.
    before_moves: bool,
    /// The text broke the line before a comment right after a move: the
    /// layout's `comment_glued` stays unset.
    broke_after_move: bool,
}

impl WidthFit {
    const START: WidthFit = WidthFit {
        on: false,
        frozen: false,
        lo: 0,
        hi: usize::MAX,
        over_lo: 0,
        over_hi: usize::MAX,
        over_dead: false,
        break_next: false,
        break_word: false,
        break_after_number: false,
        after_lines: false,
        before_moves: false,
        broke_after_move: false,
    };

    /// The width to store for the range `lo..=hi`: the export width when
    /// it is in it, else 80 (ChessBase), else the longest line.
    fn pick(&self) -> usize {
        let ok = |w: usize| self.lo <= w && w <= self.hi;
        if ok(EXPORT_WIDTH) {
            EXPORT_WIDTH
        } else if ok(EXPORT_WIDTH + 1) {
            EXPORT_WIDTH + 1
        } else if self.lo > 0 {
            self.lo
        } else {
            self.hi
        }
    }

    /// The threshold to store for `over_lo..=over_hi`: 72 when it is in
    /// it (ChessBase), else the least.
    fn pick_over(&self) -> usize {
        if self.over_lo <= OVERRUN_WIDTH && OVERRUN_WIDTH <= self.over_hi {
            OVERRUN_WIDTH
        } else {
            self.over_lo
        }
    }
}

/// The `overrun` threshold ChessBase's exports break at.
const OVERRUN_WIDTH: usize = 72;

/// The export width: lines of less than 80 characters (8.2.1).
const EXPORT_WIDTH: usize = 79;

const GLYPHS: [&[u8]; 7] = [b"", b"!", b"?", b"!!", b"??", b"!?", b"?!"];

impl Default for ExportWriter {
    fn default() -> Self {
        ExportWriter::new()
    }
}

impl ExportWriter {
    /// A writer in the export layout.
    pub fn new() -> ExportWriter {
        ExportWriter {
            layout: Layout::EXPORT,
            col: 0,
            word: Vec::with_capacity(64),
            glue_next: false,
            word_lines: false,
            after_white: false,
            black_number: true,
            after_comment: false,
            after_nag: false,
            moved: false,
            tags: false,
            word_is_move: false,
            word_after_move: false,
            fit: WidthFit::START,
        }
    }

    /// The layout of the current game.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Starts a game in `layout`.
    pub fn begin_game(&mut self, out: &mut Vec<u8>, layout: Layout) {
        self.layout = layout;
        self.col = 0;
        self.word.clear();
        self.glue_next = false;
        self.word_lines = false;
        self.after_white = false;
        self.black_number = true;
        self.after_comment = false;
        self.after_nag = false;
        self.moved = false;
        self.tags = false;
        self.word_is_move = false;
        self.word_after_move = false;
        self.fit = WidthFit {
            on: self.fit.on,
            ..WidthFit::START
        };
        if layout.bom {
            out.extend_from_slice(b"\xef\xbb\xbf");
        }
    }

    /// Changes the layout before anything of the game is written (a LAYOUT
    /// record read after the game began).
    pub fn set_layout(&mut self, out: &mut Vec<u8>, layout: Layout) {
        if layout.bom && !self.layout.bom {
            out.extend_from_slice(b"\xef\xbb\xbf");
        }
        self.layout = layout;
    }

    /// A tag pair; `value` is unescaped (as stored in PGC). A newline in
    /// `value` (see `escape_into`) is written as a space; returns whether
    /// there was one.
    pub fn tag(&mut self, out: &mut Vec<u8>, name: &[u8], value: &[u8]) -> bool {
        out.push(b'[');
        out.extend_from_slice(name);
        out.extend_from_slice(b" \"");
        let replaced = escape_into(out, value);
        out.extend_from_slice(b"\"]");
        out.extend_from_slice(self.layout.newline());
        self.tags = true;
        replaced > 0
    }

    /// Ends the tag section (writes the empty line if there were tags).
    pub fn begin_movetext(&mut self, out: &mut Vec<u8>) {
        if self.tags {
            out.extend_from_slice(self.layout.newline());
        }
        if self.layout.lead_space {
            // Not counted: the first token needs no separator after it.
            out.push(b' ');
        }
        self.black_number = true;
    }

    /// Writes the pending word, on this line or the next.
    #[inline]
    fn flush_word(&mut self, out: &mut Vec<u8>) {
        if self.word.is_empty() {
            return;
        }
        if self.word_lines || self.fit.on || self.fit.before_moves || self.word_after_move {
            return self.flush_word_fitted(out);
        }
        // A word on one line, no width being fitted: a space before it, or
        // a line end where the width says so.
        let len = self.word.len();
        if self.col > 0 {
            self.separate(out, self.wraps(self.col + 1 + len));
        }
        put(out, &self.word);
        self.col += len;
        self.fit.before_moves = !self.moved && self.word[0] == b'{';
        self.fit.after_lines = self.fit.before_moves;
        self.word.clear();
        self.word_is_move = false;
    }

    /// Before a word on a line that holds something: a line end
    /// (`wrap`) or a space.
    #[inline(always)]
    fn separate(&mut self, out: &mut Vec<u8>, wrap: bool) {
        if wrap {
            out.extend_from_slice(self.layout.newline());
            self.col = 0;
        } else {
            out.push(b' ');
            self.col += 1;
        }
    }

    /// [`Self::flush_word`] for a word that may span lines, may be glued to
    /// its move or follow a comment before the first move, or while the
    /// width is fitted to a text.
    #[inline(never)]
    fn flush_word_fitted(&mut self, out: &mut Vec<u8>) {
        let first = if !self.word_lines {
            self.word.len()
        } else if self.line_end_byte() == b'\r' {
            // Classic Mac OS text: a CR alone ends a comment's lines.
            memchr::memchr(b'\r', &self.word).unwrap_or(self.word.len())
        } else {
            memchr::memchr(b'\n', &self.word).map_or(self.word.len(), |i| {
                if i > 0 && self.word[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                }
            })
        };
        if self.col > 0 {
            let need = self.col + 1 + first;
            // After a comment before the game's first move, a line longer
            // than the export width always breaks, whatever the layout's
            // width (TCEC writes its engines' options there, on a line of
            // hundreds of bytes, above movetext it wraps or not): no
            // decision of the width.
            let forced = self.fit.before_moves && need > EXPORT_WIDTH;
            let glued = self.word_after_move && self.comment_glued(need);
            if self.fit.on && !forced && !glued {
                self.fit_width(need, self.fit.break_word);
            }
            self.separate(out, forced || (!glued && self.wraps(need)));
        }
        put(out, &self.word);
        let last = if self.word_lines {
            memchr::memrchr(self.line_end_byte(), &self.word)
        } else {
            None
        };
        match last {
            Some(i) => self.col = self.word.len() - i - 1,
            None => self.col += self.word.len(),
        }
        self.fit.before_moves = !self.moved && self.word.first() == Some(&b'{');
        self.fit.after_lines = last.is_some() || self.fit.before_moves;
        self.word.clear();
        self.word_lines = false;
        self.word_is_move = false;
        self.word_after_move = false;
    }

    /// Whether a comment right after a move, on a line `need` bytes long
    /// with it, stays on the move's line: the layout's `comment_glued`.
    /// Fitting a text, it is set at the first such comment the text keeps
    /// on its move's line where no width fitted so far would (TCEC), unless
    /// the text broke the line before such a comment earlier; a text that
    /// breaks there leaves it unset.
    fn comment_glued(&mut self, need: usize) -> bool {
        if self.layout.comment_glued || !self.fit.on {
            return self.layout.comment_glued;
        }
        if self.fit.break_word {
            self.fit.broke_after_move = true;
        } else if !self.fit.broke_after_move && self.fit_wraps(need) {
            self.layout.comment_glued = true;
        }
        self.layout.comment_glued
    }

    /// Starts a new word with `t` (or glues it after a `(`).
    fn token(&mut self, out: &mut Vec<u8>, t: &[u8]) {
        self.after_white = false;
        if !self.glue_next {
            self.flush_word(out);
            self.fit.break_word = self.fit.break_next;
        }
        self.glue_next = false;
        put(&mut self.word, t);
        self.word_is_move = false;
    }

    /// A move: `number` is the fullmove number, `white` the side that moved,
    /// `san` the SAN with any `+`/`#`.
    pub fn san(&mut self, out: &mut Vec<u8>, number: u32, white: bool, san: &[u8]) {
        let mut plus = [0u8; 16];
        let san = match san.split_last() {
            Some((b'#', body)) if self.layout.mate_as_check && san.len() <= plus.len() => {
                plus[..body.len()].copy_from_slice(body);
                plus[body.len()] = b'+';
                &plus[..san.len()]
            }
            _ => san,
        };
        // One ply (or one move pair) per line: a move after the game's
        // first starts a line.
        let own_line = self.layout.ply_per_line || (white && self.layout.move_per_line);
        if own_line && self.moved && self.number_within_line() {
            self.move_line(out);
        }
        if self.numbers(white) {
            let mut buf = [0u8; 16];
            let mut n = write_u32(&mut buf, number);
            let dots = if white { 1 } else { 3 };
            buf[n..n + 3].copy_from_slice(b"...");
            n += dots;
            self.token(out, &buf[..n]);
            self.fit.break_next = self.fit.break_after_number;
            if self.layout.glued_numbers {
                // `1.e4`: the move joins its number's word.
                self.glue_next = true;
            }
        }
        if !white
            && self.after_white
            && self.layout.pair_words
            && !self.layout.ply_per_line
            && !self.word.is_empty()
        {
            // The reply joins the white move's word.
            self.word.push(b' ');
            put(&mut self.word, san);
        } else {
            self.token(out, san);
        }
        self.after_white = white;
        self.black_number = false;
        self.after_comment = false;
        self.after_nag = false;
        self.moved = true;
        self.word_is_move = true;
    }

    /// Ends the line before a move that starts its own (`ply_per_line`,
    /// `move_per_line`, after the game's first move), after the layout's
    /// `line_end_spaces`.
    fn move_line(&mut self, out: &mut Vec<u8>) {
        self.flush_word(out);
        for _ in 0..self.layout.line_end_spaces {
            out.push(b' ');
        }
        out.extend_from_slice(self.layout.newline());
        self.col = 0;
    }

    /// Whether a move (or its number) written now would not start its line
    /// (where `ply_per_line` and `move_per_line` start a new one).
    pub(crate) fn number_within_line(&self) -> bool {
        self.col + self.word.len() > 0 && !self.glue_next
    }

    /// Whether the word not yet written is a comment on one line.
    pub(crate) fn word_is_one_line_comment(&self) -> bool {
        self.word.first() == Some(&b'{')
            && memchr::memchr(self.line_end_byte(), &self.word).is_none()
    }

    /// The byte that ends a line of the layout's text (the last of its
    /// newline): LF (also of CR LF), or CR in classic Mac OS text.
    fn line_end_byte(&self) -> u8 {
        self.layout.newline().last().copied().unwrap_or(b'\n')
    }

    /// Whether a move by White (`white`) or Black gets its move number
    /// here (8.2.2.2).
    pub(crate) fn numbers(&self, white: bool) -> bool {
        white
            || self.black_number
            || (self.after_comment && self.layout.number_after_comment)
            || (self.after_nag && self.layout.number_after_nag)
    }

    /// Whether the number of a black move here depends on the layout's
    /// `number_after_comment`.
    pub(crate) fn black_after_comment(&self) -> bool {
        self.after_comment && !self.black_number
    }

    /// Whether the number of a black move here may depend on the layout's
    /// `number_after_nag`: a NAG, and no variation, since the white move
    /// (a comment after it may number the move by its own rule).
    pub(crate) fn black_after_nag(&self) -> bool {
        self.after_nag && !self.black_number
    }

    /// A NAG (`$n`, or a glyph glued to the move when the layout says so).
    pub fn nag(&mut self, out: &mut Vec<u8>, nag: u32) {
        match GLYPHS.get(nag as usize) {
            Some(g) if self.layout.glyphs && !g.is_empty() && !self.word.is_empty() => {
                put(&mut self.word, g);
            }
            _ => {
                let mut buf = [0u8; 16];
                buf[0] = b'$';
                let n = 1 + write_u32(&mut buf[1..], nag);
                self.token(out, &buf[..n]);
            }
        }
        self.after_nag = true;
    }

    /// A brace comment with its text exactly as stored.
    pub fn comment(&mut self, out: &mut Vec<u8>, text: &[u8]) {
        self.after_white = false;
        if !self.glue_next {
            let after_move = self.word_is_move;
            self.flush_word(out);
            self.fit.break_word = self.fit.break_next;
            self.word_after_move = after_move;
        }
        self.glue_next = false;
        self.word_lines = true;
        self.word.push(b'{');
        self.word.extend_from_slice(text);
        self.word.push(b'}');
        self.after_comment = true;
    }

    /// A `;` comment: it runs to the end of the line.
    pub fn line_comment(&mut self, out: &mut Vec<u8>, text: &[u8]) {
        self.token(out, b";");
        self.word.extend_from_slice(text);
        self.flush_word(out);
        out.extend_from_slice(self.layout.newline());
        self.col = 0;
        self.black_number = true;
    }

    /// A `%` escape line (section 6): always at the start of a line.
    pub fn escape_line(&mut self, out: &mut Vec<u8>, text: &[u8]) {
        self.after_white = false;
        self.flush_word(out);
        if self.col > 0 {
            out.extend_from_slice(self.layout.newline());
        }
        out.push(b'%');
        out.extend_from_slice(text);
        out.extend_from_slice(self.layout.newline());
        self.col = 0;
        self.black_number = true;
    }

    /// Text the reader could not parse, written back as it was: on a line of
    /// its own in the tag section, as a token in the movetext.
    pub fn junk(&mut self, out: &mut Vec<u8>, raw: &[u8], in_movetext: bool) {
        if in_movetext {
            self.token(out, raw);
        } else {
            out.extend_from_slice(raw);
            out.extend_from_slice(self.layout.newline());
        }
    }

    /// `(`: glued to the token after it.
    pub fn begin_variation(&mut self, out: &mut Vec<u8>) {
        self.token(out, b"(");
        self.glue_next = true;
        self.black_number = true;
    }

    /// `)`: glued to the token before it.
    pub fn end_variation(&mut self, out: &mut Vec<u8>) {
        if self.word.is_empty() || self.glue_next {
            self.token(out, b")");
        } else {
            self.word.push(b')');
            self.word_is_move = false;
        }
        self.black_number = true;
    }

    /// The termination marker (nothing for a missing one).
    pub fn outcome(&mut self, out: &mut Vec<u8>, marker: &[u8]) {
        if marker.is_empty() {
            return;
        }
        if self.fit.on && !self.glue_next {
            self.fit_outcome(out, marker.len());
        }
        if (self.layout.result_nowrap || self.layout.result_gap) && !self.glue_next {
            self.flush_word(out);
            let gap: &[u8] = if self.layout.result_gap { b"  " } else { b" " };
            if self.fit.on && self.col > 0 && !self.layout.result_nowrap {
                self.fit_width(self.col + gap.len() + marker.len(), self.fit.break_next);
            }
            let fits =
                self.layout.result_nowrap || !self.wraps(self.col + gap.len() + marker.len());
            if self.col > 0 && fits {
                // On the last line (whatever its length when `result_nowrap`).
                out.extend_from_slice(gap);
                self.col += gap.len();
            } else if self.col > 0 {
                out.extend_from_slice(self.layout.newline());
                self.col = 0;
            }
            out.extend_from_slice(marker);
            self.col += marker.len();
        } else {
            self.token(out, marker);
        }
    }

    /// Fitting the width: before the termination marker, the word before it
    /// is written; a marker the text keeps on a line no width fitted so far
    /// keeps whole stays there (`result_nowrap`, as TWIC and ChessBase
    /// write it).
    fn fit_outcome(&mut self, out: &mut Vec<u8>, len: usize) {
        self.flush_word(out);
        let gap = if self.layout.result_gap { 2 } else { 1 };
        let f = &mut self.fit;
        if self.col > 0
            && f.break_next
            && !f.frozen
            && !self.layout.overrun
            && self.col + gap + len <= EXPORT_WIDTH
            && f.lo <= EXPORT_WIDTH
            && EXPORT_WIDTH <= f.hi
        {
            // A line break before the marker that the export width would
            // not make: following it would store a width for the last
            // decision of the game, where the text patch restores it for
            // less (Lichess studies write ` *` on a line of its own).
            f.break_next = false;
        }
        if self.col > 0 && !self.fit.break_next && self.fit_wraps(self.col + gap + len) {
            self.layout.result_nowrap = true;
        }
    }

    /// Whether the layout's width starts a new line before a word that
    /// would make the current line `need` bytes long (`overrun`: whether
    /// the line already holds `width` bytes or more).
    fn wraps(&self, need: usize) -> bool {
        let w = self.layout.width as usize;
        w > 0
            && if self.layout.overrun {
                self.col >= w
            } else {
                need > w
            }
    }

    /// Whether every width (or `overrun` threshold) the fitting allows
    /// starts a new line before a word that would make the current line
    /// `need` bytes long.
    fn fit_wraps(&self, need: usize) -> bool {
        if self.fit.frozen {
            self.wraps(need)
        } else if self.layout.overrun {
            self.col >= self.fit.over_hi
        } else {
            need > self.fit.hi
        }
    }

    /// Fitting the width: a word or marker would make the line `need`
    /// bytes long, and the text broke the line before it (`broke`) or not;
    /// sets the width the writer decides with.
    fn fit_width(&mut self, need: usize, broke: bool) {
        if self.fit.frozen {
            return;
        }
        // After a comment of several lines the line holds the comment's
        // last line, and a comment before the first move often stands on a
        // line of its own (early TCEC archives): a text that breaks there
        // where the export width would not (Lichess studies) says nothing
        // of its width, and the writer keeps the word on the line.
        let broke =
            broke && !(self.fit.after_lines && need <= EXPORT_WIDTH && !self.fit_wraps(need));
        let col = self.col;
        let f = &mut self.fit;
        // The thresholds, kept beside the widths until one of the two fails.
        if !f.over_dead {
            let consistent = if broke {
                col >= f.over_lo
            } else {
                col < f.over_hi
            };
            if !consistent {
                f.over_dead = true;
            } else if broke {
                f.over_hi = f.over_hi.min(col);
            } else {
                f.over_lo = f.over_lo.max(col + 1);
            }
        }
        let w = if self.layout.overrun {
            if f.over_dead {
                f.frozen = true;
                f.pick_over()
            } else {
                f.over_hi
            }
        } else {
            let consistent = if broke { need > f.lo } else { need <= f.hi };
            if consistent && broke {
                f.hi = f.hi.min(need - 1);
                f.hi
            } else if consistent {
                f.lo = f.lo.max(need);
                f.hi
            } else if !f.over_dead {
                self.layout.overrun = true;
                f.over_hi
            } else {
                f.frozen = true;
                f.pick()
            }
        };
        // `usize::MAX`: no line broken yet, no wrapping.
        self.layout.width = u32::try_from(w).unwrap_or(0);
    }

    /// Starts fitting the line width to a text (see [`WidthFit`]).
    pub(crate) fn fit_width_on(&mut self) {
        self.fit.on = true;
    }

    /// Whether the text broke the line before the next token, and, for a
    /// move, between its number and the move.
    pub(crate) fn text_breaks_before(&mut self, broke: bool, after_number: bool) {
        self.fit.break_next = broke;
        self.fit.break_after_number = after_number;
    }

    /// The layout, to change a fact before it is first used (the encoder
    /// reads them from the text as it is rendered).
    pub(crate) fn layout_mut(&mut self) -> &mut Layout {
        &mut self.layout
    }

    /// The width the fitting found: no wrapping (0) for a text that never
    /// broke a line the export width would have broken.
    pub(crate) fn fitted_width(&self) -> u32 {
        let f = &self.fit;
        if f.frozen {
            self.layout.width
        } else if self.layout.overrun {
            u32::try_from(f.pick_over()).unwrap_or(0)
        } else if f.hi == usize::MAX {
            if f.lo <= EXPORT_WIDTH {
                EXPORT_WIDTH as u32
            } else {
                0
            }
        } else {
            u32::try_from(f.pick()).unwrap_or(0)
        }
    }

    /// Ends the game with the layout's trailer of newlines (counted after
    /// whatever ended the last line, so a game ending in a `;` comment has one
    /// line end more than the trailer).
    pub fn end_game(&mut self, out: &mut Vec<u8>) {
        self.flush_word(out);
        for _ in 0..self.layout.trailer {
            out.extend_from_slice(self.layout.newline());
        }
        self.col = 0;
    }
}

/// Writes `n` in decimal at the start of `buf` (at least 10 bytes); returns the length.
fn write_u32(buf: &mut [u8], n: u32) -> usize {
    // Move numbers: one or two digits, written without a loop.
    if n < 10 {
        buf[0] = b'0' + n as u8;
        return 1;
    }
    if n < 100 {
        buf[0] = b'0' + (n / 10) as u8;
        buf[1] = b'0' + (n % 10) as u8;
        return 2;
    }
    // The digits written from the last, in place (no copy).
    let mut len = 1;
    let mut m = n / 10;
    while m > 0 {
        len += 1;
        m /= 10;
    }
    let mut n = n;
    for d in buf[..len].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    len
}

/// Appends `t` to `out`: a token of up to 8 bytes as a copy of fixed
/// length (a call to `memcpy` costs more than the copy for the few bytes of
/// a move or a number).
#[inline(always)]
fn put(out: &mut Vec<u8>, t: &[u8]) {
    // A copy of a known length is a few moves, not a call.
    match t.len() {
        0 => {}
        1 => out.push(t[0]),
        2 => put_n::<2>(out, t),
        3 => put_n::<3>(out, t),
        4 => put_n::<4>(out, t),
        5 => put_n::<5>(out, t),
        6 => put_n::<6>(out, t),
        7 => put_n::<7>(out, t),
        8 => put_n::<8>(out, t),
        _ => out.extend_from_slice(t),
    }
}

/// [`put`] for a token of `N` bytes.
#[inline(always)]
fn put_n<const N: usize>(out: &mut Vec<u8>, t: &[u8]) {
    if let Ok(a) = <&[u8; N]>::try_from(t) {
        out.extend_from_slice(a);
    }
}

/// Appends `value` as the inside of a PGN string: `\` and `"` escaped
/// (section 8.1.1), and a space in place of each newline, which a tag line
/// cannot hold ([`is_tag_line_break`]). Returns how many bytes were
/// replaced.
pub fn escape_into(out: &mut Vec<u8>, value: &[u8]) -> usize {
    // Most values need nothing: copied whole up to the first byte that does.
    let Some(first) = memchr::memchr3(b'\\', b'"', b'\n', value) else {
        out.extend_from_slice(value);
        return 0;
    };
    debug_assert!(value[..first].iter().all(|&b| !is_tag_line_break(b)));
    out.extend_from_slice(&value[..first]);
    let mut replaced = 0;
    for &b in &value[first..] {
        if b == b'\\' || b == b'"' {
            out.push(b'\\');
        }
        if is_tag_line_break(b) {
            out.push(b' ');
            replaced += 1;
        } else {
            out.push(b);
        }
    }
    replaced
}

/// Undoes [`escape_into`]: `\"` → `"`, `\\` → `\`; other backslashes stay.
pub fn unescape_into(out: &mut Vec<u8>, raw: &[u8]) {
    // Most values hold no backslash: copied whole up to the first one.
    let Some(mut i) = memchr::memchr(b'\\', raw) else {
        out.extend_from_slice(raw);
        return;
    };
    out.extend_from_slice(&raw[..i]);
    while i < raw.len() {
        let b = raw[i];
        if b == b'\\'
            && let Some(&n) = raw.get(i + 1)
            && (n == b'\\' || n == b'"')
        {
            out.push(n);
            i += 2;
            continue;
        }
        out.push(b);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_format_writes_them() {
        let mut buf = [0u8; 16];
        for n in (0..=1100).chain([9_999, 10_000, 123_456, u32::MAX]) {
            let len = write_u32(&mut buf, n);
            assert_eq!(&buf[..len], n.to_string().as_bytes());
        }
    }
}
