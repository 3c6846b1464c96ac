//! The streaming record writer, with the canonical record choice of
//! `spec/pgc.md` for move runs.

use crate::item::{ItemKind, TooLong};
use crate::record::RecordRef;
use std::io::{self, Write};

const FLUSH_AT: usize = 256 * 1024;

/// Writes PGC records to any [`Write`], buffered in one reused buffer.
///
/// Call [`Writer::finish`] at the end: it flushes and returns the inner
/// writer, so that a write error is never lost in a `Drop`.
pub struct Writer<W: Write> {
    inner: W,
    buf: Vec<u8>,
    written: u64,
}

/// Errors of the writer.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// An item was too long for its length header.
    #[error(transparent)]
    TooLong(#[from] TooLong),
    /// The output failed.
    #[error("write failed: {0}")]
    Io(#[from] io::Error),
}

impl<W: Write> Writer<W> {
    /// A writer over `inner`.
    pub fn new(inner: W) -> Writer<W> {
        Writer {
            inner,
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            written: 0,
        }
    }

    /// Bytes written so far (buffered or not).
    pub fn bytes_written(&self) -> u64 {
        self.written + self.buf.len() as u64
    }

    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.inner.write_all(&self.buf)?;
            self.written += self.buf.len() as u64;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes one record.
    ///
    /// # Errors
    /// [`WriteError::TooLong`] (nothing is written then) or I/O.
    pub fn record(&mut self, rec: &RecordRef<'_>) -> Result<(), WriteError> {
        rec.write_to(&mut self.buf)?;
        self.maybe_flush()?;
        Ok(())
    }

    /// Appends already-encoded record bytes (e.g. a whole game built in memory).
    ///
    /// # Errors
    /// I/O.
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        self.maybe_flush()
    }

    /// Writes a run of moves with the canonical record choice: up to 255
    /// ordinals as one 0x03, more as 0x04 records of at most 65,535.
    ///
    /// # Errors
    /// I/O.
    pub fn moves(&mut self, ordinals: &[u8]) -> io::Result<()> {
        write_moves(&mut self.buf, ordinals);
        self.maybe_flush()
    }

    /// Flushes everything and returns the inner writer.
    ///
    /// # Errors
    /// I/O.
    pub fn finish(mut self) -> io::Result<W> {
        self.inner.write_all(&self.buf)?;
        self.written += self.buf.len() as u64;
        self.buf.clear();
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// Appends a run of moves to `out` with the canonical record choice
/// (`spec/pgc.md`): empty runs write nothing; up to 255 ordinals are one 0x03
/// record; longer runs are 0x04 records of at most 65,535 ordinals each.
pub fn write_moves(out: &mut Vec<u8>, ordinals: &[u8]) {
    if ordinals.is_empty() {
        return;
    }
    if ordinals.len() <= 255 {
        out.push(0x03);
        out.push(ordinals.len() as u8);
        out.extend_from_slice(ordinals);
        return;
    }
    for chunk in ordinals.chunks(0xffff) {
        out.push(0x04);
        out.extend_from_slice(&(chunk.len() as u16).to_le_bytes());
        out.extend_from_slice(chunk);
    }
}

/// Appends a tag pair record (0x02) to `out`, written by hand: the encoder
/// writes one per tag of every game, the most frequent record after move
/// runs. It writes the bytes of the [`RecordRef::TagPair`] declaration
/// (tested on every tag pair of encoded corpus files).
///
/// # Errors
/// [`TooLong`] for a name or value over 255 bytes; nothing is appended then.
#[inline]
pub fn write_tag_pair(out: &mut Vec<u8>, name: &[u8], value: &[u8]) -> Result<(), TooLong> {
    let (Ok(n), Ok(v)) = (u8::try_from(name.len()), u8::try_from(value.len())) else {
        return Err(TooLong {
            item: ItemKind::String1,
            len: name.len().max(value.len()),
            max: 255,
        });
    };
    out.reserve(3 + name.len() + value.len());
    out.push(0x02);
    out.push(n);
    out.extend_from_slice(name);
    out.push(v);
    out.extend_from_slice(value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{MvSeq1, MvSeq2, Record};
    use binrw::io::Cursor;

    fn binrw_bytes(recs: &[Record]) -> Vec<u8> {
        let mut c = Cursor::new(Vec::new());
        for r in recs {
            r.write(&mut c).unwrap();
        }
        c.into_inner()
    }

    #[test]
    fn canonical_move_runs() {
        let mut out = Vec::new();
        write_moves(&mut out, &[1, 2]);
        assert_eq!(out, binrw_bytes(&[Record::ShortMoves(MvSeq1(vec![1, 2]))]));
        let long = vec![7u8; 0xffff + 10];
        let mut out = Vec::new();
        write_moves(&mut out, &long);
        assert_eq!(
            out,
            binrw_bytes(&[
                Record::LongMoves(MvSeq2(vec![7; 0xffff])),
                Record::LongMoves(MvSeq2(vec![7; 10]))
            ])
        );
        let mut out = Vec::new();
        write_moves(&mut out, &[0; 256]);
        assert_eq!(out[0], 0x04);
    }

    #[test]
    fn tag_pairs_by_hand_are_the_declarations_bytes() {
        for (name, value) in [
            (&b"Event"[..], &b"?"[..]),
            (b"", b""),
            (&[b'n'; 255], &[b'v'; 255]),
        ] {
            let mut hand = Vec::new();
            write_tag_pair(&mut hand, name, value).unwrap();
            let mut declared = Vec::new();
            RecordRef::TagPair { name, value }
                .write_to(&mut declared)
                .unwrap();
            assert_eq!(hand, declared);
        }
        let mut out = vec![9];
        let e = write_tag_pair(&mut out, b"Event", &[b'v'; 256]).unwrap_err();
        assert_eq!((e.item, e.len, e.max), (ItemKind::String1, 256, 255));
        assert_eq!(out, [9]);
    }

    #[test]
    fn finish_flushes() {
        let mut w = Writer::new(Vec::new());
        w.record(&RecordRef::GameBegin).unwrap();
        w.moves(&[4]).unwrap();
        w.record(&RecordRef::GameEnd).unwrap();
        assert_eq!(w.bytes_written(), 5);
        assert_eq!(w.finish().unwrap(), [5, 3, 1, 4, 6]);
    }
}
