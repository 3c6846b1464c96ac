//! The one refill buffer every streaming PGC reader frames records from.
//!
//! Bytes are read from any [`Read`] (stdin and pipes included) into a reused
//! `Vec`. The buffer grows only as data arrives (doubling, capped at what the
//! caller needs), never to a length a header merely claims.

use std::io::{self, Read};

/// Bytes read per refill when the buffer is small.
pub const CHUNK: usize = 64 * 1024;

/// A reused read buffer over a byte stream.
#[derive(Debug)]
pub struct RefillBuffer<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// A consumed position kept for [`Self::rewind`] (at most `mark_span`
    /// bytes behind `start`).
    mark: Option<usize>,
    mark_span: usize,
}

impl<R: Read> RefillBuffer<R> {
    /// An empty buffer over `inner`.
    pub fn new(inner: R) -> RefillBuffer<R> {
        RefillBuffer {
            inner,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            mark: None,
            mark_span: 0,
        }
    }

    /// Keeps the bytes from the current position on, so that
    /// [`Self::rewind`] can come back to it, for as long as the reader has
    /// gone at most `span` bytes past it (then the mark is dropped, at the
    /// next [`Self::fill`]).
    pub fn set_mark(&mut self, span: usize) {
        self.mark = Some(self.start);
        self.mark_span = span;
    }

    /// Drops the mark.
    pub fn clear_mark(&mut self) {
        self.mark = None;
    }

    /// Whether a mark is kept.
    pub fn has_mark(&self) -> bool {
        self.mark.is_some()
    }

    /// Goes back to the mark (and drops it): returns how many bytes were
    /// given back, or `None` without a mark.
    pub fn rewind(&mut self) -> Option<usize> {
        let m = self.mark.take()?;
        let back = self.start - m;
        self.start = m;
        Some(back)
    }

    /// The bytes buffered and not yet consumed.
    pub fn buffered(&self) -> &[u8] {
        // start <= end <= buf.len() always holds.
        self.buf.get(self.start..self.end).unwrap_or(&[])
    }

    /// How many bytes are buffered.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Whether the input has ended (what is buffered is all there is).
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// Whether the input has ended and everything was consumed.
    pub fn is_done(&self) -> bool {
        self.eof && self.start == self.end
    }

    /// Drops the first `n` buffered bytes (at most [`Self::len`]).
    pub fn consume(&mut self, n: usize) {
        self.start += n.min(self.len());
    }

    /// Consumes the first `n` buffered bytes (at most [`Self::len`]) and
    /// returns them; they stay valid until the next [`Self::fill`].
    pub fn take(&mut self, n: usize) -> &[u8] {
        let at = self.start;
        self.start += n.min(self.len());
        &self.buf[at..self.start]
    }

    /// Reads until at least `need` bytes are buffered, or the input ends.
    /// Callers bound `need` by their limits before calling.
    ///
    /// # Errors
    /// The underlying reader's errors (`Interrupted` is retried).
    pub fn fill(&mut self, need: usize) -> io::Result<()> {
        if self.mark.is_some_and(|m| self.start - m > self.mark_span) {
            self.mark = None;
        }
        let keep = self.mark.unwrap_or(self.start);
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.end -= keep;
            self.start -= keep;
            self.mark = self.mark.map(|m| m - keep);
        }
        // Room to read into now; beyond that the buffer grows only as data
        // arrives (doubling, capped at `need`), never to a claimed length
        // at once: a header may claim far more than the input holds.
        let room = self.end + CHUNK / 2;
        if self.buf.len() < room {
            self.buf.resize(room, 0);
        }
        // Kept bytes before `start` (a mark) count on top of `need`.
        let need = need.saturating_add(self.start);
        while self.end < need && !self.eof {
            if self.end == self.buf.len() {
                let grown = self.buf.len().saturating_mul(2).min(need);
                self.buf.resize(grown.max(self.end + 1), 0);
            }
            // end < buf.len() here, so the slice is not empty.
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Reads and drops the rest of the input; returns how many bytes that was
    /// (buffered ones included).
    ///
    /// # Errors
    /// The underlying reader's errors.
    pub fn drain(&mut self) -> io::Result<u64> {
        let buffered = self.len() as u64;
        self.start = self.end;
        self.mark = None;
        let rest = io::copy(&mut self.inner, &mut io::sink())?;
        self.eof = true;
        Ok(buffered + rest)
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_consumes_and_grows_only_as_data_arrives() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let mut b = RefillBuffer::new(&data[..]);
        b.fill(10).unwrap();
        assert!(b.len() >= 10);
        assert_eq!(&b.buffered()[..10], &data[..10]);
        b.consume(5);
        assert_eq!(b.buffered()[0], data[5]);
        // Asking for far more than the input holds reads what there is.
        b.fill(usize::MAX / 2).unwrap();
        assert!(b.at_eof());
        assert_eq!(b.buffered(), &data[5..]);
        b.consume(usize::MAX);
        assert!(b.is_done());
    }

    #[test]
    fn a_mark_keeps_consumed_bytes_within_its_span() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut b = RefillBuffer::new(&data[..]);
        b.fill(10).unwrap();
        b.consume(3);
        b.set_mark(200_000);
        // Consumed and refilled (compacted) past the mark: still there.
        for _ in 0..3 {
            let n = b.len();
            b.consume(n);
            b.fill(1).unwrap();
        }
        let gone = b.rewind().unwrap();
        assert_eq!(b.buffered()[0], data[3]);
        assert!(gone > 0);
        // Past the span, the mark is dropped at the next fill.
        b.set_mark(10);
        b.consume(11);
        b.fill(usize::MAX / 2).unwrap();
        assert!(!b.has_mark());
        assert_eq!(b.rewind(), None);
    }
}
