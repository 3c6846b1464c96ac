//! The value columns of a commands record: time values and evaluations,
//! one column per command per game.

use super::values::{Clock, Eval, MAX_CENTIPAWNS, MAX_CLOCK_MILLIS};
use crate::ext::cursor::{Bytes, unzigzag, zigzag};
use crate::ext::error::{Found, PayloadError};
use crate::item::put_varint;

/// Template piece tags (`spec/extensions-commands.md`).
pub(super) const T_WHITESPACE: u8 = 0x00;
pub(super) const T_SPACE: u8 = 0x01;
pub(super) const T_CLK: u8 = 0x02; // 0x02..=0x05: clk, emt, egt, mct; then a format byte
pub(super) const T_EVAL: u8 = 0x06; // then a format byte
pub(super) const T_CAL: u8 = 0x07;
pub(super) const T_CSL: u8 = 0x08;

/// At most this many templates per game; further comments stay text.
pub const MAX_TEMPLATES: usize = 255;

/// Column bits of the mask byte.
pub(super) const COL_EVAL: u8 = 1 << 4;
pub(super) const COL_MARKS: u8 = 1 << 5;

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
pub(super) fn read_clocks(r: &mut Bytes<'_>, values: &mut Vec<u64>) -> Result<(), PayloadError> {
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
pub(super) fn check_clocks(r: &mut Bytes<'_>) -> Result<usize, PayloadError> {
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
pub(super) fn read_evals(r: &mut Bytes<'_>, values: &mut Vec<Eval>) -> Result<(), PayloadError> {
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
pub(super) fn check_evals(r: &mut Bytes<'_>) -> Result<usize, PayloadError> {
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
