//! PGN → PGC on several threads: the input is cut into batches of whole
//! games by the PGN reader (which only finds where games end), and each
//! batch is lexed and encoded on its own thread, as `pgc encode -j N`
//! does; the PGC is the same for every number of threads.

use pgc_core::Limits;
use pgc_core::ext::verbatim;
use pgn_bridge::internals::lex_games;
use pgn_bridge::{
    EncodeOptions, Encoder, GameOutput, GameStart, PgnError, PgnReader, Reject, Visitor,
};
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes of PGN per batch, about.
const BATCH_BYTES: usize = 256 << 10;

/// The splitter's visitor: copies each game's bytes into the batch and
/// notes where its first game starts. It stops every game at its start, so
/// the reader only finds where it ends.
struct CopyRaw {
    batch: Vec<u8>,
    first: Option<GameStart>,
}

impl Visitor for CopyRaw {
    type Output = ();

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        if self.first.is_none() {
            self.first = Some(start);
        }
        ControlFlow::Break(())
    }

    fn end_game(&mut self, raw: &[u8]) {
        self.batch.extend_from_slice(raw);
    }
}

/// The batches of `pgn`: each whole games' bytes and its first game.
fn batches(pgn: &[u8], max_game_bytes: usize) -> Result<Vec<(GameStart, Vec<u8>)>, PgnError> {
    let mut reader = PgnReader::new(pgn).with_max_game_bytes(max_game_bytes);
    let mut out = Vec::new();
    loop {
        let mut v = CopyRaw {
            batch: Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2)),
            first: None,
        };
        let mut more = true;
        while v.batch.len() < BATCH_BYTES {
            if reader.read_game(&mut v)?.is_none() {
                more = false;
                break;
            }
        }
        if let Some(first) = v.first {
            out.push((first, v.batch));
        }
        if !more {
            return Ok(out);
        }
    }
}

/// The games PGN → PGC could not convert: how many, and the first few
/// in the command line's words (`game 4 (line 40, byte 909), ply 3 (line
/// 48, byte 1024): …`).
#[derive(Debug, Default)]
pub(crate) struct Rejected {
    pub(crate) count: u64,
    pub(crate) first: Vec<String>,
}

/// How many rejected games a warning names.
const NAMED: usize = 10;

impl Rejected {
    fn add(&mut self, r: &Reject) {
        self.count += 1;
        if self.first.len() < NAMED {
            self.first.push(r.to_string());
        }
    }

    fn merge(&mut self, later: Rejected) {
        self.count += later.count;
        let room = NAMED.saturating_sub(self.first.len());
        self.first.extend(later.first.into_iter().take(room));
    }
}

/// The games of one batch, encoded, and those rejected.
fn encode_batch(batch: &[u8], start: GameStart, opts: EncodeOptions) -> (Vec<u8>, Rejected) {
    let mut enc = Encoder::new(opts);
    let mut pgc = Vec::with_capacity(batch.len() / 3);
    let mut rejected = Rejected::default();
    lex_games(batch, start, &mut enc, |_, output, enc| match output {
        GameOutput::Encoded { .. } => enc.append_game_to(&mut pgc),
        GameOutput::Rejected(r) => {
            rejected.add(&r);
            if !opts.strict {
                verbatim::write(&mut pgc, enc.take_game(), opts.max_payload());
            }
        }
    });
    (pgc, rejected)
}

/// PGN → PGC on `threads` threads (at least 2; one thread is
/// `pgn_to_pgc`), and the games rejected.
pub(crate) fn encode_par(
    pgn: &[u8],
    opts: &EncodeOptions,
    threads: usize,
) -> Result<(Vec<u8>, Rejected), PgnError> {
    let work = batches(pgn, opts.max_game_bytes)?;
    let slots: Vec<Mutex<(Vec<u8>, Rejected)>> = work.iter().map(|_| Mutex::default()).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.min(work.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((start, batch)) = work.get(i) else {
                        break;
                    };
                    let done = encode_batch(batch, *start, *opts);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = done;
                    }
                }
            });
        }
    });
    let mut out = Vec::with_capacity(pgn.len() / 3);
    let mut rejected = Rejected::default();
    for slot in slots {
        let (pgc, r) = slot.into_inner().unwrap_or_default();
        out.extend_from_slice(&pgc);
        rejected.merge(r);
    }
    Ok((out, rejected))
}

/// PGN → PGC on `threads` threads (0: one per core), and the games
/// rejected (kept as read, or left out when `strict`): among them, those
/// whose RAVs nest deeper than `limits.max_rav_depth` or with a payload
/// over `limits.max_string`, which a reader with `limits` would refuse.
pub(crate) fn encode_pgn(
    pgn: &[u8],
    strict: bool,
    threads: usize,
    limits: Limits,
) -> Result<(Vec<u8>, Rejected), pgn_bridge::Error> {
    // The whole input is in memory already: a game may be as large as it
    // (the limit bounds the memory of a reader of a stream).
    let opts = EncodeOptions {
        strict,
        max_rav_depth: limits.max_rav_depth,
        max_string: limits.max_string,
        max_game_bytes: pgn.len().max(pgn_bridge::DEFAULT_MAX_GAME_BYTES),
    };
    let threads = crate::threads::thread_count(threads);
    if threads > 1 && pgn.len() > 1 << 20 {
        return Ok(encode_par(pgn, &opts, threads)?);
    }
    let mut out = Vec::with_capacity(pgn.len() / 3);
    let stats = pgn_bridge::pgn_to_pgc(pgn, &mut out, None, &opts)?;
    let rejected = Rejected {
        count: stats.rejected,
        first: stats
            .rejects
            .iter()
            .take(NAMED)
            .map(ToString::to_string)
            .collect(),
    };
    Ok((out, rejected))
}
