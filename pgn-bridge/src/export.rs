//! The PGN export writer (sections 3.2 and 8 of the 1994 standard), driven
//! token by token.
//!
//! It is a pure formatter over a `Vec<u8>`: it knows nothing of chess. The
//! PGC → PGN decoder feeds it moves from the ordinal table; the PGN → PGC
//! encoder feeds it the tokens it has just read, to check whether the game's
//! text is exactly what this writer produces under some [`Layout`] (then the
//! layout is all that must be stored for a byte-identical round trip).
//!
//! Rules, with the layout's defaults:
//! - tags `[Name "value"]`, one per line, `\` and `"` escaped (8.1.1), a
//!   newline in a value (only a PGC from elsewhere holds one) written as a
//!   space, then an empty line;
//! - movetext tokens separated by one space, a new line before a token that
//!   would make the line longer than `width` (79: "less than 80", 8.2.1);
//! - `N.` before every white move, `N...` before a black move that starts the
//!   movetext or a variation or follows a comment, NAG or variation (8.2.2.2);
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
    /// Tags were written (an empty line separates them from the movetext).
    tags: bool,
}

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
            tags: false,
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
        self.tags = false;
        if layout.bom {
            out.extend_from_slice(b"\xef\xbb\xbf");
        }
    }

    /// Starts a game in `layout` whose tag section (tags: `had_tags`) is
    /// already written: the state `begin_game` and the tags leave.
    pub(crate) fn begin_after_tags(&mut self, layout: Layout, had_tags: bool) {
        // As `begin_game`, without the byte-order mark it writes.
        self.begin_game(
            &mut Vec::new(),
            Layout {
                bom: false,
                ..layout
            },
        );
        self.layout = layout;
        self.tags = had_tags;
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
    fn flush_word(&mut self, out: &mut Vec<u8>) {
        if self.word.is_empty() {
            return;
        }
        let first = if !self.word_lines {
            self.word.len()
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
            let w = self.layout.width as usize;
            if w > 0 && self.col + 1 + first > w {
                out.extend_from_slice(self.layout.newline());
                self.col = 0;
            } else {
                out.push(b' ');
                self.col += 1;
            }
        }
        out.extend_from_slice(&self.word);
        let last = if self.word_lines {
            memchr::memrchr(b'\n', &self.word)
        } else {
            None
        };
        match last {
            Some(i) => self.col = self.word.len() - i - 1,
            None => self.col += self.word.len(),
        }
        self.word.clear();
        self.word_lines = false;
    }

    /// Starts a new word with `t` (or glues it after a `(`).
    fn token(&mut self, out: &mut Vec<u8>, t: &[u8]) {
        self.after_white = false;
        if !self.glue_next {
            self.flush_word(out);
        }
        self.glue_next = false;
        self.word.extend_from_slice(t);
    }

    /// A move: `number` is the fullmove number, `white` the side that moved,
    /// `san` the SAN with any `+`/`#`.
    pub fn san(&mut self, out: &mut Vec<u8>, number: u32, white: bool, san: &[u8]) {
        if white || self.black_number {
            let mut buf = [0u8; 16];
            let mut n = write_u32(&mut buf, number);
            let dots: &[u8] = if white { b"." } else { b"..." };
            buf[n..n + dots.len()].copy_from_slice(dots);
            n += dots.len();
            if white
                && self.layout.move_per_line
                && self.col + self.word.len() > 0
                && !self.glue_next
            {
                self.flush_word(out);
                out.extend_from_slice(self.layout.newline());
                self.col = 0;
            }
            self.token(out, &buf[..n]);
            if self.layout.glued_numbers {
                // `1.e4`: the move joins its number's word.
                self.glue_next = true;
            }
        }
        if !white && self.after_white && self.layout.pair_words && !self.word.is_empty() {
            // The reply joins the white move's word.
            self.word.push(b' ');
            self.word.extend_from_slice(san);
        } else {
            self.token(out, san);
        }
        self.after_white = white;
        self.black_number = false;
    }

    /// A NAG (`$n`, or a glyph glued to the move when the layout says so).
    pub fn nag(&mut self, out: &mut Vec<u8>, nag: u32) {
        match GLYPHS.get(nag as usize) {
            Some(g) if self.layout.glyphs && !g.is_empty() && !self.word.is_empty() => {
                self.word.extend_from_slice(g);
            }
            _ => {
                let mut buf = [0u8; 16];
                buf[0] = b'$';
                let n = 1 + write_u32(&mut buf[1..], nag);
                self.token(out, &buf[..n]);
            }
        }
        self.black_number = true;
    }

    /// A brace comment with its text exactly as stored.
    pub fn comment(&mut self, out: &mut Vec<u8>, text: &[u8]) {
        self.after_white = false;
        if !self.glue_next {
            self.flush_word(out);
        }
        self.glue_next = false;
        self.word_lines = true;
        self.word.push(b'{');
        self.word.extend_from_slice(text);
        self.word.push(b'}');
        if self.layout.number_after_comment {
            self.black_number = true;
        }
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
        }
        self.black_number = true;
    }

    /// The termination marker (nothing for a missing one).
    pub fn outcome(&mut self, out: &mut Vec<u8>, marker: &[u8]) {
        if marker.is_empty() {
            return;
        }
        if (self.layout.result_nowrap || self.layout.result_gap) && !self.glue_next {
            self.flush_word(out);
            let gap: &[u8] = if self.layout.result_gap { b"  " } else { b" " };
            let w = self.layout.width as usize;
            let fits =
                self.layout.result_nowrap || w == 0 || self.col + gap.len() + marker.len() <= w;
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
fn write_u32(buf: &mut [u8], mut n: u32) -> usize {
    let mut tmp = [0u8; 10];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let len = tmp.len() - i;
    buf[..len].copy_from_slice(&tmp[i..]);
    len
}

/// Appends `value` as the inside of a PGN string: `\` and `"` escaped
/// (section 8.1.1), and a space in place of each newline, which a tag line
/// cannot hold ([`is_tag_line_break`]). Returns how many bytes were
/// replaced.
pub fn escape_into(out: &mut Vec<u8>, value: &[u8]) -> usize {
    let mut replaced = 0;
    for &b in value {
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
    let mut i = 0;
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
