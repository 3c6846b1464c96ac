//! Engine notes in comment text: which comments are engine output, and
//! how one splits into literal text, numbers and move lists
//! ([`pgc_core::ext::engine`], `spec/extensions-engine.md`).
//!
//! A comment is an engine note when it holds a `key=value` pair
//! (`{d=40, mt=142203, …}`, `{ ev=0.28, d=24, … }`), starts with a
//! cutechess-cli evaluation (`{+0.52/23 2.1s}`, `{-M5/30 0.5s}`), or is
//! `book`. Its numbers are typed where they stand at a word's start; the
//! values of `pv=` and `pd=` are move lists, stored as ordinals when they
//! replay from a position of the line and as text otherwise. Everything
//! else is literal text, so every note is written back byte for byte.
//!
//! ```
//! use pgn_bridge::notes::parse_note;
//! use pgc_core::ext::engine::{EngineNote, LinePositions, NotePart, render_note};
//! use pgc_core::VariantPosition;
//!
//! let start = VariantPosition::default();
//! let line = LinePositions { before: Some(&start), ..LinePositions::default() };
//! let mut note = EngineNote::new();
//! let text = b"d=20, mt=1500, pv=e4 e5 Nf3 Nc6, wv=+0.35,";
//! assert!(parse_note(text, &line, &EngineNote::new(), &mut note));
//! let numbers = note.parts().filter(|p| matches!(p, NotePart::Number(..))).count();
//! assert_eq!(numbers, 3);
//! let mut back = Vec::new();
//! render_note(&note, &line, &mut back).unwrap();
//! assert_eq!(back, text);
//! assert!(!parse_note(b"A fine move.", &line, &EngineNote::new(), &mut note));
//! ```

use pgc_core::ext::engine::{
    EngineNote, LinePositions, MovesFrom, NotePart, NumberFormat, parse_number,
};

/// Whether `text` (a comment's bytes) looks like engine output: a
/// `key=value` pair, a leading cutechess-cli evaluation, or `book`.
pub fn is_engine_note(text: &[u8]) -> bool {
    let t = text.trim_ascii();
    if t == b"book" {
        return true;
    }
    if let Some(eq) = t.iter().position(|&b| b == b'=')
        && eq > 0
        && t[eq - 1].is_ascii_alphanumeric()
    {
        return true;
    }
    // `+0.52/23`, `-M5/30`, `0.00/10`.
    let mut i = usize::from(matches!(t.first(), Some(b'+' | b'-')));
    if t.get(i) == Some(&b'M') {
        i += 1;
    }
    let digits = t[i.min(t.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'.')
        .count();
    digits > 0 && t.get(i + digits) == Some(&b'/')
}

/// Whether a number may start at `i`: a digit after no letter, digit or
/// dot (so `R50=` and `e4` hold none; a digit after a lone `M` does, for
/// `-M5`), a sign after no letter.
fn number_starts(text: &[u8], i: usize) -> bool {
    let prev = if i == 0 { None } else { Some(text[i - 1]) };
    match text[i] {
        b'+' | b'-' => prev.is_none_or(|p| !p.is_ascii_alphabetic()),
        b'0'..=b'9' => match prev {
            None => true,
            Some(b'M') => i < 2 || !text[i - 2].is_ascii_alphanumeric(),
            Some(p) => !(p.is_ascii_alphanumeric() || p == b'.' || p == b'_'),
        },
        _ => false,
    }
}

/// Whether a move list starts at `i`: right after `pv=` or `pd=` that
/// starts a word.
fn moves_start(text: &[u8], i: usize) -> bool {
    i >= 3
        && matches!(&text[i - 3..i], b"pv=" | b"pd=")
        && (i == 3 || !text[i - 4].is_ascii_alphanumeric())
}

/// The length of a move list's text at the start of `s`: up to a comma,
/// a brace, a line break or tab, less trailing spaces.
fn moves_len(s: &[u8]) -> usize {
    let end = s
        .iter()
        .position(|&b| matches!(b, b',' | b'}' | b'\n' | b'\r' | b'\t' | b';'))
        .unwrap_or(s.len());
    s[..end].trim_ascii_end().len()
}

/// Where the move list after `key` (`pv=`, `pd=`) of the previous note
/// started: a list replays from the same position of the line in every
/// note of one engine (TCEC's `pv=` from before the move played, `pd=`
/// from before the opponent's move), and a list such as `c5` may replay
/// from two positions.
fn previous_start(prev: &EngineNote, key: &[u8]) -> Option<MovesFrom> {
    let mut literal: &[u8] = &[];
    for p in prev.parts() {
        match p {
            NotePart::Literal(b) => literal = b,
            NotePart::Moves(from, _) if literal.ends_with(key) => return Some(from),
            _ => literal = &[],
        }
    }
    None
}

/// Splits the comment `text` into `out` when it is an engine note
/// ([`is_engine_note`]); false otherwise (`out` then holds nothing of
/// use). Move lists are replayed from `line`; `prev` (the game's last note,
/// or an empty one) lends its number formats and move-list starts where
/// they spell this note's values too, so that notes of one engine share a
/// template.
pub fn parse_note(
    text: &[u8],
    line: &LinePositions<'_>,
    prev: &EngineNote,
    out: &mut EngineNote,
) -> bool {
    out.clear();
    if !is_engine_note(text) {
        return false;
    }
    let mut prev_numbers = prev.parts().filter_map(|p| match p {
        NotePart::Number(_, f) => Some(f),
        _ => None,
    });
    let mut literal = 0;
    let mut i = 0;
    while i < text.len() {
        // The key lies in the literal (an empty list leaves `i` there).
        if i >= literal + 3 && moves_start(text, i) {
            let n = moves_len(&text[i..]);
            out.push_literal(&text[literal..i]);
            let first = previous_start(prev, &text[i - 3..i]).unwrap_or(MovesFrom::Before);
            let list = &text[i..i + n];
            if !out.push_moves_text_preferring(list, line, first) {
                out.push_moves_as_text(list);
            }
            i += n;
            literal = i;
            continue;
        }
        if number_starts(text, i)
            && let Some((v, f, n)) = parse_number(&text[i..])
        {
            // The previous note's format where it writes the same text.
            let f: NumberFormat = match prev_numbers.next() {
                Some(pf) if pf.spells_alike(f, v) => pf,
                _ => f,
            };
            out.push_literal(&text[literal..i]);
            out.push_number(v, f);
            i += n;
            literal = i;
            continue;
        }
        i += 1;
    }
    out.push_literal(&text[literal..]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgc_core::VariantPosition;
    use pgc_core::ext::engine::render_note;

    fn round_trip(text: &[u8], line: &LinePositions<'_>) -> EngineNote {
        let mut note = EngineNote::new();
        assert!(
            parse_note(text, line, &EngineNote::new(), &mut note),
            "{}",
            String::from_utf8_lossy(text)
        );
        let mut back = Vec::new();
        render_note(&note, line, &mut back).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&back),
            String::from_utf8_lossy(text)
        );
        note
    }

    fn numbers(note: &EngineNote) -> Vec<i64> {
        note.parts()
            .filter_map(|p| match p {
                NotePart::Number(v, _) => Some(v),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn tcec_new_style() {
        let start = VariantPosition::default();
        let line = LinePositions {
            before: Some(&start),
            ..LinePositions::default()
        };
        let text = b"d=40, sd=54, mt=142203, tl=1660797, s=48028634, n=6829863982, pv=e4 e5 Nf3 Nc6 Bb5 a6, tb=63, h=40.5, ph=0.0, wv=1.04, R50=50, Rd=-9, Rr=-1000, mb=+0+0-1+0+0,";
        let note = round_trip(text, &line);
        assert_eq!(
            numbers(&note),
            [
                40, 54, 142203, 1660797, 48028634, 6829863982, 63, 405, 0, 104, 50, -9, -1000, 0,
                0, -1, 0, 0
            ]
        );
        let moves: Vec<_> = note
            .parts()
            .filter_map(|p| match p {
                NotePart::Moves(from, o) => Some((from, o.len())),
                _ => None,
            })
            .collect();
        assert_eq!(moves, [(MovesFrom::Before, 6)]);
    }

    #[test]
    fn tcec_old_style_and_cutechess() {
        let start = VariantPosition::default();
        let line = LinePositions {
            after: Some(&start),
            ..LinePositions::default()
        };
        let note = round_trip(
            b" ev=-0.18, d=27, pd=Nf3, mt=00:02:56, tl=01:26:30, s=13681 kN/s, tb=0,  ",
            &line,
        );
        // The clocks in seconds: 2:56 and 1:26:30.
        assert_eq!(numbers(&note), [-18, 27, 176, 5_190, 13681, 0]);
        assert_eq!(numbers(&round_trip(b"+0.52/23 2.1s", &line)), [52, 23, 21]);
        assert_eq!(numbers(&round_trip(b"-M5/30 0.5s", &line)), [5, 30, 5]);
        round_trip(b"book", &line);
    }

    #[test]
    fn moves_that_do_not_replay_stay_text() {
        let start = VariantPosition::default();
        let line = LinePositions {
            before: Some(&start),
            ..LinePositions::default()
        };
        let note = round_trip(b"d=3, pv=e4 Ke7 e5x, tb=0", &line);
        assert!(
            note.parts()
                .any(|p| p == NotePart::MovesText(b"e4 Ke7 e5x"))
        );
        // A check suffix that the position does not call for is not the
        // canonical spelling.
        let note = round_trip(b"pv=e4+", &line);
        assert!(note.parts().any(|p| matches!(p, NotePart::MovesText(_))));
        // An empty list.
        let note = round_trip(b"d=1, pv=, tb=0", &line);
        assert!(
            note.parts()
                .any(|p| p == NotePart::Moves(MovesFrom::Before, b""))
        );
    }

    /// The example of `spec/extensions-engine.md` section 8, bytes as the
    /// spec gives them.
    #[test]
    fn spec_example_bytes() {
        use pgc_core::ext::engine::{GameNotes, LineTrail};
        use pgc_core::variant::play_unchecked;
        let mut line = LineTrail::default();
        let mut pos = VariantPosition::default();
        let mut game = GameNotes::new();
        let mut last = EngineNote::new();
        let mut note = EngineNote::new();
        for (anchor, (san, text)) in [
            ("e4", &b"d=20, wv=0.35, pv=e4 e5"[..]),
            ("e5", b"d=18, wv=0.30, pv=e5 Nf3"),
        ]
        .into_iter()
        .enumerate()
        {
            let m = shakmaty::san::San::from_ascii(san.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            let before = pos.clone();
            play_unchecked(&mut pos, m);
            line.played(&before, &pos);
            assert!(parse_note(text, &line.positions(), &last, &mut note));
            assert!(game.push(anchor as u64, &note));
            std::mem::swap(&mut note, &mut last);
        }
        let mut payload = Vec::new();
        game.to_payload(&mut payload);
        let spec: &[u8] = &[
            0x01, 0x06, 0x00, 0x02, 0x64, 0x3d, 0x01, 0x00, 0x00, 0x00, 0x05, 0x2c, 0x20, 0x77,
            0x76, 0x3d, 0x01, 0x02, 0x01, 0x00, 0x05, 0x2c, 0x20, 0x70, 0x76, 0x3d, 0x02, 0x02,
            0x01, 0x00, 0x02, 0x03, 0x00, 0x02, 0x28, 0x24, 0x00, 0x02, 0x46, 0x3c, 0x02, 0x09,
            0x00, 0x0d, 0x0c, 0x09, 0x05, 0x09,
        ];
        assert_eq!(payload, spec);
        assert_eq!(payload.len(), 0x30);
    }

    #[test]
    fn prose_is_no_note() {
        let mut note = EngineNote::new();
        let line = LinePositions::default();
        for t in [
            &b"White is better after 23 moves."[..],
            b"Nf3 was stronger",
            b" = ",
            b"1-0",
        ] {
            assert!(
                !parse_note(t, &line, &EngineNote::new(), &mut note),
                "{}",
                String::from_utf8_lossy(t)
            );
        }
    }
}
