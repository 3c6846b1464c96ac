//! Numbers of engine notes and their spellings ([`NumberFormat`]).

/// When a number is written with a `+`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sign {
    /// Only negative numbers carry a sign (`-9`, `40`).
    Minus = 0,
    /// `+` before numbers above zero (`+0.52`, `0.00`, `-1.25`).
    Positive = 1,
    /// `+` before zero and above (`+0`, `+1`, `-1`).
    NonNegative = 2,
}

/// How a number is spelled: decimals, when a `+` is written, and the
/// zero-padded width of the integer part. One byte: bits 0–2 decimals
/// (0–7), bits 3–4 [`Sign`], bits 5–7 width − 1 (1–8 digits). Bits 3–4
/// both set: a clock `H:MM:SS` (the width the hours', the decimals the
/// seconds'), its value the seconds in units of 10^-decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NumberFormat(u8);

impl NumberFormat {
    /// An integer with no `+` and no padding (`40`, `-1000`).
    pub const INTEGER: NumberFormat = NumberFormat(0);

    /// A format, if the parts are in range (decimals ≤ 7, width 1–8).
    pub const fn new(decimals: u8, sign: Sign, width: u8) -> Option<NumberFormat> {
        if decimals > 7 || width == 0 || width > 8 {
            return None;
        }
        Some(NumberFormat(
            decimals | (sign as u8) << 3 | (width - 1) << 5,
        ))
    }

    /// A clock `H:MM:SS[.f]`: the hours zero-padded to `width` digits
    /// (1–8), `decimals` digits of the seconds (0–7).
    pub const fn clock(decimals: u8, width: u8) -> Option<NumberFormat> {
        if decimals > 7 || width == 0 || width > 8 {
            return None;
        }
        Some(NumberFormat(decimals | 3 << 3 | (width - 1) << 5))
    }

    /// From its byte (every byte is a format).
    pub const fn from_byte(b: u8) -> NumberFormat {
        NumberFormat(b)
    }

    /// Whether it writes a clock, `H:MM:SS`.
    pub const fn is_clock(self) -> bool {
        (self.0 >> 3) & 3 == 3
    }

    /// Its byte.
    pub const fn to_byte(self) -> u8 {
        self.0
    }

    /// Digits after the decimal point: the value is in units of
    /// 10^-decimals.
    pub const fn decimals(self) -> u8 {
        self.0 & 7
    }

    /// When a `+` is written (never before a clock).
    pub const fn sign(self) -> Sign {
        match (self.0 >> 3) & 3 {
            1 => Sign::Positive,
            2 => Sign::NonNegative,
            _ => Sign::Minus,
        }
    }

    /// Integer digits, zero-padded (a clock's hours: `00:02:56` has 2).
    pub const fn width(self) -> u8 {
        (self.0 >> 5) + 1
    }

    /// Writes `v` (in units of 10^-decimals) in this format.
    pub fn render(self, v: i64, out: &mut Vec<u8>) {
        let mut buf = Spelling::default();
        self.spell(v, &mut buf);
        out.extend_from_slice(buf.bytes());
    }

    /// Spells `v` into a buffer on the stack (at most 1 + 20 + 1 + 7
    /// bytes).
    fn spell(self, v: i64, out: &mut Spelling) {
        match self.sign() {
            _ if v < 0 => out.push(b'-'),
            Sign::Positive if v > 0 => out.push(b'+'),
            Sign::NonNegative => out.push(b'+'),
            _ => {}
        }
        let m = v.unsigned_abs();
        let scale = 10u64.pow(u32::from(self.decimals()));
        if self.is_clock() {
            let seconds = m / scale;
            out.padded(seconds / 3600, usize::from(self.width()));
            out.push(b':');
            out.padded(seconds / 60 % 60, 2);
            out.push(b':');
            out.padded(seconds % 60, 2);
        } else {
            out.padded(m / scale, usize::from(self.width()));
        }
        if self.decimals() > 0 {
            out.push(b'.');
            out.padded(m % scale, usize::from(self.decimals()));
        }
    }
}

/// A number's spelling, on the stack.
#[derive(Debug, Clone, Copy)]
struct Spelling {
    buf: [u8; 40],
    len: usize,
}

impl Default for Spelling {
    fn default() -> Self {
        Spelling {
            buf: [0; 40],
            len: 0,
        }
    }
}

impl Spelling {
    pub(super) fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `v` in decimal, zero-padded to `width` digits.
    fn padded(&mut self, mut v: u64, width: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for _ in (digits.len() - i)..width {
            self.push(b'0');
        }
        for &d in &digits[i..] {
            self.push(d);
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The number at the start of `s` (`[+-]digits[.digits]`, at most 18
/// digits, a dot only between digits): its value, the format that writes
/// it back exactly, and its length; `None` when `s` does not start with
/// one, or when no format gives its spelling back (`-0`, `0012.5` wider
/// than 8 digits).
pub fn parse_number(s: &[u8]) -> Option<(i64, NumberFormat, usize)> {
    let (neg, plus, mut i) = match s.first()? {
        b'-' => (true, false, 1),
        b'+' => (false, true, 1),
        _ => (false, false, 0),
    };
    let int_start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = &s[int_start..i];
    if int_digits.is_empty() {
        return None;
    }
    if int_start == 0
        && let Some(clock) = parse_clock(s, int_digits)
    {
        return Some(clock);
    }
    let frac = fraction(s, i);
    if !frac.is_empty() {
        i += 1 + frac.len();
    }
    if int_digits.len() + frac.len() > 18 || frac.len() > 7 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in int_digits.iter().chain(frac) {
        v = v * 10 + i64::from(d - b'0');
    }
    if neg {
        v = -v;
    }
    let width = if int_digits.len() > 1 && int_digits[0] == b'0' {
        u8::try_from(int_digits.len()).ok()?
    } else {
        1
    };
    let sign = match (plus, v) {
        (true, 0) => Sign::NonNegative,
        (true, _) => Sign::Positive,
        _ => Sign::Minus,
    };
    let f = NumberFormat::new(frac.len() as u8, sign, width)?;
    // The format writes the digits as read (the width is the padded
    // integer part's, the decimals the fraction's) and the sign as read,
    // except for a minus before zero (`-0`, `-0.00`), which no format
    // writes.
    let exact = !(neg && v == 0);
    debug_assert_eq!(exact, f.spells(v, &s[..i]));
    exact.then_some((v, f, i))
}

/// The digits after a `.` at `s[at]` that a digit follows (empty where
/// there is none).
fn fraction(s: &[u8], at: usize) -> &[u8] {
    if s.get(at) != Some(&b'.') {
        return &[];
    }
    let digits = s[at + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    &s[at + 1..at + 1 + digits]
}

/// A clock `H:MM:SS[.f]` at the start of `s`, whose hours are
/// `hours` (at most 8 digits; minutes and seconds two digits each, below
/// 60; at most 7 decimals): its value in units of 10^-decimals of a
/// second, its format and its length.
fn parse_clock(s: &[u8], hours: &[u8]) -> Option<(i64, NumberFormat, usize)> {
    let two = |at: usize| -> Option<i64> {
        match (s.get(at), s.get(at + 1)) {
            (Some(a), Some(b)) if a.is_ascii_digit() && b.is_ascii_digit() => {
                Some(i64::from(a - b'0') * 10 + i64::from(b - b'0'))
            }
            _ => None,
        }
    };
    let h = hours.len();
    if h > 8 || s.get(h) != Some(&b':') || s.get(h + 3) != Some(&b':') {
        return None;
    }
    let (minutes, seconds) = (two(h + 1)?, two(h + 4)?);
    // Two digits exactly: a third digit makes no clock.
    if minutes >= 60 || seconds >= 60 || s.get(h + 6).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut i = h + 6;
    let frac = fraction(s, i);
    if !frac.is_empty() {
        i += 1 + frac.len();
    }
    if frac.len() > 7 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in hours {
        v = v * 10 + i64::from(d - b'0');
    }
    v = v * 3600 + minutes * 60 + seconds;
    for &d in frac {
        v = v.checked_mul(10)? + i64::from(d - b'0');
    }
    let width = if h > 1 && hours[0] == b'0' {
        h as u8
    } else {
        1
    };
    let f = NumberFormat::clock(frac.len() as u8, width)?;
    debug_assert!(f.spells(v, &s[..i]));
    (v <= super::limits::MAX_NUMBER).then_some((v, f, i))
}

impl NumberFormat {
    /// Whether this format writes `v` as exactly `text`.
    pub fn spells(self, v: i64, text: &[u8]) -> bool {
        let mut buf = Spelling::default();
        self.spell(v, &mut buf);
        buf.bytes() == text
    }

    /// Whether this format and `other` write `v` alike (as
    /// `self.spells(v, t) == other.spells(v, t)` for every text `t`,
    /// without writing it).
    pub fn spells_alike(self, other: NumberFormat, v: i64) -> bool {
        if self == other {
            return true;
        }
        if self.is_clock() || other.is_clock() {
            // A clock and a number never write alike; two clocks where
            // their hours take as many digits.
            let hours = |f: NumberFormat| {
                let h = v.unsigned_abs() / 10u64.pow(u32::from(f.decimals())) / 3600;
                (h.checked_ilog10().unwrap_or(0) + 1).max(u32::from(f.width()))
            };
            return self.is_clock() == other.is_clock()
                && self.decimals() == other.decimals()
                && hours(self) == hours(other);
        }
        let sign = |f: NumberFormat| match f.sign() {
            _ if v < 0 => b'-',
            Sign::Positive if v > 0 => b'+',
            Sign::NonNegative => b'+',
            _ => 0,
        };
        // Digits of the integer part, padded to the width.
        let digits = |f: NumberFormat| {
            let int = v.unsigned_abs() / 10u64.pow(u32::from(f.decimals()));
            (int.checked_ilog10().unwrap_or(0) + 1).max(u32::from(f.width()))
        };
        self.decimals() == other.decimals()
            && sign(self) == sign(other)
            && digits(self) == digits(other)
    }
}
