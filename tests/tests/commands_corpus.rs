//! Embedded commands over the real-world corpus (`$PGC_CORPUS`, default
//! `../shared/corpus` next to the workspace root).
//!
//! 1. Every comment of every corpus file: [`parse_comment`] parts concatenate
//!    to the comment, and whenever [`encode_comment`] types it, [`render`]
//!    gives the exact bytes back. The fraction of comments typed is printed
//!    per file; the Lichess files must be typed in full.
//! 2. Sizes: the Lichess archive and the other clock files are encoded to PGC
//!    with today's encoder (comments as text records), then rewritten the way
//!    the integrated encoder will write them: the comments that are typed and
//!    come right after an anchor (a move, null move, NAG or text comment)
//!    leave the record stream, and one commands record
//!    ([`GameCommands`], kind `ext::CLOCKS`) goes after the game's `0x05` (and
//!    its layout record). Each record is read back with
//!    [`GameCommandsReader`] and must render every removed comment exactly.
//!    Sizes, with and without `zstd -19`, are printed.
//!
//! Run with `cargo test -p pgc-tests --test commands_corpus -- --nocapture`
//! to see the numbers.

use std::ops::ControlFlow;
use std::process::Command;

use pgc_core::internals::write_moves;
use pgc_core::record::{RecordRef, frame};
use pgc_core::{Limits, ext};
use pgc_tests::{corpus_dir, corpus_files, read_corpus_file};
use pgn_bridge::PgnReader;
use pgn_bridge::Visitor;
use pgn_bridge::commands::{
    GameCommands, GameCommandsReader, Part, RenderAt, TypedComment, encode_comment_into,
    parse_comment, render,
};

/// `zstd -19` size of `data`, if the command runs.
fn zstd19(data: &[u8], name: &str) -> Option<usize> {
    let tmp = std::env::temp_dir().join(format!("pgc-commands-{}-{name}", std::process::id()));
    std::fs::write(&tmp, data).ok()?;
    let out = Command::new("zstd")
        .args(["-19", "-q", "-c"])
        .arg(&tmp)
        .output()
        .ok();
    let _ = std::fs::remove_file(&tmp);
    out.filter(|o| o.status.success()).map(|o| o.stdout.len())
}

/// Checks every comment of the games it visits.
#[derive(Default)]
struct Comments {
    total: u64,
    with_command: u64,
    typed: u64,
    typed_with_command: u64,
    typed_bytes: u64,
    bytes: u64,
    typed_c: TypedComment,
    rendered: Vec<u8>,
    untyped_examples: Vec<Vec<u8>>,
}

impl Visitor for Comments {
    type Output = ();

    fn comment(&mut self, text: &[u8]) -> ControlFlow<()> {
        self.total += 1;
        self.bytes += text.len() as u64;
        let mut joined = Vec::with_capacity(text.len());
        let mut commands = false;
        for p in parse_comment(text) {
            commands |= matches!(p, Part::Command { .. });
            joined.extend_from_slice(p.raw());
        }
        assert_eq!(joined, text, "parts must concatenate to the comment");
        if commands {
            self.with_command += 1;
        }
        if encode_comment_into(text, &mut self.typed_c) {
            self.rendered.clear();
            render(&self.typed_c, &mut self.rendered);
            assert_eq!(
                self.rendered,
                text,
                "render(encode_comment(c)) != c for {:?}",
                String::from_utf8_lossy(text)
            );
            self.typed += 1;
            self.typed_bytes += text.len() as u64;
            if commands {
                self.typed_with_command += 1;
            }
        } else if commands && self.untyped_examples.len() < 3 {
            let t = text.iter().take(80).copied().collect();
            if !self.untyped_examples.contains(&t) {
                self.untyped_examples.push(t);
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _raw: &[u8]) {}
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

#[test]
fn every_corpus_comment_round_trips() {
    let Some(dir) = corpus_dir() else { return };
    let paths = corpus_files(&dir);
    let mut all = Comments::default();
    for path in &paths {
        let data = read_corpus_file(path);
        let mut c = Comments::default();
        let mut reader = PgnReader::new(&data[..]);
        while reader.read_game(&mut c).unwrap().is_some() {}
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        if c.with_command > 0 {
            eprintln!(
                "{name}: {} comments, {} with commands, typed {} ({:.1}% of all, {:.1}% of those with commands)",
                c.total,
                c.with_command,
                c.typed,
                pct(c.typed, c.total),
                pct(c.typed_with_command, c.with_command)
            );
            for ex in &c.untyped_examples {
                eprintln!("    kept as text: {:?}", String::from_utf8_lossy(ex));
            }
        }
        if name.contains("lichess-org__database") {
            assert_eq!(c.typed, c.total, "{name}: every Lichess comment is typed");
        }
        all.total += c.total;
        all.with_command += c.with_command;
        all.typed += c.typed;
        all.typed_with_command += c.typed_with_command;
        all.bytes += c.bytes;
        all.typed_bytes += c.typed_bytes;
    }
    eprintln!(
        "corpus: {} files, {} comments ({} bytes), {} with commands; typed {} ({:.1}% of those with commands, {} bytes)",
        paths.len(),
        all.total,
        all.bytes,
        all.with_command,
        all.typed,
        pct(all.typed_with_command, all.with_command),
        all.typed_bytes
    );
}

/// What the rewrite found.
#[derive(Default, Debug)]
struct Rewrite {
    pgc: Vec<u8>,
    comments: u64,
    typed: u64,
    record_bytes: u64,
}

/// Rewrites `pgc` (comments as text records) the way the integrated encoder
/// writes it, and checks every commands record by reading it back.
fn rewrite(pgc: &[u8]) -> Rewrite {
    let limits = Limits::DEFAULT;
    let mut w = Rewrite::default();
    let mut pos = 0;
    // Per game.
    let mut head: Vec<u8> = Vec::new();
    let mut body: Vec<u8> = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    let mut game = GameCommands::new();
    let mut removed: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut typed = TypedComment::new();
    // Anchors (moves, null moves, NAGs, text comments) so far, and whether
    // the last item stored is one.
    let mut anchors = 0u64;
    let mut after_anchor = false;
    let mut in_game = false;
    let mut payload = Vec::new();
    while pos < pgc.len() {
        let (rec, len) = frame(&pgc[pos..], &limits).expect("PGC from the encoder frames");
        let raw = &pgc[pos..pos + len];
        pos += len;
        if !in_game {
            match rec {
                RecordRef::GameBegin => {
                    in_game = true;
                    head.clear();
                    head.push(0x05);
                    body.clear();
                    run.clear();
                    game.clear();
                    removed.clear();
                    anchors = 0;
                    after_anchor = false;
                }
                _ => w.pgc.extend_from_slice(raw),
            }
            continue;
        }
        match rec {
            RecordRef::ShortMoves(m) | RecordRef::LongMoves(m) => {
                run.extend_from_slice(m);
                anchors += m.len() as u64;
                after_anchor = !m.is_empty() || after_anchor;
                continue;
            }
            RecordRef::Extension {
                kind: ext::COMMENT,
                payload: text,
            } => {
                w.comments += 1;
                if after_anchor
                    && anchors > 0
                    && encode_comment_into(text, &mut typed)
                    && game.push(anchors - 1, &typed)
                {
                    removed.push((anchors - 1, text.to_vec()));
                    continue;
                }
            }
            RecordRef::Extension {
                kind: ext::LAYOUT, ..
            } if head.len() == 1 && body.is_empty() && run.is_empty() => {
                head.extend_from_slice(raw);
                continue;
            }
            _ => {}
        }
        write_moves(&mut body, &run);
        run.clear();
        after_anchor = matches!(
            rec,
            RecordRef::Nag(_)
                | RecordRef::Extension {
                    kind: ext::COMMENT | ext::NULL_MOVE | ext::LONG_NAG,
                    ..
                }
        );
        if after_anchor {
            anchors += 1;
        }
        if matches!(rec, RecordRef::GameEnd) {
            in_game = false;
            w.pgc.extend_from_slice(&head);
            if !game.is_empty() {
                payload.clear();
                game.to_payload(&mut payload);
                let before = w.pgc.len();
                RecordRef::Extension {
                    kind: ext::CLOCKS,
                    payload: &payload,
                }
                .write_to(&mut w.pgc)
                .unwrap();
                w.record_bytes += (w.pgc.len() - before) as u64;
                w.typed += game.len();
                // The decoder's view: after every anchor, render its comment.
                let mut r = GameCommandsReader::from_payload(&payload).unwrap();
                let mut it = removed.iter();
                let mut next = it.next();
                let mut out = Vec::new();
                for m in 0..anchors {
                    out.clear();
                    let has = r.render_at(m, &mut out);
                    match next {
                        Some((cm, text)) if *cm == m => {
                            assert!(has, "anchor {m} lost its comment");
                            assert_eq!(&out, text, "anchor {m}");
                            next = it.next();
                        }
                        _ => assert!(!has, "anchor {m} got a comment"),
                    }
                }
                assert!(next.is_none());
            }
            w.pgc.extend_from_slice(&body);
            w.pgc.extend_from_slice(raw);
            continue;
        }
        body.extend_from_slice(raw);
    }
    w
}

#[test]
fn sizes_with_typed_comments() {
    let Some(dir) = corpus_dir() else { return };
    let files = [
        "lichess-org__database/2017-05.pgn.zst",
        "bhlangonijr__chesslib/src/test/resources/cup.pgn.zst",
        "notnil__chess/fixtures/pgns/0005.pgn",
        "notnil__chess/fixtures/pgns/0004.pgn",
    ];
    for name in files {
        let path = dir.join(name);
        if !path.exists() {
            eprintln!("skipping {name}: not in the corpus");
            continue;
        }
        let pgn = read_corpus_file(&path);
        let mut pgc = Vec::new();
        let stats = pgn_bridge::pgn_to_pgc(&pgn[..], &mut pgc, None, &Default::default()).unwrap();
        let w = rewrite(&pgc);
        let text_comment_bytes = pgc.len() as i64 - w.pgc.len() as i64 + w.record_bytes as i64;
        eprintln!(
            "{name}: {} games, PGN {} bytes; PGC today {} ({:.1}%); with typed comments {} ({:.1}%)",
            stats.games,
            pgn.len(),
            pgc.len(),
            pct(pgc.len() as u64, pgn.len() as u64),
            w.pgc.len(),
            pct(w.pgc.len() as u64, pgn.len() as u64),
        );
        eprintln!(
            "    {} of {} comments typed; commands records {} bytes = {:.2} bytes per typed comment (text records and run splits cost {:.2})",
            w.typed,
            w.comments,
            w.record_bytes,
            w.record_bytes as f64 / w.typed.max(1) as f64,
            text_comment_bytes as f64 / w.typed.max(1) as f64,
        );
        if let (Some(zpgn), Some(zold), Some(znew)) = (
            zstd19(&pgn, "pgn"),
            zstd19(&pgc, "old"),
            zstd19(&w.pgc, "new"),
        ) {
            eprintln!(
                "    zstd -19: PGN {zpgn}, PGC today {zold} ({:.1}%), with typed comments {znew} ({:.1}%)",
                pct(zold as u64, zpgn as u64),
                pct(znew as u64, zpgn as u64),
            );
            if name.starts_with("lichess") {
                assert!(
                    znew * 2 <= zpgn,
                    "PGC+zstd must be at most half of PGN+zstd"
                );
            }
        }
        if name.starts_with("lichess") {
            assert_eq!(w.typed, w.comments);
            assert!(
                w.pgc.len() * 5 <= pgn.len(),
                "PGC must be at most 20% of the PGN"
            );
        }
    }
}
