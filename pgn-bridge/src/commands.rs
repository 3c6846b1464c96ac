//! Embedded commands in comments (PGN supplement of 2001, section 3.2), and
//! their compact lossless PGC encoding (`spec/extensions-commands.md`).
//!
//! Two layers:
//!
//! - **Syntax** ([`parse_comment`]): a comment's bytes split into text and
//!   `[%name operands]` commands. `clk`, `emt`, `egt`, `mct` (section 4),
//!   `eval`, `cal` (arrows) and `csl` (square marks) are typed; any other
//!   command is [`Command::Other`] with its raw operands. Nothing is ever
//!   rejected: a malformed command is text.
//! - **Encoding**: [`encode_comment`] turns a comment made only of typed
//!   commands and whitespace into a [`TypedComment`] when [`render`] gives the
//!   exact original bytes back, and `None` otherwise (the comment then stays
//!   a text comment record). [`GameCommands`] collects the typed comments of
//!   one game into one extension record (kind [`pgc_core::ext::CLOCKS`]):
//!   templates (the spacing and the formats), which [anchors](GameCommands)
//!   (moves, NAGs, text comments) carry a typed comment right after them, and
//!   one column per command (clock differences as zig-zag LEB128). No
//!   record is written per move. [`GameCommandsReader`] reads the record
//!   back and renders the comment of each anchor, in game order.
//!
//! ```
//! use pgn_bridge::commands::{GameCommands, GameCommandsReader, encode_comment, render};
//!
//! let c = encode_comment(b" [%eval -0.5] [%clk 0:15:00] ").unwrap();
//! let mut text = Vec::new();
//! render(&c, &mut text);
//! assert_eq!(text, b" [%eval -0.5] [%clk 0:15:00] ");
//!
//! // One record per game: anchors 0 and 1 (here the first two moves) carry a typed comment.
//! let mut game = GameCommands::new();
//! assert!(game.push(0, &c));
//! assert!(game.push(1, &encode_comment(b" [%eval 0.17] [%clk 0:14:58] ").unwrap()));
//! let mut payload = Vec::new();
//! game.to_payload(&mut payload);
//!
//! let mut reader = GameCommandsReader::from_payload(&payload).unwrap();
//! let mut out = Vec::new();
//! assert!(reader.render_at(0, &mut out));
//! assert_eq!(out, b" [%eval -0.5] [%clk 0:15:00] ");
//! out.clear();
//! assert!(reader.render_at(1, &mut out));
//! assert_eq!(out, b" [%eval 0.17] [%clk 0:14:58] ");
//! assert!(!reader.render_at(2, &mut out));
//! ```

use pgc_core::item::{Varint64Error, put_varint, read_varint64};
use shakmaty::Square;

// ---------------------------------------------------------------------------
// Syntax
// ---------------------------------------------------------------------------

/// Splits a comment (the bytes between `{` and `}`) into text and commands.
///
/// The iterator yields [`Part`]s whose raw bytes concatenate to `text`
/// exactly. A command follows section 3.2 of the supplement: `[%`, a name of
/// one or more ASCII alphanumerics, one space, a comma-separated operand list
/// (an operand is either any bytes except `,` and `]`, or a double-quoted
/// string that may hold commas and `]`), and `]`. As a leniency `[%name]`
/// with no operands is a command too. Anything else, such as `[%` without a
/// closing `]`, is text. Two departures from the supplement: the space after
/// the name may be a line break (`\n` or `\r\n`), as export writers that wrap
/// comments leave it (`{[%clk\n1:31:15]}`); and an unquoted
/// operand cannot contain `[%`, so that a command missing its `]` does not
/// swallow the next command (`[%clk [%clk 0:01:00]` is text, then a clock).
///
/// ```
/// use pgn_bridge::commands::{Clock, Command, Part, parse_comment};
///
/// let parts: Vec<_> = parse_comment(b"[%clk 0:00:07.3][%eval -6.05] White is toast").collect();
/// assert!(matches!(parts[0], Part::Command { command: Command::Clk(Clock { millis: 7300 }, _), .. }));
/// assert!(matches!(parts[2], Part::Text(b" White is toast")));
/// ```
pub fn parse_comment(text: &[u8]) -> CommentParts<'_> {
    CommentParts { text, pos: 0 }
}

/// The iterator of [`parse_comment`].
#[derive(Debug, Clone)]
pub struct CommentParts<'a> {
    text: &'a [u8],
    pos: usize,
}

/// One piece of a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'a> {
    /// Text outside commands (malformed commands included), exact bytes.
    Text(&'a [u8]),
    /// An embedded command.
    Command {
        /// The command's exact bytes, from `[%` to `]`.
        raw: &'a [u8],
        /// The command, typed when its name and operands are understood.
        command: Command<'a>,
    },
}

impl<'a> Part<'a> {
    /// The exact bytes of this part.
    pub fn raw(&self) -> &'a [u8] {
        match self {
            Part::Text(t) => t,
            Part::Command { raw, .. } => raw,
        }
    }
}

impl<'a> Iterator for CommentParts<'a> {
    type Item = Part<'a>;

    fn next(&mut self) -> Option<Part<'a>> {
        let text = self.text;
        let start = self.pos;
        if start >= text.len() {
            return None;
        }
        let mut search = start;
        while let Some(i) = find_open(text, search) {
            if let Some(raw) = scan_command(text, i) {
                if i > start {
                    self.pos = i;
                    return Some(Part::Text(&text[start..i]));
                }
                self.pos = i + raw.len;
                let raw_bytes = &text[i..i + raw.len];
                return Some(Part::Command {
                    raw: raw_bytes,
                    command: Command::from_raw(raw.name, raw.operands),
                });
            }
            search = i + 1;
        }
        self.pos = text.len();
        Some(Part::Text(&text[start..]))
    }
}

/// An embedded command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    /// `[%clk h:mm:ss]`: the clock time of the player who just moved (4.2).
    Clk(Clock, ClockFormat),
    /// `[%emt h:mm:ss]`: the time spent on the move (4.4).
    Emt(Clock, ClockFormat),
    /// `[%egt h:mm:ss]`: the player's elapsed game time (4.3).
    Egt(Clock, ClockFormat),
    /// `[%mct hh:mm:ss]`: a mechanical clock's time of day (4.5).
    Mct(Clock, ClockFormat),
    /// `[%eval 0.17]`, `[%eval #-3]`: an engine evaluation.
    Eval(Eval, EvalFormat),
    /// `[%cal Ge2e4,Rb5b6]`: coloured arrows.
    Cal(Vec<Arrow>),
    /// `[%csl Ga4,Rb5]`: coloured square marks.
    Csl(Vec<SquareMark>),
    /// Any other command, or a known name whose operands are not understood
    /// (`[%eval 0.17,20]`, `[%clk 0:15.16]`).
    Other {
        /// The command name (alphanumeric bytes after `[%`).
        name: &'a [u8],
        /// The raw operand list, between the space after the name and the
        /// closing `]` (empty for `[%name]`); split it with [`operands`].
        operands: &'a [u8],
    },
}

impl<'a> Command<'a> {
    fn from_raw(name: &'a [u8], operands: &'a [u8]) -> Command<'a> {
        let other = Command::Other { name, operands };
        let single = || (!operands.contains(&b'"')).then_some(operands);
        let time = |f: fn(Clock, ClockFormat) -> Command<'a>| {
            single()
                .and_then(Clock::parse)
                .map(|(c, fmt)| f(c, fmt))
                .unwrap_or(Command::Other { name, operands })
        };
        match name {
            b"clk" => time(Command::Clk),
            b"emt" => time(Command::Emt),
            b"egt" => time(Command::Egt),
            b"mct" => time(Command::Mct),
            b"eval" => match single().and_then(Eval::parse) {
                Some((e, f)) => Command::Eval(e, f),
                None => other,
            },
            b"cal" => {
                let mut v = Vec::new();
                if for_each_mark(operands, 5, |op| {
                    v.push(Arrow::parse(op)?);
                    Some(())
                }) {
                    Command::Cal(v)
                } else {
                    other
                }
            }
            b"csl" => {
                let mut v = Vec::new();
                if for_each_mark(operands, 3, |op| {
                    v.push(SquareMark::parse(op)?);
                    Some(())
                }) {
                    Command::Csl(v)
                } else {
                    other
                }
            }
            _ => other,
        }
    }
}

/// Calls `f` on each comma-separated unquoted operand of `len` bytes; false
/// if there is none, one has another length, or `f` fails.
fn for_each_mark(operands: &[u8], len: usize, mut f: impl FnMut(&[u8]) -> Option<()>) -> bool {
    !operands.is_empty()
        && operands
            .split(|&b| b == b',')
            .all(|op| op.len() == len && f(op).is_some())
}

/// One operand of a command (section 3.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand<'a> {
    /// The operand's bytes; for a quoted operand, without the quotes.
    pub text: &'a [u8],
    /// Whether it was a double-quoted string.
    pub quoted: bool,
}

/// Splits a raw operand list (see [`Command::Other`]) into operands.
///
/// A list that is not well formed (only possible for a list not produced by
/// [`parse_comment`]) ends the iteration at the first bad operand.
pub fn operands(raw: &[u8]) -> Operands<'_> {
    Operands {
        raw,
        pos: 0,
        done: raw.is_empty(),
    }
}

/// The iterator of [`operands`].
#[derive(Debug, Clone)]
pub struct Operands<'a> {
    raw: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Iterator for Operands<'a> {
    type Item = Operand<'a>;

    fn next(&mut self) -> Option<Operand<'a>> {
        if self.done {
            return None;
        }
        let raw = self.raw;
        let s = self.pos;
        let (op, end) = if raw.get(s) == Some(&b'"') {
            let close = memchr::memchr(b'"', raw.get(s + 1..).unwrap_or_default())? + s + 1;
            (
                Operand {
                    text: &raw[s + 1..close],
                    quoted: true,
                },
                close + 1,
            )
        } else {
            let end =
                memchr::memchr(b',', raw.get(s..).unwrap_or_default()).map_or(raw.len(), |e| e + s);
            (
                Operand {
                    text: &raw[s.min(end)..end],
                    quoted: false,
                },
                end,
            )
        };
        match raw.get(end) {
            Some(b',') => self.pos = end + 1,
            None => self.done = true,
            Some(_) => {
                self.done = true;
                return None;
            }
        }
        Some(op)
    }
}

/// A command found by [`scan_command`]: name, raw operands, total length.
struct RawCommand<'a> {
    name: &'a [u8],
    sep: Separator,
    operands: &'a [u8],
    len: usize,
}

/// The next `[%` at or after `from`.
fn find_open(text: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::find(text.get(from..)?, b"[%").map(|i| i + from)
}

/// Reads the command starting at `text[at..]` (which starts with `[%`).
fn scan_command(text: &[u8], at: usize) -> Option<RawCommand<'_>> {
    let name_start = at + 2;
    let mut j = name_start;
    while text.get(j).is_some_and(u8::is_ascii_alphanumeric) {
        j += 1;
    }
    if j == name_start {
        return None;
    }
    let name = &text[name_start..j];
    match text.get(j)? {
        b']' => {
            return Some(RawCommand {
                name,
                sep: Separator::Space,
                operands: &text[j..j],
                len: j + 1 - at,
            });
        }
        b' ' | b'\n' => j += 1,
        b'\r' if text.get(j + 1) == Some(&b'\n') => j += 2,
        _ => return None,
    }
    let sep = match text[name_start + name.len()] {
        b' ' => Separator::Space,
        b'\n' => Separator::Newline,
        _ => Separator::CrLf,
    };
    let ops_start = j;
    loop {
        if text.get(j) == Some(&b'"') {
            j = memchr::memchr(b'"', text.get(j + 1..)?)? + j + 2;
        } else {
            while let Some(&b) = text.get(j) {
                if b == b',' || b == b']' {
                    break;
                }
                if b == b'[' && text.get(j + 1) == Some(&b'%') {
                    // The next command starts: this one lacks its `]`.
                    return None;
                }
                j += 1;
            }
        }
        match text.get(j)? {
            b',' => j += 1,
            b']' => break,
            _ => return None,
        }
    }
    Some(RawCommand {
        name,
        sep,
        operands: &text[ops_start..j],
        len: j + 1 - at,
    })
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

/// The largest clock accepted, in milliseconds: 999,999,999 hours.
pub const MAX_CLOCK_MILLIS: u64 = 999_999_999 * 3_600_000 + 3_599_999;

/// A time value of the time commands (`h:mm:ss` with optional fractional
/// seconds), in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Clock {
    /// Milliseconds, at most [`MAX_CLOCK_MILLIS`].
    pub millis: u64,
}

/// How a [`Clock`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockFormat {
    /// The hours are zero-padded to this many digits (1 to 9): `0:15:00` has
    /// 1, `00:15:00` has 2. Hours with more digits are written in full.
    pub hour_width: u8,
    /// Digits after the seconds' decimal point (0 to 3): `0:00:07.3` has 1.
    pub frac_digits: u8,
}

impl ClockFormat {
    /// `h:mm:ss`, as Lichess and the supplement write it.
    pub const HMS: ClockFormat = ClockFormat {
        hour_width: 1,
        frac_digits: 0,
    };

    /// The format byte of `spec/extensions-commands.md`: hour width in bits
    /// 2–5, fraction digits in bits 0–1.
    pub const fn to_byte(self) -> u8 {
        (self.hour_width << 2) | self.frac_digits
    }

    /// Reads a format byte; `None` for widths outside 1–9 or bits 6–7 set.
    pub const fn from_byte(b: u8) -> Option<ClockFormat> {
        let hour_width = (b >> 2) & 0x0f;
        if b >> 6 != 0 || hour_width == 0 || hour_width > 9 {
            return None;
        }
        Some(ClockFormat {
            hour_width,
            frac_digits: b & 3,
        })
    }
}

impl Clock {
    /// Parses `h:mm:ss` or `h:mm:ss.f` (1 to 9 hour digits, two-digit minutes
    /// and seconds below 60, 1 to 3 fraction digits), with its format.
    pub fn parse(s: &[u8]) -> Option<(Clock, ClockFormat)> {
        let mut fields = s.splitn(3, |&b| b == b':');
        let h = fields.next()?;
        let m = fields.next()?;
        let rest = fields.next()?;
        let (sec, frac) = match memchr::memchr(b'.', rest) {
            Some(d) => (&rest[..d], Some(&rest[d + 1..])),
            None => (rest, None),
        };
        if h.is_empty() || h.len() > 9 || m.len() != 2 || sec.len() != 2 {
            return None;
        }
        let hours = digits(h)?;
        let (mins, secs) = (digits(m)?, digits(sec)?);
        if mins >= 60 || secs >= 60 {
            return None;
        }
        let (frac_ms, frac_digits) = match frac {
            None => (0, 0),
            Some(f) if (1..=3).contains(&f.len()) => {
                (digits(f)? * 10u64.pow(3 - f.len() as u32), f.len() as u8)
            }
            Some(_) => return None,
        };
        let hour_width = if h.len() > 1 && h[0] == b'0' {
            h.len() as u8
        } else {
            1
        };
        let millis = ((hours * 60 + mins) * 60 + secs) * 1000 + frac_ms;
        Some((
            Clock { millis },
            ClockFormat {
                hour_width,
                frac_digits,
            },
        ))
    }

    /// Appends the clock in `format`. Sub-second digits beyond
    /// `format.frac_digits` are not written.
    pub fn render(self, format: ClockFormat, out: &mut Vec<u8>) {
        let ms = self.millis.min(MAX_CLOCK_MILLIS);
        let secs = ms / 1000;
        push_padded(out, secs / 3600, usize::from(format.hour_width));
        out.push(b':');
        push_padded(out, secs / 60 % 60, 2);
        out.push(b':');
        push_padded(out, secs % 60, 2);
        let f = u32::from(format.frac_digits.min(3));
        if f > 0 {
            out.push(b'.');
            push_padded(out, ms % 1000 / 10u64.pow(3 - f), f as usize);
        }
    }

    /// The clock as a [`std::time::Duration`].
    pub const fn as_duration(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.millis)
    }
}

/// An engine evaluation (`[%eval …]`), from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Eval {
    /// `0.17` is 17 centipawns, `-1.5` is -150.
    Centipawns(i32),
    /// `#3`: mate in 3 for White; `#-3`: mate in 3 for Black.
    Mate(i32),
}

/// Digits after the decimal point of a pawn evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decimals {
    /// One or two, as Lichess writes them: `0.0`, `1.5`, `1.18`, `-3.0`.
    Trim,
    /// Always this many (0 to 2): `1.50` is `Fixed(2)`.
    Fixed(u8),
}

/// How an [`Eval`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EvalFormat {
    /// Digits after the point of a pawn value (mates have none).
    pub decimals: Decimals,
    /// Whether values above zero carry a `+` (`+0.17`, `#+3`).
    pub plus: bool,
}

impl EvalFormat {
    /// The Lichess format.
    pub const LICHESS: EvalFormat = EvalFormat {
        decimals: Decimals::Trim,
        plus: false,
    };

    /// The format byte of `spec/extensions-commands.md`: bits 0–1 are 0 for
    /// trim, 1 + n for `Fixed(n)`; bit 2 is the plus sign.
    pub const fn to_byte(self) -> u8 {
        let d = match self.decimals {
            Decimals::Trim => 0,
            Decimals::Fixed(n) => 1 + if n > 2 { 2 } else { n },
        };
        d | (self.plus as u8) << 2
    }

    /// Reads a format byte; `None` if bits 3–7 are set.
    pub const fn from_byte(b: u8) -> Option<EvalFormat> {
        if b >> 3 != 0 {
            return None;
        }
        let decimals = match b & 3 {
            0 => Decimals::Trim,
            n => Decimals::Fixed(n - 1),
        };
        Some(EvalFormat {
            decimals,
            plus: b & 4 != 0,
        })
    }
}

/// The largest pawn value accepted, in centipawns (9,999,999.99 pawns).
pub const MAX_CENTIPAWNS: i32 = 999_999_999;

impl Eval {
    /// Parses `[+|-]pawns[.d[d]]` or `#[+|-]n`, with its format. Only the
    /// spellings that [`Eval::render`] gives back are accepted: no leading
    /// zeros, no `-0.0`, at most two decimals (`0.175` is `None`).
    pub fn parse(s: &[u8]) -> Option<(Eval, EvalFormat)> {
        let (mate, s) = match s.strip_prefix(b"#") {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let (neg, plus, s) = match s.first()? {
            b'-' => (true, false, &s[1..]),
            b'+' => (false, true, &s[1..]),
            _ => (false, false, s),
        };
        let (int, frac) = match memchr::memchr(b'.', s) {
            Some(d) => (&s[..d], Some(&s[d + 1..])),
            None => (s, None),
        };
        if int.is_empty() || int.len() > 9 || (int.len() > 1 && int[0] == b'0') {
            return None;
        }
        let whole = i64::try_from(digits(int)?).ok()?;
        let sign = if neg { -1 } else { 1 };
        if mate {
            if frac.is_some() || ((neg || plus) && whole == 0) {
                return None;
            }
            let n = i32::try_from(whole * sign).ok()?;
            return Some((
                Eval::Mate(n),
                EvalFormat {
                    decimals: Decimals::Trim,
                    plus,
                },
            ));
        }
        let (cents, written) = match frac {
            None => (0, 0u8),
            Some(f) if (1..=2).contains(&f.len()) => (
                digits(f)? as i64 * if f.len() == 1 { 10 } else { 1 },
                f.len() as u8,
            ),
            Some(_) => return None,
        };
        let cp = i32::try_from(sign * (whole * 100 + cents)).ok()?;
        if cp.unsigned_abs() > MAX_CENTIPAWNS as u32 || ((neg || plus) && cp == 0) {
            return None;
        }
        let decimals = if written > 0 && written == trim_decimals(cp) {
            Decimals::Trim
        } else {
            Decimals::Fixed(written)
        };
        Some((Eval::Centipawns(cp), EvalFormat { decimals, plus }))
    }

    /// Appends the evaluation in `format` (a `Fixed(0)` format drops the
    /// centipawns).
    pub fn render(self, format: EvalFormat, out: &mut Vec<u8>) {
        let (mate, v) = match self {
            Eval::Centipawns(cp) => (false, i64::from(cp)),
            Eval::Mate(n) => (true, i64::from(n)),
        };
        if mate {
            out.push(b'#');
        }
        if v < 0 {
            out.push(b'-');
        } else if v > 0 && format.plus {
            out.push(b'+');
        }
        let a = v.unsigned_abs();
        if mate {
            push_padded(out, a, 1);
            return;
        }
        push_padded(out, a / 100, 1);
        let d = match format.decimals {
            Decimals::Trim => trim_decimals(v as i32),
            Decimals::Fixed(n) => n.min(2),
        };
        match d {
            0 => {}
            1 => {
                out.push(b'.');
                push_padded(out, a % 100 / 10, 1);
            }
            _ => {
                out.push(b'.');
                push_padded(out, a % 100, 2);
            }
        }
    }
}

/// Decimals of the Lichess spelling of `cp` centipawns.
fn trim_decimals(cp: i32) -> u8 {
    if cp % 10 == 0 { 1 } else { 2 }
}

/// The colour of an arrow or square mark (`G`, `R`, `Y`, `B`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkColour {
    /// `G`.
    Green = 0,
    /// `R`.
    Red = 1,
    /// `Y`.
    Yellow = 2,
    /// `B`.
    Blue = 3,
}

impl MarkColour {
    /// From its letter.
    pub const fn from_letter(b: u8) -> Option<MarkColour> {
        Some(match b {
            b'G' => MarkColour::Green,
            b'R' => MarkColour::Red,
            b'Y' => MarkColour::Yellow,
            b'B' => MarkColour::Blue,
            _ => return None,
        })
    }

    /// Its letter.
    pub const fn letter(self) -> u8 {
        b"GRYB"[self as usize]
    }

    const fn from_code(c: u8) -> MarkColour {
        match c & 3 {
            0 => MarkColour::Green,
            1 => MarkColour::Red,
            2 => MarkColour::Yellow,
            _ => MarkColour::Blue,
        }
    }
}

/// An arrow of `[%cal …]`: `Ge2e4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arrow {
    /// Its colour.
    pub colour: MarkColour,
    /// Where it starts.
    pub from: Square,
    /// Where it points (may equal `from`).
    pub to: Square,
}

impl Arrow {
    /// Parses `Ge2e4` (colour letter, two lowercase squares).
    pub fn parse(s: &[u8]) -> Option<Arrow> {
        let [c, a, b, d, e] = *s else { return None };
        Some(Arrow {
            colour: MarkColour::from_letter(c)?,
            from: square(a, b)?,
            to: square(d, e)?,
        })
    }

    /// Appends `Ge2e4`.
    pub fn render(self, out: &mut Vec<u8>) {
        out.push(self.colour.letter());
        push_square(out, self.from);
        push_square(out, self.to);
    }
}

/// A square mark of `[%csl …]`: `Ga4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SquareMark {
    /// Its colour.
    pub colour: MarkColour,
    /// The square.
    pub square: Square,
}

impl SquareMark {
    /// Parses `Ga4` (colour letter, lowercase square).
    pub fn parse(s: &[u8]) -> Option<SquareMark> {
        let [c, a, b] = *s else { return None };
        Some(SquareMark {
            colour: MarkColour::from_letter(c)?,
            square: square(a, b)?,
        })
    }

    /// Appends `Ga4`.
    pub fn render(self, out: &mut Vec<u8>) {
        out.push(self.colour.letter());
        push_square(out, self.square);
    }
}

fn square(file: u8, rank: u8) -> Option<Square> {
    if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
        return None;
    }
    Some(Square::new(
        u32::from(rank - b'1') * 8 + u32::from(file - b'a'),
    ))
}

fn push_square(out: &mut Vec<u8>, sq: Square) {
    let i = sq as u8;
    out.push(b'a' + (i & 7));
    out.push(b'1' + (i >> 3));
}

/// The decimal value of ASCII digits (at most 19 of them); `None` on a
/// non-digit or an empty slice.
fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u64::from(b - b'0'))
    })
}

/// Appends `v` in decimal, zero-padded to `width` digits.
fn push_padded(out: &mut Vec<u8>, v: u64, width: usize) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for _ in (buf.len() - i)..width {
        out.push(b'0');
    }
    out.extend_from_slice(&buf[i..]);
}

// ---------------------------------------------------------------------------
// Typed comments
// ---------------------------------------------------------------------------

/// What separates a command's name from its operands: a space (section
/// 3.2.2), or a line break left by an export writer that wrapped the comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Separator {
    /// `' '`.
    #[default]
    Space = 0,
    /// `'\n'`.
    Newline = 1,
    /// `"\r\n"`.
    CrLf = 2,
}

impl Separator {
    /// Its bytes.
    pub const fn bytes(self) -> &'static [u8] {
        match self {
            Separator::Space => b" ",
            Separator::Newline => b"\n",
            Separator::CrLf => b"\r\n",
        }
    }

    const fn from_code(c: u8) -> Option<Separator> {
        match c {
            0 => Some(Separator::Space),
            1 => Some(Separator::Newline),
            2 => Some(Separator::CrLf),
            _ => None,
        }
    }
}

/// The time commands of the supplement's section 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeKind {
    /// `clk`.
    Clk = 0,
    /// `emt`.
    Emt = 1,
    /// `egt`.
    Egt = 2,
    /// `mct`.
    Mct = 3,
}

impl TimeKind {
    /// All four, in column order.
    pub const ALL: [TimeKind; 4] = [TimeKind::Clk, TimeKind::Emt, TimeKind::Egt, TimeKind::Mct];

    /// The command name.
    pub const fn name(self) -> &'static [u8] {
        match self {
            TimeKind::Clk => b"clk",
            TimeKind::Emt => b"emt",
            TimeKind::Egt => b"egt",
            TimeKind::Mct => b"mct",
        }
    }
}

/// One piece of a [`TypedComment`], as returned by [`TypedComment::parts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedPart<'a> {
    /// Whitespace between commands, exact bytes.
    Space(&'a [u8]),
    /// A typed command and the separator after its name.
    Command(Separator, TypedCommand<'a>),
}

/// A typed command of a [`TypedComment`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedCommand<'a> {
    /// A time command.
    Time(TimeKind, Clock, ClockFormat),
    /// `[%eval …]`.
    Eval(Eval, EvalFormat),
    /// `[%cal …]`.
    Arrows(&'a [Arrow]),
    /// `[%csl …]`.
    Squares(&'a [SquareMark]),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    Space(u32, u32),
    Cmd(Separator, Cmd),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Time(TimeKind, Clock, ClockFormat),
    Eval(Eval, EvalFormat),
    Arrows(u32, u32),
    Squares(u32, u32),
}

/// A comment made only of typed commands and whitespace; [`render`] gives
/// its exact bytes.
///
/// Built by [`encode_comment`] or [`GameCommandsReader::typed_at`]; the
/// buffers are reused by [`encode_comment_into`], so that encoding a game
/// allocates nothing per move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedComment {
    pieces: Vec<Piece>,
    space: Vec<u8>,
    arrows: Vec<Arrow>,
    squares: Vec<SquareMark>,
}

impl TypedComment {
    /// An empty comment (renders as nothing).
    pub fn new() -> TypedComment {
        TypedComment::default()
    }

    /// Removes every piece, keeping the buffers.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.space.clear();
        self.arrows.clear();
        self.squares.clear();
    }

    /// The pieces in order.
    pub fn parts(&self) -> impl Iterator<Item = TypedPart<'_>> + '_ {
        self.pieces.iter().map(move |p| match *p {
            Piece::Space(s, e) => {
                TypedPart::Space(self.space.get(s as usize..e as usize).unwrap_or_default())
            }
            Piece::Cmd(sep, c) => TypedPart::Command(
                sep,
                match c {
                    Cmd::Time(k, c, f) => TypedCommand::Time(k, c, f),
                    Cmd::Eval(e, f) => TypedCommand::Eval(e, f),
                    Cmd::Arrows(s, e) => TypedCommand::Arrows(
                        self.arrows.get(s as usize..e as usize).unwrap_or_default(),
                    ),
                    Cmd::Squares(s, e) => TypedCommand::Squares(
                        self.squares.get(s as usize..e as usize).unwrap_or_default(),
                    ),
                },
            ),
        })
    }

    /// The clock of the first `[%clk]`, if any.
    pub fn clk(&self) -> Option<Clock> {
        self.pieces.iter().find_map(|p| match p {
            Piece::Cmd(_, Cmd::Time(TimeKind::Clk, c, _)) => Some(*c),
            _ => None,
        })
    }

    /// The first `[%eval]`, if any.
    pub fn eval(&self) -> Option<Eval> {
        self.pieces.iter().find_map(|p| match p {
            Piece::Cmd(_, Cmd::Eval(e, _)) => Some(*e),
            _ => None,
        })
    }

    fn push_space(&mut self, s: &[u8]) {
        let a = self.space.len() as u32;
        self.space.extend_from_slice(s);
        self.pieces.push(Piece::Space(a, self.space.len() as u32));
    }

    /// Appends the template bytes (`spec/extensions-commands.md`).
    fn template(&self, out: &mut Vec<u8>) {
        put_varint(out, self.pieces.len() as u64);
        for p in &self.pieces {
            match *p {
                Piece::Space(s, e) => {
                    let sp = self.space.get(s as usize..e as usize).unwrap_or_default();
                    if sp == b" " {
                        out.push(T_SPACE);
                    } else {
                        out.push(T_WHITESPACE);
                        put_varint(out, sp.len() as u64);
                        out.extend_from_slice(sp);
                    }
                }
                Piece::Cmd(sep, c) => {
                    let sep = (sep as u8) << 4;
                    match c {
                        Cmd::Time(k, _, f) => {
                            out.push(sep | (T_CLK + k as u8));
                            out.push(f.to_byte());
                        }
                        Cmd::Eval(_, f) => {
                            out.push(sep | T_EVAL);
                            out.push(f.to_byte());
                        }
                        Cmd::Arrows(..) => out.push(sep | T_CAL),
                        Cmd::Squares(..) => out.push(sep | T_CSL),
                    }
                }
            }
        }
    }
}

/// Appends the exact text of `c` (the bytes between the braces).
pub fn render(c: &TypedComment, out: &mut Vec<u8>) {
    for part in c.parts() {
        match part {
            TypedPart::Space(s) => out.extend_from_slice(s),
            TypedPart::Command(sep, c) => render_command(sep, c, out),
        }
    }
}

fn render_command(sep: Separator, c: TypedCommand<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(b"[%");
    out.extend_from_slice(match c {
        TypedCommand::Time(k, ..) => k.name(),
        TypedCommand::Eval(..) => b"eval",
        TypedCommand::Arrows(_) => b"cal",
        TypedCommand::Squares(_) => b"csl",
    });
    out.extend_from_slice(sep.bytes());
    match c {
        TypedCommand::Time(_, clock, f) => clock.render(f, out),
        TypedCommand::Eval(e, f) => e.render(f, out),
        TypedCommand::Arrows(a) => {
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                x.render(out);
            }
        }
        TypedCommand::Squares(a) => {
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                x.render(out);
            }
        }
    }
    out.push(b']');
}

/// The typed form of a comment, if it is only typed commands (`clk`, `emt`,
/// `egt`, `mct`, `eval`, `cal`, `csl`) and ASCII whitespace, has at least
/// one command, and [`render`] gives back exactly `text`. Otherwise `None`:
/// the comment stays a text comment.
pub fn encode_comment(text: &[u8]) -> Option<TypedComment> {
    let mut c = TypedComment::new();
    encode_comment_into(text, &mut c).then_some(c)
}

/// [`encode_comment`] into a reused [`TypedComment`]; returns whether `text`
/// is typed (if not, `out` holds garbage).
pub fn encode_comment_into(text: &[u8], out: &mut TypedComment) -> bool {
    out.clear();
    let mut pos = 0;
    let mut commands = 0;
    while let Some(i) = find_open(text, pos) {
        let Some(raw) = scan_command(text, i) else {
            return false;
        };
        if !push_space(out, &text[pos..i]) || !push_typed(out, raw.name, raw.sep, raw.operands) {
            return false;
        }
        commands += 1;
        pos = i + raw.len;
    }
    if commands == 0 || !push_space(out, &text[pos..]) {
        return false;
    }
    // The typed parsers accept only spellings they render back, but the
    // render check is what guarantees it.
    let mut check = Vec::with_capacity(text.len());
    render(out, &mut check);
    check == text
}

fn push_space(out: &mut TypedComment, s: &[u8]) -> bool {
    if s.is_empty() {
        return true;
    }
    if !s.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        return false;
    }
    out.push_space(s);
    true
}

fn push_typed(out: &mut TypedComment, name: &[u8], sep: Separator, ops: &[u8]) -> bool {
    let kind = match name {
        b"clk" => Some(TimeKind::Clk),
        b"emt" => Some(TimeKind::Emt),
        b"egt" => Some(TimeKind::Egt),
        b"mct" => Some(TimeKind::Mct),
        _ => None,
    };
    if let Some(k) = kind {
        return match Clock::parse(ops) {
            Some((c, f)) => {
                out.pieces.push(Piece::Cmd(sep, Cmd::Time(k, c, f)));
                true
            }
            None => false,
        };
    }
    match name {
        b"eval" => match Eval::parse(ops) {
            Some((e, f)) => {
                out.pieces.push(Piece::Cmd(sep, Cmd::Eval(e, f)));
                true
            }
            None => false,
        },
        b"cal" => {
            let s = out.arrows.len() as u32;
            let ok = for_each_mark(ops, 5, |op| {
                out.arrows.push(Arrow::parse(op)?);
                Some(())
            });
            out.pieces
                .push(Piece::Cmd(sep, Cmd::Arrows(s, out.arrows.len() as u32)));
            ok
        }
        b"csl" => {
            let s = out.squares.len() as u32;
            let ok = for_each_mark(ops, 3, |op| {
                out.squares.push(SquareMark::parse(op)?);
                Some(())
            });
            out.pieces
                .push(Piece::Cmd(sep, Cmd::Squares(s, out.squares.len() as u32)));
            ok
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// The per-game record
// ---------------------------------------------------------------------------

/// Template piece tags (`spec/extensions-commands.md`).
const T_WHITESPACE: u8 = 0x00;
const T_SPACE: u8 = 0x01;
const T_CLK: u8 = 0x02; // 0x02..=0x05: clk, emt, egt, mct; then a format byte
const T_EVAL: u8 = 0x06; // then a format byte
const T_CAL: u8 = 0x07;
const T_CSL: u8 = 0x08;

/// At most this many templates per game; further comments stay text.
pub const MAX_TEMPLATES: usize = 255;

/// Column bits of the mask byte.
const COL_EVAL: u8 = 1 << 4;
const COL_MARKS: u8 = 1 << 5;

/// Why a commands record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad commands record at payload byte {offset}: {what}")]
pub struct CommandsError {
    /// Byte offset in the payload where the problem was found.
    pub offset: usize,
    /// What was expected.
    pub what: &'static str,
}

/// A column of time values of one command (`clk`, `emt`, `egt` or `mct`)
/// for one game, in game order.
///
/// Stored as: count, unit (decimal digits of the seconds kept: 0 to 3),
/// bias, then one zig-zag LEB128 residual per value: the first value
/// itself, the second minus the first, then each value minus the value two
/// before it (the same player's previous clock when every move has one)
/// minus the bias (the median of those differences, e.g. the increment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockColumn {
    values: Vec<u64>,
}

impl ClockColumn {
    /// An empty column.
    pub fn new() -> ClockColumn {
        ClockColumn::default()
    }

    /// Appends a value (clamped to [`MAX_CLOCK_MILLIS`]).
    pub fn push(&mut self, clock: Clock) {
        self.values.push(clock.millis.min(MAX_CLOCK_MILLIS));
    }

    /// The values in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = Clock> + '_ {
        self.values.iter().map(|&millis| Clock { millis })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// Appends the column's bytes.
    pub fn to_payload(&self, out: &mut Vec<u8>) {
        put_varint(out, self.values.len() as u64);
        let digits = (0..=3u32)
            .find(|&d| {
                let step = 10u64.pow(3 - d);
                self.values.iter().all(|v| v % step == 0)
            })
            .unwrap_or(3);
        out.push(digits as u8);
        let step = 10u64.pow(3 - digits);
        let v = |i: usize| (self.values[i] / step) as i64;
        let mut deltas: Vec<i64> = (2..self.values.len()).map(|i| v(i) - v(i - 2)).collect();
        let bias = if deltas.is_empty() {
            0
        } else {
            let mid = deltas.len() / 2;
            *deltas.select_nth_unstable(mid).1
        };
        put_varint(out, zigzag(bias));
        for i in 0..self.values.len() {
            let r = match i {
                0 => v(0),
                1 => v(1) - v(0),
                _ => v(i) - v(i - 2) - bias,
            };
            put_varint(out, zigzag(r));
        }
    }

    /// Reads a column from the start of `payload`; returns it and the number
    /// of bytes read.
    ///
    /// # Errors
    /// A [`CommandsError`] if the bytes end early, the count exceeds the
    /// bytes left (one byte per value at least: nothing is allocated that
    /// the payload does not justify), or a value leaves `0..=`[`MAX_CLOCK_MILLIS`].
    pub fn from_payload(payload: &[u8]) -> Result<(ClockColumn, usize), CommandsError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let c = ClockColumn::read(&mut r)?;
        Ok((c, r.pos))
    }

    fn read(r: &mut Bytes<'_>) -> Result<ClockColumn, CommandsError> {
        let n = r.count(1)?;
        let digits = r.byte()?;
        if digits > 3 {
            return Err(r.err("clock unit above 3 decimal digits"));
        }
        let step = 10i64.pow(3 - u32::from(digits));
        let max = MAX_CLOCK_MILLIS as i64 / step;
        let bias = unzigzag(r.u64()?);
        let mut units: Vec<i64> = Vec::with_capacity(n);
        for i in 0..n {
            let res = unzigzag(r.u64()?);
            let pred = match i {
                0 => Some(0),
                1 => Some(units[0]),
                _ => units[i - 2].checked_add(bias),
            };
            let v = pred.and_then(|p| p.checked_add(res));
            match v {
                Some(v) if (0..=max).contains(&v) => units.push(v),
                _ => return Err(r.err("clock value out of range")),
            }
        }
        Ok(ClockColumn {
            values: units.into_iter().map(|u| (u * step) as u64).collect(),
        })
    }
}

/// A column of `[%eval]` values for one game, in game order.
///
/// Stored as: count, then one LEB128 per value: for a pawn value,
/// `zigzag(cp - previous cp) << 1` (the previous pawn value of the column,
/// 0 at first); for a mate, `zigzag(n) << 1 | 1`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvalColumn {
    values: Vec<Eval>,
}

impl EvalColumn {
    /// An empty column.
    pub fn new() -> EvalColumn {
        EvalColumn::default()
    }

    /// Appends a value.
    pub fn push(&mut self, e: Eval) {
        self.values.push(e);
    }

    /// The values in order.
    pub fn values(&self) -> &[Eval] {
        &self.values
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// Appends the column's bytes.
    pub fn to_payload(&self, out: &mut Vec<u8>) {
        put_varint(out, self.values.len() as u64);
        let mut prev = 0i64;
        for e in &self.values {
            match *e {
                Eval::Centipawns(cp) => {
                    put_varint(out, zigzag(i64::from(cp) - prev) << 1);
                    prev = i64::from(cp);
                }
                Eval::Mate(n) => put_varint(out, zigzag(i64::from(n)) << 1 | 1),
            }
        }
    }

    /// Reads a column from the start of `payload`; returns it and the number
    /// of bytes read.
    ///
    /// # Errors
    /// A [`CommandsError`] if the bytes end early, the count exceeds the
    /// bytes left, or a value leaves the `i32` range (pawn values:
    /// ±[`MAX_CENTIPAWNS`]).
    pub fn from_payload(payload: &[u8]) -> Result<(EvalColumn, usize), CommandsError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let c = EvalColumn::read(&mut r)?;
        Ok((c, r.pos))
    }

    fn read(r: &mut Bytes<'_>) -> Result<EvalColumn, CommandsError> {
        let n = r.count(1)?;
        let mut values = Vec::with_capacity(n);
        let mut prev = 0i64;
        for _ in 0..n {
            let u = r.u64()?;
            let v = unzigzag(u >> 1);
            let e = if u & 1 == 1 {
                i32::try_from(v).ok().map(Eval::Mate)
            } else {
                prev.checked_add(v)
                    .filter(|cp| cp.unsigned_abs() <= MAX_CENTIPAWNS as u64)
                    .map(|cp| {
                        prev = cp;
                        Eval::Centipawns(cp as i32)
                    })
            };
            values.push(e.ok_or_else(|| r.err("evaluation out of range"))?);
        }
        Ok(EvalColumn { values })
    }
}

/// The typed comments of one game, for one extension record
/// ([`pgc_core::ext::CLOCKS`]) written before the game's first move.
///
/// A typed comment is placed by its **anchor**: the item it follows
/// directly. Anchors are numbered from 0 in record order over the whole game
/// (variations included), counting every item of these kinds:
///
/// - a move (each ordinal of a 0x03/0x04 record),
/// - a null move (extension `NULL_MOVE`),
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
    /// (first anchor, count) of each run of consecutive commented anchors.
    placement: Vec<(u64, u64)>,
    /// (template, comment count) runs.
    template_runs: Vec<(u32, u64)>,
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
        self.placement.clear();
        self.template_runs.clear();
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
        self.placement.last().is_none_or(|&(s, n)| anchor >= s + n)
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
        match self.template_runs.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => self.template_runs.push((t, 1)),
        }
        match self.placement.last_mut() {
            Some((s, n)) if *s + *n == anchor => *n += 1,
            _ => self.placement.push((anchor, 1)),
        }
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
        put_varint(out, self.placement.len() as u64);
        let mut next = 0;
        for &(s, n) in &self.placement {
            put_varint(out, s - next);
            put_varint(out, n);
            next = s + n;
        }
        if self.template_ends.len() > 1 {
            put_varint(out, self.template_runs.len() as u64);
            for &(t, n) in &self.template_runs {
                put_varint(out, u64::from(t));
                put_varint(out, n);
            }
        }
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
/// (see [`GameCommands`]) in game order. Everything is checked by [`GameCommandsReader::from_payload`],
/// so rendering cannot fail afterwards.
#[derive(Debug, Clone, Default)]
pub struct GameCommandsReader {
    pieces: Vec<TPiece>,
    /// End index in `pieces` of each template.
    template_ends: Vec<usize>,
    space: Vec<u8>,
    placement: Vec<(u64, u64)>,
    template_runs: Vec<(u32, u64)>,
    clocks: [Vec<u64>; 4],
    evals: Vec<Eval>,
    arrows: Vec<Vec<Arrow>>,
    squares: Vec<Vec<SquareMark>>,
    // Cursors.
    run: usize,
    /// Comments in the runs before `run`.
    run_base: u64,
    /// Comments handed out (or skipped) so far.
    consumed: u64,
    trun: usize,
    trun_used: u64,
    clock_at: [usize; 4],
    eval_at: usize,
    arrows_at: usize,
    squares_at: usize,
    scratch: TypedComment,
}

impl GameCommandsReader {
    /// Reads and checks a payload written by [`GameCommands::to_payload`].
    ///
    /// # Errors
    /// A [`CommandsError`] with the payload offset if the bytes end early or
    /// run on, a tag or format byte is unknown, a count exceeds the bytes
    /// left (nothing is allocated that the payload does not justify), or the
    /// columns do not hold exactly the values the templates need.
    pub fn from_payload(payload: &[u8]) -> Result<GameCommandsReader, CommandsError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let mut g = GameCommandsReader::default();
        // Templates.
        let t = r.count(1)?;
        if t == 0 {
            return Err(r.err("no template"));
        }
        let mut uses = Vec::with_capacity(t);
        for _ in 0..t {
            let n = r.count(1)?;
            let mut u = [0u64; 7];
            for _ in 0..n {
                let tag = r.byte()?;
                let sep = match tag {
                    T_WHITESPACE | T_SPACE => Separator::Space,
                    _ => {
                        Separator::from_code(tag >> 4).ok_or_else(|| r.err("unknown separator"))?
                    }
                };
                let low = match tag & 0x0f {
                    _ if tag <= T_SPACE => tag,
                    l if l > T_SPACE => l,
                    _ => 0xff,
                };
                let p = match low {
                    T_WHITESPACE | T_SPACE => {
                        let s = if tag == T_SPACE { b" " } else { r.take_len()? };
                        if s.is_empty()
                            || !s.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                        {
                            return Err(r.err("template whitespace that is not whitespace"));
                        }
                        let a = g.space.len() as u32;
                        g.space.extend_from_slice(s);
                        TPiece::Space(a, g.space.len() as u32)
                    }
                    0x02..=0x05 => {
                        let k = TimeKind::ALL[usize::from((tag & 0x0f) - T_CLK)];
                        let f = ClockFormat::from_byte(r.byte()?)
                            .ok_or_else(|| r.err("bad clock format"))?;
                        u[k as usize] += 1;
                        TPiece::Time(sep, k, f)
                    }
                    T_EVAL => {
                        let f = EvalFormat::from_byte(r.byte()?)
                            .ok_or_else(|| r.err("bad eval format"))?;
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
                    _ => return Err(r.err("unknown template piece")),
                };
                g.pieces.push(p);
            }
            if u.iter().all(|&x| x == 0) {
                return Err(r.err("template without a command"));
            }
            g.template_ends.push(g.pieces.len());
            uses.push(u);
        }
        // Placement.
        let p = r.count(2)?;
        g.placement.reserve(p);
        let mut next = 0u64;
        let mut comments = 0u64;
        for _ in 0..p {
            let gap = r.u64()?;
            let n = r.u64()?;
            let start = next.checked_add(gap);
            let end = start.and_then(|s| s.checked_add(n));
            match (start, end) {
                (Some(s), Some(e)) if n > 0 && (gap > 0 || g.placement.is_empty()) => {
                    g.placement.push((s, n));
                    next = e;
                    comments = comments
                        .checked_add(n)
                        .ok_or_else(|| r.err("too many comments"))?;
                }
                _ => return Err(r.err("bad run of commented moves")),
            }
        }
        if comments == 0 {
            return Err(r.err("no commented move"));
        }
        // Template runs.
        if t == 1 {
            g.template_runs.push((0, comments));
        } else {
            let n = r.count(2)?;
            g.template_runs.reserve(n);
            let mut total = 0u64;
            for _ in 0..n {
                let ti = r.u64()?;
                let k = r.u64()?;
                if ti >= t as u64 || k == 0 {
                    return Err(r.err("bad template run"));
                }
                total = total
                    .checked_add(k)
                    .ok_or_else(|| r.err("too many comments"))?;
                g.template_runs.push((ti as u32, k));
            }
            if total != comments {
                return Err(r.err("template runs do not cover the commented moves"));
            }
        }
        // What the columns must hold.
        let mut need = [0u64; 7];
        for &(ti, k) in &g.template_runs {
            for (n, u) in need.iter_mut().zip(uses[ti as usize]) {
                *n = u
                    .checked_mul(k)
                    .and_then(|x| n.checked_add(x))
                    .ok_or_else(|| r.err("too many values"))?;
            }
        }
        let mask = r.byte()?;
        let want_mask = need[..6]
            .iter()
            .enumerate()
            .fold(0u8, |m, (i, &n)| if n > 0 { m | 1 << i } else { m })
            | if need[6] > 0 { COL_MARKS } else { 0 };
        if mask != want_mask {
            return Err(r.err("column mask does not match the templates"));
        }
        for (slot, &n) in g.clocks.iter_mut().zip(&need[..4]) {
            if n > 0 {
                let c = ClockColumn::read(&mut r)?;
                if c.len() as u64 != n {
                    return Err(r.err("clock column count does not match the templates"));
                }
                *slot = c.values;
            }
        }
        if need[4] > 0 {
            let c = EvalColumn::read(&mut r)?;
            if c.len() as u64 != need[4] {
                return Err(r.err("eval column count does not match the templates"));
            }
            g.evals = c.values;
        }
        if mask & COL_MARKS != 0 {
            let n = r.count(1)?;
            for _ in 0..n {
                let h = r.u64()?;
                let k = usize::try_from(h >> 1).map_err(|_| r.err("mark list too long"))?;
                if h & 1 == 1 {
                    let b = r.take(k.saturating_mul(2))?;
                    g.arrows.push(
                        b.chunks_exact(2)
                            .map(|x| Arrow {
                                colour: MarkColour::from_code(x[0] >> 6),
                                from: Square::new(u32::from(x[0] & 63)),
                                to: Square::new(u32::from(x[1] & 63)),
                            })
                            .collect(),
                    );
                } else {
                    let b = r.take(k)?;
                    g.squares.push(
                        b.iter()
                            .map(|&x| SquareMark {
                                colour: MarkColour::from_code(x >> 6),
                                square: Square::new(u32::from(x & 63)),
                            })
                            .collect(),
                    );
                }
            }
            if g.arrows.len() as u64 != need[5] || g.squares.len() as u64 != need[6] {
                return Err(r.err("mark column does not match the templates"));
            }
        }
        if r.pos != payload.len() {
            return Err(r.err("bytes after the last column"));
        }
        Ok(g)
    }

    /// The number of typed comments in the record.
    pub fn len(&self) -> u64 {
        self.placement.iter().map(|&(_, n)| n).sum()
    }

    /// Whether the record holds no comment (never true after a successful
    /// [`GameCommandsReader::from_payload`]).
    pub fn is_empty(&self) -> bool {
        self.placement.is_empty()
    }

    /// Whether anchor `anchor` carries a typed comment.
    pub fn has_comment_at(&self, anchor: u64) -> bool {
        self.placement
            .binary_search_by(|&(s, n)| {
                if anchor < s {
                    std::cmp::Ordering::Greater
                } else if anchor >= s + n {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }

    /// The typed comment after anchor `anchor` into `out`, if it has one.
    /// Call it for anchors in increasing order (every anchor, or only some):
    /// the reader keeps cursors and never goes back.
    pub fn typed_at(&mut self, anchor: u64, out: &mut TypedComment) -> bool {
        while let Some(&(s, n)) = self.placement.get(self.run) {
            if anchor < s + n {
                break;
            }
            self.run += 1;
            self.run_base += n;
        }
        let Some(&(s, _)) = self.placement.get(self.run) else {
            return false;
        };
        if anchor < s {
            return false;
        }
        let ordinal = self.run_base + (anchor - s);
        if ordinal < self.consumed {
            return false;
        }
        // Comments of moves the caller did not ask for still use values.
        while self.consumed < ordinal {
            let mut skip = std::mem::take(&mut self.scratch);
            self.take_next(&mut skip);
            self.scratch = skip;
        }
        self.take_next(out)
    }

    /// Renders the typed comment after anchor `anchor` (the bytes between
    /// the braces) onto `out`; false if the anchor has none. Same order rule as
    /// [`GameCommandsReader::typed_at`].
    pub fn render_at(&mut self, anchor: u64, out: &mut Vec<u8>) -> bool {
        let mut c = std::mem::take(&mut self.scratch);
        let ok = self.typed_at(anchor, &mut c);
        if ok {
            render(&c, out);
        }
        self.scratch = c;
        ok
    }

    /// The next comment in record order.
    fn take_next(&mut self, out: &mut TypedComment) -> bool {
        out.clear();
        let Some(&(t, k)) = self.template_runs.get(self.trun) else {
            return false;
        };
        self.consumed += 1;
        self.trun_used += 1;
        if self.trun_used >= k {
            self.trun += 1;
            self.trun_used = 0;
        }
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
                    out.pieces
                        .push(Piece::Cmd(sep, Cmd::Time(k, Clock { millis: v }, f)));
                }
                TPiece::Eval(sep, f) => {
                    let e = self
                        .evals
                        .get(self.eval_at)
                        .copied()
                        .unwrap_or(Eval::Centipawns(0));
                    self.eval_at += 1;
                    out.pieces.push(Piece::Cmd(sep, Cmd::Eval(e, f)));
                }
                TPiece::Arrows(sep) => {
                    let s = out.arrows.len() as u32;
                    if let Some(a) = self.arrows.get(self.arrows_at) {
                        out.arrows.extend_from_slice(a);
                    }
                    self.arrows_at += 1;
                    out.pieces
                        .push(Piece::Cmd(sep, Cmd::Arrows(s, out.arrows.len() as u32)));
                }
                TPiece::Squares(sep) => {
                    let s = out.squares.len() as u32;
                    if let Some(a) = self.squares.get(self.squares_at) {
                        out.squares.extend_from_slice(a);
                    }
                    self.squares_at += 1;
                    out.pieces
                        .push(Piece::Cmd(sep, Cmd::Squares(s, out.squares.len() as u32)));
                }
            }
        }
        true
    }
}

// ---------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------

/// Appends `v` as unsigned LEB128.
const fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

const fn unzigzag(u: u64) -> i64 {
    (u >> 1) as i64 ^ -((u & 1) as i64)
}

/// A payload cursor.
struct Bytes<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    fn err(&self, what: &'static str) -> CommandsError {
        CommandsError {
            offset: self.pos,
            what,
        }
    }

    fn byte(&mut self) -> Result<u8, CommandsError> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| self.err("payload ends early"))?;
        self.pos += 1;
        Ok(b)
    }

    fn u64(&mut self) -> Result<u64, CommandsError> {
        match read_varint64(self.buf.get(self.pos..).unwrap_or_default()) {
            Ok((v, n)) => {
                self.pos += n;
                Ok(v)
            }
            Err(Varint64Error::Overflow) => Err(self.err("LEB128 value above 64 bits")),
            Err(Varint64Error::Truncated) => {
                // Reported where the bytes ran out, as `byte` does.
                self.pos = self.buf.len();
                Err(self.err("payload ends early"))
            }
        }
    }

    /// A count of items that take at least `min_bytes` each: never more than
    /// the bytes left justify.
    fn count(&mut self, min_bytes: usize) -> Result<usize, CommandsError> {
        let n = self.u64()?;
        let left = (self.buf.len() - self.pos) as u64;
        if n.saturating_mul(min_bytes as u64) > left {
            return Err(self.err("count larger than the bytes left"));
        }
        Ok(n as usize)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], CommandsError> {
        let s = self
            .buf
            .get(self.pos..self.pos.saturating_add(n))
            .ok_or_else(|| self.err("payload ends early"))?;
        self.pos += n;
        Ok(s)
    }

    fn take_len(&mut self) -> Result<&'a [u8], CommandsError> {
        let n = self.count(1)?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &[u8]) -> Vec<Part<'_>> {
        let v: Vec<_> = parse_comment(text).collect();
        let joined: Vec<u8> = v.iter().flat_map(|p| p.raw().iter().copied()).collect();
        assert_eq!(joined, text, "parts must concatenate to the comment");
        v
    }

    fn cmd<'a>(p: &Part<'a>) -> Command<'a> {
        match p {
            Part::Command { command, .. } => command.clone(),
            Part::Text(t) => panic!("text {:?}", String::from_utf8_lossy(t)),
        }
    }

    fn roundtrip(text: &[u8]) -> Option<TypedComment> {
        let c = encode_comment(text)?;
        let mut out = Vec::new();
        render(&c, &mut out);
        assert_eq!(out, text);
        Some(c)
    }

    const HMS: ClockFormat = ClockFormat::HMS;

    #[test]
    fn several_commands_and_text_around() {
        let p = parts(b"{[%clk 0:00:07][%eval -6.05] White is toast}");
        assert_eq!(p[0], Part::Text(b"{"));
        assert_eq!(cmd(&p[1]), Command::Clk(Clock { millis: 7000 }, HMS));
        assert_eq!(
            cmd(&p[2]),
            Command::Eval(Eval::Centipawns(-605), EvalFormat::LICHESS)
        );
        assert_eq!(p[3], Part::Text(b" White is toast}"));
        assert_eq!(p.len(), 4);

        let p = parts(b"Optional leading comments [%clk 1:05:23] optional trailing comments");
        assert_eq!(p.len(), 3);
        assert_eq!(cmd(&p[1]), Command::Clk(Clock { millis: 3_923_000 }, HMS));
        assert!(encode_comment(b"Optional [%clk 1:05:23]").is_none());
    }

    #[test]
    fn quoted_operands_with_commas_and_brackets() {
        let p = parts(b"[%command 1:45:12,Nf6,\"very interesting, but wrong]\"] after");
        let Command::Other {
            name,
            operands: ops,
        } = cmd(&p[0])
        else {
            panic!()
        };
        assert_eq!(name, b"command");
        let v: Vec<_> = operands(ops).collect();
        assert_eq!(v.len(), 3);
        assert_eq!(
            v[0],
            Operand {
                text: b"1:45:12",
                quoted: false
            }
        );
        assert_eq!(v[1].text, b"Nf6");
        assert_eq!(
            v[2],
            Operand {
                text: b"very interesting, but wrong]",
                quoted: true
            }
        );
        assert_eq!(p[1], Part::Text(b" after"));
        // A FEN with spaces is one unquoted operand.
        let p = parts(b"[%command \"tense\",4r1k1/pp1b2r1/8/8/8/8/8/R4RK1 w - - 0 1,e4,d4]");
        let Command::Other { operands: ops, .. } = cmd(&p[0]) else {
            panic!()
        };
        let v: Vec<_> = operands(ops).map(|o| o.text).collect();
        assert_eq!(
            v,
            [
                &b"tense"[..],
                b"4r1k1/pp1b2r1/8/8/8/8/8/R4RK1 w - - 0 1",
                b"e4",
                b"d4"
            ]
        );
        // Unknown commands keep the comment as text.
        assert!(encode_comment(b"[%command 1,2]").is_none());
        assert!(encode_comment(b" [%evp 0.1,0.2] ").is_none());
    }

    #[test]
    fn clocks_with_fractions_and_widths() {
        let (c, f) = Clock::parse(b"0:00:07.3").unwrap();
        assert_eq!((c.millis, f.frac_digits, f.hour_width), (7300, 1, 1));
        let (c, f) = Clock::parse(b"00:59:01").unwrap();
        assert_eq!((c.millis, f.hour_width), (3_541_000, 2));
        let (c, f) = Clock::parse(b"10:00:00.125").unwrap();
        assert_eq!((c.millis, f.hour_width, f.frac_digits), (36_000_125, 1, 3));
        for bad in [
            &b"0:15.16"[..],
            b"0:60:00",
            b"0:5:00",
            b"1:00:00.1234",
            b"a:00:00",
            b":00:00",
            b"0:00:00.",
        ] {
            assert_eq!(Clock::parse(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        for ok in [
            &b" [%clk 0:00:07.3] "[..],
            b"[%clk 00:15:00]",
            b"[%emt 0:05:42]",
            b"[%egt 1:25:42]",
            b"[%mct 17:10:42]",
            b"[%clk 123:00:00.05]",
        ] {
            assert!(roundtrip(ok).is_some(), "{}", String::from_utf8_lossy(ok));
        }
        assert!(encode_comment(b"[%clk 0:15.16]").is_none());
    }

    #[test]
    fn evaluations() {
        let t = |s: &[u8]| Eval::parse(s).map(|(e, f)| (e, f.decimals, f.plus));
        assert_eq!(
            t(b"0.17"),
            Some((Eval::Centipawns(17), Decimals::Trim, false))
        );
        assert_eq!(
            t(b"-3.0"),
            Some((Eval::Centipawns(-300), Decimals::Trim, false))
        );
        assert_eq!(
            t(b"0.10"),
            Some((Eval::Centipawns(10), Decimals::Fixed(2), false))
        );
        assert_eq!(
            t(b"+1.5"),
            Some((Eval::Centipawns(150), Decimals::Trim, true))
        );
        assert_eq!(
            t(b"2"),
            Some((Eval::Centipawns(200), Decimals::Fixed(0), false))
        );
        assert_eq!(t(b"#-3"), Some((Eval::Mate(-3), Decimals::Trim, false)));
        assert_eq!(t(b"#3"), Some((Eval::Mate(3), Decimals::Trim, false)));
        assert_eq!(t(b"#+3"), Some((Eval::Mate(3), Decimals::Trim, true)));
        for bad in [
            &b"-0.0"[..],
            b"0.175",
            b"01.5",
            b".5",
            b"#",
            b"#-0",
            b"1.",
            b"x",
            b"-",
            b"#1.5",
        ] {
            assert_eq!(Eval::parse(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        for ok in [
            &b" [%eval -6.05] "[..],
            b" [%eval #-3] [%clk 0:00:30] ",
            b"[%eval 0.0]",
            b"[%eval 16.9]",
            b"[%eval +0.17]",
            b"[%eval 0.10]",
            b"[%eval 12]",
        ] {
            assert!(roundtrip(ok).is_some(), "{}", String::from_utf8_lossy(ok));
        }
        // Eval with a depth operand is another command.
        let p = parts(b"[%eval 0.17,20]");
        assert!(matches!(cmd(&p[0]), Command::Other { name: b"eval", .. }));
    }

    #[test]
    fn spec_example_bytes() {
        // spec/extensions-commands.md, section 7.
        let mut g = GameCommands::new();
        for (m, t) in [
            (0u64, &b" [%clk 0:15:00] "[..]),
            (1, b" [%clk 0:15:00] "),
            (2, b" [%clk 0:15:19] "),
            (3, b" [%clk 0:15:18] "),
        ] {
            assert!(g.push(m, &encode_comment(t).unwrap()));
        }
        let mut p = Vec::new();
        g.to_payload(&mut p);
        assert_eq!(
            p,
            [
                0x01, 0x03, 0x01, 0x02, 0x04, 0x01, 0x01, 0x00, 0x04, 0x01, 0x04, 0x00, 0x26, 0x88,
                0x0e, 0x00, 0x00, 0x01
            ]
        );
    }

    #[test]
    fn line_break_after_the_name() {
        // Export writers that wrap comments leave `[%clk\n1:31:15]`.
        let p = parts(b"[%clk\n1:31:15]");
        assert_eq!(cmd(&p[0]), Command::Clk(Clock { millis: 5_475_000 }, HMS));
        for ok in [
            &b"[%clk\n1:31:15]"[..],
            b"[%clk\r\n1:31:15]",
            b" [%eval\n0.5] [%cal\nGe2e4]",
        ] {
            assert!(roundtrip(ok).is_some(), "{}", String::from_utf8_lossy(ok));
        }
        assert!(encode_comment(b"[%clk\r1:31:15]").is_none());
        assert!(encode_comment(b"[%clk\t1:31:15]").is_none());
        game(&[
            (0, b"[%clk 1:31:15]"),
            (1, b"[%clk\n1:31:15]"),
            (2, b"[%clk\r\n1:31:15]"),
        ]);
    }

    #[test]
    fn arrows_and_squares() {
        let p = parts(b" [%csl Ga4,Rb5][%cal Ge2e4,Rb5b6] ");
        assert_eq!(
            cmd(&p[1]),
            Command::Csl(vec![
                SquareMark {
                    colour: MarkColour::Green,
                    square: Square::A4
                },
                SquareMark {
                    colour: MarkColour::Red,
                    square: Square::B5
                },
            ])
        );
        assert_eq!(
            cmd(&p[2]),
            Command::Cal(vec![
                Arrow {
                    colour: MarkColour::Green,
                    from: Square::E2,
                    to: Square::E4
                },
                Arrow {
                    colour: MarkColour::Red,
                    from: Square::B5,
                    to: Square::B6
                },
            ])
        );
        assert!(roundtrip(b" [%csl Ga4,Rb5][%cal Ge2e4,Rb5b6] ").is_some());
        for bad in [
            &b"[%cal Xe2e4]"[..],
            b"[%cal Ge2e9]",
            b"[%csl Ga4,]",
            b"[%csl Ga4, Rb5]",
            b"[%cal ]",
        ] {
            assert!(
                encode_comment(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn malformed_commands_are_text() {
        for text in [
            &b"[%clk 0:15:00"[..],
            b"[% clk 0:15:00]",
            b"[%clk\t0:15:00]",
            b"[%cmd \"unterminated]",
            b"[%cmd \"x\"y]",
            b"[%",
            b"[%]",
        ] {
            let p = parts(text);
            assert!(
                p.iter().all(|p| matches!(p, Part::Text(_))),
                "{}",
                String::from_utf8_lossy(text)
            );
            assert!(encode_comment(text).is_none());
        }
        // A malformed command before a good one: both found.
        let p = parts(b"[%clk [%clk 0:01:00]");
        assert_eq!(p[0], Part::Text(b"[%clk "));
        assert_eq!(cmd(&p[1]), Command::Clk(Clock { millis: 60_000 }, HMS));
        // `[%name]` without operands is a command (not typed).
        assert!(matches!(
            cmd(&parts(b"[%done]")[0]),
            Command::Other {
                name: b"done",
                operands: b""
            }
        ));
        // No command at all, or a comment of text.
        assert!(encode_comment(b"").is_none());
        assert!(encode_comment(b"   ").is_none());
        assert!(encode_comment(b"good move").is_none());
        // Spellings that would not come back exactly.
        assert!(encode_comment(b"[%clk  0:15:00]").is_none());
        assert!(encode_comment(b"[%eval 0.50000]").is_none());
    }

    fn game(comments: &[(u64, &[u8])]) -> Vec<u8> {
        let mut g = GameCommands::new();
        for &(m, text) in comments {
            assert!(g.push(m, &encode_comment(text).unwrap()));
        }
        let mut p = Vec::new();
        g.to_payload(&mut p);
        let mut r = GameCommandsReader::from_payload(&p).unwrap();
        assert_eq!(r.len(), comments.len() as u64);
        let last = comments.last().map_or(0, |c| c.0);
        let mut it = comments.iter().peekable();
        for m in 0..last + 3 {
            let mut out = Vec::new();
            let has = r.render_at(m, &mut out);
            match it.peek() {
                Some(&&(cm, text)) if cm == m => {
                    assert!(has, "move {m}");
                    assert_eq!(out, text, "move {m}");
                    it.next();
                }
                _ => assert!(!has, "move {m}"),
            }
        }
        p
    }

    #[test]
    fn game_record_round_trips() {
        // Lichess: every move, one template.
        let mut v: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut clocks = [900i64, 900];
        for m in 0..80u64 {
            let side = (m % 2) as usize;
            clocks[side] += 20 - (m as i64 * 7 % 31);
            let t = clocks[side].max(0);
            v.push((
                m,
                format!(" [%clk 0:{:02}:{:02}] ", t / 60, t % 60).into_bytes(),
            ));
        }
        let refs: Vec<(u64, &[u8])> = v.iter().map(|(m, t)| (*m, &t[..])).collect();
        let p = game(&refs);
        assert!(p.len() < 80 + 20, "{} bytes for 80 clocks", p.len());

        // Mixed templates, gaps, evals, mates, marks, fractions.
        game(&[
            (0, b" [%eval 0.17] [%clk 0:05:00] "),
            (1, b" [%eval 0.0] [%clk 0:05:00] "),
            (3, b" [%eval #-3] [%clk 0:04:58] "),
            (4, b" [%clk 0:04:50] "),
            (9, b"[%clk 0:00:07.3]"),
            (10, b"\n[%csl Ga4,Rb5][%cal Ge2e4,Rb5b6]\t"),
            (11, b"[%cal Gh1h8]"),
            (
                12,
                b"[%emt 0:00:01][%egt 0:10:00][%mct 17:10:42][%eval -12.5]",
            ),
            (40, b"[%csl Yd5]"),
        ]);
    }

    #[test]
    fn reader_skips_unasked_moves_and_refuses_going_back() {
        let mut g = GameCommands::new();
        for (m, t) in [
            (0u64, &b"[%clk 0:01:00]"[..]),
            (1, b"[%clk 0:02:00]"),
            (2, b"[%clk 0:03:00]"),
        ] {
            assert!(g.push(m, &encode_comment(t).unwrap()));
        }
        assert!(!g.push(2, &encode_comment(b"[%clk 0:03:00]").unwrap()));
        let mut p = Vec::new();
        g.to_payload(&mut p);
        let mut r = GameCommandsReader::from_payload(&p).unwrap();
        assert!(r.has_comment_at(1) && !r.has_comment_at(3));
        let mut out = Vec::new();
        assert!(r.render_at(2, &mut out));
        assert_eq!(out, b"[%clk 0:03:00]");
        assert!(!r.render_at(1, &mut out));
    }

    #[test]
    fn corrupt_payloads_are_errors_not_panics() {
        let p = game(&[
            (0, b" [%eval 0.17] [%clk 0:05:00] "),
            (2, b"[%csl Ga4][%cal Ge2e4]"),
            (3, b" [%clk 0:04:50] "),
        ]);
        // Every truncation and every single-byte change: no panic, and any
        // accepted payload renders without panicking.
        for n in 0..p.len() {
            assert!(
                GameCommandsReader::from_payload(&p[..n]).is_err(),
                "truncated at {n}"
            );
        }
        for i in 0..p.len() {
            for b in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut q = p.clone();
                q[i] = b;
                if let Ok(mut r) = GameCommandsReader::from_payload(&q) {
                    let mut out = Vec::new();
                    for m in 0..10 {
                        r.render_at(m, &mut out);
                    }
                }
            }
        }
        // Counts that claim more than the payload holds.
        let huge = [0x01, 0x01, 0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01];
        assert!(GameCommandsReader::from_payload(&huge).is_err());
        let mut col = Vec::new();
        put_varint(&mut col, u64::MAX);
        assert!(ClockColumn::from_payload(&col).is_err());
        assert!(EvalColumn::from_payload(&col).is_err());
    }

    #[test]
    fn columns_round_trip() {
        let mut c = ClockColumn::new();
        for ms in [
            900_000,
            900_000,
            919_000,
            918_000,
            7_300,
            0,
            MAX_CLOCK_MILLIS,
        ] {
            c.push(Clock { millis: ms });
        }
        let mut p = Vec::new();
        c.to_payload(&mut p);
        let (back, n) = ClockColumn::from_payload(&p).unwrap();
        assert_eq!((back, n), (c, p.len()));

        let mut e = EvalColumn::new();
        for v in [
            Eval::Centipawns(17),
            Eval::Mate(-3),
            Eval::Centipawns(-MAX_CENTIPAWNS),
            Eval::Mate(i32::MIN),
        ] {
            e.push(v);
        }
        let mut p = Vec::new();
        e.to_payload(&mut p);
        let (back, n) = EvalColumn::from_payload(&p).unwrap();
        assert_eq!((back, n), (e, p.len()));
    }
}
