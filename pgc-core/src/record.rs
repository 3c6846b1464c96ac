//! Records of section 20.4: one marker byte, then the marker's items.
//!
//! Two views of the same bytes, each a **binrw** declaration:
//! - [`RecordRef`]: borrowed; the declaration records are written from
//!   ([`RecordRef::write_to`]), with every length computed from the data so
//!   it cannot drift from it. Framed by hand from a slice with [`frame`] for
//!   speed: what the streaming reader hands out, with no allocation.
//! - [`Record`]: owned; the declaration records are read with
//!   ([`Record::read`]), written through [`RecordRef`].
//!
//! Tests check that the hand framing reads what the binrw declaration
//! reads, and that the hand writers of the two most frequent records
//! (`write_moves`, `write_tag_pair`) write
//! what it writes, on every record of encoded corpus files
//! (`tests/tests/records_binrw.rs`).
//!
//! Marker [`Marker::Extension`] (0x80) is this project's one addition: a kind
//! byte, a LEB128 length and a payload, so a reader that does not know the
//! kind can skip it (`spec/extensions.md`).

use crate::item::{self, ItemKind, Items, Short, TooLong};
use crate::limits::Limits;
use binrw::{BinRead, BinResult, BinWrite, binrw};
use std::io::{Read, Seek, Write};

/// The record markers: the eleven of section 20.4 and the extension marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Marker {
    /// 0x00 noop (20.4).
    Noop = 0x00,
    /// 0x01 reduced export format single game (20.4.1).
    ReducedGame = 0x01,
    /// 0x02 tag pair (20.4.2).
    TagPair = 0x02,
    /// 0x03 short move sequence (20.4.3).
    ShortMoves = 0x03,
    /// 0x04 long move sequence (20.4.4).
    LongMoves = 0x04,
    /// 0x05 general game data begin (20.4.5).
    GameBegin = 0x05,
    /// 0x06 general game data end (20.4.6).
    GameEnd = 0x06,
    /// 0x07 simple NAG (20.4.7).
    Nag = 0x07,
    /// 0x08 RAV begin (20.4.8).
    RavBegin = 0x08,
    /// 0x09 RAV end (20.4.9).
    RavEnd = 0x09,
    /// 0x0a escape string (20.4.10).
    Escape = 0x0a,
    /// 0x80 extension record (this project, `spec/extensions.md`).
    Extension = 0x80,
}

impl Marker {
    /// The marker for a byte, if known.
    pub const fn from_byte(b: u8) -> Option<Marker> {
        Some(match b {
            0x00 => Marker::Noop,
            0x01 => Marker::ReducedGame,
            0x02 => Marker::TagPair,
            0x03 => Marker::ShortMoves,
            0x04 => Marker::LongMoves,
            0x05 => Marker::GameBegin,
            0x06 => Marker::GameEnd,
            0x07 => Marker::Nag,
            0x08 => Marker::RavBegin,
            0x09 => Marker::RavEnd,
            0x0a => Marker::Escape,
            0x80 => Marker::Extension,
            _ => return None,
        })
    }

    /// The name used in dumps and error messages.
    pub const fn name(self) -> &'static str {
        match self {
            Marker::Noop => "noop",
            Marker::ReducedGame => "reduced-game",
            Marker::TagPair => "tag-pair",
            Marker::ShortMoves => "short-moves",
            Marker::LongMoves => "long-moves",
            Marker::GameBegin => "game-begin",
            Marker::GameEnd => "game-end",
            Marker::Nag => "simple-nag",
            Marker::RavBegin => "rav-begin",
            Marker::RavEnd => "rav-end",
            Marker::Escape => "escape-string",
            Marker::Extension => "extension",
        }
    }

    /// Whether the marker is one of the 1994 standard's.
    pub const fn is_1994(self) -> bool {
        !matches!(self, Marker::Extension)
    }
}

impl std::fmt::Display for Marker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "0x{:02x} {}", *self as u8, self.name())
    }
}

/// A record borrowed from a buffer.
///
/// This is also the declaration records are written from: binrw writes the
/// marker and then each item, with every length computed from its data
/// ([`RecordRef::write_to`], and [`Record::write`] through
/// [`Record::as_ref`]), so a length cannot drift from what follows it.
#[binrw::binwrite]
#[bw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordRef<'a> {
    /// 0x00.
    #[bw(magic = 0x00u8)]
    Noop,
    /// 0x01: the seven STR values in STR order and the played moves.
    #[bw(magic = 0x01u8)]
    ReducedGame {
        /// Event, Site, Date, Round, White, Black, Result values.
        #[bw(write_with = write_roster)]
        roster: [&'a [u8]; 7],
        /// The move ordinals (mvseq-2).
        #[bw(map = Counted2::mvseq2)]
        moves: &'a [u8],
    },
    /// 0x02.
    #[bw(magic = 0x02u8)]
    TagPair {
        /// Tag name.
        #[bw(map = Counted1::string1)]
        name: &'a [u8],
        /// Tag value, unescaped.
        #[bw(map = Counted1::string1)]
        value: &'a [u8],
    },
    /// 0x03 (mvseq-1).
    #[bw(magic = 0x03u8)]
    ShortMoves(#[bw(map = Counted1::mvseq1)] &'a [u8]),
    /// 0x04 (mvseq-2).
    #[bw(magic = 0x04u8)]
    LongMoves(#[bw(map = Counted2::mvseq2)] &'a [u8]),
    /// 0x05.
    #[bw(magic = 0x05u8)]
    GameBegin,
    /// 0x06.
    #[bw(magic = 0x06u8)]
    GameEnd,
    /// 0x07.
    #[bw(magic = 0x07u8)]
    Nag(u8),
    /// 0x08.
    #[bw(magic = 0x08u8)]
    RavBegin,
    /// 0x09.
    #[bw(magic = 0x09u8)]
    RavEnd,
    /// 0x0a (string-2): the text after `%` up to the newline.
    #[bw(magic = 0x0au8)]
    Escape(#[bw(map = Counted2::string2)] &'a [u8]),
    /// 0x80: an extension record.
    #[bw(magic = 0x80u8)]
    Extension {
        /// The extension kind (`spec/extensions.md`).
        kind: u8,
        /// The payload.
        #[bw(map = ExtPayload::new)]
        payload: &'a [u8],
    },
}

/// A string-1 or mvseq-1 item borrowed for writing: a one-byte count,
/// computed from the data on write, then the data.
#[binrw::binwrite]
#[bw(little)]
#[derive(Debug, Clone, Copy)]
struct Counted1<'a> {
    #[bw(ignore)]
    item: ItemKind,
    #[bw(try_calc = count(*item, data, u8::MAX))]
    len: u8,
    #[bw(write_with = write_bytes)]
    data: &'a [u8],
}

/// A string-2 or mvseq-2 item borrowed for writing: a two-byte count,
/// computed from the data on write, then the data.
#[binrw::binwrite]
#[bw(little)]
#[derive(Debug, Clone, Copy)]
struct Counted2<'a> {
    #[bw(ignore)]
    item: ItemKind,
    #[bw(try_calc = count(*item, data, u16::MAX))]
    len: u16,
    #[bw(write_with = write_bytes)]
    data: &'a [u8],
}

/// An extension payload borrowed for writing: its LEB128 length (at most
/// `u32::MAX`), computed from the data on write, then the data.
#[binrw::binwrite]
#[bw(little)]
#[derive(Debug, Clone, Copy)]
struct ExtPayload<'a> {
    #[bw(try_calc = count(ItemKind::ExtHeader, data, u32::MAX).map(Leb128))]
    len: Leb128,
    #[bw(write_with = write_bytes)]
    data: &'a [u8],
}

impl<'a> Counted1<'a> {
    fn string1(data: &&'a [u8]) -> Counted1<'a> {
        Counted1 {
            item: ItemKind::String1,
            data,
        }
    }

    fn mvseq1(data: &&'a [u8]) -> Counted1<'a> {
        Counted1 {
            item: ItemKind::MvSeq1,
            data,
        }
    }
}

impl<'a> Counted2<'a> {
    fn string2(data: &&'a [u8]) -> Counted2<'a> {
        Counted2 {
            item: ItemKind::String2,
            data,
        }
    }

    fn mvseq2(data: &&'a [u8]) -> Counted2<'a> {
        Counted2 {
            item: ItemKind::MvSeq2,
            data,
        }
    }
}

impl<'a> ExtPayload<'a> {
    fn new(data: &&'a [u8]) -> ExtPayload<'a> {
        ExtPayload { data }
    }
}

/// The count of `data` for an item whose header holds at most `max`.
fn count<T: TryFrom<usize> + Into<u64>>(item: ItemKind, data: &[u8], max: T) -> Result<T, TooLong> {
    T::try_from(data.len()).map_err(|_| TooLong {
        item,
        len: data.len(),
        max: usize::try_from(max.into()).unwrap_or(usize::MAX),
    })
}

#[binrw::writer(writer)]
fn write_bytes(data: &&[u8]) -> BinResult<()> {
    writer.write_all(data)?;
    Ok(())
}

/// An unsigned LEB128 integer (the length of an extension payload).
#[derive(Debug, Clone, Copy)]
struct Leb128(u32);

impl BinWrite for Leb128 {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        _: binrw::Endian,
        (): Self::Args<'_>,
    ) -> BinResult<()> {
        let mut buf = [0u8; 5];
        let mut n = 0;
        let mut v = self.0;
        while let Some(slot) = buf.get_mut(n) {
            n += 1;
            if v < 0x80 {
                *slot = v as u8;
                break;
            }
            *slot = (v & 0x7f) as u8 | 0x80;
            v >>= 7;
        }
        writer.write_all(&buf[..n])?;
        Ok(())
    }
}

#[binrw::writer(writer)]
fn write_roster(roster: &[&[u8]; 7]) -> BinResult<()> {
    for s in roster {
        Counted1::string1(s).write_le(writer)?;
    }
    Ok(())
}

impl RecordRef<'_> {
    /// The record's marker.
    pub const fn marker(&self) -> Marker {
        match self {
            RecordRef::Noop => Marker::Noop,
            RecordRef::ReducedGame { .. } => Marker::ReducedGame,
            RecordRef::TagPair { .. } => Marker::TagPair,
            RecordRef::ShortMoves(_) => Marker::ShortMoves,
            RecordRef::LongMoves(_) => Marker::LongMoves,
            RecordRef::GameBegin => Marker::GameBegin,
            RecordRef::GameEnd => Marker::GameEnd,
            RecordRef::Nag(_) => Marker::Nag,
            RecordRef::RavBegin => Marker::RavBegin,
            RecordRef::RavEnd => Marker::RavEnd,
            RecordRef::Escape(_) => Marker::Escape,
            RecordRef::Extension { .. } => Marker::Extension,
        }
    }

    /// An owned copy.
    pub fn to_owned(&self) -> Record {
        match *self {
            RecordRef::Noop => Record::Noop,
            RecordRef::ReducedGame { roster, moves } => Record::ReducedGame {
                roster: roster.map(|s| Str1(s.to_vec())),
                moves: MvSeq2(moves.to_vec()),
            },
            RecordRef::TagPair { name, value } => Record::TagPair {
                name: Str1(name.to_vec()),
                value: Str1(value.to_vec()),
            },
            RecordRef::ShortMoves(m) => Record::ShortMoves(MvSeq1(m.to_vec())),
            RecordRef::LongMoves(m) => Record::LongMoves(MvSeq2(m.to_vec())),
            RecordRef::GameBegin => Record::GameBegin,
            RecordRef::GameEnd => Record::GameEnd,
            RecordRef::Nag(n) => Record::Nag(n),
            RecordRef::RavBegin => Record::RavBegin,
            RecordRef::RavEnd => Record::RavEnd,
            RecordRef::Escape(s) => Record::Escape(Str2(s.to_vec())),
            RecordRef::Extension { kind, payload } => Record::Extension {
                kind,
                payload: payload.to_vec(),
            },
        }
    }

    /// Appends the record's bytes to `out`, written by binrw from the
    /// declaration of [`RecordRef`].
    ///
    /// # Errors
    /// [`item::TooLong`] if a string or move sequence exceeds its header;
    /// nothing is appended then.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<(), item::TooLong> {
        let start = out.len();
        let mut cursor = binrw::io::Cursor::new(&mut *out);
        cursor.set_position(start as u64);
        match self.write_le(&mut cursor) {
            Ok(()) => Ok(()),
            Err(e) => {
                out.truncate(start);
                Err(too_long(&e))
            }
        }
    }
}

/// The [`item::TooLong`] behind a binrw write error. Writing to a `Vec`
/// fails in no other way: the counts are the only fallible part of the
/// declaration.
fn too_long(e: &binrw::Error) -> item::TooLong {
    match e.custom_err::<item::TooLong>() {
        Some(t) => *t,
        None => unreachable!("a record written to memory failed otherwise: {e}"),
    }
}

/// The longest record a 1994 marker can make: a 0x01 with seven full
/// string-1s and a full mvseq-2 (the extension marker and 0x0a strings are
/// bounded by [`Limits::max_string`] instead).
pub const MAX_1994_RECORD: u64 = 1 + 7 * 256 + 2 + 65_535;

/// Whether byte `b` cannot stand inside a tag value written as PGN: a line
/// feed (0x0A). A PGN tag pair is one line (section 8.1.1), so no PGN reader
/// reads a newline inside a tag string. Every other byte a PGN reader lets
/// through (a tab, a lone carriage return) is kept as it is, so that the PGN
/// comes back byte for byte (`spec/pgc.md`, section 3.3).
pub const fn is_tag_line_break(b: u8) -> bool {
    b == b'\n'
}

/// The first byte of a tag value that a PGN tag line cannot hold (see
/// [`is_tag_line_break`]): its offset in `value` and the byte.
pub fn first_tag_line_break(value: &[u8]) -> Option<(usize, u8)> {
    value
        .iter()
        .position(|&b| is_tag_line_break(b))
        .and_then(|i| value.get(i).map(|&b| (i, b)))
}

/// Why a record could not be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// The record is not complete yet: `need` bytes from its marker (at least).
    Incomplete {
        /// The marker, if the first byte is a known one.
        marker: Option<Marker>,
        /// The item that runs past the end.
        item: Option<ItemKind>,
        /// Bytes needed from the marker on (a lower bound when `item` is a header).
        need: u64,
    },
    /// The first byte is no known marker.
    UnknownMarker(u8),
    /// A length field claims more than a limit allows.
    OverLimit {
        /// The record's marker.
        marker: Marker,
        /// The item whose length is too large.
        item: ItemKind,
        /// The length claimed.
        claimed: u64,
        /// The limit.
        limit: u64,
    },
}

fn incomplete(marker: Marker, s: Short) -> FrameError {
    FrameError::Incomplete {
        marker: Some(marker),
        item: Some(s.item),
        // +1: the marker byte before the items.
        need: 1 + s.at as u64 + s.need,
    }
}

/// Frames the record at the start of `buf`: the record and its length.
///
/// # Errors
/// [`FrameError::Incomplete`] when `buf` ends inside the record (the streaming
/// reader then reads more, up to `need`); [`FrameError::UnknownMarker`];
/// [`FrameError::OverLimit`] when a string-2 or extension length exceeds
/// `limits.max_string`; this is checked from the header alone, before the
/// body is needed.
pub fn frame<'a>(buf: &'a [u8], limits: &Limits) -> Result<(RecordRef<'a>, usize), FrameError> {
    let Some((&b, body)) = buf.split_first() else {
        return Err(FrameError::Incomplete {
            marker: None,
            item: None,
            need: 1,
        });
    };
    let marker = Marker::from_byte(b).ok_or(FrameError::UnknownMarker(b))?;
    let mut it = Items::new(body);
    let e = |s| incomplete(marker, s);
    let rec = match marker {
        Marker::Noop => RecordRef::Noop,
        Marker::ReducedGame => {
            let mut roster: [&[u8]; 7] = [&[]; 7];
            for slot in &mut roster {
                *slot = it.string1().map_err(e)?;
            }
            RecordRef::ReducedGame {
                roster,
                moves: it.mvseq2().map_err(e)?,
            }
        }
        Marker::TagPair => RecordRef::TagPair {
            name: it.string1().map_err(e)?,
            value: it.string1().map_err(e)?,
        },
        Marker::ShortMoves => RecordRef::ShortMoves(it.mvseq1().map_err(e)?),
        Marker::LongMoves => RecordRef::LongMoves(it.mvseq2().map_err(e)?),
        Marker::GameBegin => RecordRef::GameBegin,
        Marker::GameEnd => RecordRef::GameEnd,
        Marker::Nag => RecordRef::Nag(it.int1().map_err(e)?),
        Marker::RavBegin => RecordRef::RavBegin,
        Marker::RavEnd => RecordRef::RavEnd,
        Marker::Escape => {
            if let Some(h) = body.get(..2) {
                let n = u64::from(u16::from_le_bytes([h[0], h[1]]));
                check(marker, ItemKind::String2, n, limits)?;
            }
            RecordRef::Escape(it.string2().map_err(e)?)
        }
        Marker::Extension => {
            let kind = it.int1().map_err(e)?;
            let len = it.varint().map_err(e)?;
            check(marker, ItemKind::ExtHeader, u64::from(len), limits)?;
            let start = it.position();
            let end = start + len as usize;
            let payload = body.get(start..end).ok_or(FrameError::Incomplete {
                marker: Some(marker),
                item: Some(ItemKind::ExtHeader),
                need: 1 + end as u64,
            })?;
            return Ok((RecordRef::Extension { kind, payload }, 1 + end));
        }
    };
    Ok((rec, 1 + it.position()))
}

/// The length of the record at the start of `buf`: [`frame`]'s length,
/// with its errors, for a caller that needs only where the record ends
/// (a reader checking that a record is whole before taking it, a splitter
/// looking for game boundaries).
///
/// Whole tag pairs, move sequences, NAGs and one-byte records are measured
/// from their length bytes alone; anything else (an incomplete record, an
/// unknown marker, the other markers) goes to [`frame`], so errors are
/// exactly [`frame`]'s.
///
/// # Errors
/// As [`frame`].
#[inline]
pub fn record_len(buf: &[u8], limits: &Limits) -> Result<usize, FrameError> {
    match frame_common(buf) {
        Some((_, len)) => Ok(len),
        None => frame(buf, limits).map(|(_, len)| len),
    }
}

/// [`frame`] for whole records of the common kinds (tag pairs, move
/// sequences, NAGs and one-byte records), read from their length bytes
/// alone; `None` for anything else (an incomplete record, an unknown
/// marker, the other markers), which [`frame`] then frames with its errors.
/// The record is built in place, which matters to a reader taking millions
/// of them.
#[inline(always)]
pub fn frame_common(buf: &[u8]) -> Option<(RecordRef<'_>, usize)> {
    let (rec, len) = match *buf.first()? {
        0x02 => {
            let n = 2 + usize::from(*buf.get(1)?);
            let v = n + 1 + usize::from(*buf.get(n)?);
            let name = buf.get(2..n)?;
            let value = buf.get(n + 1..v)?;
            (RecordRef::TagPair { name, value }, v)
        }
        0x03 => {
            let n = 2 + usize::from(*buf.get(1)?);
            (RecordRef::ShortMoves(buf.get(2..n)?), n)
        }
        0x04 => {
            let h = buf.get(1..3)?;
            let n = 3 + usize::from(u16::from_le_bytes([h[0], h[1]]));
            (RecordRef::LongMoves(buf.get(3..n)?), n)
        }
        0x00 => (RecordRef::Noop, 1),
        0x05 => (RecordRef::GameBegin, 1),
        0x06 => (RecordRef::GameEnd, 1),
        0x08 => (RecordRef::RavBegin, 1),
        0x09 => (RecordRef::RavEnd, 1),
        0x07 => (RecordRef::Nag(*buf.get(1)?), 2),
        _ => return None,
    };
    Some((rec, len))
}

fn check(marker: Marker, item: ItemKind, claimed: u64, limits: &Limits) -> Result<(), FrameError> {
    let limit = u64::from(limits.max_string);
    if claimed > limit {
        return Err(FrameError::OverLimit {
            marker,
            item,
            claimed,
            limit,
        });
    }
    Ok(())
}

/// A string-1 item (owned).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Str1(
    #[br(temp)]
    #[bw(try_calc = u8::try_from(self_1.len()))]
    u8,
    #[br(count = self_0)] pub Vec<u8>,
);

/// A string-2 item (owned).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Str2(
    #[br(temp)]
    #[bw(try_calc = u16::try_from(self_1.len()))]
    u16,
    #[br(count = self_0)] pub Vec<u8>,
);

/// A mvseq-1 item (owned).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MvSeq1(
    #[br(temp)]
    #[bw(try_calc = u8::try_from(self_1.len()))]
    u8,
    #[br(count = self_0)] pub Vec<u8>,
);

/// A mvseq-2 item (owned).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MvSeq2(
    #[br(temp)]
    #[bw(try_calc = u16::try_from(self_1.len()))]
    u16,
    #[br(count = self_0)] pub Vec<u8>,
);

/// An owned record: read with binrw from this declaration, written with
/// binrw from the declaration of [`RecordRef`] (through [`Record::as_ref`]).
///
/// ```
/// use binrw::{BinRead, BinWrite, io::Cursor};
/// use pgc_core::record::{Record, Str1};
/// let rec = Record::TagPair { name: Str1(b"Event".to_vec()), value: Str1(b"F/S Return Match".to_vec()) };
/// let mut bytes = Cursor::new(Vec::new());
/// rec.write(&mut bytes).unwrap();
/// assert_eq!(&bytes.get_ref()[..7], b"\x02\x05Event");
/// bytes.set_position(0);
/// assert_eq!(Record::read(&mut bytes).unwrap(), rec);
/// ```
#[binrw::binread]
#[br(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// 0x00.
    #[br(magic = 0x00u8)]
    Noop,
    /// 0x01.
    #[br(magic = 0x01u8)]
    ReducedGame {
        /// Event, Site, Date, Round, White, Black, Result.
        roster: [Str1; 7],
        /// The played moves.
        moves: MvSeq2,
    },
    /// 0x02.
    #[br(magic = 0x02u8)]
    TagPair {
        /// Tag name.
        name: Str1,
        /// Tag value.
        value: Str1,
    },
    /// 0x03.
    #[br(magic = 0x03u8)]
    ShortMoves(MvSeq1),
    /// 0x04.
    #[br(magic = 0x04u8)]
    LongMoves(MvSeq2),
    /// 0x05.
    #[br(magic = 0x05u8)]
    GameBegin,
    /// 0x06.
    #[br(magic = 0x06u8)]
    GameEnd,
    /// 0x07.
    #[br(magic = 0x07u8)]
    Nag(u8),
    /// 0x08.
    #[br(magic = 0x08u8)]
    RavBegin,
    /// 0x09.
    #[br(magic = 0x09u8)]
    RavEnd,
    /// 0x0a.
    #[br(magic = 0x0au8)]
    Escape(Str2),
    /// 0x80.
    #[br(magic = 0x80u8)]
    Extension {
        /// Extension kind.
        kind: u8,
        /// Payload (length written as LEB128).
        #[br(parse_with = read_ext_payload)]
        payload: Vec<u8>,
    },
}

#[binrw::parser(reader)]
fn read_ext_payload() -> BinResult<Vec<u8>> {
    let pos = reader.stream_position()?;
    let mut len: u64 = 0;
    for i in 0..5 {
        let b = u8::read(reader)?;
        len |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            break;
        }
    }
    if len > u64::from(Limits::DEFAULT.max_string) {
        return Err(binrw::Error::AssertFail {
            pos,
            message: format!("extension length {len} exceeds the 16 MiB limit"),
        });
    }
    // No reserve from the claimed length: read what is there, then check.
    let mut payload = Vec::new();
    reader.take(len).read_to_end(&mut payload)?;
    if payload.len() as u64 != len {
        return Err(binrw::Error::Io(std::io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(payload)
}

impl BinWrite for Record {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: binrw::Endian,
        args: Self::Args<'_>,
    ) -> BinResult<()> {
        self.as_ref().write_options(writer, endian, args)
    }
}

impl Record {
    /// A borrowed view.
    pub fn as_ref(&self) -> RecordRef<'_> {
        match self {
            Record::Noop => RecordRef::Noop,
            Record::ReducedGame { roster, moves } => RecordRef::ReducedGame {
                roster: [
                    &roster[0].0,
                    &roster[1].0,
                    &roster[2].0,
                    &roster[3].0,
                    &roster[4].0,
                    &roster[5].0,
                    &roster[6].0,
                ],
                moves: &moves.0,
            },
            Record::TagPair { name, value } => RecordRef::TagPair {
                name: &name.0,
                value: &value.0,
            },
            Record::ShortMoves(m) => RecordRef::ShortMoves(&m.0),
            Record::LongMoves(m) => RecordRef::LongMoves(&m.0),
            Record::GameBegin => RecordRef::GameBegin,
            Record::GameEnd => RecordRef::GameEnd,
            Record::Nag(n) => RecordRef::Nag(*n),
            Record::RavBegin => RecordRef::RavBegin,
            Record::RavEnd => RecordRef::RavEnd,
            Record::Escape(s) => RecordRef::Escape(&s.0),
            Record::Extension { kind, payload } => RecordRef::Extension {
                kind: *kind,
                payload,
            },
        }
    }

    /// Writes the record with binrw.
    ///
    /// # Errors
    /// An item too long for its header, or an I/O error.
    pub fn write<W: Write + Seek>(&self, w: &mut W) -> BinResult<()> {
        self.write_le(w)
    }

    /// Reads one record with binrw.
    ///
    /// # Errors
    /// Unknown marker, truncated item, or an I/O error.
    pub fn read<R: Read + Seek>(r: &mut R) -> BinResult<Record> {
        Record::read_le(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::io::Cursor;

    fn samples() -> Vec<Record> {
        let s = |b: &[u8]| Str1(b.to_vec());
        vec![
            Record::Noop,
            Record::ReducedGame {
                roster: [
                    s(b"E"),
                    s(b"S"),
                    s(b"D"),
                    s(b"R"),
                    s(b"W"),
                    s(b"B"),
                    s(b"1-0"),
                ],
                moves: MvSeq2(vec![9, 9, 1]),
            },
            Record::TagPair {
                name: s(b"White"),
                value: s("Müller".as_bytes()),
            },
            Record::ShortMoves(MvSeq1(vec![])),
            Record::ShortMoves(MvSeq1(vec![255; 255])),
            Record::LongMoves(MvSeq2(vec![3; 300])),
            Record::GameBegin,
            Record::GameEnd,
            Record::Nag(255),
            Record::RavBegin,
            Record::RavEnd,
            Record::Escape(Str2(vec![b'x'; 1000])),
            Record::Extension {
                kind: 1,
                payload: vec![b'c'; 200],
            },
        ]
    }

    #[test]
    fn every_record_round_trips_through_binrw_and_the_framer() {
        let limits = Limits::default();
        for rec in samples() {
            let mut c = Cursor::new(Vec::new());
            rec.write(&mut c).unwrap();
            let bytes = c.into_inner();
            // The hand framer and hand writer agree with binrw.
            let mut hand = Vec::new();
            rec.as_ref().write_to(&mut hand).unwrap();
            assert_eq!(hand, bytes, "{rec:?}");
            let (r, n) = frame(&bytes, &limits).unwrap();
            assert_eq!(n, bytes.len());
            assert_eq!(r.to_owned(), rec);
            assert_eq!(Record::read(&mut Cursor::new(&bytes)).unwrap(), rec);
            // Every proper prefix is incomplete, never a wrong record.
            for cut in 0..bytes.len() {
                assert!(
                    matches!(
                        frame(&bytes[..cut], &limits),
                        Err(FrameError::Incomplete { .. })
                    ),
                    "{rec:?} cut {cut}"
                );
            }
        }
    }

    /// The bytes of a record put together item by item with the `item`
    /// functions (20.1–20.3), independently of the binrw declaration.
    fn by_items(rec: &RecordRef<'_>) -> Vec<u8> {
        let mut out = vec![rec.marker() as u8];
        match *rec {
            RecordRef::ReducedGame { roster, moves } => {
                for s in roster {
                    item::put_string1(&mut out, s).unwrap();
                }
                item::put_mvseq2(&mut out, moves).unwrap();
            }
            RecordRef::TagPair { name, value } => {
                item::put_string1(&mut out, name).unwrap();
                item::put_string1(&mut out, value).unwrap();
            }
            RecordRef::ShortMoves(m) => item::put_mvseq1(&mut out, m).unwrap(),
            RecordRef::LongMoves(m) => item::put_mvseq2(&mut out, m).unwrap(),
            RecordRef::Nag(n) => out.push(n),
            RecordRef::Escape(s) => item::put_string2(&mut out, s).unwrap(),
            RecordRef::Extension { kind, payload } => {
                out.push(kind);
                item::put_varint(&mut out, payload.len() as u64);
                out.extend_from_slice(payload);
            }
            _ => {}
        }
        out
    }

    #[test]
    fn the_declaration_writes_what_the_items_make() {
        for rec in samples() {
            let mut bytes = Vec::new();
            rec.as_ref().write_to(&mut bytes).unwrap();
            assert_eq!(bytes, by_items(&rec.as_ref()), "{rec:?}");
        }
        // LEB128 lengths of one to three bytes.
        for n in [0usize, 127, 128, 16_383, 16_384] {
            let payload = vec![7u8; n];
            let rec = RecordRef::Extension {
                kind: 9,
                payload: &payload,
            };
            let mut bytes = vec![0xaa];
            rec.write_to(&mut bytes).unwrap();
            assert_eq!(bytes[1..], by_items(&rec)[..], "{n}");
        }
    }

    #[test]
    fn lengths_are_computed_on_write() {
        let rec = Record::TagPair {
            name: Str1(vec![b'a'; 256]),
            value: Str1(vec![]),
        };
        assert!(rec.write(&mut Cursor::new(Vec::new())).is_err());
        let mut out = vec![];
        assert!(rec.as_ref().write_to(&mut out).is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn unknown_marker_and_limits() {
        let limits = Limits::default();
        assert_eq!(
            frame(&[0x0b], &limits),
            Err(FrameError::UnknownMarker(0x0b))
        );
        // An extension claiming 4 GiB is refused from its header alone.
        let e = frame(&[0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f], &limits).unwrap_err();
        assert!(
            matches!(
                e,
                FrameError::OverLimit {
                    claimed: 0xffff_ffff,
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn record_len_is_frames_length_with_frames_errors() {
        let limits = Limits::default();
        let mut all = Vec::new();
        for rec in samples() {
            rec.as_ref().write_to(&mut all).unwrap();
        }
        // Every suffix and prefix of the records run together: whole
        // records, cuts inside headers and bodies, stray bytes as markers.
        for start in 0..all.len() {
            for end in [
                start,
                start + 1,
                start + 2,
                start + 3,
                start + 40,
                all.len(),
            ] {
                let buf = &all[start..end.min(all.len())];
                assert_eq!(
                    record_len(buf, &limits),
                    frame(buf, &limits).map(|(_, n)| n),
                    "bytes {start}..{end}"
                );
                if let Some(common) = frame_common(buf) {
                    assert_eq!(Ok(common), frame(buf, &limits), "bytes {start}..{end}");
                }
            }
        }
        // The common kinds are all framed in place when whole.
        let mut common = 0;
        for rec in samples() {
            let mut bytes = Vec::new();
            rec.as_ref().write_to(&mut bytes).unwrap();
            if matches!(bytes[0], 0x00 | 0x02..=0x09) {
                assert!(frame_common(&bytes).is_some(), "{rec:?}");
                common += 1;
            }
        }
        assert!(
            common >= 5,
            "only {common} common records among the samples"
        );
    }
}
