//! `pgc decode`: PGC → PGN export format.
//!
//! Batches of whole games ([`crate::batch`]) are decoded on worker threads
//! with a [`GameWalker`](pgc_core::GameWalker) and a [`Decoder`] and written in input order.

use crate::args::{DecodeArgs, DecodeFormat};
use crate::batch::{Batch, Done, Duplicates, Parts, PgcBatches, walk_batch};
use crate::error::{Result, Status};
use crate::select::{KeptGame, Select, Selection, pgn_duplicate};
use pgc_core::Limits;
use pgc_core::VariantPosition;
use pgc_core::ext::ExtError;
use pgc_core::ext::ExtKind;
use pgc_core::record::RecordRef;
use pgc_core::{GameInfo, GameVisitor, Ply, Skip};
use pgn_bridge::JsonlWriter;
use pgn_bridge::{DecodeOptions, Decoder};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A [`GameVisitor`] that counts plies and forwards everything to `inner`,
/// a renderer under a selection, writing its text out in parts ([`Parts`])
/// when the batch runs alone.
struct PlyCount<'a, 'p, R> {
    /// The visitor.
    inner: Select<'a, R>,
    /// Moves played (main lines, variations and null moves).
    plies: u64,
    parts: Parts<'p>,
    /// Text was written out since the last whole game.
    parted: bool,
}

impl<R: Render> PlyCount<'_, '_, R> {
    /// Offers the text made so far to [`Parts`] (only without a selection,
    /// which may drop the game at its end).
    fn part(&mut self, flow: ControlFlow<()>) -> ControlFlow<()> {
        flow?;
        if !self.parts.streams() {
            return flow;
        }
        match self.inner.inner.text_to_write() {
            Some(text) => {
                let before = text.len();
                let f = self.parts.offer(text);
                self.parted |= text.len() < before;
                f
            }
            None => flow,
        }
    }
}

impl<R: Render> GameVisitor for PlyCount<'_, '_, R> {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.inner.begin_game(info)
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.inner.tag(name, value)
    }
    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.inner.begin_moves(start)
    }
    fn wants_san(&self) -> bool {
        self.inner.wants_san()
    }
    fn wants_before(&self) -> bool {
        self.inner.wants_before()
    }
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        self.plies += 1;
        let f = self.inner.play(ply);
        self.part(f)
    }
    fn null_move(&mut self, before: &VariantPosition, spelling: &[u8]) -> ControlFlow<()> {
        self.plies += 1;
        let f = self.inner.null_move(before, spelling);
        self.part(f)
    }
    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        let f = self.inner.nag(nag);
        self.part(f)
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.inner.begin_variation()
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        let f = self.inner.end_variation();
        self.part(f)
    }
    fn escape(&mut self, text: &[u8]) -> ControlFlow<()> {
        let f = self.inner.escape(text);
        self.part(f)
    }
    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        let f = self.inner.extension(kind, payload);
        self.part(f)
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
    /// Verbatim records written so far (text kept as read).
    fn verbatim(&self) -> u64 {
        0
    }
    /// The text that may be written out before the game ends, if any.
    fn text_to_write(&mut self) -> Option<&mut Vec<u8>>;
    /// The payload the last game's codec refused, if any.
    fn take_error(&mut self) -> Option<ExtError>;
    /// Where the last game's own text starts in [`Render::text`], after
    /// the text kept as read before it; `None`: right after the text
    /// before it (the previous game's).
    fn game_start(&self) -> Option<usize> {
        None
    }
}

impl Render for Decoder {
    fn text(&mut self) -> &mut Vec<u8> {
        Decoder::text(self)
    }
    fn verbatim(&self) -> u64 {
        self.verbatim_written()
    }
    fn text_to_write(&mut self) -> Option<&mut Vec<u8>> {
        Decoder::text_to_write(self)
    }
    fn take_error(&mut self) -> Option<ExtError> {
        Decoder::take_error(self)
    }
    fn game_start(&self) -> Option<usize> {
        Some(Decoder::game_start(self))
    }
}

impl Render for JsonlWriter {
    fn text(&mut self) -> &mut Vec<u8> {
        JsonlWriter::text(self)
    }
    fn text_to_write(&mut self) -> Option<&mut Vec<u8>> {
        JsonlWriter::text_to_write(self)
    }
    fn take_error(&mut self) -> Option<ExtError> {
        JsonlWriter::take_error(self)
    }
}

/// Decodes a batch to PGN, adding to `tags_with_newlines` the tag values
/// written with spaces for newlines.
fn decode_batch(
    b: Batch,
    parts: Parts<'_>,
    opts: DecodeOptions,
    limits: Limits,
    sel: &Selection,
    notes: &Notes,
) -> Done {
    let (done, dec) = decode_batch_with(b, parts, limits, sel, Decoder::new(opts));
    notes
        .tags_with_newlines
        .fetch_add(dec.tags_with_newlines, Ordering::Relaxed);
    if !dec.outside_unwritten.is_empty()
        && let Ok(mut all) = notes.outside_unwritten.lock()
    {
        for (what, n) in dec.outside_unwritten {
            *all.entry(what).or_insert(0) += n;
        }
    }
    done
}

/// What `pgc decode` reports once every batch is done.
#[derive(Default)]
struct Notes {
    /// Tag values written with spaces for newlines.
    tags_with_newlines: AtomicU64,
    /// Records outside games with no PGN text there, by kind.
    outside_unwritten: Mutex<BTreeMap<String, u64>>,
}

impl Notes {
    /// The lines to print before the summary, if any.
    fn lines(&self) -> Option<String> {
        let mut lines = Vec::new();
        lines.extend(newlines_note(
            self.tags_with_newlines.load(Ordering::Relaxed),
        ));
        if let Ok(unwritten) = self.outside_unwritten.lock() {
            lines.extend(unwritten_note(&unwritten));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// The line `pgc decode` prints when records outside games had no PGN text
/// there and were not written.
fn unwritten_note(kinds: &BTreeMap<String, u64>) -> Option<String> {
    let n: u64 = kinds.values().sum();
    (n > 0).then(|| {
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} ({n})")).collect();
        format!(
            "{n} record(s) outside games have no PGN text there and were not written: {}; \
             `pgc dump` shows them",
            list.join(", ")
        )
    })
}

/// Decodes a batch with `inner` under the selection `sel`: the text of a
/// game `sel` does not select is dropped, and with `--dedup` each game
/// written is listed in [`Done::kept`]. Without a selection, the text of a
/// batch that runs alone is written out in parts as it is made.
fn decode_batch_with<R: Render>(
    b: Batch,
    parts: Parts<'_>,
    limits: Limits,
    sel: &Selection,
    inner: R,
) -> (Done, R) {
    let mut walker = b.walker(limits);
    let active = sel.is_active();
    let verbatim_before = inner.verbatim();
    let mut v = PlyCount {
        inner: Select::new(inner, sel),
        plies: 0,
        parts: if active { Parts::held() } else { parts },
        parted: false,
    };
    *v.inner.inner.text() = crate::batch::output_buffer();
    let mut games = 0;
    let mut good = 0;
    let mut kept = Vec::new();
    let error = walk_batch(
        &mut walker,
        &mut v,
        |v| v.inner.inner.take_error(),
        |v, whole_game| {
            games += u64::from(whole_game);
            v.parted = false;
            let s = &mut v.inner;
            if active && whole_game && s.dropped {
                s.inner.text().truncate(good);
                return;
            }
            let start = good;
            good = s.inner.text().len();
            if let (true, Some(key)) = (whole_game, s.last_key) {
                kept.push(KeptGame {
                    game: s.game(),
                    key,
                    start,
                    own: s.inner.game_start().unwrap_or(start).clamp(start, good),
                    end: good,
                });
            }
        },
    );
    let write_error = v.parts.take_failure();
    let mut pgn = std::mem::take(v.inner.inner.text());
    // Drop the text of a game cut short by an error (what is left of it
    // when part of it was written out).
    pgn.truncate(if v.parted { 0 } else { good });
    let done = Done {
        out: pgn,
        games,
        plies: v.plies,
        // A selection writes games only.
        verbatim: if active {
            0
        } else {
            v.inner.inner.verbatim() - verbatim_before
        },
        bytes_in: b.data.len() as u64,
        error,
        kept,
        write_error,
    };
    (done, v.inner.inner)
}

/// Runs `pgc decode`.
///
/// # Errors
/// Usage, I/O, invalid PGC (positioned).
pub fn run(a: &DecodeArgs) -> Result<Status> {
    let limits = a.batch.limits.pgc_limits();
    let opts = DecodeOptions {
        strict_export: a.strict_export,
        export: a.export,
        limits,
    };
    let format = a.format;
    let sel = a.select.selection();
    crate::batch::check_duplicates(
        a.select.duplicates.as_deref(),
        sel.dedup,
        a.batch.output.output.as_deref(),
    )?;
    let batches = PgcBatches {
        command: "decode",
        args: &a.batch,
        dedup: sel.dedup.map(|_| Duplicates {
            path: a.select.duplicates.as_deref(),
            write: match format {
                DecodeFormat::Pgn => pgn_duplicate,
                DecodeFormat::Jsonl => jsonl_duplicate,
            },
        }),
        header: b"",
    };
    let notes = Notes::default();
    batches.run_noting(
        |b, parts| match format {
            DecodeFormat::Pgn => decode_batch(b, parts, opts, limits, &sel, &notes),
            DecodeFormat::Jsonl => decode_batch_with(b, parts, limits, &sel, JsonlWriter::new()).0,
        },
        || notes.lines(),
    )
}

/// The `--duplicates` line of a JSONL game: a `"duplicate_of"` member
/// first, the 1-based number of the game it duplicates (in the game's own
/// object, from `own` in `text`).
fn jsonl_duplicate(text: &[u8], own: usize, first: u64, to: &mut Vec<u8>) {
    let own = own.min(text.len());
    let at = text[own..]
        .iter()
        .position(|&b| b == b'{')
        .map_or(own, |i| own + i + 1);
    to.extend_from_slice(&text[..at]);
    to.extend_from_slice(format!("\"duplicate_of\":{},", first + 1).as_bytes());
    to.extend_from_slice(&text[at..]);
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
            Parts::held(),
            DecodeOptions::default(),
            Limits::default(),
            &Selection::default(),
            &Notes::default(),
        );
        let e = d.error.unwrap();
        assert_eq!((e.offset, e.game), (6, 1));
        assert_eq!(d.games, 1);
    }
}
