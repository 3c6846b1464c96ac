//! The typed-commands payload (kind 0x10, `spec/extensions-commands.md`):
//! the values of embedded commands (clocks, evaluations, arrows, square
//! marks) with the formats they were written in, a game's typed comments
//! ([`TypedComment`]), the per-game column record ([`GameCommands`] to write
//! it, [`GameCommandsReader`] to read and check it) and the anchor counting
//! that places each typed comment in the game ([`Anchors`]).
//!
//! The comment syntax (`[%clk 0:03:00]` inside `{…}`) is PGN text and lives
//! in pgn-bridge (`commands::syntax`); this module holds values, and the
//! spelling of each value (`Clock::parse`, `Eval::render`, …) that its
//! format byte describes.
//!
//! ```
//! use pgc_core::ext::commands::*;
//!
//! // `[%eval 0.17] [%clk 0:03:00]` after anchor 0.
//! let mut c = TypedComment::new();
//! c.push_eval(Separator::Space, Eval::Centipawns(17), EvalFormat::LICHESS);
//! c.push_space(b" ");
//! c.push_time(Separator::Space, TimeKind::Clk, Clock { millis: 180_000 }, ClockFormat::HMS);
//! let mut game = GameCommands::new();
//! assert!(game.push(0, &c));
//! let mut payload = Vec::new();
//! game.to_payload(&mut payload);
//!
//! let mut reader = GameCommandsReader::from_payload(&payload).unwrap();
//! let mut back = TypedComment::new();
//! assert!(reader.typed_at(0, &mut back));
//! assert_eq!(back, c);
//! assert_eq!((back.clk(), back.eval()), (Some(Clock { millis: 180_000 }), Some(Eval::Centipawns(17))));
//!
//! // A corrupt payload is refused at its byte.
//! payload[1] = 0x7f; // the template's piece count
//! let e = GameCommandsReader::from_payload(&payload).unwrap_err();
//! assert_eq!(e.at, 1);
//! ```

use super::cursor::{Bytes, unzigzag, zigzag};
use super::engine::{
    EngineNote, GameNotesReader, LineTrail, NoteSummary, render_note, render_note_with_pv,
};
use super::error::{Found, PayloadError};
use super::placement::Placement;
use crate::item::put_varint;
use shakmaty::Square;

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
        let (sec, frac) = match rest.iter().position(|&b| b == b'.') {
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

    /// The value of a clock operand as python-chess reads it (its
    /// `CLOCK_REGEX`): `h:m:s` or `h:m:s.f` with any number of digits in
    /// each field (`0:0:5`, `0:90:00`, `1:00:00.`), rounded to the
    /// millisecond. Every spelling [`Clock::parse`] takes reads to
    /// the same value; these others cannot be stored typed, as they would
    /// not be written back the same. `None` for any other operand, or a
    /// value beyond [`MAX_CLOCK_MILLIS`].
    pub fn read(s: &[u8]) -> Option<Clock> {
        let mut fields = s.splitn(3, |&b| b == b':');
        let (h, m, rest) = (fields.next()?, fields.next()?, fields.next()?);
        let (sec, frac) = match rest.iter().position(|&b| b == b'.') {
            Some(d) => (&rest[..d], &rest[d + 1..]),
            None => (rest, &b""[..]),
        };
        if !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let mut frac_ms = 0;
        for i in 0..3 {
            frac_ms = frac_ms * 10 + frac.get(i).map_or(0, |&b| u64::from(b - b'0'));
        }
        // Rounded to the millisecond, as `round(clock * 1000)` of
        // python-chess's seconds.
        frac_ms += u64::from(frac.get(3).is_some_and(|&b| b >= b'5'));
        let millis = long_digits(h)?
            .checked_mul(60)?
            .checked_add(long_digits(m)?)?
            .checked_mul(60)?
            .checked_add(long_digits(sec)?)?
            .checked_mul(1000)?
            .checked_add(frac_ms)?;
        (millis <= MAX_CLOCK_MILLIS).then_some(Clock { millis })
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
        let (int, frac) = match s.iter().position(|&b| b == b'.') {
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

    /// The value of an evaluation operand as python-chess reads it (its
    /// `EVAL_REGEX`): `#[+|-]n`, or `[+|-]` and up to ten digits with an
    /// optional point and up to two decimals (`.5`, `12.`, `007`, `-0.00`),
    /// either with a search depth after a comma (`1.2,20`) that is not part
    /// of the value. Every spelling [`Eval::parse`] takes reads to the same
    /// value. `None` for any other operand, or a value beyond
    /// [`MAX_CENTIPAWNS`] or `i32`.
    pub fn read(s: &[u8]) -> Option<Eval> {
        let s = match s.iter().position(|&b| b == b',') {
            Some(c) => {
                let depth = &s[c + 1..];
                if depth.is_empty() || !depth.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                &s[..c]
            }
            None => s,
        };
        let (mate, s) = match s.strip_prefix(b"#") {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let (neg, s) = match s.first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let sign = if neg { -1 } else { 1 };
        if mate {
            return i32::try_from(sign * i64::try_from(long_digits(s)?).ok()?)
                .ok()
                .map(Eval::Mate);
        }
        let (int, frac) = match s.iter().position(|&b| b == b'.') {
            Some(d) => (&s[..d], Some(&s[d + 1..])),
            None => (s, None),
        };
        let cents = match frac {
            // `12` and `12.`: ten digits at most, at least one.
            None | Some([]) if !int.is_empty() => 0,
            Some(f @ ([_] | [_, _])) => digits(f)? * if f.len() == 1 { 10 } else { 1 },
            _ => return None,
        };
        if int.len() > 10 {
            return None;
        }
        let whole = if int.is_empty() { 0 } else { digits(int)? };
        let cp = i64::try_from(whole * 100 + cents).ok()? * sign;
        if cp.unsigned_abs() > MAX_CENTIPAWNS as u64 {
            return None;
        }
        Some(Eval::Centipawns(cp as i32))
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

/// The decimal value of one or more ASCII digits, leading zeros allowed
/// in any number; `None` on a non-digit, an empty slice or a value beyond
/// `u64`.
fn long_digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &b| {
        if !b.is_ascii_digit() {
            return None;
        }
        acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
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
    /// `'\r'` alone (classic Mac OS text).
    Cr = 3,
}

impl Separator {
    /// Its bytes.
    pub const fn bytes(self) -> &'static [u8] {
        match self {
            Separator::Space => b" ",
            Separator::Newline => b"\n",
            Separator::CrLf => b"\r\n",
            Separator::Cr => b"\r",
        }
    }

    const fn from_code(c: u8) -> Option<Separator> {
        match c {
            0 => Some(Separator::Space),
            1 => Some(Separator::Newline),
            2 => Some(Separator::CrLf),
            3 => Some(Separator::Cr),
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

/// A comment made only of typed commands and whitespace, piece by piece, so
/// that its exact bytes can be rendered again (pgn-bridge's
/// `commands::render`).
///
/// Built with the `push_*` methods (pgn-bridge's `encode_comment_into` parses
/// a comment's text into one) or by [`GameCommandsReader::typed_at`]; the
/// buffers are reused after [`TypedComment::clear`], so that reading or
/// writing a game allocates nothing per move.
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

    /// Appends whitespace between commands (its exact bytes; empty bytes
    /// add nothing).
    pub fn push_space(&mut self, s: &[u8]) {
        if s.is_empty() {
            return;
        }
        let a = self.space.len() as u32;
        self.space.extend_from_slice(s);
        self.pieces.push(Piece::Space(a, self.space.len() as u32));
    }

    /// Appends a time command.
    pub fn push_time(&mut self, sep: Separator, kind: TimeKind, clock: Clock, format: ClockFormat) {
        self.pieces
            .push(Piece::Cmd(sep, Cmd::Time(kind, clock, format)));
    }

    /// Appends an `[%eval]` command.
    pub fn push_eval(&mut self, sep: Separator, eval: Eval, format: EvalFormat) {
        self.pieces.push(Piece::Cmd(sep, Cmd::Eval(eval, format)));
    }

    /// Appends a `[%cal]` command with the arrows `arrows` yields; false at
    /// the first `None` (the comment is then incomplete: clear it).
    pub fn push_arrows(
        &mut self,
        sep: Separator,
        arrows: impl IntoIterator<Item = Option<Arrow>>,
    ) -> bool {
        let (s, e, ok) = push_until_none(&mut self.arrows, arrows);
        self.pieces.push(Piece::Cmd(sep, Cmd::Arrows(s, e)));
        ok
    }

    /// Appends a `[%csl]` command with the square marks `marks` yields;
    /// false at the first `None` (the comment is then incomplete: clear it).
    pub fn push_squares(
        &mut self,
        sep: Separator,
        marks: impl IntoIterator<Item = Option<SquareMark>>,
    ) -> bool {
        let (s, e, ok) = push_until_none(&mut self.squares, marks);
        self.pieces.push(Piece::Cmd(sep, Cmd::Squares(s, e)));
        ok
    }

    /// Whether the comment holds at least one command.
    pub fn has_command(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Cmd(..)))
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

/// Pushes `items` onto `dst` up to the first `None`: the range pushed
/// (start, end) and whether no `None` came.
fn push_until_none<T>(
    dst: &mut Vec<T>,
    items: impl IntoIterator<Item = Option<T>>,
) -> (u32, u32, bool) {
    let start = dst.len() as u32;
    let mut ok = true;
    for item in items {
        match item {
            Some(x) => dst.push(x),
            None => {
                ok = false;
                break;
            }
        }
    }
    (start, dst.len() as u32, ok)
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
    /// A [`PayloadError`] if the bytes end early, the count exceeds the
    /// bytes left (one byte per value at least: nothing is allocated that
    /// the payload does not justify), or a value leaves `0..=`[`MAX_CLOCK_MILLIS`].
    pub fn from_payload(payload: &[u8]) -> Result<(ClockColumn, usize), PayloadError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let mut c = ClockColumn::new();
        read_clocks(&mut r, &mut c.values)?;
        Ok((c, r.pos))
    }
}

/// Reads a clock column into `values` (cleared first), in milliseconds.
fn read_clocks(r: &mut Bytes<'_>, values: &mut Vec<u64>) -> Result<(), PayloadError> {
    values.clear();
    let n = r.count(1, "a clock count")?;
    let at = r.pos;
    let digits = r.byte("a clock unit")?;
    if digits > 3 {
        return Err(r.err_at(
            at,
            "a clock unit of 0 to 3 decimal digits",
            Found::Byte(digits),
        ));
    }
    let step = 10i64.pow(3 - u32::from(digits));
    let max = MAX_CLOCK_MILLIS as i64 / step;
    let bias = unzigzag(r.u64("a clock bias")?);
    // The loop works on locals (the cursor, the vector, sized up front),
    // which the compiler keeps in registers.
    let mut vals = std::mem::take(values);
    vals.resize(n, 0);
    let buf = r.buf;
    let mut pos = r.pos;
    // The two values before the current one, in units.
    let (mut before2, mut before1) = (0i64, 0i64);
    let mut result = Ok(());
    for (i, slot) in vals.iter_mut().enumerate() {
        let at = pos;
        let z = match buf.get(pos) {
            Some(&b) if b < 0x80 => {
                pos += 1;
                u64::from(b)
            }
            _ => {
                r.pos = pos;
                match r.u64("a clock residual") {
                    Ok(z) => {
                        pos = r.pos;
                        z
                    }
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
        };
        let pred = if i >= 2 {
            before2.checked_add(bias)
        } else if i == 1 {
            Some(before1)
        } else {
            Some(0)
        };
        match pred.and_then(|p| p.checked_add(unzigzag(z))) {
            Some(v) if (0..=max).contains(&v) => {
                *slot = (v * step) as u64;
                (before2, before1) = (before1, v);
            }
            _ => {
                result = Err(r.err_at(
                    at,
                    "a residual giving a clock within 0..=999999999:59:59.999",
                    Found::Value(z),
                ));
                break;
            }
        }
    }
    if result.is_ok() {
        r.pos = pos;
    } else {
        vals.clear();
    }
    *values = vals;
    result
}

/// The residual of a one-byte LEB128 value, by byte; -2^60 for the bytes
/// that begin a longer value.
const ONE_BYTE_RESIDUAL: [i64; 256] = {
    let mut t = [-(1i64 << 60); 256];
    let mut b = 0;
    while b < 0x80 {
        t[b] = unzigzag(b as u64);
        b += 1;
    }
    t
};

/// Checks a clock column as [`read_clocks`] reads it (the same errors),
/// keeping no value: the number of values.
fn check_clocks(r: &mut Bytes<'_>) -> Result<usize, PayloadError> {
    let n = r.count(1, "a clock count")?;
    let at = r.pos;
    let digits = r.byte("a clock unit")?;
    if digits > 3 {
        return Err(r.err_at(
            at,
            "a clock unit of 0 to 3 decimal digits",
            Found::Byte(digits),
        ));
    }
    let step = 10i64.pow(3 - u32::from(digits));
    let max = MAX_CLOCK_MILLIS as i64 / step;
    let bias = unzigzag(r.u64("a clock bias")?);
    let buf = r.buf;
    let mut pos = r.pos;
    // The two values before the current one, in units.
    let (mut before2, mut before1) = (0i64, 0i64);
    // The common shape gets a loop of its own: one-byte residuals from the
    // third value on, with a bias below 2^53 (the values are at most `max`,
    // below 2^52, and a one-byte residual is within ±64: nothing
    // overflows, and a byte of 0x80 or more, [`ONE_BYTE_RESIDUAL`]'s
    // -2^60, gives a value below 0). A value it does not take goes through
    // the general step below.
    let fast = bias.unsigned_abs() < 1 << 53;
    let mut i = 0;
    while i < n {
        if fast && i >= 2 {
            // At most one byte per value left; two values (one of each
            // player) at a time. A pair it does not take goes value by value
            // through the general step.
            let (start, end) = (pos, (pos + (n - i)).min(buf.len()));
            let max = max as u64;
            for pair in buf.get(start..end).unwrap_or_default().chunks_exact(2) {
                let va = before2 + bias + ONE_BYTE_RESIDUAL[usize::from(pair[0])];
                let vb = before1 + bias + ONE_BYTE_RESIDUAL[usize::from(pair[1])];
                // A negative value is above `max` as a u64.
                if va as u64 > max || vb as u64 > max {
                    break;
                }
                (before2, before1) = (va, vb);
                pos += 2;
            }
            i += pos - start;
            if i >= n {
                break;
            }
        }
        let at = pos;
        r.pos = pos;
        let z = r.u64("a clock residual")?;
        pos = r.pos;
        let pred = if i >= 2 {
            before2.checked_add(bias)
        } else if i == 1 {
            Some(before1)
        } else {
            Some(0)
        };
        match pred.and_then(|p| p.checked_add(unzigzag(z))) {
            Some(v) if (0..=max).contains(&v) => (before2, before1) = (before1, v),
            _ => {
                return Err(r.err_at(
                    at,
                    "a residual giving a clock within 0..=999999999:59:59.999",
                    Found::Value(z),
                ));
            }
        }
        i += 1;
    }
    r.pos = pos;
    Ok(n)
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
    /// A [`PayloadError`] if the bytes end early, the count exceeds the
    /// bytes left, or a value leaves the `i32` range (pawn values:
    /// ±[`MAX_CENTIPAWNS`]).
    pub fn from_payload(payload: &[u8]) -> Result<(EvalColumn, usize), PayloadError> {
        let mut r = Bytes {
            buf: payload,
            pos: 0,
        };
        let mut c = EvalColumn::new();
        read_evals(&mut r, &mut c.values)?;
        Ok((c, r.pos))
    }
}

/// Reads an eval column into `values` (cleared first).
fn read_evals(r: &mut Bytes<'_>, values: &mut Vec<Eval>) -> Result<(), PayloadError> {
    values.clear();
    let n = r.count(1, "an eval count")?;
    values.reserve(n);
    let mut prev = 0i64;
    for _ in 0..n {
        let at = r.pos;
        let u = r.u64("an eval value")?;
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
        values.push(e.ok_or_else(|| {
            r.err_at(
                at,
                "an evaluation within the i32 range (pawn values within 9999999.99)",
                Found::Value(u),
            )
        })?);
    }
    Ok(())
}

/// Checks an eval column as [`read_evals`] reads it (the same errors),
/// keeping no value: the number of values.
fn check_evals(r: &mut Bytes<'_>) -> Result<usize, PayloadError> {
    let n = r.count(1, "an eval count")?;
    let mut prev = 0i64;
    for _ in 0..n {
        let at = r.pos;
        let u = r.u64("an eval value")?;
        let v = unzigzag(u >> 1);
        let ok = if u & 1 == 1 {
            i32::try_from(v).is_ok()
        } else {
            match prev
                .checked_add(v)
                .filter(|cp| cp.unsigned_abs() <= MAX_CENTIPAWNS as u64)
            {
                Some(cp) => {
                    prev = cp;
                    true
                }
                None => false,
            }
        };
        if !ok {
            return Err(r.err_at(
                at,
                "an evaluation within the i32 range (pawn values within 9999999.99)",
                Found::Value(u),
            ));
        }
    }
    Ok(n)
}

/// The typed comments of one game, for one extension record
/// ([`super::CLOCKS`]) written before the game's first move.
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

// ---------------------------------------------------------------------------
// Anchors
// ---------------------------------------------------------------------------

/// Counts a game's anchors (see [`GameCommands`]) and hands out the typed
/// comment of each from the game's commands record: the one place that
/// decides which item a typed comment belongs to, for every reader.
///
/// Per game: [`Anchors::begin_game`], [`Anchors::load`] when the commands
/// record comes, then [`Anchors::after_anchor`] after every anchor in record
/// order (each move of a move record, a 0x07 NAG, and the extension kinds of
/// [`super::ExtKind::is_anchor`]), variations included.
///
/// ```
/// use pgc_core::ext::commands::{Anchors, Clock, ClockFormat, GameCommands, Separator, TimeKind, TypedComment};
///
/// let mut c = TypedComment::new();
/// c.push_time(Separator::Space, TimeKind::Clk, Clock { millis: 180_000 }, ClockFormat::HMS);
/// let mut game = GameCommands::new();
/// assert!(game.push(1, &c)); // after the second anchor
/// let mut payload = Vec::new();
/// game.to_payload(&mut payload);
///
/// let mut anchors = Anchors::new();
/// anchors.begin_game();
/// anchors.load(&payload).unwrap();
/// let mut out = TypedComment::new();
/// assert!(!anchors.after_anchor(&mut out)); // anchor 0: e4
/// assert!(anchors.after_anchor(&mut out)); // anchor 1: e5
/// assert_eq!(out.clk(), Some(Clock { millis: 180_000 }));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Anchors {
    reader: GameCommandsReader,
    loaded: bool,
    notes: GameNotesReader,
    notes_loaded: bool,
    /// The note handed out last by [`Anchors::note_text_here`].
    note: EngineNote,
    next: u64,
}

impl Anchors {
    /// A counter with no record.
    pub fn new() -> Anchors {
        Anchors::default()
    }

    /// A game begins: anchor 0 is next, and no record is loaded.
    pub fn begin_game(&mut self) {
        if self.loaded {
            self.reader.clear();
        }
        if self.notes_loaded {
            self.notes.clear();
        }
        self.loaded = false;
        self.notes_loaded = false;
        self.next = 0;
    }

    /// Loads the game's engine-notes record (kind 0x14).
    ///
    /// # Errors
    /// As [`GameNotesReader::load`]; the game then has no engine note.
    pub fn load_notes(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let r = self.notes.load(payload);
        self.notes_loaded = r.is_ok();
        r
    }

    /// The engine note after the anchor counted last, if it has one, with
    /// its text written to `text` (emptied first) from `line`'s positions.
    ///
    /// # Errors
    /// `Some(Err(…))`: the note names a start position `line` does not
    /// have there, or an ordinal of no legal move (the game's notes record
    /// is refused, as `pgc verify` refuses it).
    pub fn note_text_here(
        &mut self,
        line: &LineTrail,
        text: &mut Vec<u8>,
    ) -> Option<Result<&EngineNote, PayloadError>> {
        if !self.load_note_here() {
            return None;
        }
        text.clear();
        Some(match render_note(&self.note, &line.positions(), text) {
            Ok(()) => Ok(&self.note),
            Err(e) => Err(e.to_payload_error()),
        })
    }

    /// [`Anchors::note_text_here`], handing the moves of the note's
    /// principal variation to `on_pv` as they are written, and giving the
    /// note's summary ([`render_note_with_pv`]): the moves are played and
    /// the keys read once for both.
    ///
    /// # Errors
    /// As [`Anchors::note_text_here`]; `on_pv` may have had some of the
    /// moves.
    pub fn note_text_and_pv_here(
        &mut self,
        line: &LineTrail,
        text: &mut Vec<u8>,
        on_pv: impl FnMut(shakmaty::Move),
    ) -> Option<Result<NoteSummary<'_>, PayloadError>> {
        if !self.load_note_here() {
            return None;
        }
        text.clear();
        Some(
            render_note_with_pv(&self.note, &line.positions(), text, on_pv)
                .map_err(|e| e.to_payload_error()),
        )
    }

    /// Loads the note after the anchor counted last into `self.note`;
    /// whether there is one.
    fn load_note_here(&mut self) -> bool {
        let mut note = std::mem::take(&mut self.note);
        let found = self.note_here(&mut note);
        self.note = note;
        found
    }

    /// Whether an engine-notes record is loaded.
    pub fn has_notes(&self) -> bool {
        self.notes_loaded
    }

    /// The engine note after the anchor counted last, into `out`, if it
    /// has one. Call it after [`Anchors::after_anchor`] (or its `_with`
    /// form, or [`Anchors::skip`]) for the same anchor: a note is written
    /// after the anchor's typed commands comment, if both are there.
    #[inline]
    pub fn note_here(&mut self, out: &mut EngineNote) -> bool {
        self.notes_loaded && self.next > 0 && self.notes.note_at(self.next - 1, out)
    }

    /// Loads the game's commands record (kind 0x10).
    ///
    /// # Errors
    /// As [`GameCommandsReader::load`]; the game then has no typed comment.
    pub fn load(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let r = self.reader.load(payload);
        self.loaded = r.is_ok();
        r
    }

    /// Whether a commands or engine-notes record is loaded (a reader that
    /// wants typed comments must then count every anchor).
    pub fn is_loaded(&self) -> bool {
        self.loaded || self.notes_loaded
    }

    /// Anchors counted so far in the game.
    pub fn count(&self) -> u64 {
        self.next
    }

    /// An anchor was read: counts it and, if a typed comment follows it,
    /// puts it in `out` and returns true.
    #[inline]
    pub fn after_anchor(&mut self, out: &mut TypedComment) -> bool {
        let a = self.next;
        self.next += 1;
        self.loaded && self.reader.typed_at(a, out)
    }

    /// An anchor was read: counts it and, if a typed comment follows it,
    /// calls `f` with it.
    #[inline]
    pub fn after_anchor_with<T>(&mut self, f: impl FnOnce(&TypedComment) -> T) -> Option<T> {
        let a = self.next;
        self.next += 1;
        if !self.loaded {
            return None;
        }
        self.reader.with_typed_at(a, f)
    }

    /// Counts `n` anchors at once, for a reader that wants no comment.
    pub fn skip(&mut self, n: u64) {
        self.next += n;
    }
}

pub mod syntax;

#[cfg(test)]
mod tests;
