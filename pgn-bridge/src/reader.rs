//! [`PgnReader`]: streaming PGN games from any [`std::io::Read`] into a
//! [`Visitor`].
//!
//! The reader owns one refill buffer. For each game it runs the boundary
//! scanner ([`crate::lexer::scan_game`]) over the buffered bytes; when the
//! buffer ends before the game does, it moves the game to the front of the
//! buffer, doubles the buffer if the game fills it (never beyond
//! `max_game_bytes`), reads more and scans again. Then the lexer
//! ([`crate::lexer::lex_game`]) reports the complete game slice to the
//! visitor. Nothing is allocated per game or per token once the buffer has
//! reached the size of the largest game, up to [`SHRINK_ABOVE`]: a buffer
//! grown beyond that for one huge game is given back once the game is
//! read, so that it is not held while the game is converted.

use std::io::{self, Read};

use crate::lexer::{self, LexContext, NeedMore};
use crate::pgn_error::PgnError;
use crate::visitor::{GameStart, Visitor};

/// Default limit on the size of one game: 64 MiB.
pub const DEFAULT_MAX_GAME_BYTES: usize = 64 << 20;

/// Initial size of the refill buffer: 256 KiB.
const INITIAL_BUFFER: usize = 256 << 10;

/// A buffer larger than this (grown for a huge game) is shrunk back to
/// what it holds once the game is read: 8 MiB.
const SHRINK_ABOVE: usize = 8 << 20;

/// Bytes the buffer may hold beyond `max_game_bytes`, so that a game of
/// exactly the limit can be seen to end (the scanner looks at the bytes
/// after a game).
const LOOKAHEAD: usize = 4 << 10;
/// [`PgnReader::read_game_once`] reads on before a game when less than
/// this is buffered, so that few games run past the buffer.
const READ_AHEAD: usize = 64 << 10;

/// Reads PGN games from `R` and reports them to a [`Visitor`].
///
/// ```
/// use std::ops::ControlFlow;
/// use pgn_bridge::PgnReader;
/// use pgn_bridge::Visitor;
///
/// /// Counts the SAN tokens of each game.
/// struct Moves(usize);
///
/// impl Visitor for Moves {
///     type Output = usize;
///     fn san(&mut self, _token: &[u8]) -> ControlFlow<()> {
///         self.0 += 1;
///         ControlFlow::Continue(())
///     }
///     fn end_game(&mut self, _raw: &[u8]) -> usize {
///         std::mem::take(&mut self.0)
///     }
/// }
///
/// let pgn = b"[Event \"A\"]\n\n1. e4 e5 2. Nf3 1-0\n\n1. d4 d5 *\n";
/// let mut reader = PgnReader::new(&pgn[..]);
/// let mut moves = Moves(0);
/// assert_eq!(reader.read_game(&mut moves)?, Some(3));
/// assert_eq!(reader.read_game(&mut moves)?, Some(2));
/// assert_eq!(reader.read_game(&mut moves)?, None);
/// # Ok::<(), pgn_bridge::PgnError>(())
/// ```
#[derive(Debug)]
pub struct PgnReader<R> {
    inner: R,
    /// `buf[start..end]` holds unread input.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// `inner` returned end of file.
    eof: bool,
    /// Input offset of `buf[start]`.
    offset: u64,
    /// 1-based line of `buf[start]`.
    line: u64,
    /// Number of games read so far.
    index: u64,
    /// The byte before `buf[start]` is `\n` (or there is none).
    at_line_start: bool,
    max_game_bytes: usize,
    /// Whitespace and escape lines that no game holds (an input with no
    /// game at all).
    unclaimed: Vec<u8>,
    /// Whitespace over the limit was dropped: none is kept as unclaimed.
    dropped_whitespace: bool,
}

impl<R: Read> PgnReader<R> {
    /// A reader over `inner` with the default limits
    /// ([`DEFAULT_MAX_GAME_BYTES`]).
    ///
    /// `inner` is read in large chunks; it needs no buffering of its own.
    pub fn new(inner: R) -> Self {
        PgnReader {
            inner,
            buf: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            unclaimed: Vec::new(),
            dropped_whitespace: false,
            offset: 0,
            line: 1,
            index: 0,
            at_line_start: true,
            max_game_bytes: DEFAULT_MAX_GAME_BYTES,
        }
    }

    /// Sets the limit on the size of one game, in bytes (at least 1;
    /// default [`DEFAULT_MAX_GAME_BYTES`]). The buffer never grows much
    /// beyond it; a larger game is a [`PgnError::GameTooLarge`].
    pub fn with_max_game_bytes(mut self, limit: usize) -> Self {
        self.max_game_bytes = limit.max(1);
        self
    }

    /// The limit on the size of one game, in bytes.
    pub fn max_game_bytes(&self) -> usize {
        self.max_game_bytes
    }

    /// Takes the whitespace read that belongs to no game. A game holds the
    /// whitespace after it up to the next game, and the first game the
    /// whitespace before it, so only an input with no game at all (empty
    /// lines, spaces, `%` escape lines) leaves any: a writer that keeps every byte stores
    /// them after [`Self::read_game`] has returned `Ok(None)`. An input of
    /// whitespace longer than [`Self::max_game_bytes`] is not held (memory
    /// stays bounded): then none is returned, and [`Self::offset`] counts
    /// it.
    pub fn take_unclaimed(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.unclaimed)
    }

    /// Number of games read so far.
    pub fn games_read(&self) -> u64 {
        self.index
    }

    /// Input offset of the next unread byte (the start of the next game).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Returns the inner reader. Buffered but unread input is lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads the next game and reports it to `visitor`.
    ///
    /// Returns `Ok(None)` at the end of the input (trailing whitespace after
    /// the last game belongs to that game; an input of only whitespace and
    /// `%` escape lines has no game).
    ///
    /// # Errors
    ///
    /// [`PgnError::Io`] if reading fails, [`PgnError::GameTooLarge`] if the
    /// game exceeds [`PgnReader::max_game_bytes`]. After an error the reader
    /// must not be used any further. Malformed PGN is not an error: the
    /// visitor gets [`Visitor::junk`].
    pub fn read_game<V: Visitor>(
        &mut self,
        visitor: &mut V,
    ) -> Result<Option<V::Output>, PgnError> {
        let (end, ctx) = loop {
            // Filling may drop whitespace that held no game: the context is
            // that of the first byte still buffered.
            let ctx = LexContext {
                at_line_start: self.at_line_start,
                at_input_start: self.offset == 0,
            };
            match lexer::scan_game(&self.buf[self.start..self.end], self.eof, ctx) {
                Ok(end) => break (end, ctx),
                Err(NeedMore) => self.fill()?,
            }
        };
        if !end.has_tokens {
            // Only whitespace up to the end of the input: a game's trailer
            // holds the whitespace after it, so these bytes belong to no
            // game only when the input has none. They are kept for
            // `take_unclaimed`.
            if !self.dropped_whitespace {
                let ws = &self.buf[self.start..self.start + end.len];
                self.unclaimed.extend_from_slice(ws);
            }
            self.consume(end.len);
            return Ok(None);
        }
        if end.len > self.max_game_bytes {
            return Err(self.too_large());
        }
        let game = &self.buf[self.start..self.start + end.len];
        let start = GameStart {
            index: self.index,
            offset: self.offset,
            line: self.line,
        };
        let output = lexer::lex_game(game, start, ctx, visitor);
        self.consume(end.len);
        self.index += 1;
        if self.buf.len() > SHRINK_ABOVE {
            self.shrink();
        }
        Ok(Some(output))
    }

    /// [`Self::read_game`] in one pass: the visitor gets the game's events
    /// while its end is found, where `read_game` first scans the game for
    /// its end and then lexes it.
    ///
    /// A game that runs past the buffered input is read as `read_game`
    /// reads it (scanned for its end, then reported) and so reported again
    /// from its start: the visitor may get a second
    /// [`Visitor::begin_game`] for the same game without an `end_game`,
    /// and must then drop what it made of the game so far (an encoder that
    /// resets its state at each `begin_game` does). The reader reads ahead
    /// so that this is rare (a game longer than its read-ahead, or one that
    /// straddles the end of the buffer).
    ///
    /// # Errors
    /// As [`Self::read_game`].
    pub fn read_game_once<V: Visitor>(
        &mut self,
        visitor: &mut V,
    ) -> Result<Option<V::Output>, PgnError> {
        let pending = self.end - self.start;
        if !self.eof && pending < READ_AHEAD && (pending < self.buf.len() || self.buf.is_empty()) {
            // Room to read into without growing the buffer (or none yet).
            self.fill()?;
        }
        let ctx = LexContext {
            at_line_start: self.at_line_start,
            at_input_start: self.offset == 0,
        };
        let start = GameStart {
            index: self.index,
            offset: self.offset,
            line: self.line,
        };
        let rest = &self.buf[self.start..self.end];
        match lexer::lex_one(rest, self.eof, start, ctx, visitor) {
            Ok(Some(len)) => {
                if len > self.max_game_bytes {
                    return Err(self.too_large());
                }
                let output = visitor.end_game(&self.buf[self.start..self.start + len]);
                self.consume(len);
                self.index += 1;
                if self.buf.len() > SHRINK_ABOVE {
                    self.shrink();
                }
                Ok(Some(output))
            }
            // Only whitespace is buffered: the scanning path reads on and
            // keeps whitespace that belongs to no game.
            Ok(None) => self.read_game(visitor),
            // A game longer than what is buffered: the scanning path reads
            // until it holds the game, then reports it from its start
            // (lexing it again at each refill would cost a huge game its
            // whole conversion once per doubling of the buffer).
            Err(NeedMore) => self.read_game(visitor),
        }
    }

    /// After a [`PgnError::GameTooLarge`], passes the rest of that game to
    /// `sink` in pieces (never holding more than the buffer) and moves past
    /// it, so that reading can go on with the next game. The lexer cannot
    /// find the end of a game it cannot hold; here the game ends before the
    /// first line that starts with `[` after a blank line (the next game's
    /// tag section), once a line with text has been seen, or at the end of
    /// the input. Returns the game's size in bytes; the game counts as read.
    ///
    /// # Errors
    /// [`PgnError::Io`] if reading fails.
    pub fn skip_game(&mut self, sink: &mut dyn FnMut(&[u8])) -> Result<u64, PgnError> {
        let is_blank = |line: &[u8]| line.iter().all(|&b| lexer::is_whitespace(b));
        let mut total = 0u64;
        // The previous complete line was blank; the next byte starts a line;
        // the current line is blank so far; a line with text was seen.
        let (mut prev_blank, mut line_start, mut cur_blank, mut text) = (false, true, true, false);
        loop {
            let pending = &self.buf[self.start..self.end];
            let mut i = 0;
            let mut cut = None;
            while i < pending.len() {
                if line_start && text && prev_blank && pending[i] == b'[' {
                    cut = Some(i);
                    break;
                }
                match memchr::memchr(b'\n', &pending[i..]) {
                    Some(k) => {
                        cur_blank &= is_blank(&pending[i..i + k]);
                        text |= !cur_blank;
                        prev_blank = cur_blank;
                        cur_blank = true;
                        line_start = true;
                        i += k + 1;
                    }
                    None => {
                        cur_blank &= is_blank(&pending[i..]);
                        line_start = false;
                        i = pending.len();
                    }
                }
            }
            let n = cut.unwrap_or(pending.len());
            sink(&self.buf[self.start..self.start + n]);
            total += n as u64;
            self.consume(n);
            if cut.is_some() || self.eof {
                break;
            }
            self.fill()?;
        }
        self.index += 1;
        Ok(total)
    }

    /// Replaces the buffer by one just large enough for the unread input
    /// (at least the initial size), giving back the memory of a huge game.
    fn shrink(&mut self) {
        let pending = &self.buf[self.start..self.end];
        let mut small = vec![0; pending.len().max(INITIAL_BUFFER)];
        small[..pending.len()].copy_from_slice(pending);
        self.end = pending.len();
        self.start = 0;
        self.buf = small;
    }

    fn consume(&mut self, len: usize) {
        let bytes = &self.buf[self.start..self.start + len];
        self.line += crate::lexer::line_ends(bytes);
        if let Some(&last) = bytes.last() {
            self.at_line_start = crate::lexer::is_line_end(last);
        }
        self.start += len;
        self.offset += len as u64;
    }

    fn too_large(&self) -> PgnError {
        PgnError::GameTooLarge {
            game: self.index,
            offset: self.offset,
            line: self.line,
            limit: self.max_game_bytes,
        }
    }

    /// Makes room and reads until the buffer is full or the input ends.
    fn fill(&mut self) -> Result<(), PgnError> {
        debug_assert!(!self.eof, "the scanner never needs more at end of file");
        let pending = self.end - self.start;
        let cap_limit = self.max_game_bytes.saturating_add(LOOKAHEAD);
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.start = 0;
            self.end = pending;
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= cap_limit {
                if self.buf[..self.end]
                    .iter()
                    .all(|&b| lexer::is_whitespace(b))
                {
                    // Whitespace and no token yet, as much as the limit:
                    // no game. It is dropped, as the whitespace of an
                    // input with no game is.
                    self.consume(self.end);
                    self.dropped_whitespace = true;
                    self.start = 0;
                    self.end = 0;
                } else {
                    return Err(self.too_large());
                }
            }
            let grown = if self.buf.is_empty() {
                INITIAL_BUFFER
            } else {
                self.buf.len().saturating_mul(2)
            };
            self.buf.resize(grown.min(cap_limit), 0);
        }
        while self.end < self.buf.len() {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(PgnError::Io {
                        game: self.index,
                        game_offset: self.offset,
                        line: self.line,
                        offset: self.offset + (self.end - self.start) as u64,
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::ControlFlow;

    /// Collects raw slices and start positions.
    #[derive(Default)]
    struct Raw {
        starts: Vec<GameStart>,
    }

    impl Visitor for Raw {
        type Output = Vec<u8>;
        fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
            self.starts.push(start);
            ControlFlow::Continue(())
        }
        fn end_game(&mut self, raw: &[u8]) -> Vec<u8> {
            raw.to_vec()
        }
    }

    /// Returns at most `n` bytes per call.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn read_all<R: Read>(reader: &mut PgnReader<R>) -> (Vec<Vec<u8>>, Vec<GameStart>) {
        let mut raw = Raw::default();
        let mut games = Vec::new();
        while let Some(g) = reader.read_game(&mut raw).unwrap() {
            games.push(g);
        }
        (games, raw.starts)
    }

    #[test]
    fn positions_and_raw() {
        let input = b"\xEF\xBB\xBF[A \"1\"]\r\n\r\n1. e4 1-0\r\n\r\n[A \"2\"]\r\n*\r\n\0";
        let (games, starts) = read_all(&mut PgnReader::new(&input[..]));
        assert_eq!(games.len(), 2);
        assert_eq!(games.concat(), input);
        assert_eq!(starts[1].index, 1);
        assert_eq!(starts[1].offset, games[0].len() as u64);
        assert_eq!(starts[1].line, 5);
    }

    #[test]
    fn small_buffers_and_short_reads() {
        let mut input = Vec::new();
        for i in 0..200 {
            input.extend(
                format!(
                    "[Event \"{i}\"]\n\n1. e4 {{{}}} e5 1-0\n\n",
                    "x".repeat(i * 37)
                )
                .bytes(),
            );
        }
        let (whole, _) = read_all(&mut PgnReader::new(&input[..]));
        assert_eq!(whole.len(), 200);
        for n in [1, 7, 4096] {
            let (games, _) = read_all(&mut PgnReader::new(Trickle(&input, n)));
            assert_eq!(games, whole);
        }
    }

    #[test]
    fn game_too_large() {
        let mut input = b"[A \"1\"]\n1. e4 {".to_vec();
        input.resize(100_000, b'x');
        input.extend(b"} 1-0\n[A \"2\"] *\n");
        let mut reader = PgnReader::new(&input[..]).with_max_game_bytes(50_000);
        let err = reader.read_game(&mut Raw::default()).unwrap_err();
        assert!(matches!(
            err,
            PgnError::GameTooLarge {
                game: 0,
                offset: 0,
                line: 1,
                limit: 50_000
            }
        ));
        let msg = err.to_string();
        assert!(
            msg.contains("50000") && msg.contains("max_game_bytes"),
            "{msg}"
        );
        // Exactly at the limit is fine.
        let first = input.len() - b"[A \"2\"] *\n".len();
        let mut reader = PgnReader::new(&input[..]).with_max_game_bytes(first);
        let (games, _) = read_all(&mut reader);
        assert_eq!(games.len(), 2);
    }

    /// A game over the limit is skipped to the next tag section after a
    /// blank line, its bytes handed over whole, and reading goes on.
    #[test]
    fn a_game_over_the_limit_is_skipped() {
        let mut big = b"[A \"1\"]\n\n1. e4 {".to_vec();
        big.extend(b"x\n[not a tag\n".repeat(20_000));
        big.extend(b"} 1-0\n\n");
        let next = b"[A \"2\"]\n\n1. d4 *\n";
        let input = [&big[..], next].concat();
        for n in [1, 4096, 1 << 20] {
            let mut reader = PgnReader::new(Trickle(&input, n)).with_max_game_bytes(50_000);
            let err = reader.read_game(&mut Raw::default()).unwrap_err();
            assert!(matches!(err, PgnError::GameTooLarge { game: 0, .. }));
            let mut skipped = Vec::new();
            let size = reader
                .skip_game(&mut |b| skipped.extend_from_slice(b))
                .unwrap();
            assert_eq!(skipped, big);
            assert_eq!(size, big.len() as u64);
            let (games, starts) = read_all(&mut reader);
            assert_eq!(games, [next.to_vec()]);
            assert_eq!(starts[0].index, 1);
            assert_eq!(starts[0].offset, big.len() as u64);
        }
    }

    /// The buffer grown for a huge game is given back after it, and the
    /// games read with it ahead of them come out whole.
    #[test]
    fn a_buffer_grown_for_a_huge_game_is_shrunk_after_it() {
        let mut huge = b"[A \"1\"]\n\n1. e4 {".to_vec();
        huge.resize(SHRINK_ABOVE + (1 << 20), b'x');
        huge.extend(b"} *\n\n");
        let small = b"[A \"2\"]\n\n1. d4 *\n\n";
        let mut input = huge.clone();
        for _ in 0..1000 {
            input.extend(small);
        }
        let mut reader = PgnReader::new(&input[..]);
        let mut raw = Raw::default();
        let first = reader.read_game(&mut raw).unwrap().unwrap();
        assert_eq!(first, huge);
        assert!(reader.buf.len() <= INITIAL_BUFFER.max(input.len() - huge.len()));
        assert!(reader.buf.len() < SHRINK_ABOVE);
        let (rest, starts) = read_all(&mut reader);
        assert_eq!(rest.len(), 1000);
        assert!(rest.iter().all(|g| g == small));
        assert_eq!(starts[0].offset, huge.len() as u64);
    }

    #[test]
    fn io_error() {
        struct Fail;
        impl Read for Fail {
            fn read(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let err = PgnReader::new(Fail)
            .read_game(&mut Raw::default())
            .unwrap_err();
        assert!(err.to_string().contains("disk on fire"));
        assert_eq!(err.game(), 0);
    }

    /// Whitespace beyond the game size limit holds no game: it is no
    /// error, and the game after it is read with its true position.
    #[test]
    fn whitespace_over_the_limit_is_no_game() {
        let mut input = vec![b'\n'; 300_000];
        assert!(
            read_all(&mut PgnReader::new(&input[..]).with_max_game_bytes(50_000))
                .0
                .is_empty()
        );
        input.extend(b"[A \"1\"]\n*\n");
        let (games, starts) = read_all(&mut PgnReader::new(&input[..]).with_max_game_bytes(50_000));
        assert_eq!(games.len(), 1);
        assert!(games[0].ends_with(b"[A \"1\"]\n*\n"));
        assert!(starts[0].offset > 0 && starts[0].line > 1);
        assert_eq!(starts[0].offset + games[0].len() as u64, input.len() as u64);
        assert_eq!(
            starts[0].line + games[0].iter().filter(|&&b| b == b'\n').count() as u64,
            300_000 + 3
        );
    }

    #[test]
    fn empty_and_whitespace_inputs() {
        assert!(read_all(&mut PgnReader::new(&b""[..])).0.is_empty());
        assert!(read_all(&mut PgnReader::new(&b"\r\n\0 "[..])).0.is_empty());
    }

    /// Records a game's events as text; a second `begin_game` for the same
    /// game (a restart) drops what was recorded.
    #[derive(Default)]
    struct Events(Vec<String>, Option<GameStart>);

    impl Events {
        /// Records an event: its kind and its bytes.
        fn note(&mut self, kind: &str, bytes: &[u8]) -> ControlFlow<()> {
            self.0
                .push(format!("{kind} {}", String::from_utf8_lossy(bytes)));
            ControlFlow::Continue(())
        }
    }

    impl Visitor for Events {
        type Output = (GameStart, Vec<String>, Vec<u8>);
        fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
            self.0.clear();
            self.1 = Some(start);
            ControlFlow::Continue(())
        }
        fn bom(&mut self) -> ControlFlow<()> {
            self.note("bom", b"")
        }
        fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
            self.note("tag", &[name, b"=", value].concat())
        }
        fn san(&mut self, token: &[u8]) -> ControlFlow<()> {
            self.note("san", token)
        }
        fn comment(&mut self, text: &[u8]) -> ControlFlow<()> {
            self.note("comment", text)
        }
        fn whitespace(&mut self, ws: &[u8]) -> ControlFlow<()> {
            self.note("ws", ws.len().to_string().as_bytes())
        }
        fn junk(&mut self, raw: &[u8]) -> ControlFlow<()> {
            self.note("junk", raw)
        }
        fn outcome(&mut self, raw: &[u8]) -> ControlFlow<()> {
            self.note("outcome", raw)
        }
        fn end_game(&mut self, raw: &[u8]) -> Self::Output {
            let start = self.1.take().unwrap_or_default();
            (start, std::mem::take(&mut self.0), raw.to_vec())
        }
    }

    /// Every game of `input` through `read_game` or `read_game_once`, `n`
    /// bytes a read, and the unclaimed whitespace.
    type Outputs = Vec<(GameStart, Vec<String>, Vec<u8>)>;
    fn events(input: &[u8], n: usize, once: bool, limit: usize) -> (Outputs, Vec<u8>) {
        let mut reader = PgnReader::new(Trickle(input, n)).with_max_game_bytes(limit);
        let mut v = Events::default();
        let mut out = Vec::new();
        loop {
            let g = if once {
                reader.read_game_once(&mut v)
            } else {
                reader.read_game(&mut v)
            };
            match g.unwrap() {
                Some(g) => out.push(g),
                None => return (out, reader.take_unclaimed()),
            }
        }
    }

    /// The one-pass reader reports the same games, events, positions and
    /// unclaimed whitespace as the scanning reader, whatever the size of
    /// the reads (games cut by the buffer's end are lexed again).
    #[test]
    fn one_pass_reads_what_two_passes_read() {
        let mut many = Vec::new();
        for i in 0..300 {
            many.extend(
                format!(
                    "[Event \"{i}\"]\r\n\r\n1. e4 {{{}}} e5 ; x\n% esc\n2. Nf3 junk?! 1-0\n\n",
                    "y".repeat(i * 53)
                )
                .bytes(),
            );
        }
        let inputs: [&[u8]; 7] = [
            b"\xEF\xBB\xBF[A \"1\"]\r\n\r\n1. e4 1-0\r\n\r\n[A \"2\"]\r\n*\r\n\0",
            b"",
            b"\r\n\0 ",
            b"1. e4 e5 1-0 2. d4 * [A \"1\"] [A \"2\"] 1. c4 {open",
            b"[A \"1\"]\n[B \"2\"]\n[A \"3\"]\n\n1. e4 (1. d4 (1. c4) d5) e5 *",
            b"  \n  [A \"1\"] 1. e4 *   \n\n\n",
            &many,
        ];
        for input in inputs {
            let want = events(input, 1 << 20, false, 1 << 20);
            for n in [1, 7, 300, 4096, 1 << 20] {
                let got = events(input, n, true, 1 << 20);
                assert_eq!(got, want, "reads of {n} bytes");
            }
        }
        // Games longer than the read-ahead that run past the buffer's end,
        // one of them past a buffer that must grow: lexed again.
        let small = b"[A \"s\"]\n\n1. e4 {"
            .iter()
            .chain(&[b'k'; 1000])
            .chain(b"} e5 *\n\n");
        let small: Vec<u8> = small.copied().collect();
        let long = |n: usize| {
            let mut g = b"[A \"l\"]\n\n1. e4 {".to_vec();
            g.resize(n, b'z');
            g.extend(b"} e5 (1... d5) *\n\n");
            g
        };
        let mut mixed = small.repeat(100);
        mixed.extend(long(200_000));
        mixed.extend(small.repeat(50));
        mixed.extend(long(3 * INITIAL_BUFFER));
        mixed.extend(small.repeat(10));
        assert_eq!(
            events(&mixed, 1000, true, 1 << 24),
            events(&mixed, 1000, false, 1 << 24)
        );
    }

    /// A game over the limit is the same error in one pass, and reading
    /// goes on after it is skipped.
    #[test]
    fn one_pass_game_too_large() {
        let mut input = b"[A \"1\"]\n1. e4 {".to_vec();
        input.resize(100_000, b'x');
        input.extend(b"} 1-0\n\n[A \"2\"] *\n");
        for n in [1, 4096, 1 << 20] {
            let mut reader = PgnReader::new(Trickle(&input, n)).with_max_game_bytes(50_000);
            let err = reader.read_game_once(&mut Events::default()).unwrap_err();
            assert!(matches!(
                err,
                PgnError::GameTooLarge {
                    game: 0,
                    offset: 0,
                    ..
                }
            ));
            reader.skip_game(&mut |_| {}).unwrap();
            let g = reader
                .read_game_once(&mut Events::default())
                .unwrap()
                .unwrap();
            assert_eq!(g.2, b"[A \"2\"] *\n");
            assert_eq!(g.0.index, 1);
        }
    }
}
