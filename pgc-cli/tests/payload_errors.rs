//! A corrupt extension payload is a positioned error everywhere: for each
//! extension kind whose payload has a shape, a real encoded game holding
//! that kind has its payload damaged in place (the record still frames),
//! and `pgc verify`, `pgc decode` (PGN and JSON Lines), `pgc moves` (line
//! and position formats) and `pgc info` each fail, naming the record's byte
//! offset and the kind.

mod common;

use pgc_core::Limits;
use pgc_core::ext::ExtKind;
use pgc_core::record::{RecordRef, frame};

/// CR LF line ends (kept in a layout record), typed clock and eval
/// comments, a long tag, a long NAG, a null move, a termination marker
/// that differs from the Result tag, and two spaces where the export format
/// has one (kept in a text patch).
fn pgn() -> Vec<u8> {
    let long = "x".repeat(300);
    format!(
        "[Event \"Rated Blitz game\"]\n[Result \"*\"]\n[Annotator \"{long}\"]\n\n\
         1. e4 {{ [%eval 0.17] [%clk 0:03:00] }} 1... e5 {{ [%clk 0:02:59] }} \
         2. Nf3  $300 {{ [%clk 0:02:58] }} 2... -- {{ [%clk 0:02:57] }} \
         3. Bc4 {{ [%eval #2] [%clk 0:02:50] }} 1-0\n\n"
    )
    .replace('\n', "\r\n")
    .into_bytes()
}

fn encode(pgn: &[u8]) -> Vec<u8> {
    let out = common::run(&["encode", "-q"], pgn);
    assert!(out.status.success(), "{}", common::stderr(&out));
    out.stdout
}

/// Each extension record: (offset of the record, offset of its payload,
/// kind, payload length).
fn extensions(pgc: &[u8]) -> Vec<(usize, usize, ExtKind, usize)> {
    let mut v = Vec::new();
    let mut pos = 0;
    while pos < pgc.len() {
        let (rec, len) = frame(&pgc[pos..], &Limits::default()).expect("frames");
        if let RecordRef::Extension { kind, payload } = rec {
            v.push((pos, pos + len - payload.len(), ExtKind(kind), payload.len()));
        }
        pos += len;
    }
    v
}

/// Damages a payload of kind `kind` in place (same length, a shape its
/// codec must refuse) and returns the payload byte the error must name
/// (`spec/extensions.md`, `spec/extensions-commands.md`).
fn corrupt(kind: ExtKind, payload: &mut [u8]) -> usize {
    match kind {
        // An outcome code above 4.
        ExtKind::TERMINATION => {
            payload[0] = 9;
            0
        }
        // $300 is 0xac 0x02; 0x81 0x00 is a NAG of 1 (a 0x07 record's),
        // spelt in the two bytes.
        ExtKind::LONG_NAG => {
            assert_eq!(payload, [0xac, 0x02]);
            payload.copy_from_slice(&[0x81, 0x00]);
            0
        }
        // A name length far beyond the payload (the LEB128 runs into the name).
        ExtKind::LONG_TAG => {
            payload[0] = 0xff;
            0
        }
        // flags, width, trailer…: the width's LEB128 runs to the end of the
        // payload, which ends where its next byte should be.
        ExtKind::LAYOUT => {
            assert!((3..=5).contains(&payload.len()), "{payload:?}");
            payload[1..].fill(0x80);
            payload.len()
        }
        // A patch form other than 0 (edits) and 1 (whole text).
        ExtKind::TEXT_PATCH => {
            payload[0] = 7;
            0
        }
        // No template.
        ExtKind::COMMANDS => {
            payload[0] = 0;
            0
        }
        other => panic!("no corruption for {other}"),
    }
}

/// The commands that must refuse the file, with the flags.
const COMMANDS: &[&[&str]] = &[
    &["verify", "-"],
    &["decode", "-q", "-"],
    &["decode", "-q", "--format", "jsonl", "-"],
    &["moves", "-q", "-"],
    &["moves", "-q", "--format", "fen", "-"],
    &["info", "-"],
];

#[test]
fn the_sample_holds_every_checkable_kind_and_passes_whole() {
    let pgc = encode(&pgn());
    let kinds: Vec<ExtKind> = extensions(&pgc).iter().map(|e| e.2).collect();
    for k in [
        ExtKind::TERMINATION,
        ExtKind::LONG_NAG,
        ExtKind::LONG_TAG,
        ExtKind::LAYOUT,
        ExtKind::COMMANDS,
        ExtKind::NULL_MOVE,
        ExtKind::TEXT_PATCH,
    ] {
        assert!(kinds.contains(&k), "no {k} record in {kinds:?}");
    }
    for args in COMMANDS {
        let out = common::run(args, &pgc);
        assert!(
            out.status.success(),
            "pgc {args:?} on the intact file: {}",
            common::stderr(&out)
        );
    }
}

#[test]
fn each_corrupt_payload_is_a_positioned_error_everywhere() {
    let pgc = encode(&pgn());
    let mut tried = 0;
    for (record, at, kind, len) in extensions(&pgc) {
        if matches!(kind, ExtKind::NULL_MOVE | ExtKind::COMMENT) {
            // Free-form payloads: any bytes are a spelling or a comment.
            continue;
        }
        let mut bad = pgc.clone();
        let want = corrupt(kind, &mut bad[at..at + len]);
        // Framing still holds; only the payload is wrong.
        assert_eq!(extensions(&bad).len(), extensions(&pgc).len());
        tried += 1;
        let offset = format!("byte {record}");
        let name = kind.name();
        for args in COMMANDS {
            let out = common::run(args, &bad);
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                common::stderr(&out)
            );
            assert_eq!(
                out.status.code(),
                Some(1),
                "pgc {args:?} with a corrupt {kind} payload: {text}"
            );
            let line = text
                .lines()
                .find(|l| l.contains(&offset))
                .unwrap_or_else(|| panic!("pgc {args:?}: no `{offset}` for {kind}: {text}"));
            assert!(
                line.contains(name) && line.contains(&format!("payload byte {want}")),
                "pgc {args:?}: `{line}` does not name {name} and payload byte {want}"
            );
        }
    }
    assert_eq!(
        tried, 6,
        "termination, long NAG, long tag, layout, commands, text patch"
    );
}
