//! PGN input cut into batches of whole games for the worker threads of
//! `pgc encode` and `pgc export`: the splitter finds where each game ends
//! (the lexer's scanner, no token read), keeps the games before the damage
//! of a damaged compressed input, moves past a game over
//! `--max-game-bytes` without holding it, and keeps the whitespace of an
//! input with no game.

use crate::error::{Damage, Error, Result};
use crate::io::DamageWatch;
use pgn_bridge::{GameStart, PgnError, PgnReader, Reject, RejectReason, Skip, Visitor};
use std::io::Read;
use std::ops::ControlFlow;

/// A batch is cut after the game that brings it to this many bytes…
pub(crate) const BATCH_BYTES: usize = 256 << 10;
/// …or this many games.
pub(crate) const BATCH_GAMES: usize = 2000;
/// A batch of whole PGN games and where it starts in its input.
pub(crate) struct Job {
    pub(crate) data: Vec<u8>,
    pub(crate) start: GameStart,
    /// The game the damage of a compressed input cut (or may have cut):
    /// rejected whole, after the batch's games.
    pub(crate) cut: Option<(Reject, Vec<u8>)>,
    /// The message about that damage, for the batch that reached it.
    pub(crate) damage: Option<String>,
    /// A game over `--max-game-bytes` after the batch's games: rejected,
    /// its text (with `--rejects`) in a temporary file.
    pub(crate) oversized: Option<Oversized>,
    /// The whitespace of an input with no game, kept verbatim.
    pub(crate) unclaimed: Vec<u8>,
}

/// A batch over this many bytes (a game of more than 1 MiB) is converted
/// alone ([`crate::batch::run_ordered`]): nothing else is read or converted
/// while it is, so one huge game at most is in memory.
pub(crate) const ALONE_BYTES: usize = 1 << 20;

impl Job {
    /// Whether the batch is converted alone (it holds a game of more than
    /// [`ALONE_BYTES`] - [`BATCH_BYTES`]).
    pub(crate) fn alone(&self) -> bool {
        self.data.len() > ALONE_BYTES
    }
}

/// A game over `--max-game-bytes`: never held in memory.
pub(crate) struct Oversized {
    pub(crate) reject: Reject,
    /// Its text, with `--rejects`.
    pub(crate) text: Option<std::fs::File>,
    pub(crate) size: u64,
}

/// The splitter's visitor: copies each game's bytes into the batch. It stops
/// every game at its start, so the lexer reports no token of it.
struct CopyRaw<'a> {
    batch: &'a mut Vec<u8>,
    first: &'a mut Option<GameStart>,
    last: &'a mut GameStart,
    /// The start of the game being read.
    start: GameStart,
}

impl CopyRaw<'_> {
    /// A game was read: its start and bytes join the batch.
    fn keep(&mut self, start: GameStart, raw: &[u8]) {
        if self.first.is_none() {
            *self.first = Some(start);
        }
        *self.last = start;
        self.batch.extend_from_slice(raw);
    }
}

impl Visitor for CopyRaw<'_> {
    type Output = ();

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        // The reader has found the game's end: `end_game` follows.
        self.start = start;
        ControlFlow::Break(())
    }

    fn end_game(&mut self, raw: &[u8]) {
        self.keep(self.start, raw);
    }
}

/// How the splitter reads one game into the batch: the default only copies
/// it (its tokens are read by a worker); [`Converting`] also converts it
/// as it is read.
type ReadGame<'s, R> =
    dyn FnMut(&mut PgnReader<R>, CopyRaw<'_>) -> std::result::Result<Option<()>, PgnError> + 's;

/// The splitter's visitor when the games are converted on the reading
/// thread (with one job, or while the workers are busy): each game is lexed once, by [`PgnReader::read_game_once`],
/// its tokens going to `inner`, and copied into the batch; `each` gets the
/// game's start, its offset in the batch and `inner`'s output. A game that
/// reaches the damage of a damaged input is copied but not handed to
/// `each`: the splitter cuts it from the batch and rejects it.
///
/// A game that runs past the reader's buffer is begun a second time (the
/// reader scans it first, then reports it): it is then only copied, and
/// converted from the copy, at once, or, over [`ALONE_BYTES`], after its
/// batch is cut (`deferred`; such a game ends its batch), once the reader
/// has given back the buffer it grew for it, as with more jobs.
struct Converting<'a, V: Visitor, F> {
    copy: CopyRaw<'a>,
    inner: &'a mut V,
    damage: Option<&'a DamageWatch>,
    each: &'a mut F,
    /// The huge game to convert after the batch: its start and offset in
    /// the batch.
    deferred: &'a mut Option<(GameStart, usize)>,
    /// The game begun and not yet ended.
    begun: Option<GameStart>,
    /// The game being read was begun before: copy it only.
    again: bool,
}

impl<'a, V: Visitor, F> Converting<'a, V, F> {
    fn new(
        copy: CopyRaw<'a>,
        inner: &'a mut V,
        damage: Option<&'a DamageWatch>,
        each: &'a mut F,
        deferred: &'a mut Option<(GameStart, usize)>,
    ) -> Self {
        Converting {
            copy,
            inner,
            damage,
            each,
            deferred,
            begun: None,
            again: false,
        }
    }
}

/// Converts the games of `games` (whole games, the first at `start`, `at`
/// bytes into its batch) with `inner`, handing each to `each`.
fn convert_copied<V: Visitor>(
    games: &[u8],
    start: GameStart,
    at: usize,
    inner: &mut V,
    each: &mut impl FnMut(GameStart, usize, V::Output, &mut V),
) {
    pgn_bridge::internals::lex_games(games, start, inner, |this, output, inner| {
        each(
            this,
            at + (this.offset - start.offset) as usize,
            output,
            inner,
        );
    });
}

impl<V: Visitor, F: FnMut(GameStart, usize, V::Output, &mut V)> Visitor for Converting<'_, V, F> {
    type Output = ();

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        self.again = self.begun == Some(start);
        self.begun = Some(start);
        if self.again {
            return ControlFlow::Break(());
        }
        self.inner.begin_game(start)
    }
    fn bom(&mut self) -> ControlFlow<()> {
        self.inner.bom()
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.inner.tag(name, value)
    }
    fn end_tags(&mut self) -> ControlFlow<()> {
        self.inner.end_tags()
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.inner.begin_movetext()
    }
    fn move_number(&mut self, number: u32, dots: u8, raw: &[u8]) -> ControlFlow<()> {
        self.inner.move_number(number, dots, raw)
    }
    fn san(&mut self, token: &[u8]) -> ControlFlow<()> {
        self.inner.san(token)
    }
    fn en_passant_marker(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.inner.en_passant_marker(raw)
    }
    fn nag_token(&mut self, raw: &[u8], nag: u32, is_suffix: bool) -> ControlFlow<()> {
        self.inner.nag_token(raw, nag, is_suffix)
    }
    fn nag(&mut self, nag: u32, is_suffix: bool) -> ControlFlow<()> {
        self.inner.nag(nag, is_suffix)
    }
    fn comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.inner.comment(text)
    }
    fn line_comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.inner.line_comment(text)
    }
    fn escape_line(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.inner.escape_line(text)
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.inner.begin_variation()
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.inner.end_variation()
    }
    fn outcome(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.inner.outcome(raw)
    }
    fn whitespace(&mut self, ws: &[u8]) -> ControlFlow<()> {
        self.inner.whitespace(ws)
    }
    fn junk(&mut self, raw: &[u8]) -> ControlFlow<()> {
        self.inner.junk(raw)
    }

    fn end_game(&mut self, raw: &[u8]) {
        let Some(start) = self.begun.take() else {
            return;
        };
        let again = std::mem::take(&mut self.again);
        let at = self.copy.batch.len();
        self.copy.keep(start, raw);
        if reaches_damage(self.damage, start.offset + raw.len() as u64) {
            // The splitter cuts it from the batch and rejects it (`inner`
            // starts afresh at the next game).
            return;
        }
        if !again {
            let output = self.inner.end_game(raw);
            (self.each)(start, at, output, self.inner);
        } else if raw.len() > ALONE_BYTES {
            *self.deferred = Some((start, at));
        } else {
            convert_copied(raw, start, at, self.inner, self.each);
        }
    }
}

/// The next batch for the reading thread to convert: each game converted
/// by `inner` as it is read ([`Converting`]) and handed to `each` with its start and offset in
/// the batch; a huge game that ran past the reader's buffer is converted
/// last, once the reader has given back the buffer it grew for it.
///
/// # Errors
/// As [`next_batch`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn next_batch_converted<R: Read, V: Visitor>(
    reader: &mut PgnReader<R>,
    name: &str,
    damage: Option<&DamageWatch>,
    keep_oversized: bool,
    last_game: Option<u64>,
    inner: &mut V,
    each: &mut impl FnMut(GameStart, usize, V::Output, &mut V),
) -> Result<Option<Job>> {
    let mut deferred = None;
    let job = next_batch_with(
        reader,
        name,
        damage,
        keep_oversized,
        last_game,
        &mut |r, copy| {
            r.read_game_once(&mut Converting::new(
                copy,
                &mut *inner,
                damage,
                &mut *each,
                &mut deferred,
            ))
        },
    )?;
    if let Some(job) = &job
        && let Some((start, at)) = deferred.filter(|&(_, at)| at < job.data.len())
    {
        // A huge game ends its batch.
        convert_copied(&job.data[at..], start, at, inner, each);
    }
    Ok(job)
}

/// Whether the data read up to input offset `end` reaches the damage of a
/// damaged compressed input (the reader reads ahead, so the damage is
/// known before the game that reaches it is read): that game may be cut
/// short, its end never seen.
fn reaches_damage(damage: Option<&DamageWatch>, end: u64) -> bool {
    damage
        .and_then(DamageWatch::end)
        .is_some_and(|damage_end| end >= damage_end)
}

pub(crate) fn pgn_error(name: &str, e: &PgnError) -> Error {
    match e {
        PgnError::GameTooLarge {
            game,
            offset,
            line,
            limit,
        } => Error::Data(format!(
            "{name}: game {} at byte {offset} (line {line}) is larger than {limit} bytes; \
             look for an unterminated {{ comment or tag near that line, or raise the limit with --max-game-bytes",
            game + 1
        )),
        PgnError::Io { source, .. } => Error::io(name, source),
        other => Error::Data(format!("{name}: {other}")),
    }
}

/// The message for a damaged compressed input, the last game before the
/// damage ending at `kept_end`, `kept` games kept.
fn damage_message(name: &str, d: &Damage, kept: u64, kept_end: u64, cut: bool) -> String {
    let cut = if cut {
        format!(
            "; game {} (from byte {kept_end}) is cut there and rejected",
            kept + 1
        )
    } else {
        String::new()
    };
    format!(
        "{name}: {d}; the {kept} games before decompressed byte {kept_end} are kept{cut}, \
         the rest of the file is not read"
    )
}

/// Moves past a game over the size limit (`err`), its text going to a
/// temporary file when `keep` (for the rejects file).
fn skip_oversized<R: Read>(
    reader: &mut PgnReader<R>,
    err: &PgnError,
    keep: bool,
    name: &str,
) -> Result<Oversized> {
    let PgnError::GameTooLarge {
        game,
        offset,
        line,
        limit,
    } = *err
    else {
        return Err(pgn_error(name, err));
    };
    let mut file = if keep {
        Some(tempfile::tempfile().map_err(|e| {
            Error::Io(format!(
                "{name}: cannot make a temporary file for a game over --max-game-bytes: {e}"
            ))
        })?)
    } else {
        None
    };
    let mut failed = None;
    let size = reader
        .skip_game(&mut |bytes| {
            if let (Some(f), None) = (file.as_mut(), &failed) {
                failed = std::io::Write::write_all(f, bytes).err();
            }
        })
        .map_err(|e| pgn_error(name, &e))?;
    if let Some(e) = failed {
        return Err(Error::Io(format!(
            "{name}: cannot keep a game over --max-game-bytes in a temporary file: {e}"
        )));
    }
    if let Some(f) = file.as_mut() {
        std::io::Seek::rewind(f).map_err(|e| Error::io(name, &e))?;
    }
    Ok(Oversized {
        reject: Reject {
            game,
            line,
            offset,
            ply: 0,
            token: None,
            reason: RejectReason::TooLarge { limit, size },
        },
        text: file,
        size,
    })
}

/// Reads past the games before game `first` (0-based) without keeping
/// them; `false` when the input ends before it.
///
/// # Errors
/// I/O, or a game over the size limit.
pub(crate) fn skip_to<R: Read>(reader: &mut PgnReader<R>, first: u64, name: &str) -> Result<bool> {
    while reader.games_read() < first {
        match reader.read_game(&mut SkipGame) {
            Ok(Some(())) => {}
            Ok(None) => return Ok(false),
            Err(e) => return Err(pgn_error(name, &e)),
        }
    }
    Ok(true)
}

/// The splitter's visitor for a game left out: nothing kept.
struct SkipGame;

impl Visitor for SkipGame {
    type Output = ();

    fn begin_game(&mut self, _start: GameStart) -> ControlFlow<()> {
        ControlFlow::Break(())
    }

    fn end_game(&mut self, _raw: &[u8]) {}
}

/// The next batch of whole games, up to game `last` (0-based; all when
/// `None`), or `None` at the end. The games before the damage of
/// `damage` are kept and the game it cuts is rejected; a game over the
/// limit is moved past, its text in a temporary file when
/// `keep_oversized`.
///
/// # Errors
/// I/O, or a game over the size limit that cannot be moved past.
pub(crate) fn next_batch<R: Read>(
    reader: &mut PgnReader<R>,
    name: &str,
    damage: Option<&DamageWatch>,
    keep_oversized: bool,
    last_game: Option<u64>,
) -> Result<Option<Job>> {
    next_batch_with(
        reader,
        name,
        damage,
        keep_oversized,
        last_game,
        &mut |r, mut copy| r.read_game(&mut copy),
    )
}

/// [`next_batch`], each game read into the batch by `read`.
///
/// # Errors
/// As [`next_batch`].
fn next_batch_with<R: Read>(
    reader: &mut PgnReader<R>,
    name: &str,
    damage: Option<&DamageWatch>,
    keep_oversized: bool,
    last_game: Option<u64>,
    read: &mut ReadGame<'_, R>,
) -> Result<Option<Job>> {
    let mut data = Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2));
    let mut first = None;
    let mut last = GameStart::default();
    let mut games = 0;
    let mut cut = None;
    let mut message = None;
    let mut oversized = None;
    let mut unclaimed = Vec::new();
    let until = last_game.unwrap_or(u64::MAX);
    while data.len() < BATCH_BYTES && games < BATCH_GAMES && reader.games_read() <= until {
        let before = data.len();
        let copy = CopyRaw {
            batch: &mut data,
            first: &mut first,
            last: &mut last,
            start: GameStart::default(),
        };
        let read = match read(reader, copy) {
            Ok(read) => read,
            Err(e @ PgnError::GameTooLarge { .. }) => {
                let o = skip_oversized(reader, &e, keep_oversized, name)?;
                if first.is_none() {
                    first = Some(GameStart {
                        index: o.reject.game,
                        offset: o.reject.offset,
                        line: o.reject.line,
                    });
                }
                oversized = Some(o);
                break;
            }
            Err(e) => return Err(pgn_error(name, &e)),
        };
        // The data ends at the damage: the game that reaches it may be cut
        // short (its end was never seen), so it is not converted.
        let reached = damage.and_then(DamageWatch::end).is_some()
            && (read.is_none() || reaches_damage(damage, reader.offset()));
        if let Some(d) = damage.filter(|_| reached).and_then(DamageWatch::take) {
            let end = reader.offset();
            let (kept, kept_end) = match read {
                Some(()) => (last.index, last.offset),
                None => (reader.games_read(), end),
            };
            message = Some(damage_message(name, &d, kept, kept_end, read.is_some()));
            if read.is_some() {
                let raw = data.split_off(before);
                let what = d.to_string();
                let reject = Reject {
                    game: last.index,
                    line: last.line,
                    offset: last.offset,
                    ply: 0,
                    token: None,
                    reason: RejectReason::DamagedInput { what },
                };
                cut = Some((reject, raw));
                if data.is_empty() {
                    first = Some(last);
                }
            }
            break;
        }
        if read.is_none() {
            unclaimed = reader.take_unclaimed();
            if first.is_none() && !unclaimed.is_empty() {
                first = Some(GameStart {
                    index: 0,
                    offset: 0,
                    line: 1,
                });
            }
            break;
        }
        games += 1;
    }
    if first.is_none() && message.is_some() {
        // No game before the damage in this batch: a batch of none carries
        // the message.
        first = Some(GameStart {
            index: reader.games_read(),
            offset: reader.offset(),
            line: 0,
        });
    }
    Ok(first.map(|start| Job {
        data,
        start,
        cut,
        damage: message,
        oversized,
        unclaimed,
    }))
}
