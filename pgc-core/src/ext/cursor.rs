//! Reading payloads: a cursor that positions every error at its payload
//! byte and never lets a count claim more items than the bytes left can
//! hold, and the zig-zag mapping of signed values to LEB128.

use super::error::{Found, PayloadError};
use crate::item::{Varint64Error, read_varint64};

pub(super) const fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) const fn unzigzag(u: u64) -> i64 {
    (u >> 1) as i64 ^ -((u & 1) as i64)
}

/// A payload cursor.
pub(super) struct Bytes<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Bytes<'a> {
    pub(super) fn err_at(&self, at: usize, expected: &'static str, found: Found) -> PayloadError {
        PayloadError {
            at,
            expected,
            found,
        }
    }

    pub(super) fn byte(&mut self, what: &'static str) -> Result<u8, PayloadError> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| self.err_at(self.pos, what, Found::End))?;
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    pub(super) fn u64(&mut self, what: &'static str) -> Result<u64, PayloadError> {
        // Most values of a column are one byte.
        if let Some(&b) = self.buf.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(b));
        }
        match read_varint64(self.buf.get(self.pos..).unwrap_or_default()) {
            Ok((v, n)) => {
                self.pos += n;
                Ok(v)
            }
            Err(Varint64Error::Overflow) => Err(self.err_at(
                self.pos,
                "a LEB128 value of at most 64 bits",
                Found::Byte(self.buf[self.pos]),
            )),
            // Reported where the bytes ran out, as `byte` does.
            Err(Varint64Error::Truncated) => Err(self.err_at(self.buf.len(), what, Found::End)),
        }
    }

    /// A count of items that take at least `min_bytes` each: never more than
    /// the bytes left justify.
    pub(super) fn count(
        &mut self,
        min_bytes: usize,
        what: &'static str,
    ) -> Result<usize, PayloadError> {
        let at = self.pos;
        let n = self.u64(what)?;
        let left = (self.buf.len() - self.pos) as u64;
        if n.saturating_mul(min_bytes as u64) > left {
            return Err(self.err_at(at, "a count that the bytes left can hold", Found::Value(n)));
        }
        Ok(n as usize)
    }

    pub(super) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], PayloadError> {
        let s = self
            .buf
            .get(self.pos..self.pos.saturating_add(n))
            .ok_or_else(|| self.err_at(self.buf.len(), what, Found::End))?;
        self.pos += n;
        Ok(s)
    }

    pub(super) fn take_len(&mut self, what: &'static str) -> Result<&'a [u8], PayloadError> {
        let n = self.count(1, what)?;
        self.take(n, what)
    }
}
