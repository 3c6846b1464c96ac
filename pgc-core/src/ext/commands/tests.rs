use super::*;
use super::{anchors::*, columns::*, record::*};
use crate::ext::cursor::zigzag;
use crate::ext::error::{Found, PayloadError};
use crate::item::put_varint;
use shakmaty::Square;

fn clk(ms: u64) -> TypedComment {
    let mut c = TypedComment::new();
    c.push_space(b" ");
    c.push_time(
        Separator::Space,
        TimeKind::Clk,
        Clock { millis: ms },
        ClockFormat::HMS,
    );
    c.push_space(b" ");
    c
}

fn payload(g: &GameCommands) -> Vec<u8> {
    let mut p = Vec::new();
    g.to_payload(&mut p);
    p
}

/// A game with every piece kind: two templates, gaps, marks, evals.
fn mixed() -> (Vec<(u64, TypedComment)>, Vec<u8>) {
    let mut v = Vec::new();
    let mut a = TypedComment::new();
    a.push_eval(Separator::Space, Eval::Centipawns(17), EvalFormat::LICHESS);
    a.push_space(b" ");
    a.push_time(
        Separator::Newline,
        TimeKind::Clk,
        Clock { millis: 300_000 },
        ClockFormat::HMS,
    );
    v.push((0, a));
    v.push((1, clk(299_500)));
    let mut m = TypedComment::new();
    m.push_squares(
        Separator::Space,
        [Some(SquareMark {
            colour: MarkColour::Red,
            square: Square::A4,
        })],
    );
    m.push_arrows(
        Separator::CrLf,
        [
            Some(Arrow {
                colour: MarkColour::Green,
                from: Square::E2,
                to: Square::E4,
            }),
            Some(Arrow {
                colour: MarkColour::Blue,
                from: Square::H1,
                to: Square::H8,
            }),
        ],
    );
    m.push_space(b"\t\n");
    m.push_eval(Separator::Space, Eval::Mate(-3), EvalFormat::LICHESS);
    v.push((4, m));
    let mut t = TypedComment::new();
    t.push_time(
        Separator::Space,
        TimeKind::Emt,
        Clock { millis: 1_250 },
        ClockFormat {
            hour_width: 2,
            frac_digits: 2,
        },
    );
    v.push((9, t));
    let mut g = GameCommands::new();
    for (a, c) in &v {
        assert!(g.push(*a, c));
    }
    let p = payload(&g);
    (v, p)
}

#[test]
fn game_record_round_trips_without_text() {
    let (v, p) = mixed();
    let mut r = GameCommandsReader::from_payload(&p).unwrap();
    assert_eq!(r.len(), v.len() as u64);
    let mut out = TypedComment::new();
    let mut it = v.iter().peekable();
    for a in 0..12 {
        let has = r.typed_at(a, &mut out);
        match it.peek() {
            Some((x, c)) if *x == a => {
                assert!(has, "anchor {a}");
                assert_eq!(&out, c, "anchor {a}");
                it.next();
            }
            _ => assert!(!has, "anchor {a}"),
        }
    }
    // One reader, reloaded: the same comments again.
    r.load(&p).unwrap();
    assert!(r.typed_at(4, &mut out));
    assert_eq!(out, v[2].1);
    // A failed load leaves no comment behind.
    assert!(r.load(&p[..p.len() - 1]).is_err());
    assert!(r.is_empty() && !r.typed_at(9, &mut out));
}

#[test]
fn anchors_hand_out_comments_in_order() {
    let (v, p) = mixed();
    let mut a = Anchors::new();
    a.begin_game();
    let mut out = TypedComment::new();
    // No record: anchors count, nothing comes out.
    assert!(!a.after_anchor(&mut out));
    a.load(&p).unwrap();
    a.begin_game();
    assert!(!a.is_loaded());
    a.load(&p).unwrap();
    let mut got = Vec::new();
    for _ in 0..12 {
        let n = a.count();
        if let Some(c) = a.after_anchor_with(|c| c.clone()) {
            got.push((n, c));
        }
    }
    assert_eq!(got, v);
    assert_eq!(a.count(), 12);
    // A bad record: no comment, and the error.
    a.begin_game();
    assert!(a.load(&p[..3]).is_err());
    assert!(!a.is_loaded() && !a.after_anchor(&mut out));
}

/// Sets byte `i` of `p` to `b` and returns the error position.
fn refused(p: &[u8], i: usize, b: u8) -> PayloadError {
    let mut q = p.to_vec();
    q[i] = b;
    let e = GameCommandsReader::from_payload(&q).unwrap_err();
    assert_eq!(crate::ext::check(crate::ext::ExtKind::COMMANDS, &q), Err(e));
    e
}

#[test]
fn each_malformed_shape_is_refused_at_its_byte() {
    // One clock after anchor 0: templates 1, pieces 1, tag 0x02, format
    // 0x04; runs 1: gap 0, length 1; mask 0x01; clocks: count 1, unit 0,
    // bias 0, residual.
    let mut g = GameCommands::new();
    let mut c = TypedComment::new();
    c.push_time(
        Separator::Space,
        TimeKind::Clk,
        Clock { millis: 60_000 },
        ClockFormat::HMS,
    );
    assert!(g.push(0, &c));
    let p = payload(&g);
    assert_eq!(
        p,
        [
            0x01, 0x01, 0x02, 0x04, 0x01, 0x00, 0x01, 0x01, 0x01, 0x00, 0x00, 0x78
        ]
    );
    assert!(GameCommandsReader::from_payload(&p).is_ok());

    let e = refused(&p, 0, 0);
    assert_eq!((e.at, e.found), (0, Found::Value(0)));
    let e = refused(&p, 0, 0x7f);
    assert_eq!(
        (e.at, e.expected),
        (0, "a count that the bytes left can hold")
    );
    let e = refused(&p, 2, 0x09);
    assert_eq!((e.at, e.found), (2, Found::Byte(0x09)));
    let e = refused(&p, 2, 0x42); // separator 4: bits 6-7 of the tag
    assert_eq!((e.at, e.found), (2, Found::Byte(0x42)));
    // Separator 3, a CR alone.
    let mut q = p.clone();
    q[2] = 0x32;
    assert!(GameCommandsReader::from_payload(&q).is_ok());
    let e = refused(&p, 3, 0x40); // clock format with bit 6
    assert_eq!((e.at, e.found), (3, Found::Byte(0x40)));
    let e = refused(&p, 3, 0x00); // hour width 0
    assert_eq!(e.at, 3);
    let e = refused(&p, 6, 0); // a run of 0 anchors
    assert_eq!((e.at, e.found), (5, Found::Value(0)));
    let e = refused(&p, 7, 0x03); // mask with emt too
    assert_eq!((e.at, e.found), (7, Found::Byte(0x03)));
    let e = refused(&p, 8, 2); // clock count 2: the second value is missing
    assert_eq!((e.at, e.found), (12, Found::End));
    let e = refused(&p, 8, 9); // clock count 9: more than the bytes left
    assert_eq!((e.at, e.found), (8, Found::Value(9)));
    let e = refused(&p, 9, 4); // clock unit 4
    assert_eq!((e.at, e.found), (9, Found::Byte(4)));
    let e = refused(&p, 11, 0x7f); // residual -64 s: below zero
    assert_eq!((e.at, e.found), (11, Found::Value(0x7f)));
    // Bytes after the last column.
    let mut q = p.clone();
    q.push(0);
    let e = GameCommandsReader::from_payload(&q).unwrap_err();
    assert_eq!((e.at, e.found), (12, Found::Trailing(1)));
    // Every truncation: refused at or before the cut.
    for n in 0..p.len() {
        let e = GameCommandsReader::from_payload(&p[..n]).unwrap_err();
        assert!(e.at <= n, "cut at {n}: {e}");
    }

    // Whitespace template piece holding a letter.
    let mut g = GameCommands::new();
    let mut c = TypedComment::new();
    c.push_space(b"\n\n");
    c.push_eval(Separator::Space, Eval::Centipawns(5), EvalFormat::LICHESS);
    assert!(g.push(0, &c));
    let p = payload(&g);
    assert_eq!(&p[..6], [0x01, 0x02, 0x00, 0x02, b'\n', b'\n']);
    let e = refused(&p, 5, b'x');
    assert_eq!((e.at, e.found), (5, Found::Byte(b'x')));
    let e = refused(&p, 7, 0x08); // eval format with bit 3
    assert_eq!((e.at, e.found), (7, Found::Byte(0x08)));

    // Two templates: a template number out of range, a run of 0.
    let mut g = GameCommands::new();
    assert!(g.push(0, &clk(1000)));
    let mut e2 = TypedComment::new();
    e2.push_eval(Separator::Space, Eval::Mate(2), EvalFormat::LICHESS);
    assert!(g.push(1, &e2));
    let p = payload(&g);
    // templates: 02 | 03 01 02 04 01 | 01 06 00 ; runs: 01 00 02 ; truns: 02 00 01 01 01
    assert_eq!(&p[..16], [2, 3, 1, 2, 4, 1, 1, 6, 0, 1, 0, 2, 2, 0, 1, 1]);
    let e = refused(&p, 15, 2);
    assert_eq!((e.at, e.found), (15, Found::Value(2)));
    let e = refused(&p, 14, 0);
    assert_eq!((e.at, e.found), (14, Found::Value(0)));
}

#[test]
fn corrupt_payloads_are_errors_not_panics() {
    let (_, p) = mixed();
    for i in 0..p.len() {
        for b in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut q = p.clone();
            q[i] = b;
            match GameCommandsReader::from_payload(&q) {
                Ok(mut r) => {
                    let mut out = TypedComment::new();
                    for a in 0..16 {
                        r.typed_at(a, &mut out);
                    }
                }
                Err(e) => assert!(e.at <= q.len(), "{e}"),
            }
        }
    }
    // Counts that claim more than the payload holds.
    let huge = [0x01, 0x01, 0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01];
    assert!(GameCommandsReader::from_payload(&huge).is_err());
    let mut col = Vec::new();
    put_varint(&mut col, u64::MAX);
    assert_eq!(ClockColumn::from_payload(&col).unwrap_err().at, 0);
    assert_eq!(EvalColumn::from_payload(&col).unwrap_err().at, 0);
    // Eleven LEB128 bytes: above 64 bits.
    let e = ClockColumn::from_payload(&[0xff; 11]).unwrap_err();
    assert_eq!((e.at, e.found), (0, Found::Byte(0xff)));
}

#[test]
fn columns_round_trip() {
    let mut c = ClockColumn::new();
    for ms in [
        900_000,
        900_000,
        919_000,
        918_000,
        7_300,
        0,
        MAX_CLOCK_MILLIS,
    ] {
        c.push(Clock { millis: ms });
    }
    let mut p = Vec::new();
    c.to_payload(&mut p);
    let (back, n) = ClockColumn::from_payload(&p).unwrap();
    assert_eq!((back, n), (c, p.len()));

    let mut e = EvalColumn::new();
    for v in [
        Eval::Centipawns(17),
        Eval::Mate(-3),
        Eval::Centipawns(-MAX_CENTIPAWNS),
        Eval::Mate(i32::MIN),
    ] {
        e.push(v);
    }
    let mut p = Vec::new();
    e.to_payload(&mut p);
    let (back, n) = EvalColumn::from_payload(&p).unwrap();
    assert_eq!((back, n), (e, p.len()));
    // A pawn value beyond the limit.
    let mut p = vec![1];
    put_varint(&mut p, zigzag(i64::from(MAX_CENTIPAWNS) + 1) << 1);
    let e = EvalColumn::from_payload(&p).unwrap_err();
    assert_eq!(e.at, 1);
}

#[test]
fn value_spellings() {
    let (c, f) = Clock::parse(b"0:00:07.3").unwrap();
    assert_eq!((c.millis, f.frac_digits, f.hour_width), (7300, 1, 1));
    let mut out = Vec::new();
    c.render(f, &mut out);
    assert_eq!(out, b"0:00:07.3");
    let (e, f) = Eval::parse(b"-6.05").unwrap();
    out.clear();
    e.render(f, &mut out);
    assert_eq!((e, &out[..]), (Eval::Centipawns(-605), &b"-6.05"[..]));
}

#[test]
fn huge_claimed_counts_are_errors_not_overflows() {
    // One template `[%cal][%csl]`, one run of 2^63 commented anchors: each
    // mark column would need 2^63 lists; the payload holds none.
    let mut p = vec![0x01, 0x02, 0x07, 0x08, 0x01, 0x00];
    p.extend([0x80; 9]);
    p.push(0x01);
    let mask_at = p.len();
    p.extend([0x20, 0x00]);
    let e = GameCommandsReader::from_payload(&p).unwrap_err();
    assert_eq!((e.at, e.found), (mask_at + 1, Found::Value(0)));
}

proptest::proptest! {
    /// Any bytes: every codec answers, none panics, and an error is
    /// positioned within the payload (or at its end).
    #[test]
    fn any_bytes_are_answered_without_panic(p in proptest::collection::vec(0u8..=255, 0..48)) {
        let mut r = GameCommandsReader::new();
        match r.load(&p) {
            Ok(()) => {
                let mut out = TypedComment::new();
                for a in 0..64 {
                    r.typed_at(a, &mut out);
                }
            }
            Err(e) => proptest::prop_assert!(e.at <= p.len()),
        }
        for kind in 0..=255u8 {
            if let Err(e) = crate::ext::check(crate::ext::ExtKind(kind), &p) {
                proptest::prop_assert!(e.at <= p.len(), "{kind}: {e}");
            }
        }
    }
}

#[test]
fn checking_refuses_what_loading_refuses_at_the_same_byte() {
    // A clock on every move (one-byte and longer residuals), and the mixed
    // game: every single-byte change and every cut gives `check` the
    // answer of `load`.
    let mut g = GameCommands::new();
    let mut ms = [600_000u64, 600_000];
    for a in 0..60u64 {
        let side = (a % 2) as usize;
        ms[side] = ms[side].saturating_sub((a * 7919 % 40) * 1_000) + 2_000;
        assert!(g.push(a, &clk(ms[side])));
    }
    let clocks = payload(&g);
    let (_, mixed) = mixed();
    let (mut loader, mut checker) = (GameCommandsReader::new(), GameCommandsReader::new());
    let mut refused = 0;
    for p in [clocks, mixed] {
        assert_eq!(checker.check(&p), Ok(()));
        let mut cases: Vec<Vec<u8>> = (0..p.len()).map(|n| p[..n].to_vec()).collect();
        for i in 0..p.len() {
            for b in [0x00, 0x01, 0x3f, 0x40, 0x7e, 0x7f, 0x80, 0xff] {
                let mut q = p.clone();
                q[i] = b;
                cases.push(q);
            }
        }
        for q in cases {
            let want = loader.load(&q);
            refused += usize::from(want.is_err());
            assert_eq!(checker.check(&q), want, "{q:?}");
        }
    }
    assert!(refused > 100, "{refused}");
}

/// The spellings python-chess's `CLOCK_REGEX` and `EVAL_REGEX` read, with
/// the values its `clock()` (seconds, here in milliseconds) and `eval()`
/// give for them, worked out by hand from its code.
#[test]
fn read_takes_what_python_chess_reads() {
    let clock = |s: &str| Clock::read(s.as_bytes()).map(|c| c.millis);
    assert_eq!(clock("0:0:5"), Some(5_000));
    assert_eq!(clock("0:90:00"), Some(5_400_000));
    assert_eq!(clock("100:00:00"), Some(360_000_000));
    assert_eq!(clock("1:00:00."), Some(3_600_000));
    assert_eq!(clock("0:00:07.3"), Some(7_300));
    assert_eq!(clock("0:03:00.25678"), Some(180_257));
    assert_eq!(clock("0:03:00.2564"), Some(180_256));
    assert_eq!(clock("00000:00:01"), Some(1_000));
    for bad in [
        "0:15.16",
        "1:00",
        "1:00:0a",
        "-1:00:00",
        "1:00:00,5",
        ":00:00",
        "1::00",
    ] {
        assert_eq!(clock(bad), None, "{bad}");
    }
    assert_eq!(clock("99999999999999999999:00:00"), None);

    let eval = |s: &str| Eval::read(s.as_bytes());
    assert_eq!(eval("1.2,20"), Some(Eval::Centipawns(120)));
    assert_eq!(eval(".5"), Some(Eval::Centipawns(50)));
    assert_eq!(eval("-.05"), Some(Eval::Centipawns(-5)));
    assert_eq!(eval("12."), Some(Eval::Centipawns(1200)));
    assert_eq!(eval("007"), Some(Eval::Centipawns(700)));
    assert_eq!(eval("-0.00"), Some(Eval::Centipawns(0)));
    assert_eq!(eval("+0.30"), Some(Eval::Centipawns(30)));
    assert_eq!(eval("#+3,12"), Some(Eval::Mate(3)));
    assert_eq!(eval("#-0"), Some(Eval::Mate(0)));
    for bad in [
        "0.175",
        "1.2,",
        "1.2,x",
        ".",
        "-",
        "",
        "#",
        "#1.5",
        "12345678901",
        "1e3",
        "0.1.2",
    ] {
        assert_eq!(eval(bad), None, "{bad}");
    }
}

/// Every spelling the typed parsers take reads to the same value.
#[test]
fn read_agrees_with_parse() {
    for s in ["0:00:00", "1:02:03.4", "001:59:59.999", "123456789:00:00"] {
        let (c, _) = Clock::parse(s.as_bytes()).unwrap();
        assert_eq!(Clock::read(s.as_bytes()), Some(c), "{s}");
    }
    for s in [
        "0.17",
        "-1.5",
        "+2",
        "#3",
        "#-12",
        "1.50",
        "9999999.99",
        "0",
    ] {
        let (e, _) = Eval::parse(s.as_bytes()).unwrap();
        assert_eq!(Eval::read(s.as_bytes()), Some(e), "{s}");
    }
}
