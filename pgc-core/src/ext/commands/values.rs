//! Command values and their spellings: clocks, evaluations, arrows and
//! square marks, each with the format it was written in.

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

    pub(super) const fn from_code(c: u8) -> MarkColour {
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
