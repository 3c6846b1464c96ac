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
        }
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
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        // Room to read into now; beyond that the buffer grows only as data
        // arrives (doubling, capped at `need`), never to a claimed length
        // at once: a header may claim far more than the input holds.
        let room = self.end + CHUNK / 2;
        if self.buf.len() < room {
            self.buf.resize(room, 0);
        }
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
}
