//! `pgc decode`: PGC → PGN export format.
//!
//! Batches of whole games ([`crate::batch`]) are decoded on worker threads
//! with a [`GameWalker`] and a [`Decoder`] and written in input order.

use crate::args::{DecodeArgs, DecodeFormat};
use crate::batch::{Batch, Done, PgcBatches, walk_batch};
use crate::error::{Result, Status};
use pgc_core::ext::ExtError;
use pgc_core::record::RecordRef;
use pgc_core::{GameInfo, GameVisitor, GameWalker, Ply, Variation};
use pgc_core::{Limits, Reader as PgcReader};
use pgn_bridge::JsonlWriter;
use pgn_bridge::{DecodeOptions, Decoder};
use shakmaty::Chess;
use std::sync::atomic::{AtomicU64, Ordering};

/// A [`GameVisitor`] that counts plies and forwards everything to `inner`.
pub struct PlyCount<V> {
    /// The visitor.
    pub inner: V,
    /// Moves played (main lines, variations and null moves).
    pub plies: u64,
}

impl<V: GameVisitor> GameVisitor for PlyCount<V> {
    fn begin_game(&mut self, info: &GameInfo) {
        self.inner.begin_game(info);
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) {
        self.inner.tag(name, value);
    }
    fn begin_moves(&mut self, start: &Chess) {
        self.inner.begin_moves(start);
    }
    fn wants_san(&self) -> bool {
        self.inner.wants_san()
    }
    fn wants_before(&self) -> bool {
        self.inner.wants_before()
    }
    fn play(&mut self, ply: &Ply<'_>) {
        self.plies += 1;
        self.inner.play(ply);
    }
    fn null_move(&mut self, before: &Chess, spelling: &[u8]) {
        self.plies += 1;
        self.inner.null_move(before, spelling);
    }
    fn nag(&mut self, nag: u8) {
        self.inner.nag(nag);
    }
    fn begin_variation(&mut self) -> Variation {
        self.inner.begin_variation()
    }
    fn end_variation(&mut self) {
        self.inner.end_variation();
    }
    fn escape(&mut self, text: &[u8]) {
        self.inner.escape(text);
    }
    fn extension(&mut self, kind: u8, payload: &[u8]) {
        self.inner.extension(kind, payload);
    }
    fn end_game(&mut self) {
        self.inner.end_game();
    }
    fn outside(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.inner.outside(offset, record);
    }
    fn record(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.inner.record(offset, record);
    }
}

/// A visitor that renders games as text.
trait Render: GameVisitor {
    fn text(&mut self) -> &mut Vec<u8>;
    /// The payload the last game's codec refused, if any.
    fn take_error(&mut self) -> Option<ExtError>;
}

impl Render for Decoder {
    fn text(&mut self) -> &mut Vec<u8> {
        Decoder::text(self)
    }
    fn take_error(&mut self) -> Option<ExtError> {
        Decoder::take_error(self)
    }
}

impl Render for JsonlWriter {
    fn text(&mut self) -> &mut Vec<u8> {
        JsonlWriter::text(self)
    }
    fn take_error(&mut self) -> Option<ExtError> {
        JsonlWriter::take_error(self)
    }
}

/// Decodes a batch to PGN, adding to `tags_with_newlines` the tag values
/// written with spaces for newlines.
fn decode_batch(
    b: Batch,
    opts: DecodeOptions,
    limits: Limits,
    tags_with_newlines: &AtomicU64,
) -> Done {
    let (done, dec) = decode_batch_with(b, limits, Decoder::new(opts));
    tags_with_newlines.fetch_add(dec.tags_with_newlines, Ordering::Relaxed);
    done
}

fn decode_batch_with<V: Render>(b: Batch, limits: Limits, inner: V) -> (Done, V) {
    let mut walker = GameWalker::from_reader(PgcReader::with_limits(&b.data[..], limits));
    let mut v = PlyCount { inner, plies: 0 };
    let mut games = 0;
    let mut good = 0;
    let error = walk_batch(&mut walker, &mut v, &b, |v| {
        let e = v.inner.take_error();
        if e.is_none() {
            games += 1;
            good = v.inner.text().len();
        }
        e
    });
    let mut pgn = std::mem::take(v.inner.text());
    // Drop the text of a game cut short by an error.
    pgn.truncate(good);
    let done = Done {
        out: pgn,
        games,
        plies: v.plies,
        bytes_in: b.data.len() as u64,
        error,
    };
    (done, v.inner)
}

/// Runs `pgc decode`.
///
/// # Errors
/// Usage, I/O, invalid PGC (positioned).
pub fn run(a: &DecodeArgs) -> Result<Status> {
    let opts = DecodeOptions {
        strict_export: a.strict_export,
    };
    let limits = a.batch.limits.pgc_limits();
    let format = a.format;
    let batches = PgcBatches {
        command: "decode",
        args: &a.batch,
    };
    let tags_with_newlines = AtomicU64::new(0);
    batches.run_noting(
        |b| match format {
            DecodeFormat::Pgn => decode_batch(b, opts, limits, &tags_with_newlines),
            DecodeFormat::Jsonl => decode_batch_with(b, limits, JsonlWriter::new()).0,
        },
        || newlines_note(tags_with_newlines.load(Ordering::Relaxed)),
    )
}

/// The line `pgc decode` prints before its summary when `n` tag values held
/// a newline, which a PGN tag line cannot hold.
fn newlines_note(n: u64) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} tag value(s) held a newline, which a PGN tag line cannot hold; each \
             newline was written as a space (`pgc verify` lists them)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::PgcSplitter;

    #[test]
    fn a_framing_error_keeps_its_position() {
        let mut input = vec![0x05, 0x03, 1, 13, 0x06];
        input.extend([0x05, 0x0b, 0x06]);
        let mut s = PgcSplitter::new(&input[..], Limits::default());
        let b = s.next_batch().unwrap().unwrap();
        let d = decode_batch(
            b,
            DecodeOptions::default(),
            Limits::default(),
            &AtomicU64::new(0),
        );
        let e = d.error.unwrap();
        assert_eq!((e.offset, e.game), (6, 1));
        assert_eq!(d.games, 1);
    }
}
