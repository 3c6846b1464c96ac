//! Items of sections 20.1–20.3: integers, strings and move sequences.
//!
//! All integers are little-endian (20.1). A string is a length header (one,
//! two or four bytes) then that many bytes, no terminator (20.3). A move
//! sequence or set is a one- or two-byte count then that many ordinals (20.2).
//!
//! These are pure slice functions: the streaming reader frames whole records
//! first and then hands their bytes here.

use byteorder::{ByteOrder, LittleEndian};

/// The kinds of items, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// One-byte integer.
    Int1,
    /// Two-byte little-endian integer.
    Int2,
    /// Four-byte little-endian integer.
    Int4,
    /// String with a one-byte length.
    String1,
    /// String with a two-byte length.
    String2,
    /// String with a four-byte length.
    String4,
    /// Move sequence with a one-byte count.
    MvSeq1,
    /// Move sequence with a two-byte count.
    MvSeq2,
    /// Move set with a one-byte count.
    MvSet1,
    /// Extension record kind and length header.
    ExtHeader,
    /// LEB128 variable-length unsigned integer (extension records).
    VarInt,
}

impl ItemKind {
    /// The name used by the standard (`string-1`, `mvseq-2`, …).
    pub const fn name(self) -> &'static str {
        match self {
            ItemKind::Int1 => "int-1",
            ItemKind::Int2 => "int-2",
            ItemKind::Int4 => "int-4",
            ItemKind::String1 => "string-1",
            ItemKind::String2 => "string-2",
            ItemKind::String4 => "string-4",
            ItemKind::MvSeq1 => "mvseq-1",
            ItemKind::MvSeq2 => "mvseq-2",
            ItemKind::MvSet1 => "mvset-1",
            ItemKind::ExtHeader => "extension header",
            ItemKind::VarInt => "varint",
        }
    }
}

impl ItemKind {
    /// Its name after the indefinite article (`an extension header`).
    pub const fn with_article(self) -> &'static str {
        match self {
            ItemKind::Int1 => "an int-1",
            ItemKind::Int2 => "an int-2",
            ItemKind::Int4 => "an int-4",
            ItemKind::String1 => "a string-1",
            ItemKind::String2 => "a string-2",
            ItemKind::String4 => "a string-4",
            ItemKind::MvSeq1 => "a mvseq-1",
            ItemKind::MvSeq2 => "a mvseq-2",
            ItemKind::MvSet1 => "a mvset-1",
            ItemKind::ExtHeader => "an extension header",
            ItemKind::VarInt => "a varint",
        }
    }
}

impl std::fmt::Display for ItemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An item did not fit in the bytes available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Short {
    /// The item being read.
    pub item: ItemKind,
    /// Offset of the item within the slice.
    pub at: usize,
    /// Bytes the item needs from `at` (header and body).
    pub need: u64,
}

/// A cursor over a slice that reads items.
#[derive(Debug, Clone)]
pub struct Items<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Items<'a> {
    /// A cursor at the start of `buf`.
    pub const fn new(buf: &'a [u8]) -> Items<'a> {
        Items { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    fn take(&mut self, n: usize, item: ItemKind, at: usize, need: u64) -> Result<&'a [u8], Short> {
        let end = self.pos.checked_add(n).ok_or(Short { item, at, need })?;
        let s = self
            .buf
            .get(self.pos..end)
            .ok_or(Short { item, at, need })?;
        self.pos = end;
        Ok(s)
    }

    /// Reads an int-1.
    pub fn int1(&mut self) -> Result<u8, Short> {
        let at = self.pos;
        Ok(self.take(1, ItemKind::Int1, at, 1)?[0])
    }

    /// Reads an int-2.
    pub fn int2(&mut self) -> Result<u16, Short> {
        let at = self.pos;
        Ok(LittleEndian::read_u16(self.take(
            2,
            ItemKind::Int2,
            at,
            2,
        )?))
    }

    /// Reads an int-4.
    pub fn int4(&mut self) -> Result<u32, Short> {
        let at = self.pos;
        Ok(LittleEndian::read_u32(self.take(
            4,
            ItemKind::Int4,
            at,
            4,
        )?))
    }

    fn counted(&mut self, item: ItemKind, header: usize) -> Result<&'a [u8], Short> {
        let at = self.pos;
        let hdr = self.take(header, item, at, header as u64)?;
        let n = match header {
            1 => u64::from(hdr[0]),
            2 => u64::from(LittleEndian::read_u16(hdr)),
            _ => u64::from(LittleEndian::read_u32(hdr)),
        };
        let need = header as u64 + n;
        match usize::try_from(n) {
            Ok(n) => self.take(n, item, at, need).inspect_err(|_| self.pos = at),
            Err(_) => {
                self.pos = at;
                Err(Short { item, at, need })
            }
        }
    }

    /// Reads a string-1.
    pub fn string1(&mut self) -> Result<&'a [u8], Short> {
        self.counted(ItemKind::String1, 1)
    }

    /// Reads a string-2.
    pub fn string2(&mut self) -> Result<&'a [u8], Short> {
        self.counted(ItemKind::String2, 2)
    }

    /// Reads a string-4. The caller checks the claimed length against its
    /// limits first with [`peek_len4`].
    pub fn string4(&mut self) -> Result<&'a [u8], Short> {
        self.counted(ItemKind::String4, 4)
    }

    /// Reads a mvseq-1 (the ordinals).
    pub fn mvseq1(&mut self) -> Result<&'a [u8], Short> {
        self.counted(ItemKind::MvSeq1, 1)
    }

    /// Reads a mvseq-2 (the ordinals).
    pub fn mvseq2(&mut self) -> Result<&'a [u8], Short> {
        self.counted(ItemKind::MvSeq2, 2)
    }

    /// Reads a mvset-1 (the ordinals).
    pub fn mvset1(&mut self) -> Result<&'a [u8], Short> {
        self.counted(ItemKind::MvSet1, 1)
    }

    /// Reads an unsigned LEB128 integer of at most five bytes (a `u32`).
    pub fn varint(&mut self) -> Result<u32, Short> {
        let at = self.pos;
        let mut v: u64 = 0;
        for i in 0..5 {
            let b = *self.buf.get(self.pos).ok_or(Short {
                item: ItemKind::VarInt,
                at,
                need: i as u64 + 1,
            })?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                // Five groups hold 35 bits; values above u32::MAX saturate
                // so that a limit check rejects them.
                return Ok(u32::try_from(v).unwrap_or(u32::MAX));
            }
        }
        Ok(u32::MAX)
    }
}

/// The length a string-4 header at the start of `buf` claims, if complete.
pub fn peek_len4(buf: &[u8]) -> Option<u32> {
    buf.get(..4).map(LittleEndian::read_u32)
}

/// An item too long for its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{len} bytes do not fit in {} (at most {max})", .item.with_article())]
pub struct TooLong {
    /// The item that was to be written.
    pub item: ItemKind,
    /// The length of the data.
    pub len: usize,
    /// The most the item can hold.
    pub max: usize,
}

fn put_counted(
    out: &mut Vec<u8>,
    data: &[u8],
    item: ItemKind,
    header: usize,
) -> Result<(), TooLong> {
    let max = match header {
        1 => 0xff,
        2 => 0xffff,
        _ => 0xffff_ffff,
    };
    if data.len() > max {
        return Err(TooLong {
            item,
            len: data.len(),
            max,
        });
    }
    let n = data.len() as u32;
    out.extend_from_slice(&n.to_le_bytes()[..header]);
    out.extend_from_slice(data);
    Ok(())
}

/// Appends a string-1.
///
/// # Errors
/// [`TooLong`] for more than 255 bytes.
pub fn put_string1(out: &mut Vec<u8>, s: &[u8]) -> Result<(), TooLong> {
    put_counted(out, s, ItemKind::String1, 1)
}

/// Appends a string-2.
///
/// # Errors
/// [`TooLong`] for more than 65,535 bytes.
pub fn put_string2(out: &mut Vec<u8>, s: &[u8]) -> Result<(), TooLong> {
    put_counted(out, s, ItemKind::String2, 2)
}

/// Appends a string-4.
///
/// # Errors
/// [`TooLong`] for more than 4 GiB − 1 bytes.
pub fn put_string4(out: &mut Vec<u8>, s: &[u8]) -> Result<(), TooLong> {
    put_counted(out, s, ItemKind::String4, 4)
}

/// Appends a mvseq-1.
///
/// # Errors
/// [`TooLong`] for more than 255 ordinals.
pub fn put_mvseq1(out: &mut Vec<u8>, ordinals: &[u8]) -> Result<(), TooLong> {
    put_counted(out, ordinals, ItemKind::MvSeq1, 1)
}

/// Appends a mvseq-2.
///
/// # Errors
/// [`TooLong`] for more than 65,535 ordinals.
pub fn put_mvseq2(out: &mut Vec<u8>, ordinals: &[u8]) -> Result<(), TooLong> {
    put_counted(out, ordinals, ItemKind::MvSeq2, 2)
}

/// Appends a mvset-1.
///
/// # Errors
/// [`TooLong`] for more than 255 ordinals.
pub fn put_mvset1(out: &mut Vec<u8>, ordinals: &[u8]) -> Result<(), TooLong> {
    put_counted(out, ordinals, ItemKind::MvSet1, 1)
}

/// Appends an unsigned LEB128 integer (a `u32` for the format's lengths and
/// NAGs, a `u64` for the game index's offsets).
pub fn put_varint(out: &mut Vec<u8>, v: impl Into<u64>) {
    let mut v: u64 = v.into();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Why [`read_varint64`] found no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Varint64Error {
    /// The bytes end inside the number.
    Truncated,
    /// The number does not fit in 64 bits (or runs past ten bytes).
    Overflow,
}

/// Reads an unsigned LEB128 `u64` at the start of `data`: the value and how
/// many bytes it took (at most ten).
///
/// # Errors
/// [`Varint64Error`].
pub fn read_varint64(data: &[u8]) -> Result<(u64, usize), Varint64Error> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *data.get(i).ok_or(Varint64Error::Truncated)?;
        let bits = u64::from(b & 0x7f);
        if i == 9 && bits > 1 {
            return Err(Varint64Error::Overflow);
        }
        v |= bits << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Err(Varint64Error::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint64_reads_what_put_varint_writes_and_refuses_the_rest() {
        // LEB128 of 300 is ac 02 (ISO/IEC DWARF example values).
        assert_eq!(read_varint64(&[0xac, 0x02, 0xff]), Ok((300, 2)));
        for v in [0u64, 127, 128, u64::from(u32::MAX) + 1, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(read_varint64(&out), Ok((v, out.len())));
        }
        assert_eq!(read_varint64(&[0x80, 0x80]), Err(Varint64Error::Truncated));
        assert_eq!(read_varint64(&[]), Err(Varint64Error::Truncated));
        // Ten bytes whose last holds more than the 64th bit.
        let mut over = [0xffu8; 10];
        over[9] = 0x02;
        assert_eq!(read_varint64(&over), Err(Varint64Error::Overflow));
        assert_eq!(read_varint64(&[0x80; 11]), Err(Varint64Error::Overflow));
    }

    #[test]
    fn little_endian_integers() {
        let mut it = Items::new(&[0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 0xff]);
        assert_eq!(it.int2().unwrap(), 0x1234);
        assert_eq!(it.int4().unwrap(), 0x1234_5678);
        assert_eq!(it.int1().unwrap(), 0xff);
        assert_eq!(it.int1().unwrap_err().item, ItemKind::Int1);
    }

    #[test]
    fn strings_round_trip_and_report_shortness() {
        let mut out = Vec::new();
        put_string1(&mut out, b"abc").unwrap();
        put_string2(&mut out, b"").unwrap();
        put_string4(&mut out, b"xy").unwrap();
        assert_eq!(out, [3, b'a', b'b', b'c', 0, 0, 2, 0, 0, 0, b'x', b'y']);
        let mut it = Items::new(&out);
        assert_eq!(it.string1().unwrap(), b"abc");
        assert_eq!(it.string2().unwrap(), b"");
        assert_eq!(it.string4().unwrap(), b"xy");
        // A string-4 claiming 4 GiB in a ten-byte buffer: an error, no allocation.
        let mut it = Items::new(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6]);
        let e = it.string4().unwrap_err();
        assert_eq!(
            (e.item, e.at, e.need),
            (ItemKind::String4, 0, 4 + 0xffff_ffff)
        );
        assert_eq!(it.position(), 0);
    }

    #[test]
    fn too_long_is_refused() {
        let mut out = Vec::new();
        assert_eq!(put_string1(&mut out, &[b'a'; 256]).unwrap_err().max, 255);
        assert!(put_mvseq2(&mut out, &vec![0; 65_536]).is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn varints() {
        for v in [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(Items::new(&out).varint().unwrap(), v, "{v}");
        }
        assert_eq!(Items::new(&[0x80]).varint().unwrap_err().need, 2);
    }
}
