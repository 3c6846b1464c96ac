//! Generates and checks the conformance vectors of `spec/vectors/`.
//!
//! Each vector is a trio: `NAME.pgn` (export-format PGN), `NAME.pgc` (the
//! exact bytes `spec/pgc.md` prescribes) and `NAME.md` (a byte-by-byte walk
//! through). The games are written below as terse movetext (SAN, `$n`, `(`,
//! `)`, `{…}`); this program plays them, writes the PGN in export format and
//! builds the PGC bytes *from the specification*, not from the writer under
//! test:
//!
//! - every ordinal is computed independently: each legal move's SAN is built
//!   with shakmaty's own `San::from_move`, the strings are sorted in ASCII
//!   order and the played move's index is taken (and the order with the
//!   `+`/`#` suffix is checked to be the same); then it is compared with
//!   `pgc_core::ordinal::encode`;
//! - every record is laid out by hand from `spec/pgc.md` and then compared
//!   with `RecordRef::write_to` and `writer::write_moves`.
//!
//! `PGC_WRITE_VECTORS=1 cargo test -p pgc-tests --test make_vectors` rewrites
//! the files; without the variable the test fails if any file is stale.

use pgc_core::ext;
use pgc_core::internals::write_moves;
use pgc_core::record::{RecordRef, frame};
use pgc_core::variant::{Variant, VariantPosition, variant_of_tag};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Color, Move, Position};
use std::fmt::Write as _;
use std::path::PathBuf;

const STR: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// A movetext element.
enum El {
    Move(String),
    Nag(u8),
    Rav(Vec<El>),
    Comment(String),
}

/// Parses the terse movetext of this file: SAN, `$n`, `(`, `)`, `{…}`.
fn parse(text: &str) -> Vec<El> {
    fn line(toks: &mut std::iter::Peekable<std::vec::IntoIter<String>>) -> Vec<El> {
        let mut out = Vec::new();
        while let Some(t) = toks.next() {
            if t == "(" {
                out.push(El::Rav(line(toks)));
            } else if t == ")" {
                return out;
            } else if let Some(n) = t.strip_prefix('$') {
                out.push(El::Nag(n.parse().unwrap()));
            } else if let Some(c) = t.strip_prefix('{') {
                out.push(El::Comment(c.trim_end_matches('}').to_string()));
            } else {
                out.push(El::Move(t));
            }
        }
        out
    }
    let mut toks = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[1..];
        } else if c == '{' {
            let end = rest.find('}').unwrap() + 1;
            toks.push(rest[..end].to_string());
            rest = &rest[end..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            toks.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    line(&mut toks.into_iter().peekable())
}

struct Game {
    tags: Vec<(String, String)>,
    moves: Vec<El>,
    result: &'static str,
}

impl Game {
    fn new(tags: &[(&str, &str)], moves: &str, result: &'static str) -> Game {
        Game {
            tags: tags
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            moves: parse(moves),
            result,
        }
    }

    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Seven STR tags with the given values (Result last).
fn str_tags(vals: [&str; 7]) -> Vec<(&'static str, &str)> {
    STR.iter().copied().zip(vals).collect()
}

struct Vector {
    name: &'static str,
    title: &'static str,
    about: &'static str,
    /// An escape line (`%…`, without the `%`) before the first game's tags;
    /// its 0x0a record is the first record inside that game.
    escape: Option<&'static str>,
    games: Vec<Game>,
    /// Print the full ordinal table of the first game's start position.
    table: bool,
}

/// The independently computed ordinal of a SAN move.
struct Ordinal {
    mv: Move,
    ordinal: u8,
    legal: usize,
    san: String,
}

fn sorted_sans(pos: &VariantPosition, with_suffix: bool) -> Vec<(String, Move)> {
    let mut v: Vec<(String, Move)> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let s = if with_suffix {
                SanPlus::from_move(pos.clone(), m).to_string()
            } else {
                San::from_move(pos, m).to_string()
            };
            (s, m)
        })
        .collect();
    v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    v
}

fn ordinal(pos: &VariantPosition, text: &str) -> Ordinal {
    let plain = sorted_sans(pos, false);
    let plus = sorted_sans(pos, true);
    // The check suffix does not change the order (spec/ordinal.md).
    assert_eq!(
        plain.iter().map(|x| x.1).collect::<Vec<_>>(),
        plus.iter().map(|x| x.1).collect::<Vec<_>>(),
        "suffix changed the order"
    );
    let san: San = text.trim_end_matches(['+', '#']).parse().unwrap();
    let mv = san
        .to_move(pos)
        .unwrap_or_else(|e| panic!("{text}: {e} in {}", fen_of(pos)));
    // The movetext of the vectors is canonical export SAN, suffix included.
    assert_eq!(SanPlus::from_move(pos.clone(), mv).to_string(), text);
    let i = plain.iter().position(|x| x.1 == mv).unwrap();
    assert!(plain.len() <= 256);
    let ordinal = i as u8;
    assert_eq!(
        pgc_core::ordinal::variant::encode_in(pos, mv).unwrap(),
        u16::from(ordinal),
        "pgc-core disagrees on {text}"
    );
    if let VariantPosition::Chess(c) = pos {
        assert_eq!(pgc_core::ordinal::encode(c, mv).unwrap(), ordinal);
    }
    Ordinal {
        mv,
        ordinal,
        legal: plain.len(),
        san: text.to_string(),
    }
}

fn fen_of(pos: &VariantPosition) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// One row of the walk-through.
struct Row {
    off: usize,
    bytes: Vec<u8>,
    meaning: String,
}

#[derive(Default)]
struct Out {
    bytes: Vec<u8>,
    rows: Vec<Row>,
    /// Movetext tokens of the current game.
    tokens: Vec<String>,
    open_parens: usize,
    /// The pending move run: (ordinal, meaning).
    run: Vec<(u8, String)>,
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show(b: &[u8]) -> String {
    // Vector text is ASCII; show it as it is, backquoted.
    format!(
        "`{}`",
        String::from_utf8_lossy(b)
            .replace('`', "'")
            .replace('\r', "\\r")
            .replace('\n', "\\n")
            .replace('\0', "\\0")
            .replace('\u{feff}', "<U+FEFF>")
    )
}

impl Out {
    fn put(&mut self, bytes: &[u8], meaning: impl Into<String>) {
        self.rows.push(Row {
            off: self.bytes.len(),
            bytes: bytes.to_vec(),
            meaning: meaning.into(),
        });
        self.bytes.extend_from_slice(bytes);
    }

    /// A string item with a `header`-byte length, split into rows of 16.
    fn string(&mut self, header: usize, s: &[u8], what: &str) {
        let len = (s.len() as u32).to_le_bytes();
        let kind = format!("string-{header}");
        self.put(
            &len[..header],
            format!("{kind} length {} ({what})", s.len()),
        );
        for (i, chunk) in s.chunks(16).enumerate() {
            let m = if i == 0 {
                format!("{what}: {}", show(s))
            } else {
                "(continued)".to_string()
            };
            self.put(chunk, m);
        }
    }

    fn token(&mut self, t: String) {
        let t = format!("{}{t}", "(".repeat(self.open_parens));
        self.open_parens = 0;
        self.tokens.push(t);
    }

    /// Writes the pending run of moves as the canonical records.
    fn flush(&mut self) {
        if self.run.is_empty() {
            return;
        }
        let run = std::mem::take(&mut self.run);
        let ords: Vec<u8> = run.iter().map(|r| r.0).collect();
        let start = self.bytes.len();
        if run.len() <= 255 {
            self.put(&[0x03], "0x03 short move sequence (20.4.3)");
            self.put(&[run.len() as u8], format!("mvseq-1 count {}", run.len()));
            for (o, m) in &run {
                self.put(&[*o], m.clone());
            }
        } else {
            for chunk in run.chunks(0xffff) {
                self.put(&[0x04], "0x04 long move sequence (20.4.4)");
                self.put(
                    &(chunk.len() as u16).to_le_bytes(),
                    format!("mvseq-2 count {}", chunk.len()),
                );
                for (o, m) in chunk {
                    self.put(&[*o], m.clone());
                }
            }
        }
        let mut check = Vec::new();
        write_moves(&mut check, &ords);
        assert_eq!(check, self.bytes[start..], "write_moves disagrees");
    }

    fn record(&mut self, rec: RecordRef<'_>, at: usize) {
        let mut check = Vec::new();
        rec.write_to(&mut check).unwrap();
        assert_eq!(check, self.bytes[at..], "RecordRef::write_to disagrees");
    }

    /// Plays a line (main line or variation) from `pos`.
    fn line(&mut self, mut pos: VariantPosition, els: &[El], general: bool) {
        let mut prev: Option<VariantPosition> = None;
        let mut need_number = true;
        for el in els {
            match el {
                El::Move(text) => {
                    let o = ordinal(&pos, text);
                    let n = pos.fullmoves();
                    let (num, side) = if pos.turn() == Color::White {
                        (format!("{n}."), "White")
                    } else {
                        (format!("{n}..."), "Black")
                    };
                    if pos.turn() == Color::White || need_number {
                        self.token(num.clone());
                    }
                    self.token(o.san.clone());
                    self.run.push((
                        o.ordinal,
                        format!(
                            "ordinal {} = `{num} {}` ({side}; {} legal moves, 0..={})",
                            o.ordinal,
                            o.san,
                            o.legal,
                            o.legal - 1
                        ),
                    ));
                    need_number = false;
                    prev = Some(pos.clone());
                    pos.play_unchecked(o.mv);
                }
                El::Nag(n) => {
                    assert!(general);
                    self.flush();
                    let at = self.bytes.len();
                    self.put(&[0x07], "0x07 simple NAG (20.4.7)");
                    self.put(&[*n], format!("int-1 NAG {n} (`${n}`)"));
                    self.record(RecordRef::Nag(*n), at);
                    self.token(format!("${n}"));
                    need_number = true;
                }
                El::Comment(c) => {
                    assert!(general);
                    self.flush();
                    let at = self.bytes.len();
                    self.put(&[0x80], "0x80 extension record");
                    self.put(&[pgc_core::ext::COMMENT], "kind 0x01 comment");
                    let mut len = Vec::new();
                    pgc_core::item::put_varint(&mut len, c.len() as u32);
                    self.put(&len, format!("LEB128 payload length {}", c.len()));
                    for (i, chunk) in c.as_bytes().chunks(16).enumerate() {
                        let m = if i == 0 {
                            format!("comment bytes between the braces: {}", show(c.as_bytes()))
                        } else {
                            "(continued)".to_string()
                        };
                        self.put(chunk, m);
                    }
                    self.record(
                        RecordRef::Extension {
                            kind: pgc_core::ext::COMMENT,
                            payload: c.as_bytes(),
                        },
                        at,
                    );
                    self.token(format!("{{{c}}}"));
                    need_number = true;
                }
                El::Rav(sub) => {
                    assert!(general);
                    self.flush();
                    self.put(
                        &[0x08],
                        "0x08 RAV begin (20.4.8): replaces the move just played",
                    );
                    self.open_parens += 1;
                    self.line(prev.clone().expect("RAV after a move"), sub, general);
                    self.flush();
                    self.put(&[0x09], "0x09 RAV end (20.4.9)");
                    self.tokens.last_mut().unwrap().push(')');
                    need_number = true;
                }
            }
        }
    }
}

fn escape_tag(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Wraps tokens into lines of fewer than 80 characters (8.2.1).
fn wrap(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for t in tokens {
        if line.is_empty() {
            line.push_str(t);
        } else if line.len() + 1 + t.len() < 80 {
            line.push(' ');
            line.push_str(t);
        } else {
            out.push_str(&line);
            out.push('\n');
            line = t.clone();
        }
    }
    assert!(line.len() < 80);
    out.push_str(&line);
    out.push('\n');
    out
}

fn start_of(g: &Game) -> VariantPosition {
    let variant = g
        .tag("Variant")
        .map_or(Variant::Chess, |v| variant_of_tag(v.as_bytes()).unwrap());
    let p = match g.tag("FEN") {
        None => VariantPosition::new(variant),
        Some(f) => {
            let fen = f.parse::<Fen>().unwrap();
            VariantPosition::from_setup(variant, fen.into_setup(), CastlingMode::Chess960).unwrap()
        }
    };
    assert_eq!(
        pgc_core::variant_start_position(variant, g.tag("FEN").map(str::as_bytes)).unwrap(),
        p
    );
    p
}

fn count_plies(els: &[El]) -> (usize, bool) {
    let mut n = 0;
    let mut only_moves = true;
    for e in els {
        match e {
            El::Move(_) => n += 1,
            _ => only_moves = false,
        }
    }
    (n, only_moves)
}

/// Builds (pgn, pgc, walk-through) for a vector.
fn build(v: &Vector) -> (String, Vec<u8>, String) {
    let mut pgn = String::new();
    let mut out = Out::default();
    if let Some(e) = v.escape {
        writeln!(pgn, "%{e}").unwrap();
    }
    for (gi, g) in v.games.iter().enumerate() {
        for (n, val) in &g.tags {
            assert!(val.is_ascii() && n.is_ascii());
            writeln!(pgn, "[{n} \"{}\"]", escape_tag(val)).unwrap();
        }
        pgn.push('\n');
        let names: Vec<&str> = g.tags.iter().map(|t| t.0.as_str()).collect();
        let (plies, only_moves) = count_plies(&g.moves);
        let reduced = names == STR
            && only_moves
            && plies < 65_536
            && g.tag("Result") == Some(g.result)
            && (gi > 0 || v.escape.is_none());
        let start = start_of(g);
        out.tokens.clear();
        let game_at = out.bytes.len();
        if reduced {
            out.put(
                &[0x01],
                format!(
                    "0x01 reduced export format single game (20.4.1): game {}",
                    gi + 1
                ),
            );
            for (name, val) in &g.tags {
                out.string(1, val.as_bytes(), &format!("{name} value"));
            }
            out.line(start, &g.moves, false);
            let run = std::mem::take(&mut out.run);
            out.put(
                &(run.len() as u16).to_le_bytes(),
                format!("mvseq-2 count {} (played moves)", run.len()),
            );
            for (o, m) in &run {
                out.put(&[*o], m.clone());
            }
            let roster: Vec<&[u8]> = g.tags.iter().map(|t| t.1.as_bytes()).collect();
            let ords: Vec<u8> = run.iter().map(|r| r.0).collect();
            out.record(
                RecordRef::ReducedGame {
                    roster: roster.try_into().unwrap(),
                    moves: &ords,
                },
                game_at,
            );
        } else {
            out.put(
                &[0x05],
                format!("0x05 general game data begin (20.4.5): game {}", gi + 1),
            );
            if let (Some(e), 0) = (v.escape, gi) {
                // The reader gives the text before a game's tags to that game
                // (spec/pgc.md 8.2): the escape record is inside it.
                let at = out.bytes.len();
                out.put(
                    &[0x0a],
                    "0x0a escape string (20.4.10): the `%` line before the tags",
                );
                out.string(2, e.as_bytes(), "the text after `%`");
                out.record(RecordRef::Escape(e.as_bytes()), at);
            }
            for (name, val) in &g.tags {
                let at = out.bytes.len();
                out.put(&[0x02], format!("0x02 tag pair (20.4.2): {name}"));
                out.string(1, name.as_bytes(), "tag name");
                out.string(1, val.as_bytes(), "tag value, unescaped");
                out.record(
                    RecordRef::TagPair {
                        name: name.as_bytes(),
                        value: val.as_bytes(),
                    },
                    at,
                );
            }
            out.line(start, &g.moves, true);
            out.flush();
            out.put(&[0x06], "0x06 general game data end (20.4.6)");
        }
        let mut toks = std::mem::take(&mut out.tokens);
        toks.push(g.result.to_string());
        pgn.push_str(&wrap(&toks));
        pgn.push('\n');
    }
    let md = walkthrough(v, &pgn, &out);
    (pgn, out.bytes, md)
}

fn walkthrough(v: &Vector, pgn: &str, out: &Out) -> String {
    let mut md = String::new();
    writeln!(md, "# Vector `{}`: {}\n", v.name, v.title).unwrap();
    writeln!(md, "{}\n", v.about).unwrap();
    writeln!(
        md,
        "Files: `{0}.pgn` (input, export format), `{0}.pgc` ({1} bytes). \
         Generated and checked by `tests/tests/make_vectors.rs`; every ordinal \
         was computed from shakmaty's SAN of every legal move, sorted in ASCII \
         order, and compared with pgc-core. Specification: `spec/pgc.md`, \
         `spec/ordinal.md`.\n",
        v.name,
        out.bytes.len()
    )
    .unwrap();
    writeln!(md, "## Input PGN\n\n```\n{pgn}```\n").unwrap();
    hex_dump(&mut md, &out.bytes);
    if v.table {
        let g = &v.games[0];
        let pos = start_of(g);
        let t = sorted_sans(&pos, false);
        writeln!(
            md,
            "## Ordinal table of the start position\n\n`{}`: {} legal moves, \
             SAN sorted in ASCII order.\n\n| ordinal | SAN |\n|---:|---|",
            fen_of(&pos),
            t.len()
        )
        .unwrap();
        for (i, (s, _)) in t.iter().enumerate() {
            writeln!(md, "| {i} | `{s}` |").unwrap();
        }
        md.push('\n');
    }
    rows_table(&mut md, &out.rows);
    md
}

fn hex_dump(md: &mut String, bytes: &[u8]) {
    writeln!(md, "## Hex dump\n\n```").unwrap();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        writeln!(md, "{:08x}  {}", i * 16, hex(chunk)).unwrap();
    }
    writeln!(md, "```\n").unwrap();
}

fn rows_table(md: &mut String, rows: &[Row]) {
    writeln!(
        md,
        "## Walk-through\n\n| offset | bytes | meaning |\n|---:|---|---|"
    )
    .unwrap();
    for r in rows {
        writeln!(
            md,
            "| 0x{:04x} | `{}` | {} |",
            r.off,
            hex(&r.bytes),
            r.meaning.replace('|', "\\|")
        )
        .unwrap();
    }
}

fn vectors() -> Vec<Vector> {
    let start_table = [
        "Na3", "Nc3", "Nf3", "Nh3", "a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4",
        "f3", "f4", "g3", "g4", "h3", "h4",
    ];
    let rounds: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
    let start_games = start_table
        .iter()
        .zip(&rounds)
        .map(|(m, r)| {
            Game::new(
                &str_tags(["Start ordinals", "?", "????.??.??", r, "?", "?", "*"]),
                m,
                "*",
            )
        })
        .collect();
    let fen_tags = |event: &'static str, fen: &'static str| {
        let mut t = str_tags([event, "?", "????.??.??", "-", "?", "?", "*"]);
        t.push(("SetUp", "1"));
        t.push(("FEN", fen));
        t
    };
    let knight_dance = "Nf3 Nf6 Ng1 Ng8 ".repeat(64);
    let mut all = vec![
        Vector {
            name: "start-ordinals",
            title: "the twenty ordinals of the initial position",
            about: "Twenty one-move games, one per legal move of the initial position, in \
                    ordinal order: game N plays ordinal N-1 (20.2: `Na3` = 0, `Nc3` = 1, \
                    `a3` = 4, `h4` = 19). Each game is a 0x01 record (seven STR tags, \
                    termination `*` equal to the Result tag, no annotations), and the file \
                    is simply the twenty records one after another (concatenation).",
            escape: None,
            games: start_games,
            table: true,
        },
        Vector {
            name: "reduced-game",
            title: "a short game as one 0x01 record",
            about: "A seven-move game with exactly the Seven Tag Roster in STR order, no \
                    annotations, and a termination marker equal to its Result tag: one \
                    0x01 record. The Event value contains `\\\"` in the PGN; PGC stores \
                    the unescaped `\"`. The last move carries the mate suffix `#`, which \
                    is not part of the ordinal's SAN.",
            escape: None,
            games: vec![Game::new(
                &str_tags([
                    "Spec \"reduced\" example",
                    "Nowhere",
                    "1994.03.12",
                    "1",
                    "White, Player",
                    "Black, Player",
                    "1-0",
                ]),
                "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#",
                "1-0",
            )],
            table: false,
        },
        Vector {
            name: "general-nags-ravs",
            title: "NAGs and nested RAVs in general form",
            about: "NAGs and variations (one nested inside another) force the general \
                    form 0x05 … 0x06. Moves are cut into 0x03 runs at every NAG and RAV \
                    record; a NAG follows the move it annotates; a RAV replaces the last \
                    move played, so its first move is decoded in the position before \
                    that move.",
            escape: None,
            games: vec![Game::new(
                &str_tags(["Spec variations", "?", "????.??.??", "?", "?", "?", "*"]),
                "e4 $1 e5 Nf3 Nc6 ( d6 d4 ( Bc4 Be7 ) exd4 ) Bb5 $14 a6 $6 \
                 ( Nf6 O-O $1 ) Ba4",
                "*",
            )],
            table: false,
        },
        Vector {
            name: "promotion",
            title: "promotions: capture-promotion, under-promotion, Black promotion",
            about: "A position set up by FEN (so general form). `bxa8=Q+` is a capturing \
                    promotion with check, `g8=N+` an under-promotion with check, `h1=Q` a \
                    Black promotion. Each promotion piece is a separate legal move with \
                    its own SAN (`=B`, `=N`, `=Q`, `=R` sort in that order).",
            escape: None,
            games: vec![Game::new(
                &fen_tags("Spec promotion", "r3k3/1P4P1/8/8/8/8/7p/4K3 w - - 0 1"),
                "bxa8=Q+ Ke7 g8=N+ Kd6 Kd2 h1=Q",
                "*",
            )],
            table: true,
        },
        Vector {
            name: "en-passant",
            title: "en passant by both sides, Black to move first",
            about: "The FEN has Black to move, so the first move number is `1...`. \
                    `dxc6` and `fxe3` are en passant captures, written like ordinary \
                    pawn captures with no `e.p.` (8.2.3.3).",
            escape: None,
            games: vec![Game::new(
                &fen_tags("Spec en passant", "4k3/2p5/8/3P4/5p2/8/4P3/4K3 b - - 0 1"),
                "c5 dxc6 Kf7 e4 fxe3",
                "*",
            )],
            table: false,
        },
        Vector {
            name: "castling",
            title: "both castlings, castling with check, Chess960 castling",
            about: "Five games: both castlings for both sides; `O-O+` and `O-O-O+` where \
                    the castled rook gives check; Black castling with check; and a \
                    Chess960 position given with Shredder-FEN castling rights (`GBhb`), \
                    where castling is still written `O-O` / `O-O-O` with the letter O.",
            escape: None,
            games: vec![
                Game::new(
                    &fen_tags("Spec castling", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"),
                    "O-O O-O-O",
                    "*",
                ),
                Game::new(
                    &fen_tags("Spec castling", "5k2/8/8/8/8/8/8/4K2R w K - 0 1"),
                    "O-O+ Ke7",
                    "*",
                ),
                Game::new(
                    &fen_tags("Spec castling", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1"),
                    "O-O-O+ Ke7",
                    "*",
                ),
                Game::new(
                    &fen_tags("Spec castling", "r3k3/8/8/8/8/8/8/3K4 b q - 0 1"),
                    "O-O-O+ Ke2",
                    "*",
                ),
                Game::new(
                    &{
                        let mut t =
                            fen_tags("Spec castling", "1r2k2r/8/8/8/8/8/8/1R2K1R1 w GBhb - 0 1");
                        t.push(("Variant", "Chess960"));
                        t
                    },
                    "O-O O-O-O",
                    "*",
                ),
            ],
            table: false,
        },
        Vector {
            name: "disambiguation",
            title: "disambiguation by file, by rank and by both",
            about: "Three white queens (a1, a3, c1) reach b2: `Qa1b2` needs file and rank, \
                    `Q3b2` the rank, `Qcb2` the file. Two knights reach e2: `Nce2` (file). \
                    Two rooks on the h-file reach h4: `R2h4` (rank). The full table of the \
                    start position shows every disambiguated spelling in ASCII order.",
            escape: None,
            games: vec![Game::new(
                &fen_tags(
                    "Spec disambiguation",
                    "4k3/8/7R/8/8/Q1N5/7R/Q1Q3NK w - - 0 1",
                ),
                "Qa1b2 Kd7 Nce2 Ke8 R2h4",
                "*",
            )],
            table: true,
        },
        Vector {
            name: "pinned",
            title: "a pinned piece does not cause disambiguation",
            about: "The example of 8.2.3.4: knights on c3 and g1 both attack e2, but the \
                    c3 knight is pinned by the b4 bishop, so only one knight can legally \
                    go there and the move is `Ne2`, not `Nge2`. Disambiguation is computed \
                    over legal moves.",
            escape: None,
            games: vec![Game::new(
                &fen_tags("Spec pinned", "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1"),
                "Ne2 Kd7",
                "*",
            )],
            table: true,
        },
        Vector {
            name: "many-moves",
            title: "218 legal moves: ordinals above 127",
            about: "A position with 218 legal moves for White (the most known for a legal \
                    chess position). Ordinals run 0..=217 and need all eight bits (20.2: a \
                    seven-bit ordinal is insufficient). The game plays the move with the \
                    highest ordinal, 217 = `Rhg8`, which stalemates Black (0 legal moves), \
                    so the result is `1/2-1/2`.",
            escape: None,
            games: vec![Game::new(
                &{
                    let mut t = fen_tags(
                        "Spec many moves",
                        "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
                    );
                    t[6].1 = "1/2-1/2";
                    t
                },
                MANY_MOVES_GAME,
                "1/2-1/2",
            )],
            table: true,
        },
        Vector {
            name: "long-moves",
            title: "a run of 256 moves as a 0x04 record",
            about: "A 256-ply game (knights out and back, 64 times) with an eighth tag \
                    (PlyCount), which forces the general form. A run of more than 255 \
                    moves does not fit a mvseq-1, so it is one 0x04 record (mvseq-2 count \
                    0x0100, little-endian).",
            escape: None,
            games: vec![Game::new(
                &{
                    let mut t =
                        str_tags(["Spec long run", "?", "????.??.??", "?", "?", "?", "1/2-1/2"]);
                    t.push(("PlyCount", "256"));
                    t
                },
                &knight_dance,
                "1/2-1/2",
            )],
            table: false,
        },
        Vector {
            name: "escape-comment",
            title: "an escape line and a comment (extension record)",
            about: "A `%` escape line before the game's tags belongs to that game: it is a \
                    0x0a record (string-2 of the text after `%`) right after the game's \
                    0x05, before the tag pairs (spec/pgc.md 8.2: the PGN reader gives the \
                    text between two games to the game that follows, so a canonical writer \
                    writes no record between games). A brace comment has no 1994 record: \
                    it is an extension record 0x80, kind 0x01, LEB128 length, the bytes \
                    between the braces, placed right after the move it follows. The \
                    comment forces the general form, and the Black move after it gets a \
                    `1...` number (8.2.2.2).",
            escape: Some(" local note for this program only"),
            games: vec![Game::new(
                &str_tags(["Spec comment", "?", "????.??.??", "?", "?", "?", "*"]),
                "e4 {A comment written for the PGC vectors.} e5",
                "*",
            )],
            table: false,
        },
    ];
    all.extend(variant_vectors());
    all
}

/// One vector per Lichess variant other than standard chess and Chess960
/// (`spec/ordinal.md` section 8): the Variant tag chooses the rules, the
/// ordinals index the variant's legal moves sorted by SAN.
fn variant_vectors() -> Vec<Vector> {
    let tags = |event: &'static str, variant: &'static str, result: &'static str| {
        let mut t = str_tags([event, "?", "????.??.??", "-", "?", "?", result]);
        t.push(("Variant", variant));
        t
    };
    let fen_tags = |event: &'static str, variant: &'static str, fen: &'static str| {
        let mut t = tags(event, variant, "*");
        t.push(("SetUp", "1"));
        t.push(("FEN", fen));
        t
    };
    vec![
        Vector {
            name: "variant-crazyhouse",
            title: "Crazyhouse: drops, a pawn drop, pockets in a Lichess FEN",
            about: "Two games. The first is the opening of a Lichess game up to its first \
                    drops: `B@b6` drops a captured bishop, `@e6` a pawn (shakmaty and \
                    python-chess write a pawn drop without its letter; Lichess writes \
                    `P@e6`, which the encoder reads as another spelling). A drop sorts by \
                    its SAN like any move: `@e6` before every piece letter. The second \
                    starts from a FEN in Lichess's spelling, the pockets as a ninth rank \
                    (`/BBNNPPnp`, White's pieces in capitals), and drops a bishop, a \
                    pawn, a knight with check and a rook with check; its start position \
                    has 150 legal moves.",
            escape: None,
            games: vec![
                Game::new(
                    &tags("Spec crazyhouse", "Crazyhouse", "*"),
                    "e4 e5 Nc3 Nc6 Nf3 Bc5 Bc4 Nf6 d3 O-O O-O d6 Nd5 h6 Be3 Bg4 c3 Bxe3 \
                     fxe3 Nxd5 Bxd5 B@b6 d4 exd4 cxd4 @e6",
                    "*",
                ),
                Game::new(
                    &fen_tags(
                        "Spec crazyhouse pockets",
                        "Crazyhouse",
                        "r2q1rk1/ppp2pp1/3pp1pp/8/3bP3/1B5n/PP2Q2P/R4R1K/BBNNPPnp w - - 0 21",
                    ),
                    "B@g3 @h4 B@g2 hxg3 Bxh3 N@f2+ Rxf2 gxf2 @e3 R@g1+ Rxg1 fxg1=Q+",
                    "*",
                ),
            ],
            table: false,
        },
        Vector {
            name: "variant-atomic",
            title: "Atomic: captures explode, a mate by explosion",
            about: "The end of a game of atomic chess from a FEN: a capture removes the \
                    capturing piece and every piece but pawns around the target square, \
                    so the legal moves (and the ordinals) are those of atomic rules. \
                    `Rg2#` is mate by atomic rules; the SAN suffix is `#` whenever the \
                    variant's rules decide the game, as python-chess and shakmaty write \
                    it.",
            escape: None,
            games: vec![Game::new(
                &fen_tags(
                    "Spec atomic",
                    "Atomic",
                    "1r6/3k4/1Pn2p2/3p3p/p5P1/B3P2P/2P1b3/R3K3 w Q - 1 23",
                ),
                "g5 fxg5 b7 Ne5 c4 Nf3+ Kf2 Rg8 Rd1 Rg2#",
                "*",
            )],
            table: true,
        },
        Vector {
            name: "variant-antichess",
            title: "Antichess: promotion to a king, two kings disambiguated",
            about: "From a FEN of a Lichess antichess game: captures are compulsory, so \
                    a position with a capture has only captures as legal moves. `fxe8=K` \
                    promotes to a king (`=K` sorts after `=B` and before `=N`), and the \
                    new king moves and captures like any piece. Were two kings of one \
                    side to reach one square, the SAN would name the file or rank of the \
                    one that moves, as for any piece (python-chess and shakmaty do).",
            escape: None,
            games: vec![Game::new(
                &fen_tags(
                    "Spec antichess",
                    "Antichess",
                    "4r3/5P1k/8/4p3/2p5/8/5K2/8 w - - 1 25",
                ),
                "fxe8=K c3 Kd7 e4 Kc6 e3 Kxe3 c2 Kc5 c1=K Kd2 Kxd2 Kd5 Kg7 Kd6 Kd3",
                "*",
            )],
            table: true,
        },
        Vector {
            name: "variant-king-of-the-hill",
            title: "King of the Hill: a king reaching the centre wins",
            about: "From a FEN: `Ke5#` brings Black's king to a centre square and wins; \
                    the SAN suffix `#` marks the decided game, as python-chess and \
                    shakmaty write it.",
            escape: None,
            games: vec![Game::new(
                &fen_tags(
                    "Spec king of the hill",
                    "King of the Hill",
                    "1R1qk3/4n3/2p5/7p/4Q3/1P2P2P/2P2K1R/2B2BN1 w - - 2 21",
                ),
                "Qxe7+ Kxe7 Ba3+ Ke8 Rxd8+ Kf7 Rd4 Kg6 Rd2 h4 Rd7 Kg5 Nf3+ Kf6 Nxh4 Ke5#",
                "*",
            )],
            table: false,
        },
        Vector {
            name: "variant-three-check",
            title: "Three-check: check counts in a Lichess FEN, the third check wins",
            about: "The FEN gives the checks given so far as Lichess writes them, after \
                    the move number (`+0+1`: White none, Black one); `3+2`, the checks \
                    still to give before the clocks, is the other spelling shakmaty and \
                    python-chess read. White's third check, `Re8#`, wins.",
            escape: None,
            games: vec![Game::new(
                &fen_tags(
                    "Spec three-check",
                    "Three-check",
                    "r1b4N/pp1pkp1p/2p5/4P3/1P3P2/7P/P1PK4/R1BQ1B1R w - - 1 16 +0+1",
                ),
                "Bd3 b5 Rg1 a5 Bxb5 axb4 Ba3 h6 Bxb4+ d6 Rg8 Bg4 Rb1 Bxd1 exd6+ Ke6 Re8#",
                "*",
            )],
            table: false,
        },
        Vector {
            name: "variant-horde",
            title: "Horde: thirty-six white pawns, pawns on the first rank",
            about: "From the Horde start position (no FEN tag: the Variant tag gives it): \
                    White has pawns and no king; a pawn on the first rank may advance two \
                    squares. Its start position has 8 legal moves.",
            escape: None,
            games: vec![Game::new(
                &tags("Spec horde", "Horde", "*"),
                "b6 cxb6 cxb6 Qc7 c5 Qxc5 bxc5 axb6 cxb6 Rxa4 c4 Kd8",
                "*",
            )],
            table: true,
        },
        Vector {
            name: "variant-racing-kings",
            title: "Racing Kings: no checks, the first king on the eighth rank wins",
            about: "From the Racing Kings start position: no move may give check, so \
                    moves that would are not legal and have no ordinal.",
            escape: None,
            games: vec![Game::new(
                &tags("Spec racing kings", "Racing Kings", "*"),
                "Nxc2 Rb4 Nxa1 Rxa1 Bb6 Bb2 Bc7 Rd4 Nxd4 Bxd4 Bb6 Bxb6",
                "*",
            )],
            table: true,
        },
    ]
}

/// The many-moves game: the last-ordinal move of the 218 position (stalemate).
const MANY_MOVES_GAME: &str = "Rhg8";

// ---------------------------------------------------------------------------
// Extension-record vectors: the PGN is written here by hand, the PGC is what
// pgn-bridge writes for it, and the walk-through decodes those bytes record
// by record, every ordinal again from shakmaty's SAN of all legal moves.
// ---------------------------------------------------------------------------

/// A vector whose PGC comes from the PGN bridge.
struct BridgeVector {
    name: &'static str,
    title: &'static str,
    about: &'static str,
    /// The input PGN, exactly (it must also be what the bridge decodes).
    pgn: String,
}

/// Seven STR tag lines (Event `Spec NAME`, Result `result`) and the empty line.
fn str_header(name: &str, result: &str) -> String {
    format!(
        "[Event \"Spec {name}\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
         [White \"?\"]\n[Black \"?\"]\n[Result \"{result}\"]\n\n"
    )
}

fn bridge_vectors() -> Vec<BridgeVector> {
    let long_value = ["A_value_longer_than_255_bytes"; 10].join(" ");
    let long_name = "X".repeat(260);
    vec![
        BridgeVector {
            name: "comments",
            title: "brace comments (extension kind 0x01)",
            about: "Brace comments have no 1994 record: each is an extension record 0x80, \
                    kind 0x01, LEB128 length, then the bytes strictly between `{` and `}`, \
                    exactly (the line break inside the second comment is kept; the empty \
                    comment `{}` is a record with length 0). Each stands at its place: \
                    before the first move (a game comment), after a move, and inside a \
                    variation before and after its move. Every comment cuts the move run.",
            pgn: str_header("comments", "*")
                + "{Game comment before the first move.} 1. e4 {Best by test.} 1... e5 {A comment\n\
                   on two lines} 2. Nf3 ({An alternative:} 2. Nc3 {The Vienna.}) 2... Nc6 {} *\n\n",
        },
        BridgeVector {
            name: "line-comment",
            title: "a `;` comment (extension kind 0x02)",
            about: "A `;` comment runs to the end of its line: extension kind 0x02 holds \
                    the bytes after `;` up to, not including, the line end. The writer \
                    ends the line after it, and the Black move that follows gets `1...`.",
            pgn: str_header("line-comment", "*")
                + "1. d4 ; a line comment runs to the end of the line\n1... d5 2. c4 *\n\n",
        },
        BridgeVector {
            name: "termination",
            title: "a termination marker that differs from Result, and a missing one \
                    (extension kind 0x03)",
            about: "Game 1 has `[Result \"1-0\"]` but ends with `*`: a termination record \
                    with code 4 (`*`) stands where the marker stood, last before 0x06. \
                    Game 2 has no termination marker at all (the next game's tags follow, \
                    or the input ends): code 0 (none). A game whose marker equals its \
                    Result tag needs no record (see the other vectors).",
            pgn: str_header("termination", "1-0")
                + "1. e4 e5 *\n\n"
                + &str_header("termination", "1/2-1/2")
                + "1. d4 d5\n\n",
        },
        BridgeVector {
            name: "null-move",
            title: "null moves `--` and `Z0` (extension kind 0x04)",
            about: "A null move is a ply without a move: the side to move changes. It has \
                    no ordinal and no 1994 record; it is an extension record of kind 0x04 \
                    whose payload is empty for `--` and the spelling otherwise (`Z0`). It \
                    cuts the move run, and the next move is decoded with the other side \
                    to move (here Black's `e5` after White's `--`, at the initial \
                    position's ordinal table for Black).",
            pgn: str_header("null-move", "*") + "1. -- e5 2. d4 Z0 *\n\n",
        },
        BridgeVector {
            name: "engine-tcec",
            title: "TCEC engine comments as engine notes (extension kind 0x14)",
            about: "Each move's comment is engine output: one record of kind 0x14 after \
                    the tags holds the game's templates (the keys and punctuation, once), \
                    the placement of the notes (anchors 0, 1 and 2), and the values in \
                    streams: numbers as integers (`wv=0.35` is 35 with a two-decimal \
                    format, `mt=00:02:36` a clock of 156 seconds with two hour digits), \
                    move lists as \
                    ordinals from a position of the line (`pv=` from before the move \
                    played, `pd=` from before the opponent's move or after the move). A \
                    `pd=` of one move that a PV implies is its header alone: the third \
                    note's `pd=e5` is the second move of the PV two notes back, the \
                    fourth's `pd=Bb5` the second move of its own PV. The comments cut no \
                    move run: the four moves are one 0x03 record. Layout note: the \
                    movetext is one line, so a layout record (kind 0x07) comes first.",
            pgn: str_header("engine-tcec", "*")
                + "1. e4 {d=20, sd=31, mt=1500, tl=899000, n=15000000, pv=e4 e5 Nf3, tb=0, \
                   wv=0.35, mb=+0+0+0+0+0,} 1... e5 {d=19, sd=29, pd=e4, mt=1712, tl=898700, \
                   n=17120000, pv=e5 Nf3 Nc6, tb=0, wv=-0.30, mb=+0+0-1+0+0,} 2. Nf3 { ev=0.28, \
                   d=24, pd=e5, mt=00:02:36, tl=01:06:02, s=19672 kN/s, tb=0,  } 2... Nc6 { \
                   ev=-0.25, d=22, pd=Bb5, mt=00:01:10, tl=01:05:30, s=18500 kN/s, pv=Nc6 Bb5 \
                   a6, tb=0,  } *\n\n",
        },
        BridgeVector {
            name: "engine-cutechess",
            title: "cutechess-cli comments as engine notes (extension kind 0x14)",
            about: "cutechess-cli writes score/depth and seconds after every move, `book` \
                    for book moves, and a mate score as `-M5`. The three numbers of each \
                    note go to three streams; a score above zero is written with `+`, \
                    which the format byte's sign rule records, and `0.00` shares that \
                    format. `-M` stays literal text before the mate's number.",
            pgn: str_header("engine-cutechess", "*")
                + "1. e4 {book} 1... c5 {book} 2. Nf3 {+0.31/18 0.52s} 2... d6 {-0.28/20 \
                   0.61s} 3. d4 {0.00/19 1.2s} 3... cxd4 {-M5/30 0.073s} *\n\n",
        },
        BridgeVector {
            name: "wide-move",
            title: "a Crazyhouse move with an ordinal of 256 or more (extension kind 0x13)",
            about: "A Crazyhouse position can have more than 256 legal moves: here White \
                    holds a queen, a rook, a bishop, a knight and a pawn in hand (the \
                    Lichess FEN's ninth rank `QRBNP`), 299 legal moves. A move whose \
                    ordinal is below 256 is a move-run byte as in any position (the \
                    variation's `Q@h7`, 235); one of 256 or more (`R@h7`, 297) is an \
                    extension record of kind 0x13 holding the ordinal as two bytes, \
                    big-endian, at the move's place: a ply, which cuts the move run. A \
                    1994 reader stops at the 0x80 marker, which is not one of its \
                    records, rather than misread the game.",
            pgn: "[Event \"Spec wide-move\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
                  [Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\
                  [Variant \"Crazyhouse\"]\n[SetUp \"1\"]\n\
                  [FEN \"k7/8/8/8/8/8/8/K7/QRBNP w - - 0 1\"]\n\n\
                  1. R@h7 ( 1. Q@h7 Kb8 ) 1... Kb8 2. Q@g8# *\n\n"
                .to_string(),
        },
        BridgeVector {
            name: "long-tag",
            title: "a tag value and a tag name over 255 bytes (extension kind 0x05)",
            about: "A 0x02 tag pair holds at most 255 bytes per string-1. The Annotator \
                    value (299 bytes) and a 260-byte tag name do not fit: each is an \
                    extension record of kind 0x05 in the tag's place: LEB128 name length, \
                    the name, then the value (the rest of the payload).",
            pgn: str_header("long-tag", "*")
                .trim_end_matches('\n')
                .to_string()
                + &format!(
                    "\n[Annotator \"{long_value}\"]\n[{long_name} \"long name\"]\n\n1. e4 *\n\n"
                ),
        },
        BridgeVector {
            name: "long-nag",
            title: "NAGs above 255 (extension kind 0x06)",
            about: "The 0x07 record holds a NAG in one byte. `$300` and `$256` do not fit: \
                    each is an extension record of kind 0x06 whose payload is the NAG \
                    value as LEB128 (300 = `ac 02`, 256 = `80 02`), right after the move \
                    it annotates; `$1` is an ordinary 0x07 record.",
            pgn: str_header("long-nag", "*") + "1. e4 $300 1... e5 $1 2. Nf3 $256 *\n\n",
        },
        BridgeVector {
            name: "escape-movetext",
            title: "an escape line inside the movetext (0x0a)",
            about: "A `%` line in the middle of the movetext is a 0x0a record (string-2 of \
                    the text after `%`) at its place: it cuts the move run and changes \
                    neither the position nor the line. The writer puts it on a line of its \
                    own.",
            pgn: str_header("escape-movetext", "*")
                + "1. e4 e5\n%escape line inside the movetext\n2. Nf3 *\n\n",
        },
        BridgeVector {
            name: "junk",
            title: "text the reader cannot parse (extension kind 0x09)",
            about: "A malformed tag pair (`[Site \"?\"` without its `]`) in the tag section \
                    and an HTML line break `<br>` in the movetext are not PGN: each is an \
                    extension record of kind 0x09 holding the text verbatim, at its place, \
                    so that the game comes back byte for byte. The junk does not count \
                    as a move or a comment: the Black move after it has no `1...`.",
            pgn: "[Event \"Spec junk\"]\n[Site \"?\"\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
                  [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n1. e4 <br> e5 *\n\n"
                .to_string(),
        },
        BridgeVector {
            name: "layout-lichess",
            title: "a Lichess-style game: CR LF, all movetext on one line (extension kind 0x07)",
            about: "Lichess exports end lines in CR LF and write the whole movetext on one \
                    line. Both differ from the export layout, so the game starts with a \
                    layout record (kind 0x07) right after 0x05: flags 0x01 (CR LF), the \
                    width as LEB128 (0: no wrapping, the movetext is one line; its \
                    length, 169, would take two bytes) and the trailer (2 line ends \
                    after the result). With it the PGN comes back byte for byte.",
            pgn: "[Event \"Rated Blitz game\"]\r\n[Site \"https://lichess.org/abcdefgh\"]\r\n\
                  [Date \"2017.05.01\"]\r\n[Round \"-\"]\r\n[White \"PlayerOne\"]\r\n\
                  [Black \"PlayerTwo\"]\r\n[Result \"1-0\"]\r\n[WhiteElo \"1500\"]\r\n\
                  [BlackElo \"1480\"]\r\n[TimeControl \"180+0\"]\r\n[Termination \"Normal\"]\r\n\
                  \r\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ \
                  7. Bd2 Bxd2+ 8. Nbxd2 d5 9. exd5 Nxd5 10. Qb3 Nce7 11. O-O O-O 12. Rfe1 \
                  c6 13. Ne4 Qb6 14. Qxb6 axb6 1-0\r\n\r\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-pgnmentor",
            title: "a pgnmentor/ChessBase-style game: glued move numbers, lines of their own length, two spaces before the result (extension kinds 0x07 and 0x0b)",
            about: "ChessBase exports (pgnmentor.com files) end lines in CR LF, glue the \
                    move number to White's move (`1.e4`), break lines where they like \
                    and put two spaces before the result. The encoder reads the layout \
                    facts from the text as its rendering first needs them: CR LF at the \
                    first line end, glued numbers (and move pairs as units) at the first \
                    move, the gap at the result; the width (81) is the widest that \
                    breaks the first lines where the text does. The lines that width \
                    does not give back are mended by a text patch (kind 0x0b, form 0): \
                    each edit copies bytes of the decoder's rendering, deletes some and \
                    inserts the bytes read (here a line end where the rendering has a \
                    space, and a space where it has a line end). The moves are those of \
                    Capablanca - Corzo, Havana 1901.",
            pgn: "[Event \"Spec pgnmentor\"]\r\n[Site \"Havana\"]\r\n[Date \"1901.??.??\"]\r\n\
                  [Round \"1\"]\r\n[White \"Capablanca, Jose Raul\"]\r\n\
                  [Black \"Corzo y Prinzipe, Juan\"]\r\n[Result \"0-1\"]\r\n[WhiteElo \"\"]\r\n\
                  [BlackElo \"\"]\r\n[ECO \"C47\"]\r\n\r\n\
                  1.e4 e5 2.Nf3 Nc6 3.d4 exd4 4.Nxd4 Nf6 5.Nc3 Bb4 6.Nxc6 bxc6 7.Qd3 O-O 8.Bd2 Bxc3\r\n\
                  9.Bxc3 Nxe4 10.Qxe4 Re8 11.Be5 f6\r\n12.O-O-O fxe5 13.Bd3 Qg5+ 14.Kb1 Qh6 15.c4 Bb7 \
                  16.Qf5 d5 17.g4 Bc8\r\n18.Qh5 Qxh5 19.gxh5 Bg4 20.Rc1 e4 21.Bf1 d4 22.h6 g6\r\n\
                  23.Rg1 Bh5 24.Kc2 Rf8 25.Rg2 Rf5 26.Re1 Raf8 27.Rxe4 Bf3 28.Kd3 Bxe4+ 29.Kxe4 Rf4+  0-1\r\n\r\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-chessbase",
            title: "two ChessBase-style games: lines that run past the width, a checkmate written with `+` (extension kind 0x07)",
            about: "ChessBase exports (pgnmentor.com files) start a new line once a line \
                    holds 72 bytes or more, so their lines run past the width by up to a \
                    move pair: the first game has lines of 82 and 80 bytes beside a line \
                    broken at 73, which no greedy width gives. Its second layout byte has \
                    bit 7 (lines run past the width) and the width 72. They also write a \
                    checkmate with `+`, and no move number before a black move after a \
                    NAG: the second game ends `18.Kd2+`, a mate, and has `11.Qxh7+ $1 \
                    Kxh7`; its layout record has a third byte with bits 0 and 1 set (its \
                    lines are greedy, width 85). Neither game needs a text patch. The moves are those of \
                    Savrov - Alekhine, Moscow 1906, and Edward Lasker - Thomas, London \
                    1912.",
            pgn: "[Event \"Spec ChessBase\"]\r\n[Site \"Moscow\"]\r\n[Date \"1906.??.??\"]\r\n\
                  [Round \"?\"]\r\n[White \"Savrov\"]\r\n[Black \"Alekhine, Alexander\"]\r\n\
                  [Result \"0-1\"]\r\n\r\n\
                  1.e4 e5 2.f4 Bc5 3.Nf3 d6 4.c3 Bg4 5.Be2 Bxf3 6.Bxf3 Nc6 7.b4 Bb6 8.b5 Nce7\r\n\
                  9.d4 exd4 10.cxd4 Nf6 11.O-O O-O 12.Bb2 d5 13.e5 Nd7 14.Nc3 c6 15.Qd3 Ng6\r\n\
                  16.g3 f5 17.Kh1 Qe7 18.Nxd5 cxd5 19.Bxd5+ Kh8 20.Ba3 Qd8 21.Bxb7 Rb8 22.Bxf8 Ndxf8\r\n\
                  23.Bc6 Qxd4 24.Qxf5 Ne7 25.Qc2 Rc8 26.Rad1 Qb4 27.Rb1 Qa5 28.Rf3 Nxc6 29.Rc3 Rd8\r\n\
                  30.bxc6 Qd5+ 31.Qg2 Qd1+ 32.Qf1 Qd5+ 33.Qf3 Qxa2 34.Rd1 Rxd1+ 35.Qxd1 Ne6\r\n\
                  36.Qf3 Qb1+ 37.Kg2 g6 38.Qd3 Qg1+ 39.Kh3 h5 40.Qc4 Qd1 41.Rc1 Qg4+ 42.Kg2 h4\r\n\
                  43.Qf1 g5 44.Qd1 Nxf4+ 45.Kh1  0-1\r\n\r\n\
                  [Event \"Spec ChessBase\"]\r\n[Site \"London\"]\r\n[Date \"1912.??.??\"]\r\n\
                  [Round \"?\"]\r\n[White \"Lasker, Edward\"]\r\n[Black \"Thomas, George Alan\"]\r\n\
                  [Result \"1-0\"]\r\n\r\n\
                  1.d4 e6 2.Nf3 f5 3.Nc3 Nf6 4.Bg5 Be7 5.Bxf6 Bxf6 6.e4 fxe4 7.Nxe4 b6 8.Ne5 O-O\r\n\
                  9.Bd3 Bb7 10.Qh5 Qe7 11.Qxh7+ $1 Kxh7 12.Nxf6+ Kh6 13.Neg4+ Kg5 14.h4+ Kf4 15.g3+ Kf3\r\n\
                  16.Be2+ Kg2 17.Rh2+ Kg1 18.Kd2+  1-0\r\n\r\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-pair-per-line",
            title: "an engine-tournament game: one move pair per line, an engine comment after every move (extension kinds 0x07 and 0x14)",
            about: "Engine-tournament archives (TCEC, cutechess) write one move pair per \
                    line, each move followed by the engine's evaluation, depth and time \
                    as a comment, and no `N...` before a black move after a comment. The \
                    text's first line break in the movetext stands right before the \
                    second white move, so the layout record has flag 0x20 (one move \
                    pair per line) and flag 0x04 (no `N...` after a comment); they give \
                    the text back with no text patch. The comments are engine notes \
                    (kind 0x14), so the eight moves stay one move run.",
            pgn: "[Event \"Spec pair per line\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
                  [Round \"?\"]\n[White \"Engine A\"]\n[Black \"Engine B\"]\n\
                  [Result \"1/2-1/2\"]\n\n\
                  1. d4 {+0.21/24 12s} Nf6 {-0.15/23 9s}\n\
                  2. c4 {+0.25/25 11s} e6 {-0.18/24 10s}\n\
                  3. Nf3 {+0.22/26 14s} d5 {-0.20/25 8s}\n\
                  4. Nc3 {+0.30/24 9s} Be7 {-0.19/27 13s} 1/2-1/2\n\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-ply-per-line",
            title: "an early TCEC game: one ply per line, two spaces before each line end (extension kinds 0x07 and 0x14)",
            about: "Early TCEC archives put every move on a line of its own, its move \
                    number glued to a white move (`2.d4`) and none before a black one, \
                    each followed by the engine's comment and two spaces. The text's \
                    first line break in the movetext after a move stands right before \
                    the first black move, after the white move's one-line comment: the \
                    second layout byte has bit 2 (one ply per line) and the value 2 in \
                    bits 3-4 (two spaces before each such line end), besides glued \
                    numbers (bit 0). The width, 92, is the longest line kept whole. The \
                    comments are engine notes (kind 0x14). A text patch of two edits \
                    keeps what the layout does not give: the line end after the comment \
                    before the first move (a line break there tells nothing of the \
                    width) and the result's line of its own.",
            pgn: "[Event \"Spec ply per line\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
                  [Round \"?\"]\n[White \"Engine A\"]\n[Black \"Engine B\"]\n\
                  [Result \"*\"]\n\n\
                  { Quad core, 2.8 GHz }\n\
                  1.d4 { ev=0.21, d=14, mt=00:00:31, tl=01:39:29, s=1630 kN/s, tb=0,  }  \n\
                  Nf6 { ev=-0.15, d=13, mt=00:00:25, tl=01:39:35, s=1544 kN/s, tb=0,  }  \n\
                  2.c4 { ev=0.25, d=15, mt=00:00:41, tl=01:38:48, s=1602 kN/s, tb=0,  }  \n\
                  e6 { ev=-0.18, d=14, pd=Nf3, mt=00:00:37, tl=01:38:58, s=1587 kN/s, tb=0,  }  \n\
                  *\n\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-engine-lines",
            title: "a TCEC game: book moves wrapped, then each engine comment on its move's line (extension kinds 0x07 and 0x14)",
            about: "TCEC archives of the middle seasons wrap the book moves greedily and \
                    keep each engine comment, longer than any line, on its move's line, \
                    which starts a line of its own. The width the text gives is 69 (its \
                    first line kept whole, and `cxd4` moved to the next line where 74 \
                    bytes would do). The comment after `4. Nxd4` is the first right \
                    after a move that no such width keeps on the move's line, and the \
                    text keeps it there: the second layout byte has bit 6 (a comment \
                    right after a move stays on its line), and flag 0x04 (no `N...` \
                    after a comment) is set. A text patch of one edit keeps the line \
                    break before `4.`, where the width keeps the move on `cxd4`'s line \
                    (the one place where the book moves end).",
            pgn: "[Event \"Spec engine lines\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
                  [Round \"?\"]\n[White \"Engine A\"]\n[Black \"Engine B\"]\n\
                  [Result \"*\"]\n\n\
                  1. e4 { book } c5 { book } 2. Nf3 { book } d6 { book } 3. d4 { book }\n\
                  cxd4 { book }\n\
                  4. Nxd4 { ev=0.31, d=27, pd=Nf6, mt=00:02:56, tl=01:26:30, s=13681 kN/s, pv=Nxd4 Nf6 Nc3 a6, tb=0, }\n\
                  Nf6 { ev=-0.22, d=25, pd=Nc3, mt=00:01:12, tl=01:28:14, s=14102 kN/s, pv=Nf6 Nc3 a6 Be3, tb=0, }\n\
                  5. Nc3 { ev=0.30, d=28, pd=a6, mt=00:03:01, tl=01:23:29, s=13560 kN/s, pv=Nc3 a6 Be3 e5, tb=0, }\n\
                  *\n\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-rejected",
            title: "a game that cannot be converted, kept as read between two games (extension kind 0x0a)",
            about: "The second game has an illegal move (`2. Ke3`). It is no PGC game; its \
                    text, exactly as read, stands between the other two as a verbatim \
                    record (kind 0x0a, outside any game), which the decoder writes as \
                    it is. `--strict` leaves it out; `--rejects FILE` also writes it \
                    there.",
            pgn: format!(
                "{}1. e4 e5 2. Nf3 {{before}} *\n\n{}1. e4 e5 2. Ke3 *\n\n{}1. d4 d5 {{after}} *\n\n",
                str_header("rejected one", "*"),
                str_header("rejected two", "*"),
                str_header("rejected three", "*")
            ),
        },
        BridgeVector {
            name: "text-bom-mixed",
            title: "a byte-order mark and mixed line ends (extension kinds 0x07 and 0x0b)",
            about: "The text starts with a UTF-8 byte-order mark and ends its lines in CR \
                    LF, except two that end in LF alone. The layout record keeps the \
                    byte-order mark and CR LF (flags 0x03, CR LF read at the first line \
                    end) and the width 30 that breaks the movetext's one line break; the \
                    text patch turns the two CR LF the rendering writes where the text \
                    has LF back into LF.",
            pgn: "\u{feff}[Event \"Spec bom\"]\r\n[Site \"?\"]\r\n[Date \"????.??.??\"]\n\
                  [Round \"?\"]\r\n[White \"?\"]\r\n[Black \"?\"]\r\n[Result \"1-0\"]\r\n\r\n\
                  1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6\n4. Qxf7# 1-0\r\n\r\n"
                .to_string(),
        },
        BridgeVector {
            name: "text-mac-cr",
            title: "classic Mac OS line ends, a CR alone (extension kind 0x07)",
            about: "Every line ends in a CR alone, as on classic Mac OS, and a `%` line \
                    and a `;` comment end at the CR. The layout record says so (second \
                    flags byte 0x20, read at the game's first line end) and the export \
                    rendering does the rest: no text patch.",
            pgn: format!(
                "{}1. e4 e5\n% kept\n2. Nf3 Nc6 3. Bb5 a6 ; the Ruy Lopez\n4. Ba4 Nf6 *\n\n",
                str_header("mac", "*")
            )
            .replace('\n', "\r"),
        },
        BridgeVector {
            name: "text-trailing-nul",
            title: "NUL bytes after the last game (extension kind 0x0b)",
            about: "Some archives are padded with NUL bytes after the last game (a fixed \
                    block size). The lexer reads them as whitespace at the end of the \
                    game; the text patch inserts them after the rendering's last line \
                    end.",
            pgn: format!("{}1. d4 d5 2. c4 *\n\n\0\0\0\0\0\0\0\0", str_header("nul", "*")),
        },
    ]
}

/// Walks PGC bytes record by record, writing walk-through rows.
#[derive(Default)]
struct RecordWalk {
    rows: Vec<Row>,
    game: usize,
    fen: Option<String>,
    /// The game's first Variant tag value.
    variant: Option<String>,
    /// Current position and the position before the last move, per line.
    line: Option<(VariantPosition, Option<VariantPosition>)>,
    stack: Vec<(VariantPosition, Option<VariantPosition>)>,
    /// Bytes of the current record and how many are described.
    rec: Vec<u8>,
    rec_off: usize,
    used: usize,
}

impl RecordWalk {
    fn put(&mut self, n: usize, meaning: impl Into<String>) {
        self.rows.push(Row {
            off: self.rec_off + self.used,
            bytes: self.rec[self.used..self.used + n].to_vec(),
            meaning: meaning.into(),
        });
        self.used += n;
    }

    fn text(&mut self, s: &[u8], what: &str) {
        for (i, chunk) in s.chunks(16).enumerate() {
            let m = if i == 0 {
                format!("{what}: {}", show(s))
            } else {
                "(continued)".to_string()
            };
            self.put(chunk.len(), m);
        }
    }

    fn string(&mut self, header: usize, s: &[u8], what: &str) {
        self.put(
            header,
            format!("string-{header} length {} ({what})", s.len()),
        );
        self.text(s, what);
    }

    fn varint(&mut self, v: u32, what: &str) {
        let mut b = Vec::new();
        pgc_core::item::put_varint(&mut b, v);
        self.put(b.len(), format!("LEB128 {what} {v}"));
    }

    fn position(&mut self) -> &mut (VariantPosition, Option<VariantPosition>) {
        if self.line.is_none() {
            let variant = self
                .variant
                .as_ref()
                .map_or(Variant::Chess, |v| variant_of_tag(v.as_bytes()).unwrap());
            let pos = match &self.fen {
                None => VariantPosition::new(variant),
                Some(f) => {
                    let setup = f.parse::<Fen>().unwrap().into_setup();
                    VariantPosition::from_setup(variant, setup, CastlingMode::Chess960).unwrap()
                }
            };
            self.line = Some((pos, None));
        }
        self.line.as_mut().unwrap()
    }

    fn moves(&mut self, ords: &[u8]) {
        for &o in ords {
            self.play_ordinal(u16::from(o), 1);
        }
    }

    /// Describes the `width` bytes of ordinal `o` and plays its move.
    fn play_ordinal(&mut self, o: u16, width: usize) {
        {
            let (pos, prev) = self.position().clone();
            let table = sorted_sans(&pos, false);
            let mv = table[usize::from(o)].1;
            assert_eq!(pgc_core::ordinal::variant::encode_in(&pos, mv).unwrap(), o);
            let san = SanPlus::from_move(pos.clone(), mv).to_string();
            let n = pos.fullmoves();
            let (num, side) = if pos.turn() == Color::White {
                (format!("{n}."), "White")
            } else {
                (format!("{n}..."), "Black")
            };
            self.put(
                width,
                format!(
                    "ordinal {o} = `{num} {san}` ({side}; {} legal moves, 0..={})",
                    table.len(),
                    table.len() - 1
                ),
            );
            let _ = prev;
            let mut after = pos.clone();
            after.play_unchecked(mv);
            *self.position() = (after, Some(pos));
        }
    }

    fn extension(&mut self, kind: u8, payload: &[u8]) {
        self.put(1, "0x80 extension record");
        self.put(1, format!("kind 0x{kind:02x} {}", ext::kind_name(kind)));
        self.varint(payload.len() as u32, "payload length");
        match kind {
            ext::COMMENT => self.text(payload, "comment bytes between the braces"),
            ext::LINE_COMMENT => self.text(payload, "bytes after `;` up to the line end"),
            ext::TERMINATION => {
                let o = pgc_core::ext::Outcome::from_code(payload[0]).unwrap();
                let what = match o.as_bytes() {
                    b"" => "no termination marker".to_string(),
                    m => format!("marker `{}`", String::from_utf8_lossy(m)),
                };
                self.put(1, format!("termination code {}: {what}", payload[0]));
            }
            ext::NULL_MOVE => {
                let (pos, _) = self.position().clone();
                let side = if pos.turn() == Color::White {
                    "White"
                } else {
                    "Black"
                };
                if payload.is_empty() {
                    let last = self.rows.last_mut().unwrap();
                    last.meaning
                        .push_str(&format!(": empty payload, a null move `--` by {side}"));
                } else {
                    self.text(payload, &format!("a null move by {side}, spelled"));
                }
                let after = pgc_core::variant_null_move(&pos).unwrap();
                *self.position() = (after, Some(pos));
            }
            ext::WIDE_MOVE => {
                let o = u16::from_be_bytes([payload[0], payload[1]]);
                self.rows
                    .last_mut()
                    .unwrap()
                    .meaning
                    .push_str(": a move whose ordinal is 256 or more, two bytes big-endian");
                self.play_ordinal(o, 2);
            }
            ext::LONG_TAG => {
                let mut it = pgc_core::item::Items::new(payload);
                let n = it.varint().unwrap() as usize;
                let rest = it.rest();
                self.varint(n as u32, "tag name length");
                self.text(&rest[..n], "tag name");
                self.text(&rest[n..], "tag value, unescaped");
            }
            ext::LONG_NAG => {
                let v = pgc_core::item::Items::new(payload).varint().unwrap();
                let before = self.rows.len();
                self.varint(v, "NAG value");
                self.rows[before].meaning.push_str(&format!(" (`${v}`)"));
            }
            ext::LAYOUT => {
                let f = payload[0];
                let names = [
                    "CR LF",
                    "byte-order mark",
                    "no `N...` after a comment",
                    "glyph NAGs",
                    "space before the movetext",
                    "one move pair per line",
                    "the termination marker stays on the last line",
                    "two spaces before the termination marker",
                ];
                let set: Vec<&str> = (0..8)
                    .filter(|b| f & (1 << b) != 0)
                    .map(|b| names[b])
                    .collect();
                self.put(1, format!("layout flags 0x{f:02x}: {}", set.join(", ")));
                let mut it = pgc_core::item::Items::new(&payload[1..]);
                let w = it.varint().unwrap();
                self.varint(w, "line width");
                let t = payload[self.used - 3];
                self.put(1, format!("trailer: {t} line ends after the last token"));
                if let Some(&f2) = payload.get(self.used - 3) {
                    let names = [
                        "glued move numbers (`1.e4`)",
                        "move pairs as words",
                        "one ply per line",
                    ];
                    let mut set: Vec<String> = (0..3)
                        .filter(|b| f2 & (1 << b) != 0)
                        .map(|b| names[b].to_string())
                        .collect();
                    let spaces = (f2 >> 3) & 3;
                    if spaces > 0 {
                        set.push(format!("{spaces} spaces before a move's line end"));
                    }
                    if f2 & 0x20 != 0 {
                        set.push("CR alone (classic Mac OS line ends)".to_string());
                    }
                    if f2 & 0x40 != 0 {
                        set.push("a comment right after a move stays on its line".to_string());
                    }
                    if f2 & 0x80 != 0 {
                        set.push(
                            "lines run past the width (a word starts a new line once \
                             the line holds `width` bytes)"
                                .to_string(),
                        );
                    }
                    self.put(
                        1,
                        format!("second layout flags 0x{f2:02x}: {}", set.join(", ")),
                    );
                }
                if let Some(&f3) = payload.get(self.used - 3) {
                    let mut set = Vec::new();
                    if f3 & 1 != 0 {
                        set.push("a checkmate ends in `+`");
                    }
                    if f3 & 2 != 0 {
                        set.push("no `N...` after a NAG");
                    }
                    self.put(
                        1,
                        format!("third layout flags 0x{f3:02x}: {}", set.join(", ")),
                    );
                }
            }
            ext::VERBATIM => self.text(payload, "text kept as read"),
            ext::TEXT_PATCH => {
                let mut at = 1;
                if payload[0] == 1 {
                    self.put(1, "patch form 1: the whole text");
                    self.text(&payload[1..], "the text as read");
                    return;
                }
                self.put(1, "patch form 0: edits of the rendering");
                while at < payload.len() {
                    let mut it = pgc_core::item::Items::new(&payload[at..]);
                    let copy = it.varint().unwrap();
                    let del = it.varint().unwrap();
                    let ins = it.varint().unwrap();
                    self.varint(copy, "copy bytes of the rendering:");
                    self.varint(del, "delete bytes of the rendering:");
                    self.varint(ins, "insert bytes:");
                    at = payload.len() - it.rest().len();
                    let bytes = &payload[at..at + ins as usize];
                    self.text(bytes, "inserted");
                    at += ins as usize;
                }
            }
            ext::JUNK => self.text(payload, "text the reader could not parse, verbatim"),
            ext::ENGINE_NOTES => self.engine_notes(payload),
            _ => panic!("no walk-through for extension kind {kind}"),
        }
    }

    /// Walks an engine-notes payload (`spec/extensions-engine.md` section
    /// 5) by hand, field by field.
    fn engine_notes(&mut self, payload: &[u8]) {
        // The payload starts after the record header.
        let base = self.used;
        let leb = |at: usize| -> (u64, usize) {
            let (mut v, mut n) = (0u64, 0usize);
            loop {
                let b = payload[at + n];
                v |= u64::from(b & 0x7f) << (7 * n);
                n += 1;
                if b & 0x80 == 0 {
                    return (v, n);
                }
            }
        };
        let mut at = 0;
        let field = |w: &mut Self, at: &mut usize, what: &str| -> u64 {
            let (v, n) = leb(*at);
            w.used = base + *at;
            w.put(n, format!("{what} {v}"));
            *at += n;
            v
        };
        let templates = field(self, &mut at, "templates:");
        // Per stream: its kind (true: moves) and values per note of each template.
        let mut kinds: Vec<bool> = Vec::new();
        let mut uses: Vec<Vec<usize>> = Vec::new();
        for t in 0..templates {
            let pieces = field(self, &mut at, &format!("template {t}: pieces:"));
            let mut u = Vec::new();
            for _ in 0..pieces {
                let tag = payload[at];
                self.used = base + at;
                match tag {
                    0 => {
                        self.put(1, "literal");
                        at += 1;
                        let n = field(self, &mut at, "length") as usize;
                        self.used = base + at;
                        self.text(&payload[at..at + n], "literal text");
                        at += n;
                    }
                    1 => {
                        let f = payload[at + 1];
                        let what = if (f >> 3) & 3 == 3 {
                            format!(
                                "number, format 0x{f:02x}: a clock H:MM:SS, {} hour digits, {} decimals",
                                (f >> 5) + 1,
                                f & 7
                            )
                        } else {
                            format!(
                                "number, format 0x{f:02x}: {} decimals, sign rule {}, width {}",
                                f & 7,
                                (f >> 3) & 3,
                                (f >> 5) + 1
                            )
                        };
                        self.put(2, what);
                        at += 2;
                        let id = field(self, &mut at, "stream") as usize;
                        if kinds.len() <= id {
                            kinds.resize(id + 1, false);
                        }
                        u.push(id);
                    }
                    _ => {
                        self.put(1, "move list");
                        at += 1;
                        let id = field(self, &mut at, "stream") as usize;
                        if kinds.len() <= id {
                            kinds.resize(id + 1, false);
                        }
                        kinds[id] = true;
                        u.push(id);
                    }
                }
            }
            uses.push(u);
        }
        let runs = field(self, &mut at, "placement: runs");
        let mut notes = 0;
        for _ in 0..runs {
            field(self, &mut at, "gap (anchors before the run)");
            notes += field(self, &mut at, "notes in the run");
        }
        let mut per_note: Vec<usize> = Vec::new();
        if templates > 1 {
            let k = field(self, &mut at, "template runs");
            for _ in 0..k {
                let t = field(self, &mut at, "template") as usize;
                let n = field(self, &mut at, "notes using it");
                per_note.extend(std::iter::repeat_n(t, n as usize));
            }
        } else {
            per_note = vec![0; notes as usize];
        }
        let streams = field(self, &mut at, "streams");
        assert_eq!(streams as usize, kinds.len());
        for (id, &is_moves) in kinds.iter().enumerate() {
            let need: usize = per_note
                .iter()
                .map(|&t| uses[t].iter().filter(|&&s| s == id).count())
                .sum();
            if is_moves {
                let n = field(self, &mut at, &format!("stream {id} (move lists): count"));
                assert_eq!(n as usize, need);
                for _ in 0..n {
                    let (h, hn) = leb(at);
                    let start = [
                        "after the last move",
                        "before the last move",
                        "before the move before the last",
                        "text",
                    ][(h & 3) as usize];
                    self.used = base + at;
                    if h == 0 || h == 2 {
                        // One move the PV implies: no bytes follow.
                        let by = if h == 0 {
                            "the second move of this note's PV"
                        } else {
                            "the second move of the PV two notes back"
                        };
                        self.put(
                            hn,
                            format!("LEB128 {h}: one move from {start}, implied: {by}"),
                        );
                        at += hn;
                        continue;
                    }
                    self.put(hn, format!("LEB128 {h}: {} bytes, from {start}", h >> 2));
                    at += hn;
                    let len = (h >> 2) as usize;
                    self.used = base + at;
                    if h & 3 == 3 {
                        self.text(&payload[at..at + len], "moves kept as text");
                        at += len;
                    } else {
                        let mut shared = 0;
                        if len >= 2 {
                            let (k, kn) = leb(at);
                            shared = (k >> 2) as usize;
                            let what = match k & 3 {
                                0 => "nothing shared".to_string(),
                                b => format!(
                                    "the first {shared} moves are those of the list {b} back, from its move {}",
                                    b + 1
                                ),
                            };
                            self.put(kn, format!("LEB128 {k}: {what}"));
                            at += kn;
                            self.used = base + at;
                        }
                        let tail = len - shared;
                        if tail > 0 {
                            let list: Vec<String> = payload[at..at + tail]
                                .iter()
                                .map(|o| o.to_string())
                                .collect();
                            self.put(tail, format!("ordinals {}", list.join(" ")));
                        }
                        at += tail;
                    }
                }
            } else {
                self.used = base + at;
                let byte = payload[at];
                let (p, planes) = (byte & 0x7f, byte & 0x80 != 0);
                let how = if planes {
                    ", residuals in byte planes"
                } else {
                    ""
                };
                self.put(1, format!("stream {id} (numbers): predictor {p}{how}"));
                at += 1;
                let n = field(self, &mut at, "count");
                assert_eq!(n as usize, need);
                // The walk-through knows predictors 0 to 2 (the value, or
                // the one 1 or 2 back): those of the vectors.
                assert!(p <= 2, "predictor {p} in a vector");
                let mut values: Vec<i64> = Vec::new();
                // Residual and value of zig-zag residual `z`, the next value.
                let mut next = |z: u64| {
                    let r = (z >> 1) as i64 ^ -((z & 1) as i64);
                    let (i, back) = (values.len(), usize::from(p));
                    let v = if p == 0 || i < back {
                        r
                    } else {
                        values[i - back] + r
                    };
                    values.push(v);
                    (r, v)
                };
                if planes {
                    let (n, w) = (n as usize, usize::from(payload[at]));
                    self.used = base + at;
                    self.put(1, format!("{w} byte planes of {n} bytes"));
                    at += 1;
                    let planes = &payload[at..at + w * n];
                    let list: Vec<String> = (0..n)
                        .map(|i| {
                            (0..w).fold(0u64, |z, k| z | u64::from(planes[k * n + i]) << (8 * k))
                        })
                        .map(|z| next(z).1.to_string())
                        .collect();
                    for k in 0..w {
                        self.used = base + at;
                        let mut what = format!("plane {k}: byte {k} of each residual");
                        if k + 1 == w {
                            what += &format!("; values {}", list.join(" "));
                        }
                        self.put(n, what);
                        at += n;
                    }
                } else {
                    for _ in 0..n {
                        let (z, zn) = leb(at);
                        let (r, v) = next(z);
                        self.used = base + at;
                        self.put(zn, format!("LEB128 {z}: residual {r}, value {v}"));
                        at += zn;
                    }
                }
            }
        }
        assert_eq!(at, payload.len());
        self.used = base + at;
    }

    fn record(&mut self, rec: &RecordRef<'_>) {
        match *rec {
            RecordRef::GameBegin => {
                self.game += 1;
                self.fen = None;
                self.variant = None;
                self.line = None;
                self.stack.clear();
                let g = self.game;
                self.put(
                    1,
                    format!("0x05 general game data begin (20.4.5): game {g}"),
                );
            }
            RecordRef::GameEnd => self.put(1, "0x06 general game data end (20.4.6)"),
            RecordRef::TagPair { name, value } => {
                if name == b"FEN" {
                    self.fen = Some(String::from_utf8(value.to_vec()).unwrap());
                }
                if name == b"Variant" && self.variant.is_none() {
                    self.variant = Some(String::from_utf8(value.to_vec()).unwrap());
                }
                self.put(
                    1,
                    format!("0x02 tag pair (20.4.2): {}", String::from_utf8_lossy(name)),
                );
                self.string(1, name, "tag name");
                self.string(1, value, "tag value, unescaped");
            }
            RecordRef::ShortMoves(ords) => {
                self.put(1, "0x03 short move sequence (20.4.3)");
                self.put(1, format!("mvseq-1 count {}", ords.len()));
                self.moves(ords);
            }
            RecordRef::LongMoves(ords) => {
                self.put(1, "0x04 long move sequence (20.4.4)");
                self.put(2, format!("mvseq-2 count {}", ords.len()));
                self.moves(ords);
            }
            RecordRef::Nag(n) => {
                self.put(1, "0x07 simple NAG (20.4.7)");
                self.put(1, format!("int-1 NAG {n} (`${n}`)"));
            }
            RecordRef::RavBegin => {
                let (pos, prev) = self.position().clone();
                self.stack.push((pos, prev.clone()));
                self.line = Some((prev.expect("RAV after a move"), None));
                self.put(1, "0x08 RAV begin (20.4.8): replaces the move just played");
            }
            RecordRef::RavEnd => {
                self.line = self.stack.pop();
                self.put(1, "0x09 RAV end (20.4.9)");
            }
            RecordRef::Escape(t) => {
                self.put(1, "0x0a escape string (20.4.10)");
                self.string(2, t, "the text after `%`");
            }
            RecordRef::Extension { kind, payload } => self.extension(kind, payload),
            ref other => panic!("no walk-through for {other:?}"),
        }
    }
}

/// Encodes the vector's PGN with pgn-bridge, checks that it decodes back to
/// the same bytes, and writes the walk-through of the PGC.
fn build_bridge(v: &BridgeVector) -> (Vec<u8>, String) {
    let mut pgc = Vec::new();
    let stats = pgn_bridge::pgn_to_pgc(v.pgn.as_bytes(), &mut pgc, None, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", v.name));
    // Only the vector about it has a game that cannot be converted.
    let rejected = u64::from(v.name == "text-rejected");
    assert_eq!(stats.rejected, rejected, "{}: {:?}", v.name, stats.rejects);
    let mut back = Vec::new();
    pgn_bridge::pgc_to_pgn(&pgc[..], &mut back, &Default::default()).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&back),
        v.pgn,
        "{}: the bridge does not give the PGN back",
        v.name
    );
    let mut walk = RecordWalk::default();
    let limits = pgc_core::Limits::default();
    let mut off = 0;
    while off < pgc.len() {
        let (rec, n) = frame(&pgc[off..], &limits).unwrap();
        walk.rec = pgc[off..off + n].to_vec();
        walk.rec_off = off;
        walk.used = 0;
        walk.record(&rec);
        assert_eq!(
            walk.used, n,
            "{}: record at {off} not fully described",
            v.name
        );
        off += n;
    }
    let mut md = String::new();
    writeln!(md, "# Vector `{}`: {}\n", v.name, v.title).unwrap();
    writeln!(md, "{}\n", v.about).unwrap();
    writeln!(
        md,
        "Files: `{0}.pgn` (input, written by hand), `{0}.pgc` ({1} bytes, written \
         by pgn-bridge from the PGN, which it decodes back to the same bytes). \
         Generated and checked by `tests/tests/make_vectors.rs`; this walk-through \
         decodes every ordinal again from shakmaty's SAN of every legal move, sorted \
         in ASCII order. Specification: `spec/pgc.md`, `spec/extensions.md`, \
         `spec/ordinal.md`.\n",
        v.name,
        pgc.len()
    )
    .unwrap();
    let lf = v.pgn.matches('\n').count();
    let crlf = v.pgn.matches("\r\n").count();
    let (shown, note) = if crlf > 0 && crlf == lf {
        (
            v.pgn.replace("\r\n", "\n"),
            " (every line ends in CR LF, shown here as LF)",
        )
    } else if crlf > 0 {
        (
            v.pgn.replace("\r\n", "\\r\n"),
            " (a line that ends in CR LF shows `\\r` before its end)",
        )
    } else {
        (v.pgn.clone(), "")
    };
    let shown = shown.replace('\u{feff}', "<U+FEFF>").replace('\0', "\\0");
    writeln!(md, "## Input PGN{note}\n\n```\n{shown}```\n").unwrap();
    hex_dump(&mut md, &pgc);
    rows_table(&mut md, &walk.rows);
    (pgc, md)
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/vectors")
}

#[test]
fn vectors_are_up_to_date() {
    let write = std::env::var_os("PGC_WRITE_VECTORS").is_some();
    let dir = dir();
    let mut stale = Vec::new();
    let built = vectors()
        .iter()
        .map(|v| {
            let (pgn, pgc, md) = build(v);
            (v.name, pgn.into_bytes(), pgc, md)
        })
        .chain(bridge_vectors().iter().map(|v| {
            let (pgc, md) = build_bridge(v);
            (v.name, v.pgn.clone().into_bytes(), pgc, md)
        }))
        .collect::<Vec<_>>();
    for (name, pgn, pgc, md) in built {
        let files: [(String, Vec<u8>); 3] = [
            (format!("{name}.pgn"), pgn),
            (format!("{name}.pgc"), pgc),
            (format!("{name}.md"), md.into_bytes()),
        ];
        for (name, data) in files {
            let path = dir.join(&name);
            if write {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &data).unwrap();
            } else if std::fs::read(&path).ok().as_deref() != Some(&data[..]) {
                stale.push(name);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale vectors {stale:?}: rerun with PGC_WRITE_VECTORS=1"
    );
}
