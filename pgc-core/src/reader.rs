//! The streaming record reader: frames records from any [`Read`] (stdin and
//! pipes included, no seeking) with one reused buffer.

use crate::buffer::RefillBuffer;
use crate::item::ItemKind;
use crate::limits::Limits;
use crate::record::{FrameError, Marker, RecordRef, frame, frame_common, record_len};
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

/// Reads PGC records one at a time from a byte stream.
///
/// ```
/// use pgc_core::{PgcReader, RecordRef};
/// let bytes: &[u8] = &[0x05, 0x03, 0x01, 0x0c, 0x06];
/// let mut r = PgcReader::new(bytes);
/// let mut markers = vec![];
/// while let Some((_offset, rec)) = r.next_record().unwrap() {
///     markers.push(rec.marker() as u8);
/// }
/// assert_eq!(markers, [5, 3, 6]);
/// ```
pub struct PgcReader<R> {
    buf: RefillBuffer<R>,
    /// Input offset of the first buffered byte.
    offset: u64,
    limits: Limits,
}

impl<R: Read> PgcReader<R> {
    /// A reader with default limits.
    pub fn new(inner: R) -> PgcReader<R> {
        PgcReader::with_limits(inner, Limits::default())
    }

    /// A reader with the given limits.
    pub fn with_limits(inner: R, limits: Limits) -> PgcReader<R> {
        PgcReader {
            buf: RefillBuffer::new(inner),
            offset: 0,
            limits,
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.offset
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
                    // A string-4 is never framed (no 1994 record holds one);
                    // every other header is at most 64 KiB or was checked
                    // against the limits, so `need` is bounded.
                    let limit = u64::from(self.limits.max_string) + 16;
                    if self.buf.at_eof() || need > limit {
                        return Err(ReadError::Truncated {
                            offset: self.offset,
                            marker,
                            item,
                            need,
                            have,
                        });
                    }
                    self.fill(need as usize)?;
                    let now = self.buf.len() as u64;
                    if now == have && self.buf.at_eof() {
                        return Err(ReadError::Truncated {
                            offset: self.offset,
                            marker,
                            item,
                            need,
                            have: now,
                        });
                    }
                }
            }
        }
    }

    /// The next record and its byte offset, or `None` at the end of input.
    ///
    /// # Errors
    /// [`ReadError`]: I/O, truncation, an unknown marker or a length over the
    /// limits. After an error the reader is at the failing record.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<(u64, RecordRef<'_>)>, ReadError> {
        // A whole record of a common kind is taken at once, in line; the
        // rest (refills, errors, other kinds) out of line.
        if let Some((_, len)) = frame_common(self.buf.buffered()) {
            let at = self.offset;
            self.offset += len as u64;
            // The same bytes, framed again: always `Some`.
            return Ok(frame_common(self.buf.take(len)).map(|(rec, _)| (at, rec)));
        }
        self.next_record_framed()
    }

    #[inline(never)]
    fn next_record_framed(&mut self) -> Result<Option<(u64, RecordRef<'_>)>, ReadError> {
        let Some(len) = self.ensure_record()? else {
            return Ok(None);
        };
        let at = self.offset;
        self.offset += len as u64;
        let bytes = self.buf.take(len);
        // ensure_record framed these very bytes successfully.
        if let Some((rec, _)) = frame_common(bytes) {
            return Ok(Some((at, rec)));
        }
        let Ok((rec, _)) = frame(bytes, &self.limits) else {
            return Ok(None);
        };
        Ok(Some((at, rec)))
    }

    /// Skips one byte (for resynchronising after an error, as the verifier does).
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
        let mut a = PgcReader::new(&bytes[..]);
        let mut b = PgcReader::new(Chunks(&bytes, 1));
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
            let mut r = PgcReader::new(&bytes[..]);
            while r.next_record().map(|x| x.is_some()).unwrap_or(false) {}
            r.next_record().map(|_| ()).unwrap_err().to_string()
        };
        for n in 1..=4 {
            let mut r = PgcReader::new(Chunks(&bytes, n));
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
        let mut r = PgcReader::new(&bytes[..]);
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
        let mut r = PgcReader::new(&bytes[..]);
        assert!(matches!(
            r.next_record(),
            Err(ReadError::OverLimit { offset: 0, .. })
        ));
        // A mvseq-2 claiming 65,535 moves followed by 3 bytes.
        let bytes = [0x04, 0xff, 0xff, 1, 2, 3];
        let mut r = PgcReader::new(&bytes[..]);
        assert!(matches!(
            r.next_record(),
            Err(ReadError::Truncated {
                need: 65_538,
                have: 6,
                ..
            })
        ));
    }
}
