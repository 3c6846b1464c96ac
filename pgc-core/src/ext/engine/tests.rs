use super::*;
use super::{predictor::*, reader::*, stream::*, writer::*};
use crate::ext::error::Found;
use crate::variant::VariantPosition;
use shakmaty::{Chess, Position};

fn line(pos: &VariantPosition) -> LinePositions<'_> {
    LinePositions {
        before: Some(pos),
        after: Some(pos),
        before_previous: Some(pos),
    }
}

#[test]
fn numbers_spell_back() {
    for t in [
        &b"0"[..],
        b"40",
        b"-9",
        b"+0",
        b"+0.52",
        b"0.00",
        b"-1000",
        b"1.040",
        b"00",
        b"07",
        b"6829863982",
        b"-0.18",
        b"999999999999999999",
        b"00:02:36",
        b"1:05:03",
        b"123:00:00",
        b"01:02:03.5",
    ] {
        let (v, f, n) = parse_number(t).unwrap_or_else(|| panic!("{:?}", t));
        assert_eq!(n, t.len());
        let mut out = Vec::new();
        f.render(v, &mut out);
        assert_eq!(out, t);
    }
    // No format writes these back.
    for t in [
        &b"-0"[..],
        b"-0.00",
        b"1234567890123456789",
        b"+",
        b".5",
        b"000000000",
    ] {
        assert_eq!(
            parse_number(t).filter(|&(_, _, n)| n == t.len()),
            None,
            "{:?}",
            t
        );
    }
    assert_eq!(
        parse_number(b"40.5x").map(|(v, _, n)| (v, n)),
        Some((405, 4))
    );
    assert_eq!(parse_number(b"40.x").map(|(v, _, n)| (v, n)), Some((40, 2)));
    // Clocks: H:MM:SS in seconds, the hours' width as read.
    let clock = |t: &[u8]| parse_number(t).map(|(v, f, n)| (v, f.is_clock(), f.width(), n));
    assert_eq!(clock(b"00:02:36,"), Some((156, true, 2, 8)));
    assert_eq!(clock(b"1:05:03"), Some((3_903, true, 1, 7)));
    assert_eq!(clock(b"01:02:03.5"), Some((37_235, true, 2, 10)));
    // Not clocks: the hours' digits alone.
    assert_eq!(clock(b"00:60:00"), Some((0, false, 2, 2)));
    assert_eq!(clock(b"00:02:3"), Some((0, false, 2, 2)));
    assert_eq!(clock(b"00:02:367"), Some((0, false, 2, 2)));
    assert_eq!(clock(b"-1:00:00"), Some((-1, false, 1, 2)));
    assert_eq!(clock(b"123456789:00:00").map(|c| c.1), Some(false));
}

#[test]
fn moves_against_shakmaty() {
    use shakmaty::san::San;
    let start = VariantPosition::default();
    let mut o = Vec::new();
    assert!(encode_moves(&start, b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#", &mut o));
    assert_eq!(o.len(), 7);
    // Each ordinal is the move's index in SAN order among the legal moves.
    let VariantPosition::Chess(mut p) = start.clone() else {
        unreachable!()
    };
    for (t, &ord) in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
        .iter()
        .zip(&o)
    {
        let mut sans: Vec<String> = p
            .legal_moves()
            .iter()
            .map(|&m| San::from_move(&p, m).to_string())
            .collect();
        sans.sort();
        let body = t.trim_end_matches('#');
        assert_eq!(sans[usize::from(ord)], body);
        let m = San::from_ascii(body.as_bytes())
            .unwrap()
            .to_move(&p)
            .unwrap();
        p.play_unchecked(m);
    }
    let mut text = Vec::new();
    render_moves(&start, &o, &mut text).unwrap();
    assert_eq!(text, b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#");
    // Wrong suffix, illegal move, double space, bytes after the SAN:
    // refused, nothing appended.
    for bad in [
        &b"e4+"[..],
        b"e5",
        b"e4  e5",
        b"Nf3 Nf3",
        b"e4\0",
        b"Nf3\0\0\0",
    ] {
        let mut o = vec![9];
        assert!(!encode_moves(&start, bad, &mut o));
        assert_eq!(o, [9]);
    }
    // A bad ordinal is a positioned render error.
    let e = render_moves(&start, &[0, 200], &mut Vec::new()).unwrap_err();
    assert!(matches!(e, RenderError::Move { index: 1, .. }), "{e:?}");
}

fn sample_note(pv: &[u8], start: &VariantPosition) -> EngineNote {
    let mut n = EngineNote::new();
    n.push_literal(b"d=");
    n.push_number(40, NumberFormat::INTEGER);
    n.push_literal(b", wv=");
    n.push_number(104, NumberFormat::new(2, Sign::Minus, 1).unwrap());
    n.push_literal(b", pv=");
    assert!(n.push_moves_text(pv, &line(start)));
    n.push_literal(b",");
    n
}

#[test]
fn record_round_trip_and_summary() {
    let start = VariantPosition::default();
    let a = sample_note(b"e4 e5", &start);
    let mut b = sample_note(b"d4", &start);
    b.push_literal(b" book");
    let mut game = GameNotes::new();
    assert!(game.push(0, &a));
    assert!(game.push(3, &b));
    assert!(game.push(4, &a));
    assert!(!game.push(4, &a), "one note per anchor");
    let mut payload = Vec::new();
    game.to_payload(&mut payload);
    let mut r = GameNotesReader::from_payload(&payload).unwrap();
    assert_eq!(r.len(), 3);
    let mut got = EngineNote::new();
    assert!(r.note_at(0, &mut got));
    assert_eq!(got, a);
    assert!(!r.note_at(1, &mut got));
    // Anchor 3 skipped: anchor 4 still gets its own note.
    assert!(r.note_at(4, &mut got));
    assert_eq!(got, a);
    let s = a.summary();
    assert_eq!(s.figures.depth, Some(40));
    assert_eq!(s.figures.eval, Some(Score::Centipawns(104)));
    assert_eq!(
        s.pv.map(|(f, o)| (f, o.len())),
        Some((MovesFrom::Before, 2))
    );
    let mut text = Vec::new();
    render_note(&a, &line(&start), &mut text).unwrap();
    assert_eq!(text, b"d=40, wv=1.04, pv=e4 e5,");
}

#[test]
fn cutechess_summary() {
    let mut n = EngineNote::new();
    n.push_literal(b"-M");
    n.push_number(5, NumberFormat::INTEGER);
    n.push_literal(b"/");
    n.push_number(30, NumberFormat::INTEGER);
    n.push_literal(b" ");
    n.push_number(5, NumberFormat::new(1, Sign::Minus, 1).unwrap());
    n.push_literal(b"s");
    let s = n.summary();
    assert_eq!(
        (s.figures.eval, s.figures.depth, s.figures.time_ms),
        (Some(Score::Mate(-5)), Some(30), Some(500))
    );
}

#[test]
fn every_truncation_and_corruption_is_an_error_or_reads() {
    let start = VariantPosition::default();
    let a = sample_note(b"e4 e5 Nf3", &start);
    let mut game = GameNotes::new();
    assert!(game.push(2, &a));
    assert!(game.push(5, &a));
    let mut payload = Vec::new();
    game.to_payload(&mut payload);
    for n in 0..payload.len() {
        assert!(
            GameNotesReader::from_payload(&payload[..n]).is_err(),
            "prefix {n}"
        );
    }
    let mut longer = payload.clone();
    longer.push(0);
    let e = GameNotesReader::from_payload(&longer).unwrap_err();
    assert_eq!(e.at, payload.len());
    // Any byte changed: refused, or read with notes that hold every piece.
    for i in 0..payload.len() {
        for x in [0u8, 1, 2, 3, 0x7f, 0x80, 0xff] {
            let mut q = payload.clone();
            q[i] = x;
            if let Ok(mut r) = GameNotesReader::from_payload(&q) {
                let mut got = EngineNote::new();
                for anchor in 0..64 {
                    r.note_at(anchor, &mut got);
                }
            }
        }
    }
    // A huge count is refused before anything is allocated.
    let e = GameNotesReader::from_payload(&[0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_err();
    assert_eq!(e.at, 0);
}

fn numbers_payload(v: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut search = Search::default();
    write_numbers(
        0,
        v,
        &[Stream::Numbers(v.to_vec())],
        None,
        &mut search,
        &mut out,
    );
    out
}

#[test]
fn formats_spell_alike_as_their_texts_say() {
    let values = [
        0i64,
        1,
        -1,
        5,
        -5,
        9,
        10,
        52,
        -52,
        99,
        100,
        104,
        -104,
        999,
        1000,
        40_500,
        -1_000_000,
        123_456_789,
        i64::MAX,
        i64::MIN,
    ];
    let formats: Vec<NumberFormat> = (0..=255u8).map(NumberFormat::from_byte).collect();
    let mut alike = 0;
    for &v in &values {
        for &f in &formats {
            let mut text = Vec::new();
            f.render(v, &mut text);
            for &g in &formats {
                let want = g.spells(v, &text);
                assert_eq!(f.spells_alike(g, v), want, "{f:?} {g:?} {v}");
                alike += usize::from(want && f != g);
            }
        }
    }
    assert!(alike > 1000, "formats that differ but spell alike: {alike}");
}

proptest::proptest! {
    /// A number is taken only where its format spells it back as read.
    #[test]
    fn parsed_numbers_spell_back(text in "[-+]?[0-9]{0,9}(\\.[0-9]{0,8})?[a-z,]?") {
        if let Some((v, f, n)) = parse_number(text.as_bytes()) {
            proptest::prop_assert!(f.spells(v, &text.as_bytes()[..n]));
        }
    }

    /// So is a clock, or the number its hours make where it is none.
    #[test]
    fn parsed_clocks_spell_back(text in "[0-9]{1,10}:[0-7][0-9]:[0-7][0-9]{1,2}(\\.[0-9]{0,8})?[a-z,]?") {
        if let Some((v, f, n)) = parse_number(text.as_bytes()) {
            proptest::prop_assert!(f.spells(v, &text.as_bytes()[..n]));
        }
    }
}

proptest::proptest! {
    /// Whatever the hint (a candidate or not, cheaper than every candidate
    /// or not), the search finds what it finds without one.
    #[test]
    fn the_hint_never_changes_the_predictor(
        base in proptest::collection::vec(-3_000i64..3_000, 8..40),
        spread in 0i64..1_000_000,
        kind in 0u8..6,
        scale in 0u8..6,
        bias in -5_000i64..5_000,
    ) {
        // Stream 0 and 1 arbitrary, stream 2 their product at scale 1 or
        // the time left of stream 0 with a bias, plus noise.
        let a: Vec<i64> = base.iter().map(|&x| x * 37 + spread).collect();
        let b: Vec<i64> = base.iter().rev().map(|&x| x.abs() + 10).collect();
        let mut v = vec![spread, spread / 2];
        for i in 2..base.len() {
            let next = if kind % 2 == 0 {
                a[i] * b[i] / 10 + base[i] % 50
            } else {
                v[i - 2] - a[i] + 1_000 + if base[i] > 1_000 { base[i] * 40 } else { 0 }
            };
            v.push(next);
        }
        let streams = [Stream::Numbers(a), Stream::Numbers(b), Stream::Numbers(v)];
        let hint = match kind {
            0 => Predictor::Product { a: 0, b: 1, scale },
            1 => Predictor::TwoBackLess { a: 0, bias },
            2 => Predictor::Product { a: 1, b: 0, scale },
            3 => Predictor::TwoBackLess { a: 1, bias: 1_000 },
            4 => Predictor::SpeedTime { a: 0, b: 1, scale },
            _ => Predictor::TwoBack,
        };
        let mut search = Search::default();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        let Stream::Numbers(v) = &streams[2] else { unreachable!() };
        write_numbers(2, v, &streams, Some(hint), &mut search, &mut with);
        write_numbers(2, v, &streams, None, &mut search, &mut without);
        proptest::prop_assert_eq!(with, without);
    }
}

/// A hint that is no candidate and takes fewer bytes than every candidate
/// (a time-left bias better than the median's) is not taken.
#[test]
fn a_cheaper_hint_that_is_no_candidate_is_not_taken() {
    let a: Vec<i64> = (0..20)
        .map(|i| 1_000_000 + (i * 7_919_393) % 900_000)
        .collect();
    let mut v = vec![50_000_000, 49_000_000];
    for i in 2..20 {
        // Half the differences 0, half about 10,000: the median is in the
        // upper half, a bias of 0 costs fewer bytes.
        let d = if i % 2 == 0 { 0 } else { 10_000 + i as i64 };
        v.push(v[i - 2] - a[i] + d);
    }
    let streams = [Stream::Numbers(a), Stream::Numbers(v.clone())];
    let hint = Predictor::TwoBackLess { a: 0, bias: 0 };
    let median = Predictor::TwoBackLess { a: 0, bias: 10_011 };
    let total = |p: Predictor| cost(&v, p, &streams, usize::MAX) + p.extra_bytes();
    assert!(total(hint) < total(median), "the hint is cheaper");
    let mut search = Search::default();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    write_numbers(1, &v, &streams, Some(hint), &mut search, &mut with);
    write_numbers(1, &v, &streams, None, &mut search, &mut without);
    assert_eq!(&without[..2], &[4, 0], "the median's time-left predictor");
    assert_eq!(with, without);
}

/// Notes of a made-up engine: `n` the product of `s` and `mt` when
/// `product`, else unrelated to them.
fn engine_notes(seed: i64, product: bool) -> Vec<EngineNote> {
    let start = VariantPosition::default();
    (0..60i64)
        .map(|i| {
            let mt = 1_000 + (i * 7_919 + seed) % 50_000;
            let s = 40_000_000 + (i * 104_729 + seed * 31) % 9_000_000;
            let n = if product {
                s * mt / 1000 + i % 7
            } else {
                (i * 982_451_653 + seed) % 1_000_000_007
            };
            let mut note = EngineNote::new();
            for (k, v) in [("mt=", mt), (", s=", s), (", n=", n), (", d=", 20 + i % 9)] {
                note.push_literal(k.as_bytes());
                note.push_number(v, NumberFormat::INTEGER);
            }
            note.push_literal(b", pv=");
            assert!(note.push_moves_text(b"e4", &line(&start)));
            note
        })
        .collect()
}

/// The record of `notes`, written by `game` (cleared first).
fn notes_record(game: &mut GameNotes, notes: &[EngineNote]) -> Vec<u8> {
    game.clear();
    for (i, note) in notes.iter().enumerate() {
        assert!(game.push(i as u64, note));
    }
    let mut out = Vec::new();
    game.to_payload(&mut out);
    out
}

/// The predictor a stream took in the game before only shortens the
/// search: a game's record is the same whatever came before it.
#[test]
fn a_record_does_not_depend_on_the_game_before() {
    let alone = |seed, product| notes_record(&mut GameNotes::new(), &engine_notes(seed, product));
    for (before, after) in [(true, false), (false, true), (true, true), (false, false)] {
        let mut game = GameNotes::new();
        notes_record(&mut game, &engine_notes(1, before));
        let hinted = notes_record(&mut game, &engine_notes(2, after));
        assert_eq!(
            hinted,
            alone(2, after),
            "after a game with product {before}"
        );
    }
    // The product is found where it holds, and only there.
    let named = |p: &[u8]| p.windows(4).any(|w| w[0] == 3 && w[3] == 3);
    assert!(named(&alone(2, true)));
    assert!(!named(&alone(2, false)));
}

#[test]
fn predictors_pick_the_smallest() {
    let out = numbers_payload(&[1_000_000, 1_000_010, 1_000_020, 1_000_030]);
    assert_eq!(out[0], 1, "delta to the previous value");
    let out = numbers_payload(&[5_000_000, 100, 5_000_001, 101, 5_000_002]);
    assert_eq!(out[0], 2, "delta to the value two before");
    assert_eq!(numbers_payload(&[3, -2, 7]), [0, 3, 6, 3, 14]);
}

/// Residuals spread evenly over 26 bits go in byte planes: the predictor
/// byte with bit 7, the count, the width, then each plane of the values'
/// bytes, lowest first.
#[test]
fn wide_residuals_go_in_byte_planes() {
    let v: Vec<i64> = (0..40i64).map(|i| (i * 982_451_653) % (1 << 26)).collect();
    let out = numbers_payload(&v);
    assert_eq!(
        &out[..3],
        &[PLANES, 40, 4],
        "predictor 0, 40 values, 4 planes"
    );
    assert_eq!(out.len(), 3 + 4 * 40);
    for (i, &x) in v.iter().enumerate() {
        let z = (x as u64) << 1;
        for plane in 0..4 {
            assert_eq!(out[3 + plane * 40 + i], (z >> (8 * plane)) as u8);
        }
    }
    // The example of spec/extensions-engine.md section 5: z(5) = 0x0a,
    // z(300) = 0x258, z(−70,000) = 0x222df; LEB128 1 + 2 + 3 bytes,
    // three planes 9 = 1.5 × 6.
    assert_eq!(
        numbers_payload(&[5, 300, -70_000]),
        [
            0x80, 3, 3, 0x0a, 0x58, 0xdf, 0x00, 0x02, 0x22, 0x00, 0x00, 0x02
        ]
    );
    // Mostly one-byte residuals with one wide one: planes would take more
    // than 1.5 times the LEB128 bytes, so LEB128 it stays.
    let mut small: Vec<i64> = (0..40).map(|i| i % 50).collect();
    small.push(5_000_000);
    assert_eq!(numbers_payload(&small)[0], 0);
}

/// Byte planes read back, and a width outside 2 to 8 is refused at its
/// byte.
#[test]
fn byte_planes_read_back_and_their_width_is_checked() {
    let notes = engine_notes(3, false);
    let payload = notes_record(&mut GameNotes::new(), &notes);
    let mut r = GameNotesReader::from_payload(&payload).unwrap();
    let mut got = EngineNote::new();
    for (i, want) in notes.iter().enumerate() {
        assert!(r.note_at(i as u64, &mut got));
        assert_eq!(&got, want, "note {i}");
    }
    // A stream whose residuals spread over three bytes: predictor 1 with
    // byte planes, 60 values, 3 planes.
    let at = payload
        .windows(3)
        .position(|w| w == [PLANES | 1, 60, 3])
        .expect("the nodes in byte planes")
        + 2;
    // Cut anywhere, the planes included: an error.
    for cut in 0..payload.len() {
        assert!(
            GameNotesReader::from_payload(&payload[..cut]).is_err(),
            "prefix {cut}"
        );
    }
    for width in [0u8, 1, 9, 0xff] {
        let mut bad = payload.clone();
        bad[at] = width;
        let e = GameNotesReader::from_payload(&bad).unwrap_err();
        assert_eq!((e.at, e.found), (at, Found::Byte(width)), "width {width}");
    }
}

/// TCEC-like values: nodes = speed × time / 1000, time left falls by the
/// move time and rises by the increment; both predicted from the other
/// streams, and read back exactly.
#[test]
fn predictors_from_other_streams_round_trip() {
    let start = VariantPosition::default();
    let mut game = GameNotes::new();
    let (mut tl, mut notes) = ([900_000i64, 900_000], Vec::new());
    for i in 0..40i64 {
        let mt = 1_000 + (i * 7_919) % 50_000;
        let s = 40_000_000 + (i * 104_729) % 9_000_000;
        let n = s * mt / 1000 + i % 7;
        let side = (i % 2) as usize;
        tl[side] = tl[side] - mt + 3_000;
        let mut note = EngineNote::new();
        for (k, v) in [("mt=", mt), (", tl=", tl[side]), (", s=", s), (", n=", n)] {
            note.push_literal(k.as_bytes());
            note.push_number(v, NumberFormat::INTEGER);
        }
        note.push_literal(b", pv=");
        assert!(note.push_moves_text(b"e4", &line(&start)));
        assert!(game.push(i as u64, &note));
        notes.push(note);
    }
    let mut payload = Vec::new();
    game.to_payload(&mut payload);
    let mut r = GameNotesReader::from_payload(&payload).unwrap();
    let mut got = EngineNote::new();
    for (i, want) in notes.iter().enumerate() {
        assert!(r.note_at(i as u64, &mut got));
        assert_eq!(&got, want, "note {i}");
    }
    // Predictors 3 and 4 were chosen: each is named in the payload.
    assert!(
        payload.windows(4).any(|w| w[0] == 3 && w[3] == 3),
        "product with scale 3"
    );
    assert!(
        payload.windows(2).any(|w| w[0] == 4 && w[1] == 0),
        "time left from stream 0"
    );
    // A predictor naming a later stream is refused.
    let at = payload
        .windows(4)
        .position(|w| w[0] == 3 && w[3] == 3)
        .unwrap();
    let mut bad = payload.clone();
    bad[at + 1] = 9;
    let e = GameNotesReader::from_payload(&bad).unwrap_err();
    assert_eq!(
        (e.at, e.found),
        (at, Found::Byte(3)),
        "at the predictor's byte"
    );
}

#[test]
fn the_text_and_the_pv_come_from_one_replay() {
    use shakmaty::Position;
    use shakmaty::san::San;
    let start = VariantPosition::default();
    // Two move lists: `pd=` (not the PV) and `pv=`.
    let mut n = EngineNote::new();
    n.push_literal(b"pd=");
    assert!(n.push_moves_text(b"d4", &line(&start)));
    n.push_literal(b", pv=");
    assert!(n.push_moves_text(b"e4 e5 Nf3 Nc6 Bb5", &line(&start)));
    n.push_literal(b",");
    let mut plain = Vec::new();
    render_note(&n, &line(&start), &mut plain).unwrap();
    let mut text = Vec::new();
    let mut pv = Vec::new();
    let summary = render_note_with_pv(&n, &line(&start), &mut text, |m| pv.push(m)).unwrap();
    assert_eq!(summary, n.summary());
    assert_eq!(summary.pv.map(|(_, o)| o.len()), Some(5));
    assert_eq!(text, plain);
    assert_eq!(text, b"pd=d4, pv=e4 e5 Nf3 Nc6 Bb5,");
    // The moves, as shakmaty reads the PV's SAN.
    let mut pos = shakmaty::Chess::default();
    let mut want = Vec::new();
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5"] {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
        want.push(m);
    }
    assert_eq!(pv, want);
    // A note without a PV hands out no move.
    let mut pd = EngineNote::new();
    pd.push_literal(b"pd=");
    assert!(pd.push_moves_text(b"d4", &line(&start)));
    let mut none = Vec::new();
    render_note_with_pv(&pd, &line(&start), &mut text, |m| none.push(m)).unwrap();
    assert!(none.is_empty());
}

#[test]
fn leb_len_is_the_length_put_varint_writes() {
    let mut values = vec![0u64, u64::MAX];
    for bit in 0..64 {
        let p = 1u64 << bit;
        values.extend([p - 1, p, p + 1]);
    }
    for v in values {
        let mut out = Vec::new();
        crate::item::put_varint(&mut out, v);
        assert_eq!(leb_len(v), out.len(), "{v}");
    }
}

/// The note's lists as ordinals, in order.
fn lists(note: &EngineNote) -> Vec<Vec<u8>> {
    note.parts()
        .filter_map(|p| match p {
            NotePart::Moves(_, o) => Some(o.to_vec()),
            _ => None,
        })
        .collect()
}

/// The position after playing the SAN moves of `line` from the start.
fn after(line: &str) -> VariantPosition {
    let mut pos = Chess::default();
    for san in line.split(' ') {
        let m = san
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
    }
    VariantPosition::Chess(pos)
}

#[test]
fn a_list_two_plies_on_is_replayed_from_the_kept_one_as_found_afresh() {
    let start = VariantPosition::default();
    let mut note = EngineNote::new();
    assert!(note.push_moves_text(b"e4 e5 Nf3 Nc6 Bb5 a6 Ba4", &line(&start)));
    // Two notes later the note is cleared and read again, from the
    // position after the list's first two moves.
    note.clear();
    let pos = after("e4 e5");
    let text = b"Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O";
    assert_eq!(note.earlier.shared(&Chess::default(), text), (0, 0));
    let VariantPosition::Chess(c) = &pos else {
        unreachable!()
    };
    assert_eq!(note.earlier.shared(c, text), (5, 19));
    assert!(note.push_moves_text(text, &line(&pos)));
    let mut fresh = Vec::new();
    assert!(encode_moves(&pos, text, &mut fresh));
    assert_eq!(lists(&note), [fresh]);
    // The shared moves came from the memo: a kept ordinal changed shows.
    note.clear();
    note.clear();
    assert!(note.push_moves_text(b"e4 e5 Nf3 Nc6 Bb5", &line(&start)));
    note.clear();
    note.earlier.ordinals[0] = 99;
    assert!(note.push_moves_text(b"Nf3 Nc6", &line(&pos)));
    assert_eq!(lists(&note)[0][0], 99);
}

#[test]
fn a_list_that_does_not_replay_keeps_nothing() {
    let start = VariantPosition::default();
    let mut note = EngineNote::new();
    assert!(!note.push_moves_text(b"e4 e5 Nf3 Ke7 Kd7", &line(&start)));
    assert!(note.memo.start.is_none() && note.memo.moves.is_empty());
    // A list of two moves leaves the kept one as it was.
    assert!(note.push_moves_text(b"e4 e5 Nf3", &line(&start)));
    assert!(note.push_moves_text(b"d4 d5", &line(&start)));
    assert_eq!(note.memo.moves.len(), 1);
    assert_eq!(note.memo.text, b"Nf3");
}

/// Predictor 5 on the two notes of `spec/extensions-engine.md` (TCEC
/// Season 28, worked by hand there): the packed residuals 42 and 160, and
/// the values back from them.
#[test]
fn speed_over_own_time_packs_the_spec_example() {
    let p = Predictor::SpeedTime {
        a: 0,
        b: 1,
        scale: 3,
    };
    for (speed, time, nodes, packed) in [
        (232_362_246i64, 2_916i64, 675_244_687i64, 42i64),
        (234_688_355, 3_127, 733_870_489, 160),
    ] {
        let stream = |s: u8| Some(if s == 0 { speed } else { time });
        assert_eq!(p.residual(&[nodes], 0, stream), Some(packed));
        assert_eq!(p.value(packed, &[], 0, stream), Some(i128::from(nodes)));
    }
    // Predictor 3 leaves the first one −2,323,622 (`cb d2 9b 02`).
    let product = Predictor::Product {
        a: 0,
        b: 1,
        scale: 3,
    };
    let stream = |s: u8| Some(if s == 0 { 232_362_246 } else { 2_916 });
    assert_eq!(
        product.residual(&[675_244_687], 0, stream),
        Some(-2_323_622)
    );
}

proptest::proptest! {
    /// Predictor 5 reads back every value it writes, and reads any
    /// residual without a panic.
    #[test]
    fn speed_over_own_time_round_trips(
        v in proptest::num::i64::ANY,
        speed in proptest::num::i64::ANY,
        time in proptest::num::i64::ANY,
        scale in 0u8..=18,
        res in proptest::num::i64::ANY,
    ) {
        let p = Predictor::SpeedTime { a: 0, b: 1, scale };
        let stream = |s: u8| Some(if s == 0 { speed } else { time });
        if let Some(r) = p.residual(&[v], 0, stream) {
            proptest::prop_assert_eq!(p.value(r, &[], 0, stream), Some(i128::from(v)));
        }
        let _ = p.value(res, &[], 0, stream);
    }

    /// An engine whose speed is its nodes over its own whole milliseconds,
    /// a few below the move time: every value within a few nodes of the
    /// range speed and time leave, so predictor 5 is chosen (over the
    /// product) and the notes read back exactly.
    #[test]
    fn nodes_from_speed_over_own_time_are_found(seed in 0i64..1 << 40, count in 8i64..40) {
        let start = VariantPosition::default();
        let mut game = GameNotes::new();
        let mut want = Vec::new();
        for i in 0..count {
            // Nodes of 30 bits and more, times of 1 to 200 s, δ 0 to 29.
            let n = (1 << 30) | ((seed + i * 982_451_653) % 5_000_000_000);
            let t = 1_000 + (seed / 7 + i * 7_919) % 199_000;
            let delta = (seed + i * 13) % 30;
            let s = n * 1000 / t;
            let mut note = EngineNote::new();
            for (k, v) in [("mt=", t + delta), (", s=", s), (", n=", n)] {
                note.push_literal(k.as_bytes());
                note.push_number(v, NumberFormat::INTEGER);
            }
            note.push_literal(b", pv=");
            proptest::prop_assert!(note.push_moves_text(b"e4", &line(&start)));
            proptest::prop_assert!(game.push(i as u64, &note));
            want.push(note);
        }
        let mut payload = Vec::new();
        game.to_payload(&mut payload);
        // Stream 2 (`n=`) from speed stream 1 over time stream 0 (its
        // residuals in byte planes or not).
        let at = payload.windows(4).position(|w| w[0] & !PLANES == 5 && w[1..] == [1, 0, 3]);
        proptest::prop_assert!(at.is_some());
        // A scale past 18 is refused at the predictor's byte, named.
        let mut bad = payload.clone();
        bad[at.unwrap() + 3] = 19;
        let e = GameNotesReader::from_payload(&bad).unwrap_err();
        proptest::prop_assert_eq!((e.at, e.found), (at.unwrap(), Found::Byte(payload[at.unwrap()])));
        let mut r = GameNotesReader::from_payload(&payload).unwrap();
        let mut got = EngineNote::new();
        for (i, w) in want.iter().enumerate() {
            proptest::prop_assert!(r.note_at(i as u64, &mut got));
            proptest::prop_assert_eq!(&got, w);
        }
    }
}

/// TCEC Season 28's time left (60 s + 0.1 s): the same engine's time left
/// two notes back less the move time, plus 100 ms. Predictor 2 leaves two
/// bytes a value or less (the move time again); predictor 4 one byte of
/// zero.
#[test]
fn time_left_of_two_bytes_a_value_takes_its_predictor() {
    // Every other move a quick one (a residual of one byte with predictor 2).
    let mt: Vec<i64> = (0..40)
        .map(|i| {
            if i % 4 < 2 {
                120
            } else {
                400 + (i * 7_919) % 3_100
            }
        })
        .collect();
    let mut tl = vec![57_184i64, 56_973];
    for i in 2..mt.len() {
        tl.push(tl[i - 2] - mt[i] + 100);
    }
    let streams = [Stream::Numbers(mt.clone()), Stream::Numbers(tl.clone())];
    let two_back = cost(&tl, Predictor::TwoBack, &streams, usize::MAX);
    assert!(
        (tl.len() + 1..=2 * tl.len()).contains(&two_back),
        "{two_back} bytes with predictor 2"
    );
    let mut out = Vec::new();
    write_numbers(1, &tl, &streams, None, &mut Search::default(), &mut out);
    assert_eq!(
        &out[..3],
        &[4, 0, 200],
        "predictor 4 from stream 0, bias 100"
    );
}

/// TCEC Season 9's nodes: kN/s times whole seconds times 1000, to within
/// the second's fraction. A product that multiplies by 10^3 (scale byte
/// 0x83) is chosen, and the values read back.
#[test]
fn nodes_from_kilonodes_and_seconds_multiply() {
    let s: Vec<i64> = (0..30).map(|i| 50_000 + (i * 7_919) % 25_000).collect();
    let t: Vec<i64> = (0..30).map(|i| 60 + (i * 104_729) % 900).collect();
    let n: Vec<i64> = (0..30)
        .map(|i| s[i] * t[i] * 1000 + (i as i64 * 982_451_653) % s[i] * 999)
        .collect();
    let streams = [
        Stream::Numbers(s.clone()),
        Stream::Numbers(t.clone()),
        Stream::Numbers(n.clone()),
    ];
    let mut out = Vec::new();
    write_numbers(2, &n, &streams, None, &mut Search::default(), &mut out);
    assert_eq!(
        &out[..4],
        &[3 | PLANES, 0, 1, 0x83],
        "product of streams 0 and 1, times 1000, residuals in byte planes"
    );
    let p = Predictor::Product {
        a: 0,
        b: 1,
        scale: 0x83,
    };
    for i in 0..n.len() {
        let stream = |k: u8| Some([s[i], t[i]][usize::from(k)]);
        let r = p.residual(&n, i, stream).unwrap();
        assert_eq!(p.value(r, &n[..i], i, stream), Some(i128::from(n[i])));
    }
}

/// The older TCEC notes' move time is a clock: the summary gives it in
/// milliseconds (`mt=00:02:56` is 176 s).
#[test]
fn a_clock_move_time_reads_in_milliseconds() {
    let mut n = EngineNote::new();
    for (k, text) in [
        ("ev=", &b"-0.18"[..]),
        (", d=", b"27"),
        (", mt=", b"00:02:56"),
    ] {
        n.push_literal(k.as_bytes());
        let (v, f, len) = parse_number(text).unwrap();
        assert_eq!(len, text.len());
        n.push_number(v, f);
    }
    n.push_literal(b",");
    let s = n.summary();
    assert_eq!(
        (s.figures.eval, s.figures.depth, s.figures.time_ms),
        (Some(Score::Centipawns(-18)), Some(27), Some(176_000))
    );
}

/// Lines of a game from its start: the positions before and after each
/// move of `moves` (SAN), as the writer and the readers keep them.
fn positions_of(moves: &[&str]) -> Vec<VariantPosition> {
    let mut p = Chess::default();
    let mut out = vec![VariantPosition::Chess(p.clone())];
    for m in moves {
        let mv = m
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&p)
            .unwrap();
        p.play_unchecked(mv);
        out.push(VariantPosition::Chess(p.clone()));
    }
    out
}

/// One-move lists that the PVs imply are their header alone, and read back
/// as the moves they stand for: `pd=` of the same note's PV (from after
/// the last move) and of the PV two notes back (from before the move
/// before the last); a list the PV does not give keeps its ordinal.
#[test]
fn one_move_lists_the_pv_implies_are_their_header() {
    let pos = positions_of(&["e4", "e5", "Nf3", "Nc6"]);
    let at = |i: usize| LinePositions {
        after: Some(&pos[i + 1]),
        before: Some(&pos[i]),
        before_previous: i.checked_sub(1).map(|j| &pos[j]),
    };
    // (ply index, pd, pv)
    type Note<'a> = (usize, Option<&'a [u8]>, &'a [u8]);
    let notes: [Note<'_>; 4] = [
        (0, None, b"e4 e5 Nf3"),
        (1, Some(b"e4"), b"e5 Nf3 Nc6"),
        (2, Some(b"e5"), b"Nf3 Nc6"),
        (3, Some(b"Bb5"), b"Nc6 Bb5 a6"),
    ];
    let mut game = GameNotes::new();
    let mut written = Vec::new();
    for (i, pd, pv) in notes {
        let mut n = EngineNote::new();
        if let Some(pd) = pd {
            n.push_literal(b"pd=");
            assert!(n.push_moves_text_preferring(pd, &at(i), MovesFrom::Before));
            n.push_literal(b", ");
        }
        n.push_literal(b"pv=");
        assert!(n.push_moves_text(pv, &at(i)));
        n.prefer_implied(&at(i), game.two_back_reply());
        assert!(game.push(i as u64, &n));
        written.push(n);
    }
    // `Bb5` replays from before `2. Nf3` too: it is moved to after `2...
    // Nc6`, where the note's PV implies it.
    assert!(matches!(
        written[3].parts().nth(1),
        Some(NotePart::Moves(MovesFrom::After, _))
    ));
    let mut payload = Vec::new();
    game.to_payload(&mut payload);
    let mut r = GameNotesReader::from_payload(&payload).unwrap();
    let mut texts = Vec::new();
    for (i, n) in written.iter().enumerate() {
        let mut back = EngineNote::new();
        assert!(r.note_at(i as u64, &mut back));
        assert_eq!(&back, n, "note {i}");
        let mut text = Vec::new();
        render_note(&back, &at(i), &mut text).unwrap();
        texts.push(String::from_utf8(text).unwrap());
    }
    assert_eq!(texts[2], "pd=e5, pv=Nf3 Nc6");
    assert_eq!(texts[3], "pd=Bb5, pv=Nc6 Bb5 a6");
    // The `pd=` stream: three lists; the second note's `pd=e4` has no
    // note two back and keeps its ordinal (header 1 << 2 | 2, then e4 =
    // 13); the third's and the fourth's are the headers 2 and 0 alone.
    assert!(
        payload.windows(5).any(|w| w == [3, 0x06, 13, 0x02, 0x00]),
        "{payload:02x?}"
    );
}

/// An implied move whose note, or the note two notes before it, has no PV
/// of two moves to take it from is an error at its header.
#[test]
fn an_implied_move_without_its_pv_is_an_error_at_its_header() {
    let start = VariantPosition::default();
    for header in [0u8, 2] {
        let mut n = EngineNote::new();
        n.push_literal(b"pd=");
        assert!(n.push_moves_text(b"d4", &line(&start)));
        let mut game = GameNotes::new();
        assert!(game.push(0, &n));
        let mut payload = Vec::new();
        game.to_payload(&mut payload);
        // The payload ends with the list: header 1 << 2 | 1, then d4 = 11.
        assert_eq!(payload[payload.len() - 2..], [0x05, 11]);
        payload.truncate(payload.len() - 2);
        payload.push(header);
        let e = GameNotesReader::from_payload(&payload).unwrap_err();
        assert_eq!(e.at, payload.len() - 1, "{e:?}");
        assert!(e.expected.contains("implied move"), "{e:?}");
    }
}
