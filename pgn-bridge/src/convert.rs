//! One-call conversions over the streaming parts.

use crate::decode::{DecodeOptions, Decoder};
use crate::encode::{EncodeOptions, Encoder, GameOutput, Losses, Reject};
use crate::error::Error;
use crate::pgn_error::PgnError;
use crate::reader::PgnReader;
use pgc_core::GameWalker;
use pgc_core::ext;
use pgc_core::{Reader, Writer};
use std::io::{self, Read, Write};

/// Counts of a PGN → PGC conversion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncodeStats {
    /// Games read.
    pub games: u64,
    /// Games converted.
    pub encoded: u64,
    /// Games rejected (kept verbatim in the rejects output).
    pub rejected: u64,
    /// Games whose text will be reproduced byte for byte.
    pub identical: u64,
    /// Plies converted.
    pub plies: u64,
    /// PGN bytes read.
    pub bytes_in: u64,
    /// PGC bytes written.
    pub bytes_out: u64,
    /// What strict mode could not keep.
    pub losses: Losses,
    /// The first rejects (at most 100), for reports.
    pub rejects: Vec<Reject>,
}

impl EncodeStats {
    /// Adds the counts of another run.
    pub fn add(&mut self, o: &EncodeStats) {
        self.games += o.games;
        self.encoded += o.encoded;
        self.rejected += o.rejected;
        self.identical += o.identical;
        self.plies += o.plies;
        self.bytes_in += o.bytes_in;
        self.bytes_out += o.bytes_out;
        self.losses.add(&o.losses);
        for r in &o.rejects {
            if self.rejects.len() < 100 {
                self.rejects.push(r.clone());
            }
        }
    }
}

/// Writes one rejected game to a rejects file: a `%` escape line with the
/// reason (so the file stays valid PGN), then the game's bytes verbatim.
///
/// # Errors
/// I/O.
pub fn write_reject(
    out: &mut dyn Write,
    source: &str,
    reject: &Reject,
    raw: &[u8],
) -> io::Result<()> {
    writeln!(out, "% pgc: rejected {source}: {reject}")?;
    out.write_all(raw)?;
    if !raw.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Encodes PGN games to PGC, one game at a time.
pub struct PgnToPgc<R: Read> {
    reader: PgnReader<R>,
    encoder: Encoder,
}

impl<R: Read> PgnToPgc<R> {
    /// A converter over `input`, its games up to `opts.max_game_bytes`.
    pub fn new(input: R, opts: &EncodeOptions) -> PgnToPgc<R> {
        let reader = PgnReader::new(input);
        PgnToPgc {
            reader: match opts.max_game_bytes {
                0 => reader,
                limit => reader.with_max_game_bytes(limit),
            },
            encoder: Encoder::new(*opts),
        }
    }

    /// Converts the next game; `Ok(None)` at the end. On success the PGC
    /// bytes are in [`Self::game_bytes`].
    ///
    /// # Errors
    /// Reading failed or a game exceeds the size limit.
    pub fn next_game(&mut self) -> Result<Option<GameOutput>, PgnError> {
        // The encoder starts each game afresh: one pass over each game.
        self.reader.read_game_once(&mut self.encoder)
    }

    /// The PGC bytes of the last converted game.
    pub fn game_bytes(&self) -> &[u8] {
        self.encoder.take_game()
    }

    /// The verbatim PGN of the last game, when it was rejected.
    pub fn rejected_raw(&self) -> &[u8] {
        self.encoder.take_game()
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.reader.offset()
    }
}

/// Converts PGN from `input` to PGC on `output`. Games that cannot be
/// converted are kept as read at their place in the output (a verbatim
/// record; not with `opts.strict`), go to `rejects` (when given) and are
/// counted.
///
/// # Errors
/// I/O, or a game larger than the reader's limit.
pub fn pgn_to_pgc<R: Read, W: Write>(
    input: R,
    output: W,
    mut rejects: Option<&mut dyn Write>,
    opts: &EncodeOptions,
) -> Result<EncodeStats, Error> {
    let mut conv = PgnToPgc::new(input, opts);
    let mut w = Writer::new(output);
    let mut stats = EncodeStats::default();
    while let Some(out) = conv.next_game()? {
        stats.games += 1;
        match out {
            GameOutput::Encoded {
                plies,
                identical,
                losses,
            } => {
                stats.encoded += 1;
                stats.plies += plies;
                stats.identical += u64::from(identical);
                stats.losses.add(&losses);
                w.raw(conv.game_bytes())?;
            }
            GameOutput::Rejected(r) => {
                stats.rejected += 1;
                if !opts.strict {
                    // Kept at its place, as read (verbatim records).
                    ext::verbatim::write_with(conv.rejected_raw(), opts.max_payload(), |b| {
                        w.raw(b)
                    })?;
                }
                if let Some(out) = rejects.as_deref_mut() {
                    write_reject(out, "input", &r, conv.rejected_raw())?;
                }
                if stats.rejects.len() < 100 {
                    stats.rejects.push(r);
                }
            }
        }
    }
    // An input with no game: its whitespace, kept at its place.
    let unclaimed = conv.reader.take_unclaimed();
    if !unclaimed.is_empty() && !opts.strict {
        ext::verbatim::write_with(&unclaimed, opts.max_payload(), |b| w.raw(b))?;
    }
    stats.bytes_in = conv.offset();
    stats.bytes_out = w.bytes_written();
    w.finish()?;
    Ok(stats)
}

/// Counts of a PGC → PGN conversion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Games written.
    pub games: u64,
    /// PGC bytes read.
    pub bytes_in: u64,
    /// PGN bytes written.
    pub bytes_out: u64,
    /// Tag values that held a newline, which a PGN tag line cannot hold,
    /// written with a space in its place.
    pub tags_with_newlines: u64,
}

/// Converts PGC from `input` to PGN export format on `output`, read with
/// `opts.limits`.
///
/// # Errors
/// Invalid PGC or a refused extension payload (positioned), or I/O.
pub fn pgc_to_pgn<R: Read, W: Write>(
    input: R,
    mut output: W,
    opts: &DecodeOptions,
) -> Result<DecodeStats, Error> {
    let mut walker = GameWalker::from_reader(Reader::with_limits(input, opts.limits));
    let mut dec = Decoder::new(*opts);
    let mut stats = DecodeStats::default();
    loop {
        let walked = walker.walk_game(&mut dec);
        // A refused payload comes before any later error of the same walk.
        if let Some(e) = dec.take_error() {
            return Err(e.into());
        }
        if !walked? {
            break;
        }
        stats.games += 1;
        let text = dec.text();
        if text.len() >= 64 * 1024 {
            output.write_all(text)?;
            stats.bytes_out += text.len() as u64;
            text.clear();
        }
    }
    let text = dec.text();
    output.write_all(text)?;
    stats.bytes_out += text.len() as u64;
    text.clear();
    output.flush()?;
    stats.bytes_in = walker.offset();
    stats.tags_with_newlines = dec.tags_with_newlines;
    Ok(stats)
}
