//! The one record stream: frames records from any [`Read`] (stdin and pipes
//! included, no seeking) with one reused buffer, checking every length
//! against [`Limits`] before anything is read for it.
//!
//! [`Reader`] runs in one of two [`Mode`]s:
//!
//! - [`Mode::Strict`] (the default): a framing error is returned, positioned
//!   at the failing record, and the reader stays there.
//! - [`Mode::Resync`]: after a framing error (an unknown marker byte, a
//!   length over the limits, a record cut off by the end of the input) the
//!   error is returned as in strict mode, and the reader then skips ahead to
//!   the next offset where a game frames ([`resync_point`]) and carries on,
//!   counting the bytes it skipped ([`Reader::skipped`]). This is how
//!   `pgc verify` reports every game of a damaged or foreign file.

use crate::buffer::RefillBuffer;
use crate::item::ItemKind;
use crate::limits::Limits;
use crate::record::{
    FrameError, MAX_1994_RECORD, Marker, RecordRef, frame, frame_common, record_len,
};
use std::io::{self, Read};

/// Errors of the record reader. Every variant carries the byte offset of the
/// record it is about.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Reading the underlying input failed.
    #[error("I/O error at byte {offset}: {source}")]
    Io {
        /// Offset where reading failed.
        offset: u64,
        /// The I/O error.
        source: io::Error,
    },
    /// The input ends inside a record.
    #[error("truncated record at byte {offset}: {} needs {need} bytes but the input has {have}", describe(*marker, *item))]
    Truncated {
        /// Offset of the record's marker.
        offset: u64,
        /// The record's marker.
        marker: Option<Marker>,
        /// The item cut off.
        item: Option<ItemKind>,
        /// Bytes the record needs.
        need: u64,
        /// Bytes left in the input.
        have: u64,
    },
    /// An unknown marker byte.
    #[error(
        "unknown record marker 0x{byte:02x} at byte {offset} (expected 0x00..=0x0a or the extension marker 0x80)"
    )]
    UnknownMarker {
        /// Offset of the byte.
        offset: u64,
        /// The byte.
        byte: u8,
    },
    /// A length field beyond a limit.
    #[error(
        "{marker} record at byte {offset}: its {item} claims {claimed} bytes, over the limit of {limit} (raise it with --max-string)"
    )]
    OverLimit {
        /// Offset of the record.
        offset: u64,
        /// The record's marker.
        marker: Marker,
        /// The item.
        item: ItemKind,
        /// The length claimed.
        claimed: u64,
        /// The limit.
        limit: u64,
    },
}

fn describe(marker: Option<Marker>, item: Option<ItemKind>) -> String {
    match (marker, item) {
        (Some(m), Some(i)) => format!("its {i} ({m})"),
        (Some(m), None) => format!("the {m} record"),
        _ => "the record".to_string(),
    }
}

impl ReadError {
    /// The marker of the record the error is about, when known.
    pub fn marker(&self) -> Option<Marker> {
        match self {
            ReadError::Truncated { marker, .. } => *marker,
            ReadError::OverLimit { marker, .. } => Some(*marker),
            ReadError::Io { .. } | ReadError::UnknownMarker { .. } => None,
        }
    }

    /// The byte offset the error is about.
    pub fn offset(&self) -> u64 {
        match self {
            ReadError::Io { offset, .. }
            | ReadError::Truncated { offset, .. }
            | ReadError::UnknownMarker { offset, .. }
            | ReadError::OverLimit { offset, .. } => *offset,
        }
    }
}

/// How a [`Reader`] goes on after a framing error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The error is returned and the reader stays at the failing record.
    #[default]
    Strict,
    /// The error is returned; the next read (or [`Reader::resync`]) skips
    /// to the next offset where a game frames (`resync_point`) and carries
    /// on from there.
    Resync,
}

/// The most bytes the reader buffers to frame one record: a 1994 record is
/// at most [`MAX_1994_RECORD`] bytes, and a string-2 or extension payload
/// is checked against [`Limits::max_string`] from its header before its
/// body is read (a string-4 is never framed: no record holds one).
pub const fn refill_bound(limits: &Limits) -> u64 {
    let strings = limits.max_string as u64 + 16;
    if strings > MAX_1994_RECORD {
        strings
    } else {
        MAX_1994_RECORD
    }
}

/// How far a resynchronising reader keeps the game start it found, so
/// that it can come back ([`Reader::rewind`]): two of the longest 1994
/// records, enough to come back from one that swallowed the games after it.
pub const PROBATION_SPAN: usize = 2 * MAX_1994_RECORD as usize;

/// Whether `buf` starts at a place where a game frames, so that a reader
/// that lost its way may start again there: a 0x05 game-begin byte not
/// followed by printable ASCII (which makes it the length byte of a
/// five-byte string such as a tag name `Event`), or a
/// 0x01 reduced game that frames whole and whose Result value is a game
/// termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`; section 8.1.1.7), as
/// every reduced game's is. These checks keep a stray 0x05 or 0x01 byte (a
/// string length, an ordinal) from counting as a game or swallowing the
/// games after it; a foreign writer's game start, followed by a length
/// byte of its own, still counts.
///
/// `Some(false)` when `buf` cannot hold a game start, `None` when `buf`
/// ends before that can be told (a 0x05 as its last byte, a 0x01 whose
/// record runs past `buf`): the caller reads on, or at the end of the
/// input takes it for no game start, so that the answer is the same
/// however the input is cut into reads.
pub fn resync_point(buf: &[u8], limits: &Limits) -> Option<bool> {
    match buf.first() {
        None => None,
        Some(0x05) => buf.get(1).map(|b| !(0x20..0x7f).contains(b)),
        Some(0x01) => match frame(buf, limits) {
            Ok((RecordRef::ReducedGame { roster, .. }, _)) => {
                Some(crate::ext::Outcome::from_bytes(roster[6]).is_some())
            }
            Err(FrameError::Incomplete { .. }) => None,
            _ => Some(false),
        },
        Some(_) => Some(false),
    }
}

/// A record as [`Reader::next_raw`] reads it: its offset, its marker and
/// its bytes exactly as in the input.
pub type RawRecord<'a> = (u64, Marker, &'a [u8]);

/// A record as [`Reader::next_record_with_bytes`] reads it: its offset, the
/// record, and its bytes exactly as in the input.
pub type FramedRecord<'a> = (u64, RecordRef<'a>, &'a [u8]);

/// Reads PGC records one at a time from a byte stream.
///
/// ```
/// use pgc_core::{Reader, RecordRef};
/// let bytes: &[u8] = &[0x05, 0x03, 0x01, 0x0c, 0x06];
/// let mut r = Reader::new(bytes);
/// let mut markers = vec![];
/// while let Some((_offset, rec)) = r.next_record().unwrap() {
///     markers.push(rec.marker() as u8);
/// }
/// assert_eq!(markers, [5, 3, 6]);
/// ```
///
/// In [`Mode::Resync`] the reader goes on after a framing error:
///
/// ```
/// use pgc_core::{ReadMode as Mode, Reader};
/// // A game, two junk bytes, another game.
/// let bytes: &[u8] = &[0x05, 0x06, 0xee, 0xff, 0x05, 0x06];
/// let mut r = Reader::new(bytes).mode(Mode::Resync);
/// let mut seen = vec![];
/// loop {
///     match r.next_record() {
///         Ok(Some((offset, rec))) => seen.push((offset, rec.marker() as u8)),
///         Ok(None) => break,
///         Err(e) => seen.push((e.offset(), 0xff)),
///     }
/// }
/// assert_eq!(seen, [(0, 5), (1, 6), (2, 0xff), (4, 5), (5, 6)]);
/// assert_eq!(r.skipped(), 2);
/// ```
pub struct Reader<R> {
    buf: RefillBuffer<R>,
    /// Input offset of the first buffered byte.
    offset: u64,
    limits: Limits,
    mode: Mode,
    /// A framing error was returned and the reader has not moved past it.
    failed: bool,
    /// Bytes skipped by resynchronising.
    skipped: u64,
    /// Offset of the game start a resync found (see [`Self::on_probation`]).
    mark_offset: u64,
}

impl<R: Read> Reader<R> {
    /// A reader with default limits.
    pub fn new(inner: R) -> Reader<R> {
        Reader::with_limits(inner, Limits::default())
    }

    /// A reader with the given limits.
    pub fn with_limits(inner: R, limits: Limits) -> Reader<R> {
        Reader {
            buf: RefillBuffer::new(inner),
            offset: 0,
            limits,
            mode: Mode::Strict,
            failed: false,
            skipped: 0,
            mark_offset: 0,
        }
    }

    /// Sets how the reader goes on after a framing error.
    pub fn mode(mut self, mode: Mode) -> Reader<R> {
        self.mode = mode;
        self
    }

    /// For input that starts mid-file (a batch, or after a seek): `offset`
    /// is the file offset of the input's first byte; record offsets and
    /// errors are then those of the whole file.
    pub fn starting_at(mut self, offset: u64) -> Reader<R> {
        self.offset = offset;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether the input has ended and every byte of it was consumed.
    pub fn is_done(&self) -> bool {
        self.buf.is_done()
    }

    /// Bytes skipped so far by resynchronising ([`Mode::Resync`]).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Reads more input so that at least `need` bytes are buffered, or EOF.
    fn fill(&mut self, need: usize) -> Result<(), ReadError> {
        self.buf.fill(need).map_err(|source| ReadError::Io {
            offset: self.offset + self.buf.len() as u64,
            source,
        })
    }

    /// Ensures one whole record is buffered; returns its length, or `None` at
    /// a clean end of input.
    fn ensure_record(&mut self) -> Result<Option<usize>, ReadError> {
        loop {
            if self.buf.is_empty() {
                if self.buf.at_eof() {
                    return Ok(None);
                }
                self.fill(1)?;
                continue;
            }
            match record_len(self.buf.buffered(), &self.limits) {
                Ok(len) => return Ok(Some(len)),
                Err(FrameError::UnknownMarker(byte)) => {
                    return Err(ReadError::UnknownMarker {
                        offset: self.offset,
                        byte,
                    });
                }
                Err(FrameError::OverLimit {
                    marker,
                    item,
                    claimed,
                    limit,
                }) => {
                    return Err(ReadError::OverLimit {
                        offset: self.offset,
                        marker,
                        item,
                        claimed,
                        limit,
                    });
                }
                Err(FrameError::Incomplete { marker, item, need }) => {
                    let have = self.buf.len() as u64;
                    // Every header is bounded (see `refill_bound`), so
                    // `need` is bounded before anything is read for it.
                    if self.buf.at_eof() || need > refill_bound(&self.limits) || need <= have {
                        return Err(ReadError::Truncated {
                            offset: self.offset,
                            marker,
                            item,
                            need,
                            have,
                        });
                    }
                    self.fill(need as usize)?;
                }
            }
        }
    }

    /// The next record and its byte offset, or `None` at the end of input.
    ///
    /// # Errors
    /// [`ReadError`]: I/O, truncation, an unknown marker or a length over the
    /// limits. After an error a strict reader is at the failing record; a
    /// resynchronising one skips ahead on the next call.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<(u64, RecordRef<'_>)>, ReadError> {
        Ok(self.next_record_with_bytes()?.map(|(at, rec, _)| (at, rec)))
    }

    /// As [`Self::next_record`], with the record's bytes as read: for a
    /// reader that hands whole records on (the verifier, to the rendering
    /// of a text-patched game).
    ///
    /// # Errors
    /// As [`Self::next_record`].
    #[inline]
    pub fn next_record_with_bytes(&mut self) -> Result<Option<FramedRecord<'_>>, ReadError> {
        // A whole record of a common kind is taken at once, in line; the
        // rest (refills, errors, other kinds) out of line.
        if let Some((_, len)) = frame_common(self.buf.buffered()) {
            let at = self.offset;
            self.offset += len as u64;
            let bytes = self.buf.take(len);
            // The same bytes, framed again: always `Some`.
            return Ok(frame_common(bytes).map(|(rec, _)| (at, rec, bytes)));
        }
        self.next_record_framed()
    }

    #[inline(never)]
    fn next_record_framed(&mut self) -> Result<Option<FramedRecord<'_>>, ReadError> {
        let Some((at, len)) = self.next_len()? else {
            return Ok(None);
        };
        let bytes = self.buf.take(len);
        // next_len framed these very bytes successfully.
        if let Some((rec, _)) = frame_common(bytes) {
            return Ok(Some((at, rec, bytes)));
        }
        let Ok((rec, _)) = frame(bytes, &self.limits) else {
            return Ok(None);
        };
        Ok(Some((at, rec, bytes)))
    }

    /// The next record's offset and length, framed whole in the buffer and
    /// counted as read (after a resync in [`Mode::Resync`]); `None` at the
    /// end of input.
    fn next_len(&mut self) -> Result<Option<(u64, usize)>, ReadError> {
        if self.failed && self.mode == Mode::Resync {
            self.resync()?;
        }
        let len = match self.ensure_record() {
            Ok(Some(len)) => len,
            Ok(None) => return Ok(None),
            Err(e) => {
                self.failed = !matches!(e, ReadError::Io { .. });
                return Err(e);
            }
        };
        let at = self.offset;
        self.offset += len as u64;
        Ok(Some((at, len)))
    }

    /// The next record's offset, marker and bytes exactly as in the input
    /// (not decoded), or `None` at the end of input: for tools that cut a
    /// stream into pieces of whole records, like the CLI's batches.
    ///
    /// # Errors
    /// As [`Self::next_record`].
    ///
    /// ```
    /// use pgc_core::{Marker, Reader};
    /// let mut r = Reader::new(&[0x05, 0x03, 1, 13, 0x06][..]);
    /// let (offset, marker, bytes) = r.next_raw()?.unwrap();
    /// assert_eq!((offset, marker, bytes), (0, Marker::GameBegin, &[0x05][..]));
    /// let (offset, marker, bytes) = r.next_raw()?.unwrap();
    /// assert_eq!((offset, marker, bytes), (1, Marker::ShortMoves, &[0x03, 1, 13][..]));
    /// # Ok::<(), pgc_core::ReadError>(())
    /// ```
    #[inline]
    pub fn next_raw(&mut self) -> Result<Option<RawRecord<'_>>, ReadError> {
        if let Some((rec, len)) = frame_common(self.buf.buffered()) {
            let at = self.offset;
            self.offset += len as u64;
            return Ok(Some((at, rec.marker(), self.buf.take(len))));
        }
        let Some((at, len)) = self.next_len()? else {
            return Ok(None);
        };
        let bytes = self.buf.take(len);
        // next_len framed the record: its first byte is a marker.
        let marker = bytes
            .first()
            .and_then(|&b| Marker::from_byte(b))
            .unwrap_or(Marker::Noop);
        Ok(Some((at, marker, bytes)))
    }

    /// Takes every byte buffered and not yet read, as it is: after a framing
    /// error, the failing record and what was read after it, for a reader
    /// of those bytes to report the error at its place. The reader moves
    /// past them.
    pub fn take_buffered(&mut self) -> &[u8] {
        let n = self.buf.len();
        self.offset += n as u64;
        self.failed = false;
        self.buf.take(n)
    }

    /// After a framing error: skips the failing byte and every following
    /// byte up to the next offset where a game frames (`resync_point`),
    /// or to the end of the input. Returns how many bytes were skipped
    /// (also added to [`Self::skipped`]); 0 when no error is pending.
    ///
    /// # Errors
    /// I/O errors of the underlying reader.
    pub fn resync(&mut self) -> Result<u64, ReadError> {
        if !self.failed {
            return Ok(0);
        }
        self.failed = false;
        self.buf.clear_mark();
        let mut n = 0u64;
        if self.skip_byte()? {
            n += 1;
        }
        loop {
            if self.buf.is_empty() {
                self.fill(1)?;
            }
            match resync_point(self.buf.buffered(), &self.limits) {
                Some(true) => {
                    // A game start found by searching may be a stray byte:
                    // keep the place, so a reader that finds the game
                    // false can come back and search on ([`Self::rewind`]).
                    self.buf.set_mark(PROBATION_SPAN);
                    self.mark_offset = self.offset;
                    break;
                }
                Some(false) => {}
                None if self.buf.at_eof() => {}
                None => {
                    // A 0x05 as the buffer's last byte, or a 0x01 whose
                    // record runs past it: read more (a 0x01 is at most
                    // MAX_1994_RECORD bytes), then decide.
                    let more = self.buf.len() + 1;
                    self.fill(more)?;
                    continue;
                }
            }
            if !self.skip_byte()? {
                break;
            }
            n += 1;
        }
        self.skipped += n;
        Ok(n)
    }

    /// Whether the reader is on a game start it found by resynchronising,
    /// and has read at most `PROBATION_SPAN` bytes past it: until the
    /// reader of the records says the game there is sound
    /// ([`Self::confirm`]), it may go back there ([`Self::rewind`]).
    pub fn on_probation(&self) -> bool {
        self.buf.has_mark()
    }

    /// The offset of the game start on probation ([`Self::on_probation`]).
    pub fn probation_start(&self) -> Option<u64> {
        self.buf.has_mark().then_some(self.mark_offset)
    }

    /// The game found by resynchronising is sound: the place is no longer
    /// kept.
    pub fn confirm(&mut self) {
        self.buf.clear_mark();
    }

    /// The game found by resynchronising is not sound (its records frame,
    /// but as nonsense: a stray 0x05 byte began it, and a record of it may
    /// have swallowed real games): goes back to its start and searches on
    /// from the byte after it, as after a framing error. Returns the bytes
    /// skipped then, or `None` when no place is kept ([`Self::on_probation`]).
    ///
    /// # Errors
    /// I/O errors of the underlying reader.
    pub fn rewind(&mut self) -> Result<Option<u64>, ReadError> {
        let Some(back) = self.buf.rewind() else {
            return Ok(None);
        };
        self.offset -= back as u64;
        self.failed = true;
        self.resync().map(Some)
    }

    /// Skips one byte (for resynchronising after an error, as the verifier does).
    ///
    /// # Errors
    /// I/O errors of the underlying reader.
    pub fn skip_byte(&mut self) -> Result<bool, ReadError> {
        if self.buf.is_empty() {
            self.fill(1)?;
        }
        if self.buf.is_empty() {
            Ok(false)
        } else {
            self.buf.consume(1);
            self.offset += 1;
            Ok(true)
        }
    }

    /// Reads and drops the rest of the input; returns how many bytes that
    /// was.
    ///
    /// # Errors
    /// I/O errors of the underlying reader.
    pub fn drain(&mut self) -> Result<u64, ReadError> {
        let n = self.buf.drain().map_err(|source| ReadError::Io {
            offset: self.offset,
            source,
        })?;
        self.offset += n;
        self.failed = false;
        Ok(n)
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.buf.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `n` bytes per call.
    struct Chunks<'a>(&'a [u8], usize);
    impl Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn one_byte_at_a_time_equals_all_at_once() {
        let mut bytes = vec![0x05, 0x02, 1, b'A', 1, b'B', 0x04];
        bytes.extend_from_slice(&300u16.to_le_bytes());
        bytes.extend(std::iter::repeat_n(4, 300));
        bytes.extend_from_slice(&[0x07, 3, 0x80, 9, 2, b'h', b'i', 0x06]);
        let mut a = Reader::new(&bytes[..]);
        let mut b = Reader::new(Chunks(&bytes, 1));
        loop {
            let x = a.next_record().unwrap().map(|(o, r)| (o, r.to_owned()));
            let y = b.next_record().unwrap().map(|(o, r)| (o, r.to_owned()));
            assert_eq!(x, y);
            if x.is_none() {
                break;
            }
        }
    }

    #[test]
    fn truncation_reports_the_same_in_chunks() {
        // Regression (fuzz, byte_at_a_time): a tag pair whose name claims 255
        // bytes, with 1 byte after the header.
        let bytes = [0x00, 0x00, 0x00, 0x05, 0x02, 0xff, 0x0c];
        let at_once = {
            let mut r = Reader::new(&bytes[..]);
            while r.next_record().map(|x| x.is_some()).unwrap_or(false) {}
            r.next_record().map(|_| ()).unwrap_err().to_string()
        };
        for n in 1..=4 {
            let mut r = Reader::new(Chunks(&bytes, n));
            let mut err = None;
            loop {
                match r.next_record() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        err = Some(e.to_string());
                        break;
                    }
                }
            }
            assert_eq!(err.as_deref(), Some(at_once.as_str()), "chunks of {n}");
        }
    }

    #[test]
    fn truncation_is_positioned() {
        let bytes = [0x05, 0x03, 10, 1, 2];
        let mut r = Reader::new(&bytes[..]);
        assert!(r.next_record().unwrap().is_some());
        match r.next_record() {
            Err(ReadError::Truncated {
                offset: 1,
                need: 12,
                have: 4,
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn huge_claims_do_not_allocate() {
        // An extension claiming 4 GiB in a ten-byte input.
        let bytes = [0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0];
        let mut r = Reader::new(&bytes[..]);
        assert!(matches!(
            r.next_record(),
            Err(ReadError::OverLimit { offset: 0, .. })
        ));
        // A mvseq-2 claiming 65,535 moves followed by 3 bytes.
        let bytes = [0x04, 0xff, 0xff, 1, 2, 3];
        let mut r = Reader::new(&bytes[..]);
        assert!(matches!(
            r.next_record(),
            Err(ReadError::Truncated {
                need: 65_538,
                have: 6,
                ..
            })
        ));
    }
    /// Every record and error of a resynchronising reader over `bytes`
    /// read `n` bytes at a time: `(offset, marker byte)` for a record,
    /// `(offset, 0xff)` for an error; and the bytes skipped.
    fn resync_all(bytes: &[u8], n: usize, limits: Limits) -> (Vec<(u64, u8)>, u64) {
        let mut r = Reader::with_limits(Chunks(bytes, n), limits).mode(Mode::Resync);
        let mut seen = Vec::new();
        loop {
            match r.next_record() {
                Ok(Some((o, rec))) => seen.push((o, rec.marker() as u8)),
                Ok(None) => break,
                Err(e) => seen.push((e.offset(), 0xff)),
            }
            assert!(seen.len() <= bytes.len() + 1, "no progress");
        }
        assert_eq!(r.offset(), bytes.len() as u64);
        (seen, r.skipped())
    }

    #[test]
    fn resync_skips_junk_to_the_next_game() {
        // Junk outside and inside games, then a game start.
        let bytes = [
            0x05, 0x03, 1, 13, 0xee, 0x03, 0x06, 0x05, 0x06, 0x42, 0x42, 0x05, 0x06,
        ];
        let want = vec![
            (0, 5),
            (1, 3),
            (4, 0xff),
            (7, 5),
            (8, 6),
            (9, 0xff),
            (11, 5),
            (12, 6),
        ];
        for n in [1, 2, 3, 64] {
            assert_eq!(
                resync_all(&bytes, n, Limits::default()),
                (want.clone(), 5),
                "{n}"
            );
        }
    }

    #[test]
    fn resync_takes_a_0x01_only_when_it_frames_whole_with_a_result() {
        let reduced = |result: &[u8]| {
            let mut b = vec![0x01];
            for _ in 0..6 {
                b.extend([1, b'?']);
            }
            b.push(result.len() as u8);
            b.extend(result);
            b.extend([0, 0]);
            b
        };
        // Junk, then a 0x01 whose Result is "x": not a game start; then a
        // whole 0x01 with Result "*".
        let mut bytes = vec![0xee];
        bytes.extend(reduced(b"x"));
        let second = bytes.len() as u64;
        bytes.extend(reduced(b"*"));
        let (seen, skipped) = resync_all(&bytes, 1, Limits::default());
        assert_eq!(seen, [(0, 0xff), (second, 1)]);
        assert_eq!(skipped, second);
        // A 0x01 cut off by the end of the input is no game start either.
        let mut bytes = vec![0xee];
        bytes.extend(&reduced(b"*")[..10]);
        let (seen, skipped) = resync_all(&bytes, 3, Limits::default());
        assert_eq!(seen, [(0, 0xff)]);
        assert_eq!(skipped, 11);
    }

    #[test]
    fn resync_after_truncation_and_over_limit_lengths() {
        // An escape string over a 100-byte limit, then a game; nothing is
        // read or reserved for the claimed length.
        let limits = Limits {
            max_string: 100,
            ..Limits::default()
        };
        let bytes = [0x0a, 0xff, 0xff, 0x01, 0x05, 0x06];
        let (seen, skipped) = resync_all(&bytes, 1, limits);
        assert_eq!(seen, [(0, 0xff), (4, 5), (5, 6)]);
        assert_eq!(skipped, 4);
        // A mvseq-1 cut off by the end of the input: the rest is skipped.
        let bytes = [0x05, 0x03, 9, 1, 2, 0x06];
        let (seen, skipped) = resync_all(&bytes, 2, Limits::default());
        assert_eq!(seen, [(0, 5), (1, 0xff)]);
        assert_eq!(skipped, 5);
        // An extension claiming 4 GiB.
        let bytes = [0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x05, 0x06];
        let (seen, _) = resync_all(&bytes, 4, Limits::default());
        assert_eq!(seen, [(0, 0xff), (7, 5), (8, 6)]);
    }

    #[test]
    fn a_strict_reader_stays_at_the_error() {
        let bytes = [0x05, 0xee, 0x06];
        let mut r = Reader::new(&bytes[..]);
        assert!(r.next_record().unwrap().is_some());
        for _ in 0..3 {
            assert!(matches!(
                r.next_record(),
                Err(ReadError::UnknownMarker {
                    offset: 1,
                    byte: 0xee
                })
            ));
        }
        assert_eq!(r.skipped(), 0);
    }

    #[test]
    fn resync_never_panics_on_prefixes_and_noise() {
        let mut x: u32 = 0x9e37_79b9;
        let mut noise = |len: usize, range: u32| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    (x % range) as u8
                })
                .collect()
        };
        let small = Limits {
            max_string: 64,
            ..Limits::default()
        };
        for round in 0..300 {
            let range = if round % 2 == 0 { 16 } else { 256 };
            let bytes = noise(300, range);
            for n in [1, 7, 300] {
                resync_all(&bytes, n, small);
            }
            for cut in (0..bytes.len()).step_by(37) {
                resync_all(&bytes[..cut], 5, Limits::default());
            }
        }
    }
}
