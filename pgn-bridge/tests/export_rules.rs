//! The export writer against the export format of the 1994 standard
//! (section 8): tag pair lines, the empty line after the tags, move number
//! indications (8.2.2.2), movetext lines of less than 80 characters filled
//! greedily (8.2.1), the termination marker and the closing empty line.
//! Expected texts are written by hand from the standard.

use pgn_bridge::ExportWriter;
use pgn_bridge::Layout;

/// One call of the writer.
enum T<'a> {
    Tag(&'a str, &'a str),
    Movetext,
    /// Fullmove number, White, SAN.
    San(u32, bool, &'a str),
    Nag(u32),
    Comment(&'a str),
    Begin,
    End,
    Outcome(&'a str),
}

fn render(tokens: &[T<'_>], layout: Layout) -> String {
    let mut w = ExportWriter::new();
    let mut out = Vec::new();
    w.begin_game(&mut out, layout);
    for t in tokens {
        match *t {
            T::Tag(n, v) => {
                w.tag(&mut out, n.as_bytes(), v.as_bytes());
            }
            T::Movetext => w.begin_movetext(&mut out),
            T::San(n, white, san) => w.san(&mut out, n, white, san.as_bytes()),
            T::Nag(n) => w.nag(&mut out, n),
            T::Comment(c) => w.comment(&mut out, c.as_bytes()),
            T::Begin => w.begin_variation(&mut out),
            T::End => w.end_variation(&mut out),
            T::Outcome(o) => w.outcome(&mut out, o.as_bytes()),
        }
    }
    w.end_game(&mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn tag_pairs_are_lines_with_escaped_values_then_an_empty_line() {
    let text = render(
        &[
            T::Tag("Event", r#"The "Open" \ 2024"#),
            T::Tag("Result", "*"),
            T::Movetext,
            T::San(1, true, "e4"),
            T::Outcome("*"),
        ],
        Layout::EXPORT,
    );
    // 8.1.1: a quote inside a string is `\"`, a backslash `\\`.
    assert_eq!(
        text,
        "[Event \"The \\\"Open\\\" \\\\ 2024\"]\n[Result \"*\"]\n\n1. e4 *\n\n"
    );
}

#[test]
fn black_moves_are_numbered_after_commentary_and_variations_only() {
    use T::*;
    let text = render(
        &[
            Movetext,
            San(1, true, "e4"),
            San(1, false, "e5"),
            San(2, true, "Nf3"),
            Comment("c"),
            San(2, false, "Nc6"),
            San(3, true, "Bb5"),
            Nag(1),
            San(3, false, "a6"),
            San(4, true, "Ba4"),
            Begin,
            San(4, true, "Bxc6"),
            San(4, false, "dxc6"),
            End,
            San(4, false, "Nf6"),
            Outcome("*"),
        ],
        Layout::EXPORT,
    );
    // 79 characters: one line.
    assert_eq!(
        text,
        "1. e4 e5 2. Nf3 {c} 2... Nc6 3. Bb5 $1 3... a6 4. Ba4 (4. Bxc6 dxc6) 4... Nf6 *\n\n"
    );
}

#[test]
fn a_game_from_a_position_with_black_to_move_starts_with_a_black_number() {
    let text = render(
        &[
            T::Movetext,
            T::San(12, false, "Qxd4"),
            T::San(13, true, "Nf3"),
            T::Outcome("1-0"),
        ],
        Layout::EXPORT,
    );
    assert_eq!(text, "12... Qxd4 13. Nf3 1-0\n\n");
}

#[test]
fn movetext_lines_are_under_80_characters_and_filled_greedily() {
    // 60 moves, Nf3/Nf6 back and forth: numbers grow to two digits.
    let mut tokens = vec![T::Movetext];
    let sans = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for ply in 0..120u32 {
        tokens.push(T::San(ply / 2 + 1, ply % 2 == 0, sans[(ply % 4) as usize]));
    }
    tokens.push(T::Outcome("1/2-1/2"));
    let text = render(&tokens, Layout::EXPORT);
    assert!(text.ends_with("1/2-1/2\n\n"), "{text}");
    let lines: Vec<&str> = text.trim_end_matches('\n').split('\n').collect();
    assert!(lines.len() > 5, "{text}");
    for (i, line) in lines.iter().enumerate() {
        assert!(line.len() < 80, "line {i} has {} characters", line.len());
        assert!(!line.starts_with(' ') && !line.ends_with(' '), "line {i}");
        // As many tokens as possible: the next line's first token would
        // not have fitted.
        if let Some(next) = lines.get(i + 1) {
            let first = next.split(' ').next().unwrap();
            assert!(
                line.len() + 1 + first.len() > 79,
                "line {i} could hold {first}"
            );
        }
    }
    // Nothing but the tokens, one space apart.
    let words: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(&words[..4], ["1.", "Nf3", "Nf6", "2."]);
    assert_eq!(words.len(), 60 + 120 + 1);
    // Without a width (Lichess style) everything is on one line.
    let one = render(
        &tokens,
        Layout {
            width: 0,
            ..Layout::EXPORT
        },
    );
    assert_eq!(one.matches('\n').count(), 2);
    assert_eq!(one.split_whitespace().collect::<Vec<_>>(), words);
}
