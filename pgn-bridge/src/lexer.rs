//! Lexing of PGN import format (standard sections 3, 4, 7, 8) over byte
//! slices, without I/O.
//!
//! One state machine serves two jobs, so they cannot disagree:
//!
//! * [`scan_game`] finds where the game starting at the front of a buffer
//!   ends, possibly answering [`NeedMore`] when the buffer ends before that
//!   can be decided. It runs the machine with a visitor whose methods are all
//!   empty, which the compiler reduces to a plain scanning loop.
//! * [`lex_game`] runs the machine over one complete game slice (as found by
//!   `scan_game`) and reports every token to a [`Visitor`]. A variation the
//!   visitor skips ([`Visitor::begin_variation`]) is stepped through with the
//!   scanning pass's visitor, so a skipped variation ends where a reported
//!   one would; a `Break` from the visitor stops it (the slice is the whole
//!   game already).
//!
//! Everything works on `&[u8]`: tag values, comments and SAN tokens are exact
//! input bytes, whatever their encoding. Nothing allocates and nothing
//! recurses (variations only bump a depth counter), so a million nested `(`
//! are fine.
//!
//! # Tokens
//!
//! Whitespace is space, `\t`, `\n`, `\r`, `\x0b`, `\x0c` and NUL. A *symbol*
//! (standard section 7) is a run of ASCII letters, digits and `_+#=:-/@`. A
//! symbol that is all digits is a move number (dots after it, also after
//! whitespace, are folded in: `1 .`, `1. ...`; digits directly followed by a
//! letter, as in `12Nf3`, are a number too). `1-0`, `0-1`, `1/2-1/2` and `*`
//! are termination markers; any other symbol is reported as a SAN token
//! (`0000` included). `e.p.` after a move, glued or not, is reported as
//! [`Visitor::en_passant_marker`] and is not part of the SAN token. Tokens
//! that fit nowhere are reported as [`Visitor::junk`].
//!
//! # Game boundaries
//!
//! A game ends after its termination marker at variation depth 0 plus the
//! whitespace, `%` escape lines (also after a byte order mark at a line's
//! start, as in files joined with `cat`), `;` comments, `{` comments (as
//! python-chess reads them; one that no `}` closes is the next game's) and
//! junk that follow it; the next tag (`[`) or movetext token (symbol, `(`,
//! `$`, `*`) starts the next game. A `[` after movetext started also ends a
//! game (it lacked its marker), and so does the end of the input. In a tag
//! section, a tag whose name already occurred in it (among the first 32
//! tags) after an empty line starts a new game: the previous one had tags
//! only (lichess broadcast exports end such games without movetext or
//! marker); without the empty line the name is repeated within the game,
//! as python-chess and pgn-reader read it. A blank line does not end a tag
//! section (ChessBase exports contain one). Whitespace before the first
//! token of the input belongs to the first game; an input without any token
//! has no game.

use std::ops::ControlFlow;

use memchr::{memchr, memchr2, memchr3, memrchr};

use crate::visitor::{GameStart, Skip, Visitor};

/// The buffer ended before the end of the game could be decided: read more
/// input and scan again from the game's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NeedMore;

/// Where the game at the front of a buffer ends, as found by [`scan_game`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameEnd {
    /// Length in bytes of the game (its raw slice), including trailing
    /// whitespace.
    pub len: usize,
    /// `false` if the bytes contain no token at all (only whitespace, `%`
    /// escape lines and possibly a byte order mark up to the end of the
    /// input): no game.
    pub has_tokens: bool,
}

/// What the lexer must know about the bytes before a game slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LexContext {
    /// The slice starts at column 1 (start of input or after `\n`); decides
    /// whether a `%` at its first byte starts an escape line.
    pub at_line_start: bool,
    /// The slice starts at input offset 0, where a UTF-8 byte order mark is
    /// recognised.
    pub at_input_start: bool,
}

impl LexContext {
    /// Context of the very first byte of an input.
    pub const INPUT_START: LexContext = LexContext {
        at_line_start: true,
        at_input_start: true,
    };
}

const WS: u8 = 1;
const SYM: u8 = 2;
const DIGIT: u8 = 4;
const LETTER: u8 = 8;
/// Bytes that start a movetext token (and so a new game after a finished one).
const START: u8 = 16;
/// Bytes with a meaning of their own; a junk run stops before them.
const SPECIAL: u8 = 32;

/// How many tag names per game are remembered to detect a repeated name.
const MAX_SEEN_TAGS: usize = 32;

const BOM: &[u8] = b"\xEF\xBB\xBF";

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut c = 0;
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0) {
            c |= WS;
        }
        if b.is_ascii_digit() {
            c |= DIGIT | SYM | START;
        }
        if b.is_ascii_alphabetic() {
            c |= LETTER | SYM | START;
        }
        if matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'/') {
            c |= SYM;
        }
        if matches!(b, b'-' | b'@') {
            c |= SYM | START;
        }
        if matches!(b, b'{' | b'(' | b'$' | b'*' | b'[') {
            c |= START;
        }
        if matches!(
            b,
            b'[' | b']'
                | b'{'
                | b'}'
                | b'('
                | b')'
                | b';'
                | b'$'
                | b'!'
                | b'?'
                | b'*'
                | b'.'
                | b'%'
        ) {
            c |= SPECIAL;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[inline(always)]
fn class(b: u8) -> u8 {
    CLASS[b as usize]
}

/// Whether the lexer reads `b` as whitespace (space, `\t`, `\n`, `\r`,
/// `\x0b`, `\x0c`, NUL).
pub fn is_whitespace(b: u8) -> bool {
    class(b) & WS != 0
}

/// Finds the end of the game that starts at `input[0]`.
///
/// `eof` says whether `input` reaches the end of the whole input; if not and
/// the end cannot be decided from the bytes present, returns [`NeedMore`].
/// With `eof = true` this never fails.
///
/// # Errors
///
/// [`NeedMore`] if `eof` is false and more input is needed.
pub fn scan_game(input: &[u8], eof: bool, ctx: LexContext) -> Result<GameEnd, NeedMore> {
    match run::<_, false>(input, eof, ctx, &mut Scan) {
        Ok(end) => Ok(end),
        Err(Stop::NeedMore) => Err(NeedMore),
        // `Scan` never breaks; were it to, the buffer would be the game.
        Err(Stop::Break) => Ok(GameEnd {
            len: input.len(),
            has_tokens: true,
        }),
    }
}

/// Lexes one complete game slice (as delimited by [`scan_game`]) and reports
/// its tokens to `visitor`, from [`Visitor::begin_game`] to
/// [`Visitor::end_game`], whose result is returned. `raw` in `end_game` is
/// `game` itself. After a `Break` from the visitor no further token is
/// reported: `end_game` comes next.
///
/// If `game` holds more than one game (it was not delimited by
/// [`scan_game`]), the bytes after the first game are reported as junk.
pub fn lex_game<V: Visitor>(
    game: &[u8],
    start: GameStart,
    ctx: LexContext,
    visitor: &mut V,
) -> V::Output {
    // The game's end is known: `end_game` follows a `Break` as well.
    match lex_events(game, start, ctx, visitor) {
        ControlFlow::Continue(()) | ControlFlow::Break(()) => {}
    }
    visitor.end_game(game)
}

/// The line ends in `bytes`: its LFs, or, in text without any, its CRs
/// (the line ends of classic Mac OS text). Exact for LF, CRLF and CR text;
/// a piece of text that mixes LF with CRs alone counts its LFs. The CRs
/// are counted only when there is no LF, so LF and CRLF text pays nothing.
pub(crate) fn line_ends(bytes: &[u8]) -> u64 {
    match memchr::memchr_iter(b'\n', bytes).count() {
        0 => memchr::memchr_iter(b'\r', bytes).count() as u64,
        lf => lf as u64,
    }
}

/// Lexes every game of `batch`, a run of whole games held in memory that
/// starts at `start` (the splitter found where each ends, so nothing is
/// copied), and hands each game's start and `visitor`'s output to `each`.
pub fn lex_games<V: Visitor>(
    batch: &[u8],
    mut start: GameStart,
    visitor: &mut V,
    mut each: impl FnMut(GameStart, V::Output, &mut V),
) {
    let mut ctx = LexContext {
        at_line_start: true,
        at_input_start: start.offset == 0,
    };
    let mut rest = batch;
    // With the whole batch at hand, each game is lexed in one pass that
    // also finds its end.
    loop {
        let len = match lex_one(rest, true, start, ctx, visitor) {
            Ok(Some(len)) => len,
            // Whitespace and escape lines alone make no game.
            Ok(None) => break,
            // Unreachable: with eof = true a game ends.
            Err(NeedMore) => rest.len(),
        };
        let (game, after) = rest.split_at(len.min(rest.len()));
        let output = visitor.end_game(game);
        each(start, output, visitor);
        start.index += 1;
        start.offset += game.len() as u64;
        start.line += line_ends(game);
        ctx = LexContext {
            at_line_start: game.last().is_none_or(|&b| is_line_end(b)),
            at_input_start: false,
        };
        rest = after;
    }
}

/// Lexes the game at the front of `rest` in one pass, from
/// [`Visitor::begin_game`] up to (not including) `end_game`, finding its
/// end as it goes, and returns its length; `None` when `rest` holds only
/// whitespace (after a byte-order mark at the input's start), which makes
/// no game (as for [`scan_game`]); then the visitor is not called.
///
/// Without `eof`, [`NeedMore`] when the game runs past `rest`: the visitor
/// has then seen part of the game, and the caller lexes it again from its
/// start once it has more bytes.
#[inline(always)]
pub(crate) fn lex_one<V: Visitor>(
    rest: &[u8],
    eof: bool,
    start: GameStart,
    ctx: LexContext,
    visitor: &mut V,
) -> Result<Option<usize>, NeedMore> {
    let bom = if ctx.at_input_start && rest.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    if holds_no_token(&rest[bom..], ctx.at_line_start) {
        return Ok(None);
    }
    match visitor.begin_game(start) {
        ControlFlow::Continue(()) => match run::<V, true>(rest, eof, ctx, visitor) {
            Ok(end) => Ok(Some(end.len)),
            Err(Stop::NeedMore) => Err(NeedMore),
            // Unreachable: a finishing run steps on after a `Break`.
            Err(Stop::Break) => Ok(Some(rest.len())),
        },
        ControlFlow::Break(()) => scan_game(rest, eof, ctx).map(|e| Some(e.len)),
    }
}

/// Whether `bytes` hold only whitespace and escape lines (`%` in column 1
/// to the line's end), no token: no game. `at_line_start` says whether
/// `bytes[0]` is in column 1.
fn holds_no_token(bytes: &[u8], mut at_line_start: bool) -> bool {
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' && at_line_start {
            match memchr2(b'\n', b'\r', &bytes[i..]) {
                Some(k) => i += k,
                None => return true,
            }
        } else if !is_whitespace(b) {
            return false;
        }
        at_line_start = is_line_end(bytes[i]);
        i += 1;
    }
    true
}

/// The events of [`lex_game`] before `end_game`.
#[inline(always)]
fn lex_events<V: Visitor>(
    game: &[u8],
    start: GameStart,
    ctx: LexContext,
    visitor: &mut V,
) -> ControlFlow<()> {
    visitor.begin_game(start)?;
    let len = match run::<_, false>(game, true, ctx, visitor) {
        Ok(end) => end.len,
        Err(Stop::Break) => return ControlFlow::Break(()),
        // Unreachable with eof = true; keep the bytes anyway.
        Err(Stop::NeedMore) => 0,
    };
    if len < game.len() {
        visitor.junk(&game[len..])?;
    }
    ControlFlow::Continue(())
}

/// The visitor of the scanning pass: every method is a no-op.
struct Scan;

impl Visitor for Scan {
    type Output = ();
    fn end_game(&mut self, _raw: &[u8]) {}
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Tags,
    Movetext,
    Done,
}

/// `Ok(Some(b))` for a byte present, `Ok(None)` at the end of the input,
/// `Err(NeedMore)` at the end of the buffer.
#[inline(always)]
fn peek(input: &[u8], i: usize, eof: bool) -> Result<Option<u8>, NeedMore> {
    match input.get(i) {
        Some(&b) => Ok(Some(b)),
        None if eof => Ok(None),
        None => Err(NeedMore),
    }
}

/// End of a run of bytes whose class has a bit of `mask`, from `i`.
#[inline(always)]
fn run_of(input: &[u8], mut i: usize, mask: u8) -> usize {
    while i < input.len() && class(input[i]) & mask != 0 {
        i += 1;
    }
    i
}

/// For a rest-of-line token whose text starts at `from`: where its text
/// ends (before the line end, which is not part of it).
#[inline]
fn line_text(input: &[u8], from: usize, eof: bool) -> Result<usize, NeedMore> {
    // The text ends at the first CR or LF: a CR LF, an LF and a CR alone
    // (classic Mac OS text) all end a line.
    match memchr2(b'\n', b'\r', &input[from..]) {
        Some(k) => Ok(from + k),
        None if eof => Ok(input.len()),
        None => Err(NeedMore),
    }
}

/// Whether a byte ends a line for `;` comments, `%` escape lines and the
/// column-1 test of `%`: LF, and CR (alone in classic Mac OS text, or the
/// first byte of CR LF).
#[inline(always)]
pub(crate) fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Suffix annotation to NAG (standard section 8.2.4, 10).
fn suffix_nag(s: &[u8]) -> Option<u32> {
    Some(match s {
        b"!" => 1,
        b"?" => 2,
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        _ => return None,
    })
}

fn parse_u32_saturating(digits: &[u8]) -> u32 {
    digits.iter().fold(0u32, |n, &d| {
        n.saturating_mul(10).saturating_add(u32::from(d - b'0'))
    })
}

enum TagParse {
    Tag {
        name: (usize, usize),
        value: (usize, usize),
        end: usize,
    },
    Junk {
        end: usize,
    },
}

/// Parses a tag pair starting with `[` at `pos` (standard section 8.1.1,
/// tolerant of whitespace after `[`, no whitespace before the value and
/// a value whose closing quote is escaped). A tag pair lies on one line.
fn parse_tag(input: &[u8], pos: usize, eof: bool) -> Result<TagParse, NeedMore> {
    let len = input.len();
    let is_blank = |b: u8| class(b) & WS != 0 && b != b'\n';
    let mut i = pos + 1;
    // Whitespace, name, whitespace, all on this line.
    while i < len && is_blank(input[i]) {
        i += 1;
    }
    let name_start = i;
    while i < len && class(input[i]) & WS == 0 && !matches!(input[i], b'"' | b'[' | b']') {
        i += 1;
    }
    let name_end = i;
    while i < len && is_blank(input[i]) {
        i += 1;
    }
    let Some(b) = peek(input, i, eof)? else {
        return malformed(input, pos, eof);
    };
    if name_start == name_end || b != b'"' {
        return malformed(input, pos, eof);
    }
    let value_start = i + 1;
    i = value_start;
    let value_end = loop {
        match memchr3(b'"', b'\\', b'\n', &input[i..]) {
            Some(k) if input[i + k] == b'"' => break i + k,
            Some(k) if input[i + k] == b'\\' => {
                // An escaped byte; a backslash at the line end stays alone.
                i += k + 1;
                if input.get(i).is_some_and(|&b| b != b'\n') {
                    i += 1;
                }
            }
            Some(k) => {
                // The line ended inside the string: `[Event "Cup \"]`.
                return unterminated_value(input, pos, value_start, i + k);
            }
            None if eof => return unterminated_value(input, pos, value_start, len),
            None => return Err(NeedMore),
        }
    };
    i = value_end + 1;
    while i < len && is_blank(input[i]) {
        i += 1;
    }
    match peek(input, i, eof)? {
        Some(b']') => Ok(TagParse::Tag {
            name: (name_start, name_end),
            value: (value_start, value_end),
            end: i + 1,
        }),
        _ => {
            // Text after the closing quote, `[White ""Socrates Expert""]`:
            // the value runs to the line's last quote before `]`, as
            // python-chess reads it.
            let line_end = match memchr(b'\n', &input[i..]) {
                Some(k) => i + k,
                None if eof => len,
                None => return Err(NeedMore),
            };
            unterminated_value(input, pos, value_start, line_end)
        }
    }
}

/// A tag value without a closing quote before the line end at `line_end`
/// (or with text after it): close it at the last quote followed by `]`
/// (blanks between allowed).
fn unterminated_value(
    input: &[u8],
    pos: usize,
    value_start: usize,
    line_end: usize,
) -> Result<TagParse, NeedMore> {
    if let Some(k) = memrchr(b'"', &input[value_start..line_end]) {
        let q = value_start + k;
        let mut i = q + 1;
        while i < line_end && class(input[i]) & WS != 0 {
            i += 1;
        }
        if i < line_end && input[i] == b']' {
            // Only accept when nothing but blanks follow `]` on the line.
            let rest_blank = input[i + 1..line_end].iter().all(|&b| class(b) & WS != 0);
            if rest_blank {
                let mut name_start = pos + 1;
                while class(input[name_start]) & WS != 0 {
                    name_start += 1;
                }
                let mut name_end = name_start;
                while class(input[name_end]) & WS == 0 && input[name_end] != b'"' {
                    name_end += 1;
                }
                return Ok(TagParse::Tag {
                    name: (name_start, name_end),
                    value: (value_start, q),
                    end: i + 1,
                });
            }
        }
    }
    junk_tag_end(input, pos, line_end)
}

/// A malformed tag pair: junk from `[` to the first `]` on its line, or to
/// the line end.
fn malformed(input: &[u8], pos: usize, eof: bool) -> Result<TagParse, NeedMore> {
    let line_end = match memchr(b'\n', &input[pos..]) {
        Some(k) => pos + k,
        None if eof => input.len(),
        None => return Err(NeedMore),
    };
    junk_tag_end(input, pos, line_end)
}

fn junk_tag_end(input: &[u8], pos: usize, line_end: usize) -> Result<TagParse, NeedMore> {
    let end = match memchr(b']', &input[pos + 1..line_end]) {
        Some(k) => pos + 1 + k + 1,
        None => {
            let mut e = line_end;
            while e > pos + 1 && class(input[e - 1]) & WS != 0 {
                e -= 1;
            }
            e
        }
    };
    Ok(TagParse::Junk { end })
}

/// Why the machine stopped before the end of the game.
enum Stop {
    /// The buffer ended: see [`NeedMore`].
    NeedMore,
    /// The visitor returned `Break`.
    Break,
}

impl From<NeedMore> for Stop {
    #[inline(always)]
    fn from(_: NeedMore) -> Stop {
        Stop::NeedMore
    }
}

/// Reports an event; a `Break` from the visitor stops the machine.
macro_rules! emit {
    ($event:expr) => {
        if let ControlFlow::Break(()) = $event {
            return Err(Stop::Break);
        }
    };
}

/// What one step of the machine did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Consumed a token or a run of whitespace.
    Token,
    /// Consumed a `(` whose variation the visitor skips.
    SkipVariation,
    /// The game ended at `pos`.
    End,
}

/// The state of the machine over one buffer.
struct Machine<'a> {
    input: &'a [u8],
    eof: bool,
    ctx: LexContext,
    /// Where the buffer's first line starts (after a byte order mark).
    line_start_pos: usize,
    pos: usize,
    phase: Phase,
    depth: u64,
    has_tokens: bool,
}

/// Tag names seen in a tag section (positions in the buffer). Kept apart
/// from [`Machine`], whose fields then stay in registers.
struct SeenTags {
    names: [(usize, usize); MAX_SEEN_TAGS],
    len: usize,
}

/// Whether the whitespace right before `pos` holds an empty line (two line
/// ends or more).
#[cold]
fn after_empty_line(input: &[u8], pos: usize) -> bool {
    let start = input[..pos]
        .iter()
        .rposition(|&b| class(b) & WS == 0)
        .map_or(0, |i| i + 1);
    line_ends(&input[start..pos]) >= 2
}

/// The state machine shared by [`scan_game`] and [`lex_game`].
///
/// A skipped variation is stepped through with the scanning pass's visitor,
/// so it ends exactly where a reported one would. With `FINISH`, a `Break`
/// from the visitor does the same for the rest of the game, so the game's
/// end is found in the one pass ([`lex_games`]); every step sets the
/// machine's state before it reports, or reports before it moves on, so
/// stepping on from where the visitor stopped ends where a scan would.
#[inline(always)]
fn run<V: Visitor, const FINISH: bool>(
    input: &[u8],
    eof: bool,
    ctx: LexContext,
    v: &mut V,
) -> Result<GameEnd, Stop> {
    let mut m = Machine {
        input,
        eof,
        ctx,
        line_start_pos: 0,
        pos: 0,
        phase: Phase::Tags,
        depth: 0,
        has_tokens: false,
    };
    let mut seen = SeenTags {
        names: [(0, 0); MAX_SEEN_TAGS],
        len: 0,
    };
    if ctx.at_input_start {
        if input.starts_with(BOM) {
            m.pos = 3;
            m.line_start_pos = 3;
            if v.bom().is_break() {
                return m.finish::<FINISH>(&mut seen);
            }
        } else if !eof && input.len() < 3 && BOM.starts_with(input) {
            return Err(Stop::NeedMore);
        }
    }
    'game: loop {
        let step = match m.step(&mut seen, v) {
            Ok(step) => step,
            Err(Stop::Break) => return m.finish::<FINISH>(&mut seen),
            Err(e) => return Err(e),
        };
        match step {
            Step::Token => {}
            Step::End => break,
            Step::SkipVariation => {
                let open = m.depth;
                while m.depth >= open {
                    if m.step(&mut seen, &mut Scan)? == Step::End {
                        break 'game;
                    }
                }
                if v.end_variation().is_break() {
                    return m.finish::<FINISH>(&mut seen);
                }
            }
        }
    }
    if m.phase == Phase::Tags {
        // No movetext. The game's end is known: with `FINISH` a `Break`
        // changes nothing.
        if (v.end_tags().is_break() || v.begin_movetext().is_break()) && !FINISH {
            return Err(Stop::Break);
        }
    }
    Ok(m.end())
}

impl Machine<'_> {
    /// Where the game ends (so far, before the game's end is reached).
    #[inline(always)]
    fn end(&self) -> GameEnd {
        GameEnd {
            len: self.pos,
            has_tokens: self.has_tokens,
        }
    }

    /// After a `Break` from the visitor: `Break` again, or with `FINISH`
    /// the rest of the game stepped through without reporting, and its end.
    #[cold]
    fn finish<const FINISH: bool>(&mut self, seen: &mut SeenTags) -> Result<GameEnd, Stop> {
        if !FINISH {
            return Err(Stop::Break);
        }
        while self.step(seen, &mut Scan)? != Step::End {}
        Ok(self.end())
    }

    /// Whether `p` is at column 1.
    #[inline(always)]
    fn at_col1(&self, p: usize) -> bool {
        if p == self.line_start_pos {
            self.ctx.at_line_start
        } else {
            p > 0 && is_line_end(self.input[p - 1]) || self.after_bom_at_col1(p)
        }
    }

    /// Whether byte order marks at a line's start (files joined with
    /// `cat`) stand right before `p`: they are not a column.
    #[cold]
    fn after_bom_at_col1(&self, mut p: usize) -> bool {
        let mut marks = 0;
        while p >= self.line_start_pos + 3 && self.input[p - 3..p] == *BOM {
            p -= 3;
            marks += 1;
        }
        marks > 0 && self.at_col1(p)
    }

    /// Consumes the next token or run of whitespace and reports it.
    #[inline(always)]
    fn step<V: Visitor>(&mut self, seen: &mut SeenTags, v: &mut V) -> Result<Step, Stop> {
        let input = self.input;
        let eof = self.eof;
        let len = input.len();
        let pos = self.pos;
        if pos >= len {
            if eof {
                return Ok(Step::End);
            }
            return Err(Stop::NeedMore);
        }
        let b = input[pos];
        let c = class(b);
        if c & WS != 0 {
            let end = run_of(input, pos + 1, WS);
            self.pos = end;
            emit!(v.whitespace(&input[pos..end]));
            return Ok(Step::Token);
        }

        // A token starts at `pos`: does it belong to this game?
        if c & START != 0 {
            match self.phase {
                // A comment right after the termination marker is the
                // game's, as python-chess reads it (a `{` that no `}`
                // closes is the next game's junk: below).
                Phase::Done if b != b'{' => return Ok(Step::End),
                Phase::Movetext if b == b'[' => return Ok(Step::End),
                Phase::Tags if b != b'[' => {
                    self.phase = Phase::Movetext;
                    emit!(v.end_tags());
                    emit!(v.begin_movetext());
                }
                _ => {}
            }
        }
        // An escape line is no token: `%` lines and whitespace alone make
        // no game, as for pgn-reader and python-chess.
        if b != b'%' || !self.at_col1(pos) {
            self.has_tokens = true;
        }

        match b {
            b'[' => match parse_tag(input, pos, eof)? {
                TagParse::Tag { name, value, end } => {
                    let this = &input[name.0..name.1];
                    let names = &seen.names[..seen.len];
                    if names.iter().any(|&(s, e)| &input[s..e] == this)
                        && after_empty_line(input, pos)
                    {
                        // A repeated tag name after an empty line: the
                        // previous game had a tag section and nothing else
                        // (lichess broadcast exports). Without the empty
                        // line the name is repeated within the game.
                        return Ok(Step::End);
                    }
                    if seen.len < seen.names.len() {
                        seen.names[seen.len] = name;
                        seen.len += 1;
                    }
                    self.pos = end;
                    emit!(v.tag(this, &input[value.0..value.1]));
                }
                TagParse::Junk { end } => {
                    self.pos = end;
                    emit!(v.junk(&input[pos..end]));
                }
            },
            b'{' => match memchr(b'}', &input[pos + 1..]) {
                Some(k) => {
                    self.pos = pos + k + 2;
                    emit!(v.comment(&input[pos + 1..pos + 1 + k]));
                }
                None if eof && self.phase == Phase::Done => return Ok(Step::End),
                None if eof => {
                    self.pos = len;
                    emit!(v.junk(&input[pos..]));
                }
                None => return Err(Stop::NeedMore),
            },
            b';' => {
                let end = line_text(input, pos + 1, eof)?;
                self.pos = end;
                emit!(v.line_comment(&input[pos + 1..end]));
            }
            b'%' if self.at_col1(pos) => {
                let end = line_text(input, pos + 1, eof)?;
                self.pos = end;
                emit!(v.escape_line(&input[pos + 1..end]));
            }
            b'(' => {
                self.depth += 1;
                self.pos = pos + 1;
                match v.begin_variation() {
                    ControlFlow::Continue(Skip(false)) => {}
                    ControlFlow::Continue(Skip(true)) => return Ok(Step::SkipVariation),
                    ControlFlow::Break(()) => return Err(Stop::Break),
                }
            }
            b')' if self.depth > 0 => {
                self.depth -= 1;
                self.pos = pos + 1;
                emit!(v.end_variation());
            }
            b'*' => {
                self.pos = pos + 1;
                if self.depth == 0 {
                    self.phase = Phase::Done;
                }
                emit!(v.outcome(&input[pos..pos + 1]));
            }
            b'$' => {
                let end = run_of(input, pos + 1, DIGIT);
                peek(input, end, eof)?;
                self.pos = end;
                if end == pos + 1 {
                    emit!(v.junk(&input[pos..end]));
                } else {
                    let n = parse_u32_saturating(&input[pos + 1..end]);
                    emit!(v.nag_token(&input[pos..end], n, false));
                }
            }
            b'!' | b'?' => {
                let mut end = pos + 1;
                while end < len && matches!(input[end], b'!' | b'?') {
                    end += 1;
                }
                peek(input, end, eof)?;
                self.pos = end;
                let raw = &input[pos..end];
                match suffix_nag(raw) {
                    Some(n) if self.phase == Phase::Movetext => emit!(v.nag_token(raw, n, true)),
                    _ => emit!(v.junk(raw)),
                }
            }
            b'.' => {
                let end = run_of_byte(input, pos, b'.');
                peek(input, end, eof)?;
                self.pos = end;
                emit!(v.junk(&input[pos..end]));
            }
            _ if c & DIGIT != 0 => {
                self.pos = digit_token(input, pos, eof, &mut self.phase, self.depth, v)?;
            }
            _ if c & SYM != 0 && c & START != 0 => {
                let end = run_of(input, pos + 1, SYM);
                self.pos = symbol(input, pos, end, eof, v)?;
            }
            _ if c & SPECIAL != 0 => {
                // `]`, `}`, an unmatched `)`, a `%` not at column 1.
                self.pos = pos + 1;
                emit!(v.junk(&input[pos..pos + 1]));
            }
            _ => {
                let end = run_of_junk(input, pos + 1);
                peek(input, end, eof)?;
                self.pos = end;
                emit!(v.junk(&input[pos..end]));
            }
        }
        Ok(Step::Token)
    }
}

#[inline(always)]
fn run_of_byte(input: &[u8], mut i: usize, byte: u8) -> usize {
    while i < input.len() && input[i] == byte {
        i += 1;
    }
    i
}

/// A junk token: up to whitespace, a byte with a meaning of its own, or a
/// digit (so that `/>1.` leaves the move number `1.` intact). Letters are
/// included, so `<br` is one token.
#[inline(always)]
fn run_of_junk(input: &[u8], mut i: usize) -> usize {
    while i < input.len() && class(input[i]) & (WS | SPECIAL | DIGIT) == 0 {
        i += 1;
    }
    i
}

/// A token starting with a digit: move number, termination marker, or a
/// symbol such as `0-0` or `0000`. Returns the position after it.
#[inline(always)]
fn digit_token<V: Visitor>(
    input: &[u8],
    pos: usize,
    eof: bool,
    phase: &mut Phase,
    depth: u64,
    v: &mut V,
) -> Result<usize, Stop> {
    let digits_end = run_of(input, pos + 1, DIGIT);
    let next = peek(input, digits_end, eof)?;
    let next_class = next.map_or(0, class);
    if next_class & SYM != 0 && next_class & LETTER == 0 {
        // `1-0`, `0-1`, `1/2-1/2`, `0-0`, ...
        let end = run_of(input, digits_end, SYM);
        peek(input, end, eof)?;
        let token = &input[pos..end];
        if matches!(token, b"1-0" | b"0-1" | b"1/2-1/2") {
            emit!(v.outcome(token));
            if depth == 0 {
                *phase = Phase::Done;
            }
            return Ok(end);
        }
        return symbol(input, pos, end, eof, v);
    }
    let digits = &input[pos..digits_end];
    if digits == b"0000" && next != Some(b'.') {
        emit!(v.san(digits));
        return Ok(digits_end);
    }
    // A move number; fold dots, also after whitespace (`1 .`, `1. ...`).
    let mut raw_end = digits_end;
    let mut dots: u32 = 0;
    loop {
        let dot = run_of(input, raw_end, WS);
        match peek(input, dot, eof)? {
            Some(b'.') => {
                let end = run_of_byte(input, dot, b'.');
                peek(input, end, eof)?;
                dots += (end - dot) as u32;
                raw_end = end;
            }
            _ => break,
        }
    }
    emit!(v.move_number(
        parse_u32_saturating(digits),
        dots.min(u32::from(u8::MAX)) as u8,
        &input[pos..raw_end],
    ));
    Ok(raw_end)
}

/// A symbol token `input[pos..end]` that is neither a number nor a
/// termination marker: SAN, with an `e.p.` marker split off.
#[inline(always)]
fn symbol<V: Visitor>(
    input: &[u8],
    pos: usize,
    end: usize,
    eof: bool,
    v: &mut V,
) -> Result<usize, Stop> {
    let next = peek(input, end, eof)?;
    if next == Some(b'.') && input[end - 1] == b'e' {
        // Possibly `exd6e.p.` or a separate `e.p.`.
        let tail = &input[end..];
        if tail.len() < 3 && !eof && b".p.".starts_with(tail) {
            return Err(Stop::NeedMore);
        }
        if tail.starts_with(b".p.") {
            if end - 1 > pos {
                emit!(v.san(&input[pos..end - 1]));
            }
            emit!(v.en_passant_marker(&input[end - 1..end + 3]));
            return Ok(end + 3);
        }
    }
    emit!(v.san(&input[pos..end]));
    Ok(end)
}

/// Where the first tag pair of the game at the front of `text` starts (the
/// offset of its `[`), as this lexer reads the game: whitespace, `%`
/// escape lines, `;` comments and junk before it (a stray `[x]` line
/// included) are passed over. `None` when the game has no tag pair (its
/// movetext comes first). `text` is read from the start of an input.
pub fn first_tag_pair(text: &[u8]) -> Option<usize> {
    /// Notes the first tag's `[` and stops there, or at the movetext.
    struct FirstTag<'a> {
        text: &'a [u8],
        at: Option<usize>,
    }
    impl Visitor for FirstTag<'_> {
        type Output = ();
        fn tag(&mut self, name: &[u8], _value: &[u8]) -> ControlFlow<()> {
            // `name` is a slice of `text`, after the `[` and any blanks.
            let name_at = (name.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
            self.at = self
                .text
                .get(..name_at)
                .and_then(|before| memrchr(b'[', before));
            ControlFlow::Break(())
        }
        fn end_tags(&mut self) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn end_game(&mut self, _raw: &[u8]) {}
    }
    let mut v = FirstTag { text, at: None };
    lex_game(text, GameStart::default(), LexContext::INPUT_START, &mut v);
    v.at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tag_pair_is_found_past_what_comes_before_it() {
        let game = b"[Event \"dup\"]\n\n1. e4 *\n";
        // The game's tag pair, right after what comes before it.
        for before in [
            &b""[..],
            b"\n\n",
            b"[x\n",
            b"[x]\n\n",
            b"%see [Event \"no\"]\n",
            b"; [Event \"no\"]\n",
            b"\xef\xbb\xbf",
        ] {
            let text = [before, &game[..]].concat();
            assert_eq!(
                first_tag_pair(&text),
                Some(before.len()),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
        // Blanks between the `[` and the name.
        assert_eq!(first_tag_pair(b"\n[ \tEvent \"x\"]\n*"), Some(1));
        // Movetext first, or nothing: no tag pair.
        assert_eq!(first_tag_pair(b"1. e4 *\n\n[Event \"next\"]\n*"), None);
        assert_eq!(first_tag_pair(b"{[Event \"x\"]} 1. e4 *"), None);
        // A malformed tag is junk up to its line's end.
        assert_eq!(first_tag_pair(b"[  [Event \"x\"]\n1. e4 *"), None);
        assert_eq!(first_tag_pair(b""), None);
        assert_eq!(first_tag_pair(b"[Event \"cut"), None);
    }

    #[test]
    fn line_ends_count_lf_crlf_and_cr_text() {
        assert_eq!(line_ends(b"a\nb\nc"), 2);
        assert_eq!(line_ends(b"a\r\nb\r\nc\r\n"), 3);
        assert_eq!(line_ends(b"a\rb\r\rc\r"), 4);
        assert_eq!(line_ends(b"no line end"), 0);
        assert_eq!(line_ends(b""), 0);
    }

    /// Records every event as a readable line.
    #[derive(Default, Clone)]
    struct Rec {
        ev: Vec<String>,
        ws: bool,
        /// Break in `begin_game`.
        break_at_begin: bool,
        /// Break after this many tags of a game.
        break_after_tags: Option<usize>,
        /// Break after this many SAN tokens of a game.
        break_after_sans: Option<usize>,
        /// Skip every variation.
        skip_variations: bool,
        tags: usize,
        sans: usize,
    }

    /// `Break` once `count` reaches `limit`.
    fn stop_at(count: usize, limit: Option<usize>) -> ControlFlow<()> {
        if Some(count) == limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    fn s(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    impl Visitor for Rec {
        type Output = Vec<String>;
        fn begin_game(&mut self, st: GameStart) -> ControlFlow<()> {
            self.ev
                .push(format!("begin {} {} {}", st.index, st.offset, st.line));
            (self.tags, self.sans) = (0, 0);
            if self.break_at_begin {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
        fn bom(&mut self) -> ControlFlow<()> {
            self.ev.push("bom".into());
            ControlFlow::Continue(())
        }
        fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("tag {}={}", s(name), s(value)));
            self.tags += 1;
            stop_at(self.tags, self.break_after_tags)
        }
        fn begin_movetext(&mut self) -> ControlFlow<()> {
            self.ev.push("mt".into());
            ControlFlow::Continue(())
        }
        fn move_number(&mut self, n: u32, dots: u8, raw: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("num {n} {dots} {:?}", s(raw)));
            ControlFlow::Continue(())
        }
        fn san(&mut self, t: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("san {}", s(t)));
            self.sans += 1;
            stop_at(self.sans, self.break_after_sans)
        }
        fn en_passant_marker(&mut self, raw: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("ep {}", s(raw)));
            ControlFlow::Continue(())
        }
        fn nag(&mut self, n: u32, suffix: bool) -> ControlFlow<()> {
            self.ev
                .push(format!("nag {n}{}", if suffix { " suffix" } else { "" }));
            ControlFlow::Continue(())
        }
        fn comment(&mut self, t: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("comment {:?}", s(t)));
            ControlFlow::Continue(())
        }
        fn line_comment(&mut self, t: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("line {:?}", s(t)));
            ControlFlow::Continue(())
        }
        fn escape_line(&mut self, t: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("escape {:?}", s(t)));
            ControlFlow::Continue(())
        }
        fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
            self.ev.push("(".into());
            ControlFlow::Continue(Skip(self.skip_variations))
        }
        fn end_variation(&mut self) -> ControlFlow<()> {
            self.ev.push(")".into());
            ControlFlow::Continue(())
        }
        fn outcome(&mut self, raw: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("outcome {}", s(raw)));
            ControlFlow::Continue(())
        }
        fn whitespace(&mut self, ws: &[u8]) -> ControlFlow<()> {
            if self.ws {
                self.ev.push(format!("ws {:?}", s(ws)));
            }
            ControlFlow::Continue(())
        }
        fn junk(&mut self, raw: &[u8]) -> ControlFlow<()> {
            self.ev.push(format!("junk {:?}", s(raw)));
            ControlFlow::Continue(())
        }
        fn end_game(&mut self, raw: &[u8]) -> Vec<String> {
            self.ev.push(format!("end {:?}", s(raw)));
            std::mem::take(&mut self.ev)
        }
    }

    /// Splits `input` into games with `scan_game` and lexes each.
    fn games_with(input: &[u8], ws: bool) -> Vec<Vec<String>> {
        lex_all(
            input,
            Rec {
                ws,
                ..Rec::default()
            },
        )
    }

    /// Splits `input` into games with `scan_game` and lexes each with `rec`;
    /// checks that `lex_games`, which finds each game's end as it lexes
    /// it, reports the same.
    fn lex_all(input: &[u8], mut rec: Rec) -> Vec<Vec<String>> {
        let mut twin = rec.clone();
        let out = split_and_lex(input, &mut rec);
        let start = GameStart {
            index: 0,
            offset: 0,
            line: 1,
        };
        let mut batch = Vec::new();
        lex_games(input, start, &mut twin, |_, game, _| batch.push(game));
        assert_eq!(batch, out, "lex_games against scan_game and lex_game");
        out
    }

    fn split_and_lex(input: &[u8], rec: &mut Rec) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let mut pos = 0;
        loop {
            let ctx = LexContext {
                at_line_start: pos == 0 || is_line_end(input[pos - 1]),
                at_input_start: pos == 0,
            };
            let end = scan_game(&input[pos..], true, ctx).unwrap();
            if !end.has_tokens {
                assert_eq!(pos + end.len, input.len());
                break;
            }
            // Scanning must not depend on where the buffer ends.
            for cut in 0..end.len {
                if let Ok(e) = scan_game(&input[pos..pos + cut], false, ctx) {
                    assert_eq!(e, end, "cut at {cut}");
                }
            }
            let start = GameStart {
                index: out.len() as u64,
                offset: pos as u64,
                // Lines end at LF; in text without any LF, at CR.
                line: 1 + {
                    let end = if input.contains(&b'\n') { b'\n' } else { b'\r' };
                    input[..pos].iter().filter(|&&b| b == end).count() as u64
                },
            };
            out.push(lex_game(&input[pos..pos + end.len], start, ctx, rec));
            pos += end.len;
        }
        out
    }

    fn games(input: &[u8]) -> Vec<Vec<String>> {
        games_with(input, false)
    }

    fn one(input: &[u8]) -> Vec<String> {
        let mut g = games(input);
        assert_eq!(g.len(), 1, "{g:#?}");
        g.pop().unwrap()
    }

    fn has(events: &[String], wanted: &[&str]) {
        // `wanted` must occur in order as a contiguous run.
        let found = events
            .windows(wanted.len())
            .any(|w| w.iter().zip(wanted).all(|(a, b)| a == b));
        assert!(found, "{wanted:#?} not in {events:#?}");
    }

    #[test]
    fn tag_escapes_kept_raw() {
        let g = one(br#"[Event "a \"b\" \\ c"] *"#);
        has(&g, &[r#"tag Event=a \"b\" \\ c"#]);
    }

    #[test]
    fn brackets_inside_tag_strings() {
        let g = one(br#"[C "A]]"] [D "A]][" ] [E "\"A]][\""] *"#);
        has(
            &g,
            &[
                "tag C=A]]",
                "tag D=A]][",
                r#"tag E=\"A]][\""#,
                "mt",
                "outcome *",
            ],
        );
    }

    #[test]
    fn several_tags_on_one_line_and_indented() {
        let g = one(b"  [A \"1\"][B \"2\"]\n\t[C \"3\"]\n\n1. e4 *\n");
        has(
            &g,
            &["tag A=1", "tag B=2", "tag C=3", "mt", "num 1 1 \"1.\""],
        );
    }

    #[test]
    fn blank_line_inside_tag_section() {
        let g = one(b"[Event \"x\"]\r\n\r\n[Site \"y\"]\r\n\r\n1. d4 1-0\r\n");
        has(&g, &["tag Event=x", "tag Site=y", "mt"]);
    }

    #[test]
    fn repeated_tag_starts_new_game() {
        let g = games(
            b"[Event \"a\"]\n[Site \"x\"]\n\n[Event \"b\"]\n[Site \"y\"]\n\n[Event \"c\"]\n1. e4\n",
        );
        assert_eq!(g.len(), 3);
        has(
            &g[0],
            &[
                "tag Event=a",
                "tag Site=x",
                "mt",
                "end \"[Event \\\"a\\\"]\\n[Site \\\"x\\\"]\\n\\n\"",
            ],
        );
        has(&g[1], &["tag Event=b", "tag Site=y", "mt"]);
        has(&g[2], &["tag Event=c", "mt", "num 1 1 \"1.\"", "san e4"]);
    }

    #[test]
    fn escape_line_after_a_byte_order_mark_inside_the_input() {
        // Two files joined with `cat`, the second starting with a BOM and a
        // `%` line: an escape line, as at the start of the input.
        let g = games(b"1. e4 1-0\n\xef\xbb\xbf% made by X\n[Event \"y\"]\n\n1. d4 *\n");
        assert_eq!(g.len(), 2);
        has(
            &g[0],
            &["outcome 1-0", "junk \"\\u{feff}\"", "escape \" made by X\""],
        );
        has(&g[1], &["tag Event=y"]);
        // Not after other text on the line.
        let g = games(b"1. e4 1-0 \xef\xbb\xbf% x\n");
        assert!(!g[0].iter().any(|e| e.starts_with("escape")), "{g:?}");
    }

    #[test]
    fn repeated_tag_without_an_empty_line_stays_in_its_game() {
        let g = games(b"[Event \"x\"]\n[White \"a\"]\n[White \"b\"]\n\n1. e4 1-0\n");
        assert_eq!(g.len(), 1);
        has(&g[0], &["tag Event=x", "tag White=a", "tag White=b", "mt"]);
        has(&g[0], &["san e4", "outcome 1-0"]);
        let g = games(b"[White \"a\"]\r\n\r\n[White \"b\"]\r\n\r\n1. e4 1-0\r\n");
        assert_eq!(g.len(), 2);
    }

    #[test]
    fn comment_after_the_termination_marker_stays_in_its_game() {
        let g =
            games(b"[Event \"x\"]\n\n1. e4 e5 1-0 {won on time}\n\n[Event \"y\"]\n\n1. d4 0-1\n");
        assert_eq!(g.len(), 2);
        has(&g[0], &["san e5", "outcome 1-0", "comment \"won on time\""]);
        has(&g[1], &["tag Event=y", "mt"]);
        has(&g[1], &["san d4", "outcome 0-1"]);
        // Games without tags: the next move number starts the next game.
        let g = games(b"1. e4 1-0 {a} 1. d4 0-1\n");
        assert_eq!(g.len(), 2);
        // A `{` that nothing closes is the next game's.
        let g = games(b"1. e4 1-0\n{never closed\n");
        assert_eq!(g.len(), 2);
        has(&g[0], &["san e4", "outcome 1-0"]);
    }

    #[test]
    fn tags_and_movetext_on_one_line() {
        let g = games(b"[Variant \"Standard\"] 1. e4 e5 {c}\n[Variant \"X\"]\n1.e3\n");
        assert_eq!(g.len(), 2);
        has(
            &g[0],
            &["tag Variant=Standard", "mt", "num 1 1 \"1.\"", "san e4"],
        );
        has(&g[1], &["tag Variant=X", "mt", "num 1 1 \"1.\"", "san e3"]);
    }

    #[test]
    fn move_number_forms() {
        let g = one(b"1. e4 1... e5 2 . Nf3 2. ... Nc6 3.Bb5 3...a6 4 Ba4 12Nf6 *");
        has(
            &g,
            &["num 1 1 \"1.\"", "san e4", "num 1 3 \"1...\"", "san e5"],
        );
        has(
            &g,
            &[
                "num 2 1 \"2 .\"",
                "san Nf3",
                "num 2 4 \"2. ...\"",
                "san Nc6",
            ],
        );
        has(
            &g,
            &["num 3 1 \"3.\"", "san Bb5", "num 3 3 \"3...\"", "san a6"],
        );
        has(
            &g,
            &["num 4 0 \"4\"", "san Ba4", "num 12 0 \"12\"", "san Nf6"],
        );
        let g = one(b"e4 e5 Nf3 *");
        has(&g, &["mt", "san e4", "san e5", "san Nf3", "outcome *"]);
        let g = one(b"99999999999. e4 *");
        has(&g, &[&format!("num {} 1 \"99999999999.\"", u32::MAX)]);
    }

    #[test]
    fn san_import_forms() {
        let g = one(b"1. 0-0 O-O+ 2. e8Q Nge2 3. e8=Q# 0-0-0 g1f3 Z0 -- 0000 @@@@ P@e4 *");
        for t in [
            "0-0", "O-O+", "e8Q", "Nge2", "e8=Q#", "0-0-0", "g1f3", "Z0", "--", "0000", "@@@@",
            "P@e4",
        ] {
            has(&g, &[&format!("san {t}")]);
        }
    }

    #[test]
    fn en_passant_marker() {
        let g = one(b"1. exd6e.p. exd6 e.p. Kxd6 e5 *");
        has(
            &g,
            &[
                "san exd6", "ep e.p.", "san exd6", "ep e.p.", "san Kxd6", "san e5",
            ],
        );
    }

    #[test]
    fn suffix_annotations_and_nags() {
        let g = one(b"1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Nf3+! $14 $0 $007 e4!!! *");
        has(&g, &["san e4", "nag 1 suffix", "san e5", "nag 2 suffix"]);
        has(&g, &["san Nf3", "nag 3 suffix", "san Nc6", "nag 4 suffix"]);
        has(&g, &["san Bb5", "nag 5 suffix", "san a6", "nag 6 suffix"]);
        has(
            &g,
            &["san Nf3+", "nag 1 suffix", "nag 14", "nag 0", "nag 7"],
        );
        has(&g, &["san e4", "junk \"!!!\""]);
        let g = one(b"e4 $ e5 $99999999999 *");
        has(&g, &["junk \"$\"", "san e5", &format!("nag {}", u32::MAX)]);
    }

    #[test]
    fn nag_token_raw() {
        struct Raw(Vec<Vec<u8>>);
        impl Visitor for Raw {
            type Output = ();
            fn nag_token(&mut self, raw: &[u8], _n: u32, _s: bool) -> ControlFlow<()> {
                self.0.push(raw.to_vec());
                ControlFlow::Continue(())
            }
            fn end_game(&mut self, _raw: &[u8]) {}
        }
        let mut r = Raw(Vec::new());
        lex_game(
            b"e4!? $007",
            GameStart::default(),
            LexContext::INPUT_START,
            &mut r,
        );
        assert_eq!(r.0, [b"!?".to_vec(), b"$007".to_vec()]);
    }

    #[test]
    fn multi_line_comments() {
        let g = one(b"1. e4 {a\r\n  b\n} e5 {} *");
        has(
            &g,
            &[
                "san e4",
                "comment \"a\\r\\n  b\\n\"",
                "san e5",
                "comment \"\"",
            ],
        );
    }

    #[test]
    fn rest_of_line_comments() {
        let g = one(b"1. e4 ; rest {of} (line\r\ne5 ;\n*");
        has(
            &g,
            &["san e4", "line \" rest {of} (line\"", "san e5", "line \"\""],
        );
    }

    #[test]
    fn escape_lines_at_column_one() {
        let input = b"% head\r\n[A \"1\"]\n%mid\n1. e4 (e3\n% in rav\n) e5 % not\n*\n% after\n";
        let g = one(input);
        has(&g, &["escape \" head\"", "tag A=1", "escape \"mid\"", "mt"]);
        has(&g, &["(", "san e3", "escape \" in rav\"", ")"]);
        has(
            &g,
            &[
                "san e5",
                "junk \"%\"",
                "san not",
                "outcome *",
                "escape \" after\"",
            ],
        );
    }

    #[test]
    fn lone_cr_ends_escape_lines_and_line_comments() {
        // Classic Mac OS text: CR alone ends each line, so `%` after a CR
        // is in column 1 and a `;` comment stops at the next CR.
        let g = games(b"[A \"1\"]\r\r% esc\r1. e4 ; note\re5 *\r%x\r[A \"2\"]\r\r1. d4 *\r");
        assert_eq!(g.len(), 2);
        has(
            &g[0],
            &[
                "tag A=1",
                "escape \" esc\"",
                "mt",
                "num 1 1 \"1.\"",
                "san e4",
                "line \" note\"",
                "san e5",
                "outcome *",
                "escape \"x\"",
            ],
        );
        has(&g[1], &["begin 1 36 7", "tag A=2", "mt"]);
        // A CR inside LF text ends the line comment there too.
        let g = one(b"1. e4 ;a\rb\n*\n");
        has(&g, &["line \"a\"", "san b", "outcome *"]);
    }

    #[test]
    fn escape_line_between_games_belongs_to_earlier_game() {
        let g = games(b"[A \"1\"]\n*\n%x\n;y\n[A \"2\"]\n*\n");
        assert_eq!(g.len(), 2);
        has(&g[0], &["outcome *", "escape \"x\"", "line \"y\""]);
        has(&g[1], &["begin 1 16 5", "tag A=2"]);
    }

    #[test]
    fn nested_variations() {
        let g = one(b"1. e4 (1. d4 (1. c4 c5) d5) (1. f4) e5 *");
        has(&g, &["san e4", "(", "num 1 1 \"1.\"", "san d4", "("]);
        has(
            &g,
            &[
                "san c5",
                ")",
                "san d5",
                ")",
                "(",
                "num 1 1 \"1.\"",
                "san f4",
                ")",
            ],
        );
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let n = 1_000_000;
        let mut input = b"1. e4 ".to_vec();
        input.extend(std::iter::repeat_n(b'(', n));
        input.extend(std::iter::repeat_n(b')', n));
        input.extend(b" *");
        struct Depth(i64, i64);
        impl Visitor for Depth {
            type Output = ();
            fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
                self.0 += 1;
                self.1 = self.1.max(self.0);
                ControlFlow::Continue(Skip(false))
            }
            fn end_variation(&mut self) -> ControlFlow<()> {
                self.0 -= 1;
                ControlFlow::Continue(())
            }
            fn end_game(&mut self, _raw: &[u8]) {}
        }
        let end = scan_game(&input, true, LexContext::INPUT_START).unwrap();
        assert_eq!(end.len, input.len());
        let mut d = Depth(0, 0);
        lex_game(
            &input,
            GameStart::default(),
            LexContext::INPUT_START,
            &mut d,
        );
        assert_eq!((d.0, d.1), (0, n as i64));
    }

    #[test]
    fn all_termination_markers() {
        let g = games(b"e4 1-0\ne4 0-1\ne4 1/2-1/2\ne4 *\n");
        assert_eq!(g.len(), 4);
        for (game, marker) in g.iter().zip(["1-0", "0-1", "1/2-1/2", "*"]) {
            has(game, &["san e4", &format!("outcome {marker}")]);
        }
    }

    #[test]
    fn outcome_inside_variation_does_not_end_game() {
        let g = one(b"1. e4 (* 1. d4 1/2-1/2) e5 *");
        has(
            &g,
            &[
                "(",
                "outcome *",
                "num 1 1 \"1.\"",
                "san d4",
                "outcome 1/2-1/2",
                ")",
            ],
        );
        has(&g, &["san e5", "outcome *"]);
    }

    #[test]
    fn missing_termination_marker() {
        let g = games(b"[A \"1\"]\n1. e4 e5\n\n[A \"2\"]\n1. d4\n");
        assert_eq!(g.len(), 2);
        assert_eq!(
            g[0].last().unwrap(),
            "end \"[A \\\"1\\\"]\\n1. e4 e5\\n\\n\""
        );
        has(
            &g[1],
            &[
                "tag A=2",
                "mt",
                "num 1 1 \"1.\"",
                "san d4",
                "end \"[A \\\"2\\\"]\\n1. d4\\n\"",
            ],
        );
    }

    #[test]
    fn games_without_tags_and_several_on_one_line() {
        let g = games(b"1. e4 e5 1-0 1. d4 d5 0-1");
        assert_eq!(g.len(), 2);
        has(
            &g[0],
            &[
                "begin 0 0 1",
                "mt",
                "num 1 1 \"1.\"",
                "san e4",
                "san e5",
                "outcome 1-0",
            ],
        );
        has(
            &g[1],
            &[
                "begin 1 13 1",
                "mt",
                "num 1 1 \"1.\"",
                "san d4",
                "san d5",
                "outcome 0-1",
            ],
        );
        // The glued pgn4web form.
        let g = games(b"[E\"a\"][R \"1\"]a4(b4$6)a6!?{c}a5*[E\"b\"]h4*");
        assert_eq!(g.len(), 2);
        has(
            &g[0],
            &[
                "tag E=a", "tag R=1", "mt", "san a4", "(", "san b4", "nag 6", ")",
            ],
        );
        has(
            &g[0],
            &[
                "san a6",
                "nag 5 suffix",
                "comment \"c\"",
                "san a5",
                "outcome *",
            ],
        );
        has(&g[1], &["tag E=b", "mt", "san h4", "outcome *"]);
    }

    #[test]
    fn bom() {
        let g = one(b"\xEF\xBB\xBF[Event \"x\"]\r\n\r\n*\r\n");
        has(
            &g,
            &["begin 0 0 1", "bom", "tag Event=x", "mt", "outcome *"],
        );
        // Only at offset 0: elsewhere it is junk.
        let g = games(b"*\n\xEF\xBB\xBF[A \"\"]*");
        assert_eq!(g.len(), 2);
        has(&g[0], &["outcome *", "junk \"\\u{feff}\""]);
    }

    #[test]
    fn crlf() {
        let g = games_with(b"[A \"1\"]\r\n\r\n1. e4 ; c\r\n*\r\n", true);
        has(
            &g[0],
            &["tag A=1", "ws \"\\r\\n\\r\\n\"", "mt", "num 1 1 \"1.\""],
        );
        has(
            &g[0],
            &["line \" c\"", "ws \"\\r\\n\"", "outcome *", "ws \"\\r\\n\""],
        );
    }

    #[test]
    fn nul_padding_and_trailing_whitespace_make_no_game() {
        let g = games_with(b"e4 1-0\r\n\0\0", true);
        assert_eq!(g.len(), 1);
        has(
            &g[0],
            &[
                "outcome 1-0",
                "ws \"\\r\\n\\0\\0\"",
                "end \"e4 1-0\\r\\n\\0\\0\"",
            ],
        );
        assert!(games(b"").is_empty());
        assert!(games(b" \r\n\0\0 ").is_empty());
        assert!(games(b"% escape\n\n%another\r\n  \n%").is_empty());
        assert_eq!(games(b"% escape\n1. e4 *\n").len(), 1);
        let g = games_with(b"\n\n[A \"1\"]\n", true);
        has(
            &g[0],
            &[
                "begin 0 0 1",
                "ws \"\\n\\n\"",
                "tag A=1",
                "ws \"\\n\"",
                "mt",
            ],
        );
    }

    #[test]
    fn non_utf8_bytes_kept() {
        struct Bytes(Vec<Vec<u8>>);
        impl Visitor for Bytes {
            type Output = ();
            fn tag(&mut self, _n: &[u8], v: &[u8]) -> ControlFlow<()> {
                self.0.push(v.to_vec());
                ControlFlow::Continue(())
            }
            fn comment(&mut self, t: &[u8]) -> ControlFlow<()> {
                self.0.push(t.to_vec());
                ControlFlow::Continue(())
            }
            fn end_game(&mut self, _raw: &[u8]) {}
        }
        let input = b"[White \"Ren\xe9 \x82 \xc3\xa9\"] {Gr\xfc\xdfe} *";
        let mut b = Bytes(Vec::new());
        lex_game(input, GameStart::default(), LexContext::INPUT_START, &mut b);
        assert_eq!(
            b.0,
            [b"Ren\xe9 \x82 \xc3\xa9".to_vec(), b"Gr\xfc\xdfe".to_vec()]
        );
    }

    #[test]
    fn br_junk() {
        let g = one(b"[Event \"?\"]<br />[Site \"?\"]<br /><br />1. d4 d5<br />2. Nf3 1-0");
        has(
            &g,
            &["tag Event=?", "junk \"<br\"", "junk \"/>\"", "tag Site=?"],
        );
        has(
            &g,
            &[
                "junk \"/>\"",
                "mt",
                "num 1 1 \"1.\"",
                "san d4",
                "san d5",
                "junk \"<br\"",
            ],
        );
    }

    #[test]
    fn unmatched_and_malformed() {
        let g = one(b"[kj90trkm\"sdfsdf\"yl]\n[A \"1\"]\ne4 ) } e5 . *");
        has(
            &g,
            &[
                "junk \"[kj90trkm\\\"sdfsdf\\\"yl]\"",
                "tag A=1",
                "mt",
                "san e4",
            ],
        );
        has(
            &g,
            &[
                "junk \")\"",
                "junk \"}\"",
                "san e5",
                "junk \".\"",
                "outcome *",
            ],
        );
        let g = one(b"e4 {never closed\n");
        has(&g, &["san e4", "junk \"{never closed\\n\""]);
    }

    #[test]
    fn escaped_closing_quote() {
        let g = one(b"[Event \"Ugra Cup \\\"]\n[Site \"?\"]\n*");
        has(&g, &["tag Event=Ugra Cup \\", "tag Site=?"]);
    }

    #[test]
    fn quotes_inside_a_value_run_to_the_last_quote_before_the_bracket() {
        // As python-chess reads them.
        let g = one(b"[White \"\"Socrates Expert\"\"]\n[Black \"b\"]\n\n1. e4 *\n");
        has(&g, &["tag White=\"Socrates Expert\"", "tag Black=b"]);
        let g = one(b"[Event \"a\" b]\n\n1. e4 *\n");
        has(&g, &["junk \"[Event \\\"a\\\" b]\"", "mt"]);
    }

    #[test]
    fn malformed_header_with_spaces() {
        let g = one(b"[ Event  \"x\"]\n\n[ Round\"13\"]\n\ne4 *");
        has(&g, &["tag Event=x", "tag Round=13", "mt", "san e4"]);
    }

    #[test]
    fn skip_movetext() {
        struct Tags(usize, usize);
        impl Visitor for Tags {
            type Output = ();
            fn tag(&mut self, _n: &[u8], _v: &[u8]) -> ControlFlow<()> {
                self.0 += 1;
                ControlFlow::Continue(())
            }
            fn end_tags(&mut self) -> ControlFlow<()> {
                ControlFlow::Break(())
            }
            fn san(&mut self, _t: &[u8]) -> ControlFlow<()> {
                self.1 += 1;
                ControlFlow::Continue(())
            }
            fn end_game(&mut self, _raw: &[u8]) {}
        }
        let mut t = Tags(0, 0);
        let input = b"[A \"1\"] 1. e4 e5 *";
        lex_game(input, GameStart::default(), LexContext::INPUT_START, &mut t);
        assert_eq!((t.0, t.1), (1, 0));
    }

    #[test]
    fn break_after_tags_skips_the_rest_of_the_game() {
        let input = b"[A \"1\"]\n[B \"2\"]\n[C \"3\"]\n1. e4 (1. d4) e5 1-0\n[A \"4\"]\n1. c4 *\n";
        let rec = Rec {
            break_after_tags: Some(2),
            ..Rec::default()
        };
        let g = lex_all(input, rec);
        assert_eq!(
            g,
            [
                vec![
                    "begin 0 0 1",
                    "tag A=1",
                    "tag B=2",
                    r#"end "[A \"1\"]\n[B \"2\"]\n[C \"3\"]\n1. e4 (1. d4) e5 1-0\n""#,
                ],
                vec![
                    "begin 1 45 5",
                    "tag A=4",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san c4",
                    "outcome *",
                    r#"end "[A \"4\"]\n1. c4 *\n""#,
                ],
            ]
        );
    }

    #[test]
    fn break_after_first_move() {
        let input = b"[E \"x\"]\n1. e4 {a (b} e5 (1... c5) *\n1. d4 d5 *\n";
        let rec = Rec {
            break_after_sans: Some(1),
            ..Rec::default()
        };
        let g = lex_all(input, rec);
        assert_eq!(
            g,
            [
                vec![
                    "begin 0 0 1",
                    "tag E=x",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san e4",
                    r#"end "[E \"x\"]\n1. e4 {a (b} e5 (1... c5) *\n""#,
                ],
                vec![
                    "begin 1 36 3",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san d4",
                    r#"end "1. d4 d5 *\n""#,
                ],
            ]
        );
    }

    #[test]
    fn break_inside_a_variation() {
        let rec = Rec {
            break_after_sans: Some(2),
            ..Rec::default()
        };
        let g = lex_all(b"1. e4 (1. d4 {)} d5) e5 *\n1. c4 *", rec);
        assert_eq!(
            g,
            [
                vec![
                    "begin 0 0 1",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san e4",
                    "(",
                    "num 1 1 \"1.\"",
                    "san d4",
                    r#"end "1. e4 (1. d4 {)} d5) e5 *\n""#,
                ],
                vec![
                    "begin 1 26 2",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san c4",
                    "outcome *",
                    r#"end "1. c4 *""#,
                ],
            ]
        );
    }

    #[test]
    fn break_at_begin_game_reports_only_the_raw_game() {
        let rec = Rec {
            break_at_begin: true,
            ..Rec::default()
        };
        let g = lex_all(b"[A \"1\"]\n1. e4 *\n1. d4 *", rec);
        assert_eq!(
            g,
            [
                vec!["begin 0 0 1", r#"end "[A \"1\"]\n1. e4 *\n""#],
                vec!["begin 1 16 3", r#"end "1. d4 *""#],
            ]
        );
    }

    #[test]
    fn skipped_variations() {
        let input = b"[Event \"a\"]\n\
            1. e4 (1. d4 {(} d5 (1... Nf6 {)}) 2. c4 ; )\n\
            % )\n\
            ) e5 (1... c5 (1... e6) *) 2. Nf3 {after (x)} 1-0\n\
            [Event \"b\"]\n\
            1. d4 (1. c4) d5 *\n";
        let skip = || Rec {
            skip_variations: true,
            ..Rec::default()
        };
        let g = lex_all(input, skip());
        assert_eq!(
            g,
            [
                vec![
                    "begin 0 0 1",
                    "tag Event=a",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san e4",
                    "(",
                    ")",
                    "san e5",
                    "(",
                    ")",
                    "num 2 1 \"2.\"",
                    "san Nf3",
                    "comment \"after (x)\"",
                    "outcome 1-0",
                    r#"end "[Event \"a\"]\n1. e4 (1. d4 {(} d5 (1... Nf6 {)}) 2. c4 ; )\n% )\n) e5 (1... c5 (1... e6) *) 2. Nf3 {after (x)} 1-0\n""#,
                ],
                vec![
                    "begin 1 111 5",
                    "tag Event=b",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san d4",
                    "(",
                    ")",
                    "san d5",
                    "outcome *",
                    r#"end "[Event \"b\"]\n1. d4 (1. c4) d5 *\n""#,
                ],
            ]
        );
        // Not skipping, the same input shows what was skipped.
        let all = games(input);
        has(&all[0], &["san d4", "comment \"(\"", "san d5", "("]);
        has(&all[0], &["comment \")\"", ")", "num 2 1 \"2.\""]);
        has(&all[0], &["line \" )\"", "escape \" )\"", ")", "san e5"]);
        // Whitespace inside a skipped variation is not reported either.
        let rec = Rec { ws: true, ..skip() };
        let g = lex_all(b"1. e4 ( 1. d4 ) e5 *", rec);
        assert_eq!(
            g,
            [vec![
                "begin 0 0 1",
                "mt",
                "num 1 1 \"1.\"",
                "ws \" \"",
                "san e4",
                "ws \" \"",
                "(",
                ")",
                "ws \" \"",
                "san e5",
                "ws \" \"",
                "outcome *",
                r#"end "1. e4 ( 1. d4 ) e5 *""#,
            ]]
        );
    }

    #[test]
    fn game_ends_inside_a_skipped_variation() {
        let skip = || Rec {
            skip_variations: true,
            ..Rec::default()
        };
        let g = lex_all(b"1. e4 (1. d4 (1. c4 *", skip());
        assert_eq!(
            g,
            [vec![
                "begin 0 0 1",
                "mt",
                "num 1 1 \"1.\"",
                "san e4",
                "(",
                r#"end "1. e4 (1. d4 (1. c4 *""#,
            ]]
        );
        // A tag section ends the game, also inside a skipped variation.
        let g = lex_all(b"1. e4 (1. d4\n[Event \"b\"]\n*\n", skip());
        assert_eq!(
            g,
            [
                vec![
                    "begin 0 0 1",
                    "mt",
                    "num 1 1 \"1.\"",
                    "san e4",
                    "(",
                    r#"end "1. e4 (1. d4\n""#,
                ],
                vec![
                    "begin 1 13 2",
                    "tag Event=b",
                    "mt",
                    "outcome *",
                    r#"end "[Event \"b\"]\n*\n""#,
                ],
            ]
        );
    }

    #[test]
    fn skipping_deep_nesting_does_not_recurse() {
        let n = 1_000_000;
        let mut input = b"1. e4 ".to_vec();
        input.extend(std::iter::repeat_n(b'(', n));
        input.extend(std::iter::repeat_n(b')', n));
        input.extend(b" e5 *");
        #[derive(Default)]
        struct Outer(u32, u32, u32);
        impl Visitor for Outer {
            type Output = ();
            fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
                self.0 += 1;
                ControlFlow::Continue(Skip(true))
            }
            fn end_variation(&mut self) -> ControlFlow<()> {
                self.1 += 1;
                ControlFlow::Continue(())
            }
            fn san(&mut self, _t: &[u8]) -> ControlFlow<()> {
                self.2 += 1;
                ControlFlow::Continue(())
            }
            fn end_game(&mut self, _raw: &[u8]) {}
        }
        let mut o = Outer::default();
        lex_game(
            &input,
            GameStart::default(),
            LexContext::INPUT_START,
            &mut o,
        );
        assert_eq!((o.0, o.1, o.2), (1, 1, 2));
    }

    #[test]
    fn need_more_at_every_cut() {
        // `games` checks every prefix; this input exercises lookahead.
        let g = games(b"[A \"x\\\"]\n1 . exd6e.p. e4!? $12 0000 1-0 1/2-1/2 \xEF\xBB\xBF");
        assert_eq!(g.len(), 2);
    }
}
