//! Property test of the byte-exact contract (`spec/extensions.md`):
//! `pgc decode` of `pgc encode F` is F, byte for byte, for PGN written in
//! any layout a real file may have.
//!
//! Seeded random legal games (shakmaty plays them) are written out with
//! random choices at every place where PGN writers differ: line ends (LF,
//! CRLF, CR, mixed), a byte-order mark, `%` lines between games and in the
//! movetext, tag spacing, escapes, two tags on a line, Latin-1 bytes,
//! blank lines (none to several, some inside the movetext), move numbers
//! (`1.`, `1. `, glued, absent, `1...` after comments, variations and
//! NAGs), whitespace runs and line breaks, brace and `;` comments, NAGs and
//! glyph suffixes, variations nested two deep, check suffixes dropped,
//! castling with zeros, piece moves with their origin square, UCI moves,
//! null moves (`--`, `Z0`), games from a FEN, Chess960 games, games of the
//! Lichess variants (Crazyhouse drops among them), games without tags,
//! results that disagree with the tag or are missing; and comments after
//! moves as Lichess writes them (`[%clk]`, `[%eval]`) and as engines do
//! (cutechess-cli scores, TCEC notes of both generations with PVs), with
//! the number spellings engines use; and now and then a line of other text
//! between games (a download note), which is no game. Every game is legal,
//! so each must be converted (only the lines of other text are rejected,
//! and kept as read), its main line must be the moves that were played,
//! the PGC must verify, and the decoded file must be the input.

use pgc_core::{BulkOptions, BulkReader, Verifier};
use pgc_tests::{chess960_fen, first_difference};
use pgn_bridge::{DecodeOptions, EncodeOptions, pgc_to_pgn, pgn_to_pgc};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role};

/// What one file's writer does the same way throughout (real files are
/// mostly consistent), beside per-token noise.
struct Style {
    /// The line end: "\n", "\r\n" or "\r"; `mixed` picks one per line.
    eol: &'static str,
    mixed: bool,
    /// Move numbers glued to the move (`1.e4`).
    glued: bool,
    /// Black's move number after an interruption (`3... Nf6`).
    black_numbers: bool,
    /// Move numbers left out now and then.
    drop_numbers: bool,
    /// Longest movetext line before a break (0: breaks at random).
    width: usize,
    /// `width` is a threshold: a word starts a new line once the line
    /// holds that many bytes, and lines run past it (ChessBase).
    overrun: bool,
    /// A checkmate written with `+` (ChessBase).
    mate_plus: bool,
    /// A NAG interrupts the move numbers as a comment does (8.2.2.2); not
    /// so in ChessBase's exports.
    nag_numbers: bool,
    /// Blank lines between the tags and the movetext.
    gap_lines: usize,
    /// Comments, NAGs, variations written at all.
    annotated: bool,
    /// How moves are spelled: 0 SAN, 1 castling with zeros (`0-0`), 2 piece
    /// moves with their origin square (`Ng1f3`), 3 UCI (`g1f3`).
    spelling: u8,
    /// What comments after moves hold: 0 none of the kinds below, 1
    /// Lichess's embedded commands (`[%clk]`, `[%eval]`), 2 cutechess-cli's
    /// score and time, 3 TCEC's engine notes (with a PV), 4 the older
    /// TCEC notes (`ev=`, `pd=`, times as `H:MM:SS`).
    notes: u8,
    /// Those notes stay on their move's line whatever the width (TCEC).
    glued_notes: bool,
}

struct Writer<'a> {
    rng: &'a mut StdRng,
    style: Style,
    out: Vec<u8>,
    /// Bytes since the last line end.
    column: usize,
    /// How the game being written castles (UCI spells it by this).
    mode: CastlingMode,
}

impl Writer<'_> {
    fn eol(&mut self) {
        let e = if self.style.mixed {
            ["\n", "\r\n", "\n", "\r\n", "\r"][self.rng.gen_range(0..5)]
        } else {
            self.style.eol
        };
        // Trailing spaces before a line end, now and then.
        if self.rng.gen_bool(0.05) {
            self.out.extend_from_slice(b"  ");
        }
        self.out.extend_from_slice(e.as_bytes());
        self.column = 0;
    }

    /// A line end that also ends a `;` comment or a `%` line: a lone CR
    /// does not (`spec/extensions.md`, as pgn-reader reads it).
    fn hard_eol(&mut self) {
        let e = if self.style.eol == "\r" || self.style.mixed {
            "\n"
        } else {
            self.style.eol
        };
        self.out.extend_from_slice(e.as_bytes());
        self.column = 0;
    }

    /// Writes `s`: `é` as its Latin-1 byte 0xE9 (not UTF-8, as older
    /// files hold it), everything else as UTF-8.
    fn raw(&mut self, s: &str) {
        let start = self.out.len();
        for part in s.split_inclusive('\u{e9}') {
            match part.strip_suffix('\u{e9}') {
                Some(before) => {
                    self.out.extend_from_slice(before.as_bytes());
                    self.out.push(0xe9);
                }
                None => self.out.extend_from_slice(part.as_bytes()),
            }
        }
        self.column += self.out.len() - start;
    }

    /// Whitespace between two movetext tokens.
    fn gap(&mut self, next_len: usize) {
        if self.column == 0 {
            return;
        }
        let wrap = if self.style.width == 0 {
            self.rng.gen_bool(0.08)
        } else if self.style.overrun {
            self.column >= self.style.width
        } else {
            self.column + 1 + next_len > self.style.width
        };
        if wrap {
            self.eol();
            match self.rng.gen_range(0..100) {
                // An escaped line (`%` in the first column, after a line
                // feed) in the movetext.
                0 if self.out.ends_with(b"\n") => {
                    self.raw("%escaped");
                    self.hard_eol();
                }
                // A blank line in the movetext.
                1 => self.eol(),
                _ => {}
            }
            if self.rng.gen_bool(0.03) {
                self.raw(" ");
            }
            return;
        }
        let s = match self.rng.gen_range(0..100) {
            0..=89 => " ",
            90..=94 => "  ",
            95..=97 => "\t",
            _ => " \t ",
        };
        self.raw(s);
    }

    fn token(&mut self, s: &str) {
        self.gap(s.len());
        self.raw(s);
    }

    fn comment(&mut self) {
        let words = [
            "good",
            "a novelty",
            "weak",
            "the only move",
            "{nested?",
            "time trouble",
            "the end",
            "100% sure",
            "\"quoted\"",
            "back-rank",
            "ümlaut",
            "n=3",
            // Latin-1, not UTF-8, as older files are.
            "Ren\u{e9}",
        ];
        let mut text = String::new();
        for i in 0..self.rng.gen_range(0..5) {
            if i > 0 {
                text.push(if self.rng.gen_bool(0.1) { '\n' } else { ' ' });
            }
            text.push_str(words[self.rng.gen_range(0..words.len())]);
        }
        if self.rng.gen_bool(0.15) {
            // A rest-of-line comment: the line ends after it.
            self.token(&format!(";{text}").replace('\n', " "));
            self.hard_eol();
        } else {
            let lead = if self.rng.gen_bool(0.2) { " " } else { "" };
            self.token(&format!("{{{lead}{text}}}"));
        }
    }
}

/// A random legal line of `n` plies from `pos` (shorter if the game ends),
/// with a null move (`None`) now and then when `nulls` (never in check).
fn random_line(
    rng: &mut StdRng,
    pos: &VariantPosition,
    n: usize,
    nulls: bool,
) -> Vec<Option<Move>> {
    let mut pos = pos.clone();
    let mut line = Vec::new();
    for _ in 0..n {
        if nulls
            && rng.gen_bool(0.03)
            && let Ok(passed) = pos.clone().swap_turn()
        {
            pos = passed;
            line.push(None);
            continue;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.gen_range(0..moves.len())];
        pos.play_unchecked(m);
        line.push(Some(m));
    }
    line
}

/// A random number of `range` (in units of the last place) as writers
/// spell it: `decimals` places, sometimes with a `+` sign or a leading
/// zero dropped.
fn spelled(rng: &mut StdRng, range: std::ops::Range<i64>, decimals: u32) -> String {
    let v = rng.gen_range(range);
    let sign = if v < 0 {
        "-"
    } else if rng.gen_bool(0.3) {
        "+"
    } else {
        ""
    };
    let a = v.unsigned_abs();
    if decimals == 0 {
        return format!("{sign}{a}");
    }
    let unit = 10u64.pow(decimals);
    let whole = a / unit;
    let frac = a % unit;
    let width = decimals as usize;
    if whole == 0 && rng.gen_bool(0.1) {
        format!("{sign}.{frac:0width$}")
    } else {
        format!("{sign}{whole}.{frac:0width$}")
    }
}

/// `H:MM:SS` (or `MM:SS`) of a random time below `most` seconds.
fn clock_text(rng: &mut StdRng, most: u64) -> String {
    let seconds = rng.gen_range(0..most);
    if seconds < 3600 && rng.gen_bool(0.3) {
        format!("{:02}:{:02}", seconds / 60, seconds % 60)
    } else {
        format!(
            "{}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    }
}

/// The SAN of a random legal line from `pos` that starts with `first`
/// (a PV), sometimes with an illegal move at its end (which stays text).
fn pv_text(rng: &mut StdRng, pos: &VariantPosition, first: Option<Move>) -> String {
    let mut pos = pos.clone();
    let mut sans = Vec::new();
    let n = rng.gen_range(1..30);
    for i in 0..n {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = match first {
            Some(f) if i == 0 => f,
            _ => moves[rng.gen_range(0..moves.len())],
        };
        sans.push(SanPlus::from_move(pos.clone(), m).to_string());
        pos.play_unchecked(m);
    }
    if rng.gen_bool(0.03) {
        sans.push("Qz9".into());
    }
    sans.join(" ")
}

/// A comment after the move `played` from `before`, of the kind `kind`
/// (see [`Style::notes`]), with the number spellings engines use.
fn engine_note(rng: &mut StdRng, kind: u8, before: &VariantPosition, played: Move) -> String {
    match kind {
        1 => {
            let mut parts = Vec::new();
            if rng.gen_bool(0.7) {
                let v = if rng.gen_bool(0.1) {
                    format!("#{}", rng.gen_range(-9..10))
                } else {
                    {
                        let d = rng.gen_range(1..3);
                        spelled(rng, -900..900, d)
                    }
                };
                parts.push(format!("[%eval {v}]"));
            }

            let tenths = if rng.gen_bool(0.1) {
                format!(".{}", rng.gen_range(0..10))
            } else {
                String::new()
            };
            parts.push(format!("[%clk {}{tenths}]", clock_text(rng, 11000)));
            if rng.gen_bool(0.1) {
                parts.push("a slip".into());
            }
            let sep = if rng.gen_bool(0.8) { " " } else { "\n" };
            format!("{{ {} }}", parts.join(sep))
        }
        2 => {
            if rng.gen_bool(0.05) {
                return "{book}".into();
            }
            let score = if rng.gen_bool(0.05) {
                format!(
                    "{}M{}",
                    if rng.gen_bool(0.5) { "+" } else { "-" },
                    rng.gen_range(1..20)
                )
            } else {
                let cp: i32 = rng.gen_range(-500..500);
                let sign = if cp >= 0 { "+" } else { "-" };
                format!("{sign}{}.{:02}", cp.abs() / 100, cp.abs() % 100)
            };
            let time = {
                let d = rng.gen_range(0..4);
                spelled(rng, 0..20000, d)
            };
            let extra = if rng.gen_bool(0.05) {
                ", White wins on time"
            } else {
                ""
            };
            format!("{{{score}/{} {time}s{extra}}}", rng.gen_range(1..60))
        }
        3 => {
            let mt = rng.gen_range(100..200_000i64);
            let s = rng.gen_range(1_000_000..90_000_000i64);
            let n = s * mt / 1000 + rng.gen_range(-5000..5000);
            let mut note = format!(
                "d={}, sd={}, mt={mt}, tl={}, s={s}, n={}, pv={}, tb={}, h={}, ph={}, wv={}, \
                 R50={}, Rd={}, Rr={}, mb={}",
                rng.gen_range(1..60),
                rng.gen_range(1..90),
                rng.gen_range(1000..9_000_000),
                n.max(0),
                pv_text(rng, before, Some(played)),
                rng.gen_range(0..30_000_000),
                spelled(rng, 0..1000, 1),
                spelled(rng, 0..1000, 1),
                spelled(rng, -900..900, 2),
                rng.gen_range(0..51),
                rng.gen_range(-1000..10),
                rng.gen_range(-1000..10),
                "+0+0+0+0+0",
            );
            if rng.gen_bool(0.9) {
                note.push(',');
            }
            format!("{{{note}}}")
        }
        _ => {
            if rng.gen_bool(0.05) {
                return "{book}".into();
            }
            let after = {
                let mut p = before.clone();
                p.play_unchecked(played);
                p
            };
            let pd = pv_text(rng, &after, None);
            let pd = pd.split(' ').next().unwrap_or("").to_string();
            format!(
                "{{ ev={}, d={}, pd={pd}, mt={}, tl={}, s={} kN/s, tb={},  }}",
                spelled(rng, -900..900, 2),
                rng.gen_range(1..50),
                clock_text(rng, 600),
                clock_text(rng, 9000),
                rng.gen_range(100..50000),
                rng.gen_range(0..100),
            )
        }
    }
}

/// Writes the moves of `line` from `pos` (ply number `ply`, 0 for White's
/// first move), with annotations and variations up to `depth` more deep.
fn write_line(
    w: &mut Writer<'_>,
    pos: &VariantPosition,
    ply: u32,
    line: &[Option<Move>],
    depth: u32,
) {
    let mut pos = pos.clone();
    let mut interrupted = true;
    for (i, &m) in line.iter().enumerate() {
        let ply = ply + i as u32;
        let number = ply / 2 + 1;
        let white = ply.is_multiple_of(2);
        let Some(m) = m else {
            // A null move, as ChessBase (`--`) or older tools (`Z0`) write it.
            if white || interrupted {
                let dots = if white { "." } else { "..." };
                w.token(&format!("{number}{dots}"));
            }
            let null = if w.rng.gen_bool(0.8) { "--" } else { "Z0" };
            w.token(null);
            pos = pos.swap_turn().expect("a null move where one is legal");
            interrupted = false;
            continue;
        };
        let mut san = SanPlus::from_move(pos.clone(), m).to_string();
        match w.style.spelling {
            1 if san.starts_with("O-O") => san = san.replace('O', "0"),
            2 if m.role() != Role::Pawn
                && !m.is_castle()
                && m.from().is_some()
                && w.rng.gen_bool(0.5) =>
            {
                let suffix = &san[san.len() - usize::from(san.ends_with(['+', '#']))..];
                let capture = if m.is_capture() { "x" } else { "" };
                let from = m.from().expect("a piece move has an origin");
                san = format!("{}{from}{capture}{}{suffix}", m.role().upper_char(), m.to());
            }
            3 => san = m.to_uci(w.mode).to_string(),
            _ => {}
        }
        if w.style.mate_plus && san.ends_with('#') {
            san.pop();
            san.push('+');
        }
        if san.ends_with(['+', '#']) && w.rng.gen_bool(0.03) {
            san.pop();
        }
        if w.style.annotated && w.rng.gen_bool(0.05) {
            san.push_str(["!", "?", "!!", "??", "!?", "?!"][w.rng.gen_range(0..6)]);
        }
        let numbered = !(w.style.drop_numbers && w.rng.gen_bool(0.2));
        if numbered && (white || (interrupted && w.style.black_numbers)) {
            let dots = if white { "." } else { "..." };
            if w.style.glued {
                w.token(&format!("{number}{dots}{san}"));
            } else {
                w.token(&format!("{number}{dots}"));
                w.token(&san);
            }
        } else {
            w.token(&san);
        }
        interrupted = false;
        let before = pos.clone();
        pos.play_unchecked(m);
        if w.style.notes > 0 && w.rng.gen_bool(0.8) {
            let note = engine_note(w.rng, w.style.notes, &before, m);
            if w.style.glued_notes && w.column > 0 {
                w.raw(" ");
                w.raw(&note);
            } else {
                w.token(&note);
            }
            interrupted = true;
        }
        if w.style.annotated {
            if w.rng.gen_bool(0.06) {
                let nag = w.rng.gen_range(1..=200);
                w.token(&format!("${nag}"));
                interrupted |= w.style.nag_numbers;
            }
            if w.rng.gen_bool(0.08) {
                w.comment();
                interrupted = true;
            }
            if depth > 0 && w.rng.gen_bool(0.06) {
                let n = w.rng.gen_range(1..6);
                let alt = random_line(w.rng, &before, n, false);
                if alt.first().is_some_and(|&a| a != Some(m)) {
                    // No space after the parenthesis, as most writers do.
                    w.gap(1);
                    w.raw("(");
                    write_line(w, &before, ply, &alt, depth - 1);
                    w.raw(")");
                    interrupted = true;
                }
            }
        }
    }
}

fn tag(w: &mut Writer<'_>, name: &str, value: &str) {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    let spacing = if w.rng.gen_bool(0.05) { "  " } else { " " };
    w.raw(&format!("[{name}{spacing}\"{escaped}\"]"));
    if w.rng.gen_bool(0.03) {
        // Two tags on one line.
        w.raw(" ");
    } else {
        w.eol();
    }
}

/// One file of 1–4 games, the main lines of its games, and how many lines
/// of text that is no game (a download note, a heading) stand between
/// them: each is a rejected game, kept as read.
fn random_file(rng: &mut StdRng) -> (Vec<u8>, Vec<Vec<Move>>, u64) {
    let style = Style {
        eol: ["\n", "\r\n", "\r"][rng.gen_range(0..3)],
        mixed: rng.gen_bool(0.1),
        glued: rng.gen_bool(0.25),
        black_numbers: rng.gen_bool(0.8),
        drop_numbers: rng.gen_bool(0.1),
        width: [0, 79, 80, 90, 255][rng.gen_range(0..5)],
        gap_lines: [0, 1, 1, 1, 2][rng.gen_range(0..5)],
        annotated: rng.gen_bool(0.6),
        spelling: [0, 0, 0, 0, 0, 0, 1, 2, 3][rng.gen_range(0..9)],
        notes: [0, 0, 0, 0, 1, 2, 3, 4][rng.gen_range(0..8)],
        glued_notes: rng.gen_bool(0.3),
        overrun: false,
        mate_plus: rng.gen_bool(0.2),
        nag_numbers: rng.gen_bool(0.7),
    };
    let style = if style.width > 0 && rng.gen_bool(0.25) {
        Style {
            overrun: true,
            width: [50, 72, 76][rng.gen_range(0..3)],
            ..style
        }
    } else {
        style
    };
    let mut rng2 = StdRng::seed_from_u64(rng.r#gen());
    let mut w = Writer {
        rng: &mut rng2,
        style,
        out: Vec::new(),
        column: 0,
        mode: CastlingMode::Standard,
    };
    if w.rng.gen_bool(0.1) {
        w.out.extend_from_slice(b"\xef\xbb\xbf");
    }
    if w.rng.gen_bool(0.1) {
        w.raw("% written by a random writer");
        w.hard_eol();
    }
    let mut lines = Vec::new();
    let mut ended = true;
    let mut junk = 0;
    for g in 0..w.rng.gen_range(1..5) {
        if g > 0 || w.rng.gen_bool(0.1) {
            for _ in 0..w.rng.gen_range(0..3) {
                w.eol();
            }
        }
        // Text that is no game, after a game that ended (else it would
        // be part of that game's movetext), before a game with tags.
        let noted = g > 0 && ended && w.rng.gen_bool(0.05);
        if noted {
            let notes = [
                "Downloaded from example.org",
                "Game 12",
                "Source: a club bulletin",
            ];
            let note = notes[w.rng.gen_range(0..notes.len())];
            if w.column > 0 {
                w.eol();
            }
            w.raw(note);
            w.eol();
            if w.rng.gen_bool(0.5) {
                w.eol();
            }
            junk += 1;
        }
        // Now and then a game from a position given by FEN (reached by
        // random moves), a Chess960 game, a game of another variant (with
        // null moves only in standard chess), or a game without tags.
        let standard = VariantPosition::Chess(Chess::default());
        let mut start = standard.clone();
        let mut fen = None;
        let mut variant = None;
        w.mode = CastlingMode::Standard;
        let variants = [
            (Variant::Crazyhouse, "Crazyhouse"),
            (Variant::Atomic, "Atomic"),
            (Variant::Antichess, "Antichess"),
            (Variant::KingOfTheHill, "King of the Hill"),
            (Variant::ThreeCheck, "Three-check"),
            (Variant::Horde, "Horde"),
            (Variant::RacingKings, "Racing Kings"),
        ];
        if w.rng.gen_bool(0.05) {
            let f = chess960_fen(|n| w.rng.gen_range(0..n));
            let chess: Chess = f
                .parse::<Fen>()
                .expect("a FEN")
                .into_position(CastlingMode::Chess960)
                .expect("a Chess960 set-up");
            start = VariantPosition::Chess(chess);
            fen = Some(f);
            variant = Some("Chess960");
            w.mode = CastlingMode::Chess960;
        } else if w.rng.gen_bool(0.05) {
            let (v, name) = variants[w.rng.gen_range(0..variants.len())];
            start = VariantPosition::new(v);
            variant = Some(name);
        } else if w.rng.gen_bool(0.15) {
            let n = w.rng.gen_range(1..40);
            for m in random_line(w.rng, &standard, n, false)
                .into_iter()
                .flatten()
            {
                start.play_unchecked(m);
            }
            if start.legal_moves().is_empty() {
                start = standard.clone();
            } else {
                fen = Some(Fen::from_position(&start, EnPassantMode::Legal).to_string());
            }
        }
        // A game without tags only after a termination marker: else the
        // two games are one to any reader.
        let tagless = fen.is_none() && variant.is_none() && ended && !noted && w.rng.gen_bool(0.05);
        // A game without tags has a move at least (an empty one without a
        // termination marker would be nothing at all).
        let n = w.rng.gen_range(usize::from(tagless)..120);
        let nulls = variant.is_none_or(|v| v == "Chess960");
        let line = random_line(w.rng, &start, n, nulls);
        let results = ["1-0", "0-1", "1/2-1/2", "*"];
        let result = results[w.rng.gen_range(0..4)];
        if !tagless {
            tag(&mut w, "Event", "Random \"layout\" open");
            tag(&mut w, "Site", "C:\\games");
            tag(&mut w, "Date", "2026.11.25");
            tag(&mut w, "Round", &format!("{g}"));
            let white = if w.rng.gen_bool(0.1) {
                "Ren\u{e9}, A."
            } else {
                "Writer, A."
            };
            tag(&mut w, "White", white);
            tag(&mut w, "Black", "Reader, B.");
            tag(&mut w, "Result", result);
            if let Some(v) = variant {
                tag(&mut w, "Variant", v);
            }
            if let Some(fen) = &fen {
                tag(&mut w, "SetUp", "1");
                tag(&mut w, "FEN", fen);
            }
            if w.column > 0 {
                w.eol();
            }
            for _ in 0..w.style.gap_lines {
                w.eol();
            }
        }
        if w.style.annotated && w.rng.gen_bool(0.1) {
            w.comment();
        }
        let first_ply = 2 * (start.fullmoves().get() - 1) + u32::from(start.turn().is_black());
        write_line(&mut w, &start, first_ply, &line, 2);
        // The termination marker: usually the tag's, now and then another
        // or none.
        ended = true;
        match w.rng.gen_range(0..100) {
            0..=89 => w.token(result),
            90..=95 => {
                let other = results[w.rng.gen_range(0..4)];
                w.token(other);
            }
            _ => ended = false,
        }
        if w.rng.gen_bool(0.95) {
            w.eol();
        }
        lines.push(line.into_iter().flatten().collect());
    }
    if w.rng.gen_bool(0.1) {
        w.hard_eol();
        w.raw("% the end");
        w.hard_eol();
    }
    (w.out, lines, junk)
}

#[test]
fn random_layouts_of_legal_games_come_back_byte_for_byte() {
    // `PGC_LAYOUT_FILES` runs more (or fewer) files; `PGC_LAYOUT_DUMP=DIR`
    // writes each generated file to DIR/SEED.pgn.
    let files: u64 = std::env::var("PGC_LAYOUT_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let mut games = 0;
    let mut notes = 0;
    let mut plies = 0;
    for seed in 0..files {
        let mut rng = StdRng::seed_from_u64(0x7067_6320_0000 + seed);
        let (pgn, lines, junk) = random_file(&mut rng);
        if let Some(dir) = std::env::var_os("PGC_LAYOUT_DUMP") {
            std::fs::write(std::path::Path::new(&dir).join(format!("{seed}.pgn")), &pgn)
                .expect("write the generated file");
        }
        let mut pgc = Vec::new();
        let stats = pgn_to_pgc(&pgn[..], &mut pgc, None, &EncodeOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: encode failed: {e}"));
        assert_eq!(
            stats.rejected,
            junk,
            "seed {seed}: a legal game was rejected: {:?}\n{}",
            stats.rejects,
            String::from_utf8_lossy(&pgn)
        );
        assert_eq!(stats.games, lines.len() as u64 + junk, "seed {seed}: games");
        let mut back = Vec::new();
        pgc_to_pgn(&pgc[..], &mut back, &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: decode failed: {e}"));
        assert!(
            back == pgn,
            "seed {seed}: not byte for byte {}",
            first_difference(&back, &pgn, 60)
        );
        // The verifier (the rendering included) finds nothing to report.
        let report = pgn_bridge::verify(&Verifier::new(), &pgc[..])
            .unwrap_or_else(|e| panic!("seed {seed}: verify: {e}"));
        assert!(
            report.problems.is_empty(),
            "seed {seed}: verify: {:?}",
            report.problems.first()
        );
        // The main lines are the moves that were played.
        let mut reader = BulkReader::new(&pgc[..], BulkOptions::default());
        for (i, line) in lines.iter().enumerate() {
            let game = reader
                .next_game()
                .unwrap_or_else(|e| panic!("seed {seed}: read game {i}: {e}"))
                .unwrap_or_else(|| panic!("seed {seed}: game {i} missing"));
            let read: Vec<Move> = game.moves().collect();
            assert_eq!(&read, line, "seed {seed}: game {i}'s main line");
            plies += line.len();
        }
        games += lines.len();
        notes += junk;
    }
    println!(
        "{files} files, {games} games, {plies} plies, {notes} lines of other text: \
         byte for byte"
    );
}
