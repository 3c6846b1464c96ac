//! Which [`Layout`] a game's text was written in, if any: the encoder feeds
//! the tokens it keeps and the text's spacing facts while it reads a game,
//! and asks once at the game's end ([`LayoutProbe::decide`]).
//!
//! The tokens are rendered by the export writer under candidate layouts, in
//! a fixed order, and compared with the game's bytes; the first layout that
//! gives them exactly is the game's.

use crate::export::{ExportWriter, unescape_into};
use crate::layout::Layout;
use pgc_core::ext::patch;
use pgc_core::ordinal::MoveText;
use std::ops::Range;

/// A movetext event recorded for the rendering.
#[derive(Debug, Clone)]
enum Ev {
    Tag(Range<usize>, Range<usize>),
    Movetext,
    San(u32, bool, Range<usize>),
    Nag(u32),
    Comment(Range<usize>),
    LineComment(Range<usize>),
    Escape(Range<usize>),
    Begin,
    End,
    Outcome(Range<usize>),
    Junk(Range<usize>, bool),
}

/// The recorded events of a game, packed: a kind byte, then varints (a
/// range as its start's distance from the previous range's end, zigzag,
/// and its length). A NAG takes two bytes, a move five or so, where the
/// enum takes 40: the record stays below the size of the game's text.
#[derive(Debug, Clone, Default)]
struct Events {
    bytes: Vec<u8>,
    /// End of the last range pushed.
    last_end: usize,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    v
}

impl Events {
    fn clear(&mut self) {
        self.bytes.clear();
        self.last_end = 0;
    }

    fn range(&mut self, r: &Range<usize>) {
        let delta = r.start as i64 - self.last_end as i64;
        put_varint(&mut self.bytes, ((delta << 1) ^ (delta >> 63)) as u64);
        put_varint(&mut self.bytes, (r.end - r.start) as u64);
        self.last_end = r.end;
    }

    fn push(&mut self, ev: Ev) {
        match ev {
            Ev::Tag(n, v) => {
                self.bytes.push(0);
                self.range(&n);
                self.range(&v);
            }
            Ev::Movetext => self.bytes.push(1),
            Ev::San(num, white, r) => {
                self.bytes.push(if white { 2 } else { 3 });
                put_varint(&mut self.bytes, u64::from(num));
                self.range(&r);
            }
            Ev::Nag(n) => {
                self.bytes.push(4);
                put_varint(&mut self.bytes, u64::from(n));
            }
            Ev::Comment(r) => {
                self.bytes.push(5);
                self.range(&r);
            }
            Ev::LineComment(r) => {
                self.bytes.push(6);
                self.range(&r);
            }
            Ev::Escape(r) => {
                self.bytes.push(7);
                self.range(&r);
            }
            Ev::Begin => self.bytes.push(8),
            Ev::End => self.bytes.push(9),
            Ev::Outcome(r) => {
                self.bytes.push(10);
                self.range(&r);
            }
            Ev::Junk(r, m) => {
                self.bytes.push(if m { 11 } else { 12 });
                self.range(&r);
            }
        }
    }

    fn iter(&self) -> EventIter<'_> {
        EventIter {
            bytes: &self.bytes,
            at: 0,
            last_end: 0,
        }
    }

    /// The events from where an iterator stood (`EventIter::mark`).
    fn iter_from(&self, (at, last_end): (usize, usize)) -> EventIter<'_> {
        EventIter {
            bytes: &self.bytes,
            at,
            last_end,
        }
    }
}

/// The events of an [`Events`], in order.
struct EventIter<'a> {
    bytes: &'a [u8],
    at: usize,
    last_end: usize,
}

impl EventIter<'_> {
    /// Where the iterator stands, to start another there.
    fn mark(&self) -> (usize, usize) {
        (self.at, self.last_end)
    }

    fn range(&mut self) -> Range<usize> {
        let z = get_varint(self.bytes, &mut self.at);
        let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
        let start = (self.last_end as i64 + delta) as usize;
        let len = get_varint(self.bytes, &mut self.at) as usize;
        self.last_end = start + len;
        start..start + len
    }
}

impl Iterator for EventIter<'_> {
    type Item = Ev;

    fn next(&mut self) -> Option<Ev> {
        let &kind = self.bytes.get(self.at)?;
        self.at += 1;
        Some(match kind {
            0 => {
                let n = self.range();
                Ev::Tag(n, self.range())
            }
            1 => Ev::Movetext,
            2 | 3 => {
                let num = get_varint(self.bytes, &mut self.at) as u32;
                Ev::San(num, kind == 2, self.range())
            }
            4 => Ev::Nag(get_varint(self.bytes, &mut self.at) as u32),
            5 => Ev::Comment(self.range()),
            6 => Ev::LineComment(self.range()),
            7 => Ev::Escape(self.range()),
            8 => Ev::Begin,
            9 => Ev::End,
            10 => Ev::Outcome(self.range()),
            _ => Ev::Junk(self.range(), kind == 11),
        })
    }
}

/// Layout facts the text shows, whether or not it turns out reproducible.
#[derive(Debug, Clone, Copy)]
struct Facts {
    bom: bool,
    glyphs: bool,
    number_after_comment: bool,
    /// Two spaces stood before the termination marker.
    result_gap: bool,
    /// A move number was glued to its move (`1.e4`).
    glued_numbers: bool,
}

/// Where the reading is, for the spacing rules.
#[derive(Debug, Clone, Copy)]
struct Spacing {
    /// The last token was a comment (a black move after it shows whether
    /// numbers follow comments).
    after_comment: bool,
    /// The last whitespace was two spaces (allowed only before the marker).
    gap2: bool,
    /// A move number was read and no whitespace yet.
    number_glued: bool,
    /// A movetext token was read (whitespace checks start).
    movetext_token: bool,
    /// `Ev::Movetext` was recorded.
    movetext_rendered: bool,
}

/// The layout decision for one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decision {
    /// The layout to store.
    pub(crate) layout: Layout,
    /// The text is reproduced byte for byte under `layout`.
    pub(crate) identical: bool,
}

/// A game's tag section as rendered once for all its candidate layouts
/// (they share the newline style and byte-order mark, all the tag section
/// depends on).
#[derive(Debug, Clone, Default)]
struct TagSection {
    /// The newline style and byte-order mark it was rendered with.
    key: Option<(bool, bool)>,
    /// The text (byte-order mark and tag lines).
    text: Vec<u8>,
    /// Whether there were tags.
    any: bool,
    /// Where the events after the tags start.
    rest: (usize, usize),
}

/// The facts of a game before its first byte.
const FRESH_FACTS: Facts = Facts {
    bom: false,
    glyphs: false,
    number_after_comment: true,
    result_gap: false,
    glued_numbers: false,
};

/// The spacing state of a game before its first byte.
const FRESH_SPACING: Spacing = Spacing {
    after_comment: false,
    gap2: false,
    number_glued: false,
    movetext_token: false,
    movetext_rendered: false,
};

/// Collects a game's tokens and facts, then decides its layout.
#[derive(Debug, Clone)]
pub(crate) struct LayoutProbe {
    events: Events,
    arena: Vec<u8>,
    render: Vec<u8>,
    writer: ExportWriter,
    /// The recorded events are what the decoder will render: the text
    /// patch can be made against their rendering.
    exact: bool,
    /// The tag section, rendered once per game.
    tags: TagSection,
    /// The text so far may be what the export writer renders under some
    /// layout (the candidates are tried only then).
    fits: bool,
    facts: Facts,
    spacing: Spacing,
}

impl Default for LayoutProbe {
    fn default() -> Self {
        LayoutProbe::new()
    }
}

impl LayoutProbe {
    pub(crate) fn new() -> LayoutProbe {
        LayoutProbe {
            events: Events {
                bytes: Vec::with_capacity(1024),
                last_end: 0,
            },
            arena: Vec::with_capacity(4096),
            render: Vec::with_capacity(4096),
            writer: ExportWriter::new(),
            exact: true,
            tags: TagSection::default(),
            fits: true,
            facts: FRESH_FACTS,
            spacing: FRESH_SPACING,
        }
    }

    /// Forgets the game (the buffers are kept).
    pub(crate) fn clear(&mut self) {
        self.events.clear();
        self.arena.clear();
        self.exact = true;
        self.tags.key = None;
        self.fits = true;
        self.facts = FRESH_FACTS;
        self.spacing = FRESH_SPACING;
    }

    fn keep(&mut self, t: &[u8]) -> Range<usize> {
        let s = self.arena.len();
        self.arena.extend_from_slice(t);
        s..self.arena.len()
    }

    /// The decoder writes the empty line after the tags when it meets the
    /// first record that belongs to the movetext (or the game's end); the
    /// rendering puts it at the same place.
    fn movetext_event(&mut self) {
        if !self.spacing.movetext_rendered {
            self.spacing.movetext_rendered = true;
            self.events.push(Ev::Movetext);
        }
    }

    /// Something the recorded events do not render as the decoder does:
    /// the text patch holds the whole text.
    pub(crate) fn unreproducible(&mut self) {
        self.exact = false;
    }

    /// Something no layout reproduces, which the rendering of the events
    /// still shows as the decoder writes it (the text patch mends it).
    pub(crate) fn unfit(&mut self) {
        self.fits = false;
    }

    /// The game starts with a byte-order mark.
    pub(crate) fn bom(&mut self) {
        self.facts.bom = true;
    }

    /// A token other than the termination marker: two spaces before it are
    /// not reproducible.
    pub(crate) fn not_outcome(&mut self) {
        if std::mem::take(&mut self.spacing.gap2) {
            self.fits = false;
        }
    }

    /// A movetext token (whitespace checks start).
    pub(crate) fn token(&mut self) {
        self.spacing.movetext_token = true;
    }

    /// A tag pair, its value as written (escaped).
    pub(crate) fn tag(&mut self, name: &[u8], raw_value: &[u8]) {
        if self.exact {
            let n = self.keep(name);
            // Kept unescaped, as the decoder writes it, once for every
            // rendering of the game.
            let s = self.arena.len();
            unescape_into(&mut self.arena, raw_value);
            let v = s..self.arena.len();
            self.events.push(Ev::Tag(n, v));
        }
    }

    /// A move read as `token` (check suffix included), numbered `number`,
    /// by White or Black; `canonical`: the body is the move's SAN;
    /// `want_suffix`: the suffix the position after the move calls for;
    /// `san`: the move's SAN body, which the decoder writes (both asked
    /// only while the events are recorded, `san` only when the token is
    /// not it).
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
        if self.spacing.number_glued {
            // `1.e4`: a layout fact; mixed with `1. e4` no layout reproduces it.
            self.facts.glued_numbers = true;
        }
        self.spacing.movetext_token = true;
        if self.exact {
            let want = want_suffix();
            let r = if canonical && suffix == want {
                self.keep(token)
            } else {
                // The decoder writes the move's SAN and the suffix the
                // position calls for.
                self.fits = false;
                let s = self.arena.len();
                self.arena.extend_from_slice(san().as_bytes());
                self.arena.extend_from_slice(want);
                s..self.arena.len()
            };
            self.movetext_event();
            self.events.push(Ev::San(number, white, r));
        }
        if !white && self.spacing.after_comment {
            // A black move right after a comment with no move number: old Lichess style.
            self.facts.number_after_comment = false;
        }
        self.spacing.after_comment = false;
    }

    /// A move number (the export writer makes its own from the moves).
    pub(crate) fn move_number(&mut self) {
        self.not_outcome();
        self.spacing.after_comment = false;
        self.spacing.number_glued = true;
        self.spacing.movetext_token = true;
    }

    /// Whitespace; `after_outcome`: the termination marker was read.
    pub(crate) fn whitespace(&mut self, ws: &[u8], after_outcome: bool) {
        self.spacing.number_glued = false;
        let checked = self.exact && self.spacing.movetext_token && !after_outcome;
        if checked && ws == b"  " {
            // Two spaces: reproducible only before the termination marker.
            self.spacing.gap2 = true;
            return;
        }
        // Between movetext tokens the export format has one space or one
        // line end; anything else no layout reproduces.
        if checked && !matches!(ws, b" " | b"\n" | b"\r\n") {
            self.fits = false;
        }
    }

    /// A NAG written as `raw` (`$3`, `!!`).
    pub(crate) fn nag(&mut self, raw: &[u8], nag: u32, is_suffix: bool) {
        if is_suffix {
            self.facts.glyphs = true;
        } else if raw.len() > 2 && raw[1] == b'0' {
            // `$01`: leading zeros are not reproduced by a layout.
            self.fits = false;
        }
        self.movetext_event();
        self.events.push(Ev::Nag(nag));
        self.spacing.after_comment = false;
    }

    /// A brace comment.
    pub(crate) fn comment(&mut self, text: &[u8]) {
        if self.exact {
            let r = self.keep(text);
            self.movetext_event();
            self.events.push(Ev::Comment(r));
        }
        self.spacing.after_comment = true;
    }

    /// A `;` comment; `in_tags`: before the movetext (kept, but no layout
    /// puts it there).
    pub(crate) fn line_comment(&mut self, text: &[u8], in_tags: bool) {
        if in_tags {
            self.exact = false;
        }
        if self.exact {
            let r = self.keep(text);
            self.events.push(Ev::LineComment(r));
        }
    }

    /// A `%` escape line.
    pub(crate) fn escape(&mut self, text: &[u8]) {
        if self.exact {
            let r = self.keep(text);
            self.events.push(Ev::Escape(r));
        }
    }

    /// A variation opens.
    pub(crate) fn begin_variation(&mut self) {
        self.movetext_event();
        self.events.push(Ev::Begin);
    }

    /// A `)`: `closed` when it closed a variation (else it is not
    /// reproducible).
    pub(crate) fn end_variation(&mut self, closed: bool) {
        if closed {
            self.events.push(Ev::End);
            self.spacing.after_comment = false;
        } else {
            self.exact = false;
        }
    }

    /// Whitespace before a termination marker is measured here.
    pub(crate) fn outcome_gap(&mut self) {
        self.facts.result_gap = std::mem::take(&mut self.spacing.gap2);
    }

    /// The termination marker at depth 0.
    pub(crate) fn outcome(&mut self, raw: &[u8]) {
        let r = self.keep(raw);
        self.movetext_event();
        self.events.push(Ev::Outcome(r));
    }

    /// Text that is not PGN, kept at its place.
    pub(crate) fn junk(&mut self, raw: &[u8]) {
        if self.exact {
            let r = self.keep(raw);
            self.events
                .push(Ev::Junk(r, self.spacing.movetext_rendered));
        }
    }

    /// The layout of the game whose text is `raw` (`has_tags`: the game had
    /// a tag section): the first candidate under which the tokens render
    /// to exactly `raw`, or, when none does, the layout facts the text
    /// shows (newline style, byte-order mark, glued move numbers, glyphs…),
    /// from which a text patch ([`Self::patch`]) gives `raw` back.
    pub(crate) fn decide(&mut self, raw: &[u8], has_tags: bool) -> Decision {
        // A game with no movetext record: the decoder writes the empty line
        // after the tags at the game's end.
        self.movetext_event();
        let guess = self.guess(raw, has_tags);
        let found = if self.exact && self.fits {
            self.find(raw, guess)
        } else {
            None
        };
        match found {
            Some(layout) => Decision {
                layout,
                identical: true,
            },
            None => Decision {
                layout: guess,
                identical: false,
            },
        }
    }

    /// The layout facts visible in the text.
    fn guess(&self, raw: &[u8], has_tags: bool) -> Layout {
        let crlf = memchr::memmem::find(raw, b"\r\n").is_some();
        let blank: &[u8] = if crlf { b"\r\n\r\n " } else { b"\n\n " };
        Layout {
            crlf,
            bom: self.facts.bom,
            width: 79,
            number_after_comment: self.facts.number_after_comment,
            glyphs: self.facts.glyphs,
            lead_space: has_tags && memchr::memmem::find(raw, blank).is_some(),
            move_per_line: false,
            result_nowrap: false,
            result_gap: self.facts.result_gap,
            glued_numbers: self.facts.glued_numbers,
            pair_words: false,
            trailer: 2,
        }
    }

    /// The first layout, in a fixed order, under which the game's text is
    /// exactly what the export writer produces. The export layout is tried
    /// first, so that a game rendered by the decoder finds the layout it was
    /// rendered with (the PGC fixed point).
    fn find(&mut self, raw: &[u8], guess: Layout) -> Option<Layout> {
        // Newline style and byte-order mark are facts of the text: a
        // candidate that differs in them cannot match, so it is not rendered.
        let export = Layout::EXPORT;
        if export.crlf == guess.crlf
            && export.bom == guess.bom
            && let Some(t) = self.trailer_of(raw, export)
        {
            return Some(Layout {
                trailer: t,
                ..export
            });
        }
        let (widest, widest_body, lines) = widest_movetext_lines(raw);
        // Move pairs as words only go with glued numbers (pgnmentor).
        // Orders below follow the guess where only a reproduced text is at
        // stake; for a text without these facts the plain candidates stay
        // first (the PGC fixed point of unreproducible games).
        let pairs: &[bool] = if guess.glued_numbers {
            &[true, false]
        } else {
            &[false]
        };
        let nowraps = if guess.result_gap {
            [true, false]
        } else {
            [false, true]
        };
        for (&pair_words, result_nowrap) in pairs.iter().flat_map(|p| nowraps.map(move |r| (p, r)))
        {
            for nac in [guess.number_after_comment, !guess.number_after_comment] {
                // 80: ChessBase fills lines to 80 characters.
                // Movetext on one line (Lichess): no wrapping at all says so
                // in one byte, where its width takes two.
                let widths = match (result_nowrap, lines) {
                    (true, 1) => [79, 0, widest_body, 80],
                    (false, 1) => [79, 0, widest, 80],
                    (true, _) => [79, widest_body, 80, 0],
                    (false, _) => [79, widest, 80, 0],
                };
                for (i, &width) in widths.iter().enumerate() {
                    let c = Layout {
                        width,
                        number_after_comment: nac,
                        result_nowrap,
                        pair_words,
                        ..guess
                    };
                    if c == Layout::EXPORT || widths[..i].contains(&width) {
                        continue;
                    }
                    if let Some(t) = self.trailer_of(raw, c) {
                        return Some(Layout { trailer: t, ..c });
                    }
                }
            }
        }
        let c = Layout {
            width: 0,
            move_per_line: true,
            ..guess
        };
        self.trailer_of(raw, c).map(|t| Layout { trailer: t, ..c })
    }

    /// Renders the recorded events in `layout` into `self.render`, stopping
    /// (false) at the first byte that differs from `raw`: most candidate
    /// layouts fail on the first line.
    fn render_with(&mut self, layout: Layout, raw: &[u8]) -> bool {
        // The trailer is measured, not rendered.
        self.render(layout, Some(raw), 0)
    }

    /// Renders the recorded events in `layout` into `self.render`, with
    /// `trailer` line ends after the game; with `raw`, stops (false) at the
    /// first byte that differs from it.
    fn render(&mut self, layout: Layout, raw: Option<&[u8]>, trailer: u8) -> bool {
        self.render.clear();
        let w = &mut self.writer;
        let out = &mut self.render;
        let key = (layout.crlf, layout.bom);
        let cached = self.tags.key == Some(key);
        let mut events = if cached {
            out.extend_from_slice(&self.tags.text);
            w.begin_after_tags(layout, self.tags.any);
            self.events.iter_from(self.tags.rest)
        } else {
            w.begin_game(out, layout);
            self.events.iter()
        };
        let mut in_tags = !cached;
        let mut any_tag = false;
        let mut checked = 0;
        let mut mark = events.mark();
        while let Some(ev) = events.next() {
            if in_tags && !matches!(ev, Ev::Tag(..)) {
                // The tag section ends: kept for the other candidates.
                in_tags = false;
                self.tags.key = Some(key);
                self.tags.text.clear();
                self.tags.text.extend_from_slice(out);
                self.tags.any = any_tag;
                self.tags.rest = mark;
            }
            match ev {
                Ev::Tag(n, v) => {
                    any_tag = true;
                    w.tag(out, &self.arena[n], &self.arena[v]);
                }
                Ev::Movetext => w.begin_movetext(out),
                Ev::San(num, white, r) => w.san(out, num, white, &self.arena[r]),
                Ev::Nag(n) => w.nag(out, n),
                Ev::Comment(r) => w.comment(out, &self.arena[r]),
                Ev::LineComment(r) => w.line_comment(out, &self.arena[r]),
                Ev::Escape(r) => w.escape_line(out, &self.arena[r]),
                Ev::Begin => w.begin_variation(out),
                Ev::End => w.end_variation(out),
                Ev::Outcome(r) => w.outcome(out, &self.arena[r]),
                Ev::Junk(r, m) => w.junk(out, &self.arena[r], m),
            }
            mark = events.mark();
            // The writer holds back the word it is building, so what is in
            // `out` is final.
            let n = out.len();
            if let Some(raw) = raw
                && n > checked
            {
                if raw.get(checked..n) != out.get(checked..n) {
                    return false;
                }
                checked = n;
            }
        }
        w.set_layout(out, Layout { trailer, ..layout });
        w.end_game(out);
        true
    }

    /// The text patch (`pgc_core::ext::patch`) that turns the decoder's
    /// rendering of the game in `layout` into `raw`, into `out`: edits when
    /// the game's events were all recorded, else the whole text.
    pub(crate) fn patch(&mut self, raw: &[u8], layout: Layout, out: &mut Vec<u8>) {
        if self.exact {
            self.render(layout, None, layout.trailer);
            patch::diff(&self.render, raw, out);
        } else {
            patch::whole(raw, out);
        }
    }

    /// Whether `raw` is the rendering in `layout` followed by newlines; returns the count.
    fn trailer_of(&mut self, raw: &[u8], layout: Layout) -> Option<u8> {
        if !self.render_with(layout, raw) {
            return None;
        }
        let rest = raw.strip_prefix(self.render.as_slice())?;
        let nl = layout.newline();
        if rest.len() % nl.len() != 0 || rest.len() / nl.len() > 255 {
            return None;
        }
        if rest.chunks(nl.len()).all(|c| c == nl) {
            Some((rest.len() / nl.len()) as u8)
        } else {
            None
        }
    }
}

/// The longest line that is not a tag pair or escape line (line ends
/// excluded), and the longest such line once the termination marker is taken
/// off the last one (where a marker may run past the width), and the number
/// of such lines.
fn widest_movetext_lines(raw: &[u8]) -> (u32, u32, usize) {
    let (mut widest, mut body, mut last, mut lines) = (0, 0, 0, 0);
    for line in raw.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.starts_with(b"[") || line.starts_with(b"%") {
            continue;
        }
        body = body.max(last);
        last = without_marker(line).len();
        widest = widest.max(line.len());
        lines += 1;
    }
    body = body.max(last);
    let w = |n: usize| u32::try_from(n).unwrap_or(0);
    (w(widest), w(body), lines)
}

/// `line` without a trailing termination marker and the spaces before it.
fn without_marker(line: &[u8]) -> &[u8] {
    let t = line.trim_ascii_end();
    for m in [&b"1/2-1/2"[..], b"1-0", b"0-1", b"*"] {
        if let Some(rest) = t.strip_suffix(m) {
            return rest.trim_ascii_end();
        }
    }
    line
}
