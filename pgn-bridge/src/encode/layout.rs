//! A game's text layout, found in one pass while the game is read: the
//! export writer renders each token as it arrives (the rendering the decoder
//! will make), and the layout facts it needs are read from the text just
//! before their first use: the newline style at the first line end, the
//! byte-order mark, the space before the movetext, glued move numbers at the
//! first move number, `N...` after comments at the first black move after a
//! comment, glyphs at the first NAG 1–6, the line width while the first
//! lines are rendered (the writer widens it to keep what the text keeps on
//! one line and fixes it at the text's first line break), the gap before
//! the termination marker and whether the marker may run past the width.
//!
//! At the game's end the rendering is compared with the text once: when
//! they are the same up to the newlines after the game, the layout is all
//! the decoder needs; else the text patch (`pgc_core::ext::patch`) holds
//! the differences. Nothing is rendered twice and no token is recorded.

use crate::export::ExportWriter;
use crate::layout::Layout;
use crate::lexer::is_line_end;
use pgc_core::ext::patch;
use pgc_core::ordinal::MoveText;

/// The layout decision for one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decision {
    /// The layout to store.
    pub(crate) layout: Layout,
    /// The text is reproduced byte for byte under `layout` (no text patch).
    pub(crate) identical: bool,
}

/// The text between the last token and the next one, as far as the layout
/// is concerned.
#[derive(Debug, Clone, Copy, Default)]
struct Gap {
    /// A line end before the move number (or anywhere, with no number).
    newline: bool,
    /// A line end between a move number and the next token.
    newline_after_number: bool,
    /// A move number was read.
    number: bool,
    /// No whitespace since the move number.
    glued: bool,
    /// The last whitespace was exactly two spaces.
    two_spaces: bool,
    /// The last whitespace ended with a line end and a space.
    lead_space: bool,
    /// Spaces right before the first line end of the last whitespace (up
    /// to 3).
    line_end_spaces: u8,
}

/// Layout facts already used by the rendering: they can no longer change.
#[derive(Debug, Clone, Copy, Default)]
struct Used {
    newline: bool,
    move_per_line: bool,
    ply_per_line: bool,
    numbers: bool,
    number_after_comment: bool,
    glyphs: bool,
    mate: bool,
    number_after_nag: bool,
}

/// Renders a game while it is read and finds its layout.
#[derive(Debug, Clone)]
pub(crate) struct LayoutTracker {
    writer: ExportWriter,
    /// The rendering so far.
    render: Vec<u8>,
    /// The rendering with LF line ends while it is rewritten with CRLF
    /// (a buffer kept from game to game).
    lf: Vec<u8>,
    /// The rendering is what the decoder will write (else the text patch
    /// holds the whole text).
    exact: bool,
    gap: Gap,
    used: Used,
    /// The last byte of text seen was a CR (for a line end split between
    /// two pieces of text).
    last_cr: bool,
    /// Tags were rendered.
    tags: bool,
    /// The movetext was begun in the rendering.
    movetext: bool,
    /// Moves rendered.
    moves: u32,
    /// The text broke a line between two movetext tokens.
    movetext_broke: bool,
}

impl Default for LayoutTracker {
    fn default() -> Self {
        LayoutTracker::new()
    }
}

/// A rendering buffer larger than this is given back after its game.
const KEEP_CAPACITY: usize = 1 << 22;

impl LayoutTracker {
    pub(crate) fn new() -> LayoutTracker {
        let mut writer = ExportWriter::new();
        writer.fit_width_on();
        LayoutTracker {
            writer,
            render: Vec::with_capacity(4096),
            lf: Vec::new(),
            exact: true,
            gap: Gap::default(),
            used: Used::default(),
            last_cr: false,
            tags: false,
            movetext: false,
            moves: 0,
            movetext_broke: false,
        }
    }

    /// Starts a game (the buffers are kept).
    pub(crate) fn clear(&mut self) {
        if self.render.capacity() > KEEP_CAPACITY {
            self.render = Vec::with_capacity(4096);
        }
        self.render.clear();
        self.writer.begin_game(&mut self.render, Layout::EXPORT);
        self.exact = true;
        self.gap = Gap::default();
        self.used = Used::default();
        self.last_cr = false;
        self.tags = false;
        self.movetext = false;
        self.moves = 0;
        self.movetext_broke = false;
    }

    /// Something the decoder will not render as read (a tag after the
    /// movetext, a variation left open): the text patch holds the whole
    /// text.
    pub(crate) fn unreproducible(&mut self) {
        self.exact = false;
    }

    /// The game starts with a byte-order mark.
    pub(crate) fn bom(&mut self) {
        let layout = Layout {
            bom: true,
            ..*self.writer.layout()
        };
        self.writer.set_layout(&mut self.render, layout);
    }

    /// Text of the game that may hold line ends: the first line end sets
    /// the newline style, before anything the writer ends a line with is
    /// final (the lines already rendered are tag, escape or junk lines,
    /// whose line ends are the writer's).
    fn text(&mut self, t: &[u8]) {
        let line_end = if self.used.newline {
            None
        } else {
            memchr::memchr2(b'\n', b'\r', t)
        };
        self.text_with_line_end(t, line_end);
    }

    /// [`Self::text`] with the text's first line end (its first CR or LF)
    /// already found (`None` when it has none, or when the newline style is
    /// already set).
    fn text_with_line_end(&mut self, t: &[u8], line_end: Option<usize>) {
        if !self.used.newline
            && let Some(i) = line_end
        {
            self.used.newline = true;
            let (crlf, cr) = match t[i] {
                b'\r' if t.get(i + 1) == Some(&b'\n') => (true, false),
                // A CR alone (the run of whitespace or text ends with it
                // before a token: classic Mac OS text).
                b'\r' => (false, true),
                // An LF after a CR that ended the text before.
                _ => (i == 0 && self.last_cr, false),
            };
            if crlf || cr {
                let l = self.writer.layout_mut();
                l.crlf = crlf;
                l.cr = cr;
                let nl = l.newline();
                std::mem::swap(&mut self.lf, &mut self.render);
                self.render.clear();
                for part in self.lf.split_inclusive(|&b| b == b'\n') {
                    match part.split_last() {
                        Some((b'\n', line)) => {
                            self.render.extend_from_slice(line);
                            self.render.extend_from_slice(nl);
                        }
                        _ => self.render.extend_from_slice(part),
                    }
                }
                if self.lf.capacity() > KEEP_CAPACITY {
                    self.lf = Vec::new();
                }
            }
        }
        if let Some(&b) = t.last() {
            self.last_cr = b == b'\r';
        }
    }

    /// Before a token: tells the writer whether the text broke the line
    /// before it; the gap is then consumed.
    fn before_token(&mut self) {
        let g = self.gap;
        let broke = g.newline || g.newline_after_number;
        self.writer.text_breaks_before(broke, false);
        self.consume_gap(broke);
    }

    /// The gap before a token is read; `broke`: it held a line end.
    fn consume_gap(&mut self, broke: bool) {
        self.movetext_broke |= broke && self.moves > 0;
        self.gap = Gap::default();
    }

    /// The writer's empty line after the tags, written when the first
    /// movetext record comes (as the decoder does).
    fn movetext_event(&mut self) {
        if !self.movetext {
            self.movetext = true;
            let lead = self.tags && self.gap.lead_space;
            self.writer.layout_mut().lead_space = lead;
            self.writer.begin_movetext(&mut self.render);
        }
    }

    /// A tag pair, its value unescaped (as stored).
    pub(crate) fn tag(&mut self, name: &[u8], value: &[u8]) {
        if !self.exact {
            return;
        }
        self.tags = true;
        self.before_token();
        self.writer.tag(&mut self.render, name, value);
    }

    /// A move read as `token` (check suffix included), numbered `number`,
    /// by White or Black; `canonical`: the body is the move's SAN;
    /// `want_suffix`: the suffix the position after the move calls for;
    /// `san`: the move's SAN body, which the decoder writes (asked only
    /// when the token is not it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn san(
        &mut self,
        number: u32,
        white: bool,
        token: &[u8],
        canonical: bool,
        suffix: &[u8],
        want_suffix: impl FnOnce() -> &'static [u8],
        san: impl FnOnce() -> MoveText,
    ) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.movetext_event();
        let g = self.gap;
        if !white && self.writer.black_after_comment() && !self.used.number_after_comment {
            // The first black move after a comment: does the text number it?
            self.used.number_after_comment = true;
            self.writer.layout_mut().number_after_comment = g.number;
        }
        if !white && self.writer.black_after_nag() && !self.used.number_after_nag {
            // The first black move after a NAG whose number the fact
            // decides: does the text number it? (ChessBase does not.) After
            // a comment that numbers the move, the fact is not used yet.
            let by_comment =
                self.writer.black_after_comment() && self.writer.layout().number_after_comment;
            if !by_comment {
                self.used.number_after_nag = true;
                self.writer.layout_mut().number_after_nag = g.number;
            }
        }
        let numbered = self.writer.numbers(white);
        if numbered && !self.used.numbers {
            // The first move number written: glued to its move (`1.e4`,
            // with move pairs as units, as pgnmentor writes) or not.
            self.used.numbers = true;
            let glued = g.number && g.glued;
            let l = self.writer.layout_mut();
            l.glued_numbers = glued;
            l.pair_words = glued;
        }
        // A move after the game's first that would not start a line decides
        // whether moves start their own lines: they do when the text's
        // first line break in the movetext is right before it.
        let within = self.moves > 0 && self.writer.number_within_line();
        let own_line = g.newline && !self.movetext_broke;
        if within && !self.used.ply_per_line {
            // One ply per line (early TCEC archives): seen at a black move
            // right after the white move's comment, on one line (a line
            // break right after a move, or after a comment of several
            // lines, is the width's).
            self.used.ply_per_line = true;
            let after_comment = self.writer.word_is_one_line_comment();
            let l = self.writer.layout_mut();
            l.ply_per_line = own_line && !white && after_comment;
            if l.ply_per_line {
                l.line_end_spaces = g.line_end_spaces;
            }
        }
        if white && within && !self.used.move_per_line {
            // One move pair per line (TCEC, annotated Lichess exports).
            self.used.move_per_line = true;
            let l = self.writer.layout_mut();
            l.move_per_line = own_line;
            if own_line && !l.ply_per_line {
                l.line_end_spaces = g.line_end_spaces;
            }
        }
        let broke = g.newline || g.newline_after_number;
        if numbered {
            self.writer
                .text_breaks_before(g.newline, g.newline_after_number);
        } else {
            self.writer.text_breaks_before(broke, false);
        }
        self.consume_gap(broke);
        self.moves += 1;
        let want = want_suffix();
        if let [b'#'] = want
            && !self.used.mate
        {
            // The first checkmate: `#`, or `+` as ChessBase writes it (the
            // writer spells it so).
            self.used.mate = true;
            self.writer.layout_mut().mate_as_check = matches!(suffix, [b'+']);
        }
        if canonical && same_suffix(suffix, want) {
            self.writer.san(&mut self.render, number, white, token);
        } else {
            // The decoder writes the move's SAN and the suffix the position
            // calls for.
            let mut t = san();
            want.iter().for_each(|&b| t.push(b));
            self.writer
                .san(&mut self.render, number, white, t.as_bytes());
        }
    }

    /// A move number (the export writer makes its own from the moves).
    pub(crate) fn move_number(&mut self) {
        self.gap.number = true;
        self.gap.glued = true;
        self.gap.two_spaces = false;
    }

    /// Whitespace between tokens.
    pub(crate) fn whitespace(&mut self, ws: &[u8]) {
        if let [b] = ws
            && !matches!(b, b'\n' | b'\r')
        {
            // The usual separator, one space: no line end, no CR.
            self.last_cr = false;
            let g = &mut self.gap;
            g.glued = false;
            g.two_spaces = false;
            g.lead_space = false;
            return;
        }
        // Runs between tokens are short: a loop beats a call to `memchr`.
        // A line ends at its first CR or LF (CR LF, LF, or a CR alone).
        let line_end = if ws.len() <= 32 {
            ws.iter().position(|&b| is_line_end(b))
        } else {
            memchr::memchr2(b'\n', b'\r', ws)
        };
        self.text_with_line_end(ws, line_end);
        let g = &mut self.gap;
        let newline = line_end.is_some();
        if g.number {
            g.newline_after_number |= newline;
        } else {
            g.newline |= newline;
        }
        g.glued = false;
        g.two_spaces = ws == b"  ";
        g.lead_space = matches!(ws, [.., e, b' '] if is_line_end(*e));
        if let Some(i) = line_end {
            let spaces = ws[..i].iter().rev().take_while(|&&b| b == b' ').count();
            g.line_end_spaces = spaces.min(3) as u8;
        }
    }

    /// A NAG, written as a suffix glyph (`!!`) or not (`$3`).
    pub(crate) fn nag(&mut self, nag: u32, is_suffix: bool) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.movetext_event();
        if (1..=6).contains(&nag) && !self.used.glyphs {
            // The first NAG a glyph can write: as a glyph or as `$n`.
            self.used.glyphs = true;
            self.writer.layout_mut().glyphs = is_suffix;
        }
        self.before_token();
        self.writer.nag(&mut self.render, nag);
    }

    /// A brace comment.
    pub(crate) fn comment(&mut self, text: &[u8]) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.text(text);
        self.movetext_event();
        self.before_token();
        self.writer.comment(&mut self.render, text);
    }

    /// A `;` comment; `in_tags`: before the movetext (kept, but the writer
    /// does not put it there).
    pub(crate) fn line_comment(&mut self, text: &[u8], in_tags: bool) {
        if in_tags {
            self.exact = false;
        }
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.text(text);
        self.before_token();
        self.writer.line_comment(&mut self.render, text);
    }

    /// A `%` escape line.
    pub(crate) fn escape(&mut self, text: &[u8]) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.before_token();
        self.writer.escape_line(&mut self.render, text);
    }

    /// A variation opens.
    pub(crate) fn begin_variation(&mut self) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.movetext_event();
        self.before_token();
        self.writer.begin_variation(&mut self.render);
    }

    /// A `)`: `closed` when it closed a variation (else the decoder does
    /// not write it where it stood).
    pub(crate) fn end_variation(&mut self, closed: bool) {
        if !closed {
            self.exact = false;
        }
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.before_token();
        self.writer.end_variation(&mut self.render);
    }

    /// The termination marker at depth 0.
    pub(crate) fn outcome(&mut self, raw: &[u8]) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.movetext_event();
        // Two spaces before the marker (ChessBase, pgnmentor).
        let gap2 = self.gap.two_spaces && !self.gap.number;
        self.writer.layout_mut().result_gap = gap2;
        self.before_token();
        self.writer.outcome(&mut self.render, raw);
    }

    /// Text that is not PGN, kept at its place.
    pub(crate) fn junk(&mut self, raw: &[u8]) {
        if !self.exact {
            self.gap = Gap::default();
            return;
        }
        self.text(raw);
        self.before_token();
        self.writer.junk(&mut self.render, raw, self.movetext);
    }

    /// The game's layout, its text being `raw`: when the rendering is `raw`
    /// up to the newlines after it, the layout with that trailer; else, with
    /// `patch`, the text patch that turns the rendering into `raw` is
    /// written into `out` (the whole text when the rendering is not the
    /// decoder's).
    pub(crate) fn finish(&mut self, raw: &[u8], patch: bool, out: &mut Vec<u8>) -> Decision {
        out.clear();
        if !self.exact {
            if patch {
                patch::whole(raw, out);
            }
            return Decision {
                layout: Layout::EXPORT,
                identical: false,
            };
        }
        // A game with no movetext record: the decoder writes the empty line
        // after the tags at the game's end.
        self.movetext_event();
        self.writer.layout_mut().trailer = 0;
        self.writer.end_game(&mut self.render);
        let mut layout = *self.writer.layout();
        layout.width = self.writer.fitted_width();
        let nl = layout.newline();
        if let Some(rest) = raw.strip_prefix(self.render.as_slice())
            && rest.len() % nl.len() == 0
            && rest.len() / nl.len() <= 255
            && rest.chunks(nl.len()).all(|c| c == nl)
        {
            layout.trailer = (rest.len() / nl.len()) as u8;
            return Decision {
                layout,
                identical: true,
            };
        }
        // The newlines that end the text (before any padding of NULs,
        // spaces or tabs) beyond those that end the rendering, as the
        // trailer.
        let ends = |t: &[u8]| {
            let mut end = t
                .iter()
                .rposition(|b| !matches!(b, 0 | b' ' | b'\t'))
                .map_or(0, |i| i + 1);
            let mut n = 0usize;
            while n < 255 && t[..end].ends_with(nl) {
                end -= nl.len();
                n += 1;
            }
            n
        };
        let mut trailer = ends(raw).saturating_sub(ends(&self.render)) as u8;
        if (Layout {
            trailer: 2,
            ..layout
        }) == Layout::EXPORT
        {
            // The text patch mends the trailer too: cheaper than a layout
            // record for it alone.
            trailer = 2;
        }
        layout.trailer = trailer;
        if patch {
            for _ in 0..trailer {
                self.render.extend_from_slice(nl);
            }
            patch::diff(&self.render, raw, out);
        }
        Decision {
            layout,
            identical: false,
        }
    }
}

/// `a == b` for check suffixes, without a call to `memcmp` for the usual
/// lengths (none or one byte), which the per-move path cannot afford.
#[inline]
fn same_suffix(a: &[u8], b: &[u8]) -> bool {
    match (a, b) {
        ([], []) => true,
        ([x], [y]) => x == y,
        _ => a == b,
    }
}
