//! Hostile inputs to the libraries (issue 6): each ends in a positioned error
//! or correct handling, never a panic, and with bounded memory.
//!
//! Every input is generated here (the large ones are streamed from a
//! [`Read`] that makes them up on the fly, never held in memory). Memory is
//! the process's peak resident set (`VmHWM` in `/proc/self/status`); the
//! tests that measure it take [`HEAVY`] so they run one at a time, and each
//! checks the peak of the whole process against a bound, which therefore
//! holds for each of them. CLI-level hostile tests (random bytes to
//! `pgc decode`/`encode`, full disks, signals) are in
//! `pgc-cli/tests/hostile_cli.rs`.

use pgc_core::ReadError;
use pgc_core::Verifier;
use pgc_core::item::Items;
use pgc_core::{GameVisitor, GameWalker, Ply, Skip, WalkErrorKind};
use pgc_core::{Limits, Marker, OrdinalError, Reader, RecordRef};
use pgn_bridge::DecodeOptions;
use pgn_bridge::EncodeOptions;
use pgn_bridge::{Error, pgc_to_pgn, pgn_to_pgc};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::sync::Mutex;

/// Serialises the tests that measure memory.
static HEAVY: Mutex<()> = Mutex::new(());

const MIB: u64 = 1 << 20;

/// Peak resident memory of this process so far, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

fn assert_peak_below(bound: u64, what: &str) {
    let peak = peak_rss();
    eprintln!("{what}: peak resident memory {} MiB", peak / MIB);
    assert!(
        peak < bound,
        "{what}: peak resident memory {} MiB is over {} MiB",
        peak / MIB,
        bound / MIB
    );
}

/// An input of `head`, then `fill` repeated to `total` bytes, then `tail`,
/// made up as it is read.
struct Generated {
    head: Vec<u8>,
    fill: Vec<u8>,
    tail: Vec<u8>,
    /// Bytes of `fill` still to give.
    left: u64,
    pos: usize,
    phase: u8,
}

impl Generated {
    fn new(head: &[u8], fill: &[u8], fill_bytes: u64, tail: &[u8]) -> Generated {
        Generated {
            head: head.to_vec(),
            fill: fill.to_vec(),
            tail: tail.to_vec(),
            left: fill_bytes,
            pos: 0,
            phase: 0,
        }
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.phase {
                0 | 2 => {
                    let src = if self.phase == 0 {
                        &self.head
                    } else {
                        &self.tail
                    };
                    if self.pos < src.len() {
                        let n = buf.len().min(src.len() - self.pos);
                        buf[..n].copy_from_slice(&src[self.pos..self.pos + n]);
                        self.pos += n;
                        return Ok(n);
                    }
                    if self.phase == 2 {
                        return Ok(0);
                    }
                    self.phase = 1;
                    self.pos = 0;
                }
                _ => {
                    if self.left == 0 || self.fill.is_empty() {
                        self.phase = 2;
                        self.pos = 0;
                        continue;
                    }
                    let mut n = 0;
                    while n < buf.len() && self.left > 0 {
                        buf[n] = self.fill[self.pos];
                        self.pos = (self.pos + 1) % self.fill.len();
                        self.left -= 1;
                        n += 1;
                    }
                    return Ok(n);
                }
            }
        }
    }
}

/// A writer that only counts.
#[derive(Default)]
struct Count(u64);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn decode_err(pgc: &[u8]) -> pgc_core::WalkError {
    match pgc_to_pgn(pgc, io::sink(), &DecodeOptions::default()) {
        Err(Error::Walk(e)) => e,
        other => panic!("expected a walk error, got {other:?}"),
    }
}

fn encode(pgn: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let stats = pgn_to_pgc(pgn, &mut out, None, &EncodeOptions::default()).expect("encode");
    assert_eq!(stats.rejected, 0, "{:?}", stats.rejects);
    out
}

#[test]
fn a_string_4_claiming_4_gib_in_ten_bytes() {
    let _g = HEAVY.lock();
    // The item itself: a short read, nothing reserved.
    let ten = [0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6];
    let e = Items::new(&ten).string4().unwrap_err();
    assert_eq!((e.at, e.need), (0, 4 + 0xffff_ffff));
    // The only record with a 4-byte-range length is the extension record
    // (a LEB128 length up to 2^32 − 1): over the string limit, before any
    // allocation, naming the option.
    let bytes = [0x80, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0];
    let e = Reader::new(&bytes[..]).next_record().unwrap_err();
    assert!(matches!(
        e,
        ReadError::OverLimit {
            offset: 0,
            claimed: 0xffff_ffff,
            ..
        }
    ));
    assert!(e.to_string().contains("--max-string"), "{e}");
    // Raising the limit to the most a u32 allows turns it into truncation.
    let limits = Limits {
        max_string: u32::MAX,
        ..Limits::DEFAULT
    };
    let e = Reader::with_limits(&bytes[..], limits)
        .next_record()
        .unwrap_err();
    assert!(matches!(e, ReadError::Truncated { offset: 0, .. }), "{e}");
    let report = Verifier::new().limits(limits).verify(&bytes[..]).unwrap();
    assert_eq!(report.problems[0].offset, 0);
    assert_eq!(decode_err(&bytes).offset, 0);
    assert_peak_below(256 * MIB, "string-4 claiming 4 GiB");
}

#[test]
fn a_mvseq_2_claiming_65535_moves_followed_by_3_bytes() {
    let bytes = [0x05, 0x04, 0xff, 0xff, 1, 2, 3];
    let e = decode_err(&bytes);
    // Placed as the verifier places it (below): at the record, its marker.
    assert_eq!((e.offset, e.marker), (1, Some(Marker::LongMoves)));
    assert!(
        matches!(
            e.kind,
            WalkErrorKind::Read(ReadError::Truncated {
                offset: 1,
                need: 65_538,
                have: 6,
                ..
            })
        ),
        "{e}"
    );
    let report = Verifier::new().verify(&bytes[..]).unwrap();
    let p = &report.problems[0];
    assert_eq!((p.offset, p.marker), (1, Some(Marker::LongMoves)), "{p}");
}

#[test]
fn a_million_nested_rav_begins() {
    let _g = HEAVY.lock();
    // 1. e4 (1. e4 (1. e4 ( … a million times: each RAV replaces the move
    // before it, so every 0x08 is valid but for its depth.
    let mut bytes = vec![0x05, 0x03, 1, 13];
    for _ in 0..1_000_000 {
        bytes.extend([0x08, 0x03, 1, 13]);
    }
    // The walker (and so decode) stops at the limit, at the exact record.
    let e = decode_err(&bytes);
    assert_eq!(e.offset, 4 + 256 * 4, "{e}");
    assert!(e.to_string().contains("--max-rav-depth"), "{e}");
    // The verifier reports it and goes on to the end, without recursion.
    let report = Verifier::new().verify(&bytes[..]).unwrap();
    assert!(!report.is_ok());
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.to_string().contains("--max-rav-depth")),
        "{:?}",
        report.problems.first()
    );
    assert_peak_below(256 * MIB, "a million 0x08");
}

#[test]
fn a_million_nested_parentheses_in_pgn() {
    let _g = HEAVY.lock();
    // 1. e4 (1. e4 (1. e4 ( … a million times, never closed.
    let mut pgn = b"[Event \"deep\"]\n\n1. e4 ".to_vec();
    for _ in 0..1_000_000 {
        pgn.extend_from_slice(b"(1. e4 ");
    }
    // Never closed: the `[` of the next game ends this one.
    pgn.extend_from_slice(b" *\n\n[Event \"next\"]\n\n1. d4 *\n");
    let mut out = Vec::new();
    let stats = pgn_to_pgc(&pgn[..], &mut out, None, &EncodeOptions::default()).unwrap();
    assert_eq!((stats.games, stats.rejected), (2, 1));
    let reason = stats.rejects[0].reason.to_string();
    assert!(reason.contains("--max-rav-depth"), "{reason}");
    // The other game is kept.
    let mut back = Vec::new();
    pgc_to_pgn(&out[..], &mut back, &DecodeOptions::default()).unwrap();
    assert!(String::from_utf8_lossy(&back).contains("1. d4 *"));
    assert_peak_below(256 * MIB, "a million (");
}

#[test]
fn a_100_mb_comment_hits_the_game_size_limit() {
    let _g = HEAVY.lock();
    let input = Generated::new(
        b"[Event \"big\"]\n\n1. e4 {",
        b"x",
        100_000_000,
        b"} e5 *\n",
    );
    let e = pgn_to_pgc(input, Count::default(), None, &EncodeOptions::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("max_game_bytes") && msg.contains(&(64u64 << 20).to_string()),
        "{msg}"
    );
    // The buffer stops at the limit (64 MiB) instead of holding 100 MB.
    assert_peak_below(256 * MIB, "100 MB comment");
}

#[test]
fn a_50_mb_line_without_a_newline() {
    let _g = HEAVY.lock();
    // Many games on one line: the line length does not matter.
    let game = b"[Event \"x\"] 1. e4 e5 2. Nf3 Nc6 1-0 ";
    let games = 50_000_000 / game.len() as u64;
    let input = Generated::new(b"", game, games * game.len() as u64, b"");
    let stats = pgn_to_pgc(input, Count::default(), None, &EncodeOptions::default()).unwrap();
    assert_eq!((stats.games, stats.rejected), (games, 0));
    // One 50 MB token: one game (under the 64 MiB limit), rejected whole.
    let input = Generated::new(b"1. ", b"e", 50_000_000, b" *");
    let stats = pgn_to_pgc(input, Count::default(), None, &EncodeOptions::default()).unwrap();
    assert_eq!((stats.games, stats.rejected), (1, 1));
    assert_peak_below(256 * MIB, "50 MB line");
}

#[test]
fn pgn_full_of_nul_bytes() {
    // NUL is whitespace to the lexer: no game at all.
    let input = Generated::new(b"", b"\0", 10_000_000, b"");
    let stats = pgn_to_pgc(input, Count::default(), None, &EncodeOptions::default()).unwrap();
    assert_eq!(stats.games, 0);
    // NULs around and inside a game.
    let pgn = b"\0\0[Event \"a\"]\0\n1. e4\0e5 *\0\0";
    let mut out = Vec::new();
    let stats = pgn_to_pgc(&pgn[..], &mut out, None, &EncodeOptions::default()).unwrap();
    assert_eq!((stats.games, stats.rejected), (1, 0));
}

#[test]
fn a_pgc_that_ends_inside_a_record() {
    let pgc = encode(include_bytes!("../../samples/opera.pgn"));
    // Record boundaries.
    let mut starts = vec![];
    let mut r = Reader::new(&pgc[..]);
    while let Some((at, _)) = r.next_record().unwrap() {
        starts.push(at);
    }
    for cut in 1..pgc.len() {
        let bytes = &pgc[..cut];
        let report = Verifier::new().verify(bytes).unwrap();
        assert!(!report.is_ok(), "cut at {cut}: nothing reported");
        let e = decode_err(bytes);
        let record = *starts.iter().rfind(|&&s| s < cut as u64).unwrap();
        if !starts.contains(&(cut as u64)) {
            // Inside a record: truncation of that record.
            assert!(
                matches!(e.kind, WalkErrorKind::Read(ReadError::Truncated { offset, .. }) if offset == record),
                "cut at {cut}: {e}"
            );
            assert_eq!(e.offset, record);
        } else {
            // Between records, inside the game.
            assert_eq!(e.offset, cut as u64, "cut at {cut}: {e}");
        }
    }
}

/// Byte offset and 1-based ply of every main-line ordinal of one game, with
/// the number of legal moves before it.
#[derive(Default)]
struct Ordinals {
    record: Option<(u64, u64)>,
    next: u64,
    depth: u32,
    found: Vec<(u64, u32, usize)>,
}

impl GameVisitor for Ordinals {
    fn wants_san(&self) -> bool {
        false
    }
    fn record(&mut self, offset: u64, rec: &RecordRef<'_>) {
        let head = match rec {
            RecordRef::ShortMoves(_) => 2,
            RecordRef::LongMoves(_) => 3,
            _ => return,
        };
        self.record = Some((offset, head));
        self.next = offset + head;
    }
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        self.depth += 1;
        ControlFlow::Continue(Skip(false))
    }
    fn end_variation(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn play(&mut self, ply: &Ply<'_>) -> ControlFlow<()> {
        use shakmaty::Position;
        if self.depth == 0 {
            self.found.push((
                self.next,
                ply.depth,
                ply.before.map_or(0, |b| b.legal_moves().len()),
            ));
        }
        self.next += 1;
        ControlFlow::Continue(())
    }
}

#[test]
fn an_ordinal_beyond_the_legal_count_at_every_ply_of_a_real_game() {
    let pgc = encode(include_bytes!("../../samples/opera.pgn"));
    let mut v = Ordinals::default();
    assert!(GameWalker::new(&pgc[..]).walk_game(&mut v).unwrap());
    assert!(v.found.len() > 30, "{}", v.found.len());
    for &(at, ply, legal) in &v.found {
        let mut bad = pgc.clone();
        bad[at as usize] = u8::try_from(legal).unwrap();
        let report = Verifier::new().verify(&bad[..]).unwrap();
        let p = &report.problems[0];
        assert_eq!((p.offset, p.game, p.ply), (at, Some(0), Some(ply)), "{p}");
        let e = decode_err(&bad);
        assert_eq!((e.offset, e.game, e.ply), (at, 0, ply), "{e}");
        assert!(
            matches!(e.kind, WalkErrorKind::Ordinal(OrdinalError::OutOfRange { ordinal, legal: l }) if usize::from(ordinal) == legal && l == legal),
            "{e}"
        );
    }
}
