//! `pgc info`: games, plies, records per marker, extension records per kind,
//! bytes per ply, and the size of the PGN the file decodes to (decoded into
//! a counting sink, in the same single pass).

use crate::args::InfoArgs;
use crate::error::{Error, Result, Status};
use crate::io::Input;
use crate::progress::say;
use pgc_core::Reader;
use pgc_core::VariantPosition;
use pgc_core::ext;
use pgc_core::ext::ExtKind;
use pgc_core::record::{Marker, RecordRef};
use pgc_core::{GameInfo, GameVisitor, GameWalker, Ply, Skip};
use pgn_bridge::{CommentStats, DecodeOptions, Decoder};
use std::collections::BTreeMap;
use std::io::Write;
use std::ops::ControlFlow;

/// Counts of one input.
#[derive(Default)]
struct Counts {
    games: u64,
    reduced: u64,
    plies: u64,
    bytes: u64,
    pgn_bytes: u64,
    records: BTreeMap<u8, u64>,
    extensions: BTreeMap<u8, u64>,
    comments: CommentStats,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.games += o.games;
        self.reduced += o.reduced;
        self.plies += o.plies;
        self.bytes += o.bytes;
        self.pgn_bytes += o.pgn_bytes;
        for (k, v) in &o.records {
            *self.records.entry(*k).or_default() += v;
        }
        for (k, v) in &o.extensions {
            *self.extensions.entry(*k).or_default() += v;
        }
        self.comments.merge(&o.comments);
    }
}

/// Counts records and plies, decodes into a buffer that is only measured.
struct Count {
    dec: Decoder,
    c: Counts,
}

impl Count {
    fn drain(&mut self) {
        let t = self.dec.text();
        self.c.pgn_bytes += t.len() as u64;
        t.clear();
        self.c.comments.merge(&self.dec.comment_stats);
        self.dec.comment_stats = CommentStats::default();
    }
}

impl GameVisitor for Count {
    fn begin_game(&mut self, info: &GameInfo) -> ControlFlow<()> {
        self.c.games += 1;
        self.c.reduced += u64::from(info.reduced);
        self.dec.begin_game(info)
    }
    fn tag(&mut self, name: &[u8], value: &[u8]) -> ControlFlow<()> {
        self.dec.tag(name, value)
    }
    fn begin_moves(&mut self, start: &VariantPosition) -> ControlFlow<()> {
        self.dec.begin_moves(start)
    }
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        self.c.plies += 1;
        self.dec.play(ply)
    }
    fn null_move(&mut self, before: &VariantPosition, spelling: &[u8]) -> ControlFlow<()> {
        self.c.plies += 1;
        self.dec.null_move(before, spelling)
    }
    fn nag(&mut self, nag: u8) -> ControlFlow<()> {
        self.dec.nag(nag)
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.dec.begin_variation()
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.dec.end_variation()
    }
    fn escape(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.dec.escape(text)
    }
    fn extension(&mut self, kind: ExtKind, payload: &[u8]) -> ControlFlow<()> {
        self.dec.extension(kind, payload)
    }
    fn end_game(&mut self) {
        self.dec.end_game();
        self.drain();
    }
    fn outside(&mut self, offset: u64, record: &RecordRef<'_>) {
        self.dec.outside(offset, record);
    }
    fn record(&mut self, offset: u64, rec: &RecordRef<'_>) {
        self.dec.record(offset, rec);
        *self.c.records.entry(rec.marker() as u8).or_default() += 1;
        if let RecordRef::Extension { kind, .. } = rec {
            *self.c.extensions.entry(*kind).or_default() += 1;
        }
    }
}

fn print(out: &mut impl Write, name: &str, c: &Counts) -> std::io::Result<()> {
    writeln!(out, "{name}:")?;
    writeln!(
        out,
        "  games        {} ({} reduced 0x01, {} general 0x05)",
        c.games,
        c.reduced,
        c.games - c.reduced
    )?;
    writeln!(out, "  plies        {}", c.plies)?;
    writeln!(out, "  PGC bytes    {}", c.bytes)?;
    if c.plies > 0 {
        writeln!(out, "  bytes/ply    {:.2}", c.bytes as f64 / c.plies as f64)?;
    }
    if c.games > 0 {
        writeln!(out, "  bytes/game   {:.1}", c.bytes as f64 / c.games as f64)?;
    }
    write!(out, "  PGN bytes    {} (decoded)", c.pgn_bytes)?;
    if c.pgn_bytes > 0 {
        write!(
            out,
            "; PGC is {:.1}% of it",
            c.bytes as f64 * 100.0 / c.pgn_bytes as f64
        )?;
    }
    writeln!(out)?;
    writeln!(out, "  records")?;
    for (&m, n) in &c.records {
        let name = Marker::from_byte(m).map_or("?", Marker::name);
        writeln!(out, "    0x{m:02x} {name:<14} {n}")?;
    }
    if !c.extensions.is_empty() {
        writeln!(out, "  extension records")?;
        for (&k, n) in &c.extensions {
            writeln!(out, "    0x{k:02x} {:<14} {n}", ext::kind_name(k))?;
        }
    }
    let cs = &c.comments;
    if cs.typed + cs.notes + cs.text > 0 {
        writeln!(
            out,
            "  comments     {} ({} as typed commands, {} as engine notes, {} as text)",
            cs.typed + cs.notes + cs.text,
            cs.typed,
            cs.notes,
            cs.text
        )?;
        if cs.notes + cs.engine_like_text > 0 {
            writeln!(
                out,
                "    engine notes {} typed ({} move lists kept as text: they do not replay), \
                 {} engine-like comments kept as text (not right after a move, NAG or comment)",
                cs.notes, cs.notes_moves_as_text, cs.engine_like_text
            )?;
        }
        for (name, (typed, text)) in &cs.commands {
            let name = format!("[%{}]", String::from_utf8_lossy(name));
            writeln!(out, "    {name:<12} {typed} typed, {text} in text")?;
        }
    }
    Ok(())
}

/// Runs `pgc info`.
///
/// # Errors
/// Usage and I/O; an invalid file gives [`Status::Problems`] with the counts
/// up to the problem.
pub fn run(a: &InfoArgs) -> Result<Status> {
    let inputs = Input::list(&a.inputs);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut total = Counts::default();
    let mut status = Status::Ok;
    for input in &inputs {
        let mut walker = GameWalker::from_reader(Reader::with_limits(
            input.open_pgc()?,
            a.limits.pgc_limits(),
        ));
        let mut dec = Decoder::new(DecodeOptions::default());
        dec.count_commands = true;
        let mut v = Count {
            dec,
            c: Counts::default(),
        };
        let err = loop {
            match walker.walk_game(&mut v) {
                // A refused payload stops the counts as a walking error does.
                Ok(true) => {
                    if let Some(e) = v.dec.take_error() {
                        break Some(pgc_core::WalkError::from(e));
                    }
                }
                Ok(false) => break None,
                Err(e) => break Some(e),
            }
        };
        // Text written after the last game (a rejected game kept as read).
        v.drain();
        v.c.bytes = walker.offset();
        print(&mut out, &input.name, &v.c).map_err(|e| Error::io("stdout", &e))?;
        if let Some(e) = err {
            out.flush().map_err(|e| Error::io("stdout", &e))?;
            say(&format!(
                "{}: counts stop at {e}; run `pgc verify {}` for every problem",
                input.name, input.name
            ));
            status = Status::Problems;
        }
        total.add(&v.c);
    }
    if inputs.len() > 1 {
        print(&mut out, "total", &total).map_err(|e| Error::io("stdout", &e))?;
    }
    out.flush().map_err(|e| Error::io("stdout", &e))?;
    Ok(status)
}
