//! The comment syntax of embedded commands (PGN supplement of 2001, section
//! 3.2): a comment's bytes split into text and `[%name operands]` commands
//! ([`parse_comment`], [`operands`]), a comment made only of typed commands
//! turned into the values of [`super`] ([`encode_comment`]) and rendered
//! back to its exact bytes ([`render`]). It lives beside the values so that
//! the bulk reader can read the commands of text comments too; pgn-bridge
//! re-exports it as `pgn_bridge::commands`.

use super::{
    Arrow, Clock, ClockFormat, Eval, EvalFormat, Separator, SquareMark, TimeKind, TypedCommand,
    TypedComment, TypedPart,
};

// ---------------------------------------------------------------------------
// Syntax
// ---------------------------------------------------------------------------

/// Splits a comment (the bytes between `{` and `}`) into text and commands.
///
/// The iterator yields [`Part`]s whose raw bytes concatenate to `text`
/// exactly. A command follows section 3.2 of the supplement: `[%`, a name of
/// one or more ASCII alphanumerics, one space, a comma-separated operand list
/// (an operand is either any bytes except `,` and `]`, or a double-quoted
/// string that may hold commas and `]`), and `]`. As a leniency `[%name]`
/// with no operands is a command too. Anything else, such as `[%` without a
/// closing `]`, is text. Two departures from the supplement: the space after
/// the name may be a line break (`\n`, `\r\n` or a `\r` alone), as export writers that wrap
/// comments leave it (`{[%clk\n1:31:15]}`); and an unquoted
/// operand cannot contain `[%`, so that a command missing its `]` does not
/// swallow the next command (`[%clk [%clk 0:01:00]` is text, then a clock).
///
/// ```
/// use pgc_core::ext::commands::Clock;
/// use pgc_core::ext::commands::syntax::{Command, Part, parse_comment};
///
/// let parts: Vec<_> = parse_comment(b"[%clk 0:00:07.3][%eval -6.05] White is toast").collect();
/// assert!(matches!(parts[0], Part::Command { command: Command::Clk(Clock { millis: 7300 }, _), .. }));
/// assert!(matches!(parts[2], Part::Text(b" White is toast")));
/// ```
pub fn parse_comment(text: &[u8]) -> CommentParts<'_> {
    CommentParts { text, pos: 0 }
}

/// The iterator of [`parse_comment`].
#[derive(Debug, Clone)]
pub struct CommentParts<'a> {
    text: &'a [u8],
    pos: usize,
}

/// One piece of a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'a> {
    /// Text outside commands (malformed commands included), exact bytes.
    Text(&'a [u8]),
    /// An embedded command.
    Command {
        /// The command's exact bytes, from `[%` to `]`.
        raw: &'a [u8],
        /// The command, typed when its name and operands are understood.
        command: Command<'a>,
    },
}

impl<'a> Part<'a> {
    /// The exact bytes of this part.
    pub fn raw(&self) -> &'a [u8] {
        match self {
            Part::Text(t) => t,
            Part::Command { raw, .. } => raw,
        }
    }
}

impl<'a> Iterator for CommentParts<'a> {
    type Item = Part<'a>;

    fn next(&mut self) -> Option<Part<'a>> {
        let text = self.text;
        let start = self.pos;
        if start >= text.len() {
            return None;
        }
        let mut search = start;
        while let Some(i) = find_open(text, search) {
            if let Some(raw) = scan_command(text, i) {
                if i > start {
                    self.pos = i;
                    return Some(Part::Text(&text[start..i]));
                }
                self.pos = i + raw.len;
                let raw_bytes = &text[i..i + raw.len];
                return Some(Part::Command {
                    raw: raw_bytes,
                    command: Command::from_raw(raw.name, raw.operands),
                });
            }
            search = i + 1;
        }
        self.pos = text.len();
        Some(Part::Text(&text[start..]))
    }
}

/// An embedded command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    /// `[%clk h:mm:ss]`: the clock time of the player who just moved (4.2).
    Clk(Clock, ClockFormat),
    /// `[%emt h:mm:ss]`: the time spent on the move (4.4).
    Emt(Clock, ClockFormat),
    /// `[%egt h:mm:ss]`: the player's elapsed game time (4.3).
    Egt(Clock, ClockFormat),
    /// `[%mct hh:mm:ss]`: a mechanical clock's time of day (4.5).
    Mct(Clock, ClockFormat),
    /// `[%eval 0.17]`, `[%eval #-3]`: an engine evaluation.
    Eval(Eval, EvalFormat),
    /// `[%cal Ge2e4,Rb5b6]`: coloured arrows.
    Cal(Vec<Arrow>),
    /// `[%csl Ga4,Rb5]`: coloured square marks.
    Csl(Vec<SquareMark>),
    /// Any other command, or a known name whose operands are not understood
    /// (`[%eval 0.17,20]`, `[%clk 0:15.16]`).
    Other {
        /// The command name (alphanumeric bytes after `[%`).
        name: &'a [u8],
        /// The raw operand list, between the space after the name and the
        /// closing `]` (empty for `[%name]`); split it with [`operands`].
        operands: &'a [u8],
    },
}

impl<'a> Command<'a> {
    /// The command's value as a typed comment holds it; `None` for
    /// [`Command::Other`].
    pub fn typed(&self) -> Option<TypedCommand<'_>> {
        Some(match self {
            Command::Clk(c, f) => TypedCommand::Time(TimeKind::Clk, *c, *f),
            Command::Emt(c, f) => TypedCommand::Time(TimeKind::Emt, *c, *f),
            Command::Egt(c, f) => TypedCommand::Time(TimeKind::Egt, *c, *f),
            Command::Mct(c, f) => TypedCommand::Time(TimeKind::Mct, *c, *f),
            Command::Eval(e, f) => TypedCommand::Eval(*e, *f),
            Command::Cal(a) => TypedCommand::Arrows(a),
            Command::Csl(q) => TypedCommand::Squares(q),
            Command::Other { .. } => return None,
        })
    }

    /// The command's value for a reader of values: [`Command::typed`] for
    /// a typed command; for a `clk`, `emt`, `egt`, `mct` or `eval` whose
    /// operands are a spelling that python-chess reads but that is not
    /// stored typed (`[%eval 1.2,20]`, `[%clk 0:0:5]`; see [`Clock::read`]
    /// and [`Eval::read`]), that value in the canonical format
    /// ([`ClockFormat::HMS`], [`EvalFormat::LICHESS`]), which is then not
    /// how it was written. `None` otherwise.
    ///
    /// ```
    /// use pgc_core::ext::commands::{Eval, TypedCommand};
    /// use pgc_core::ext::commands::syntax::{Part, parse_comment};
    ///
    /// let part = parse_comment(b"[%eval 1.2,20]").next().unwrap();
    /// let Part::Command { command, .. } = part else { panic!() };
    /// assert!(command.typed().is_none());
    /// assert!(matches!(command.value(), Some(TypedCommand::Eval(Eval::Centipawns(120), _))));
    /// ```
    pub fn value(&self) -> Option<TypedCommand<'_>> {
        if let Some(c) = self.typed() {
            return Some(c);
        }
        let Command::Other { name, operands } = *self else {
            return None;
        };
        let kind = match name {
            b"clk" => TimeKind::Clk,
            b"emt" => TimeKind::Emt,
            b"egt" => TimeKind::Egt,
            b"mct" => TimeKind::Mct,
            b"eval" => {
                return Eval::read(operands).map(|e| TypedCommand::Eval(e, EvalFormat::LICHESS));
            }
            _ => return None,
        };
        Clock::read(operands).map(|c| TypedCommand::Time(kind, c, ClockFormat::HMS))
    }

    fn from_raw(name: &'a [u8], operands: &'a [u8]) -> Command<'a> {
        let other = Command::Other { name, operands };
        let single = || (!operands.contains(&b'"')).then_some(operands);
        let time = |f: fn(Clock, ClockFormat) -> Command<'a>| {
            single()
                .and_then(Clock::parse)
                .map(|(c, fmt)| f(c, fmt))
                .unwrap_or(Command::Other { name, operands })
        };
        match name {
            b"clk" => time(Command::Clk),
            b"emt" => time(Command::Emt),
            b"egt" => time(Command::Egt),
            b"mct" => time(Command::Mct),
            b"eval" => match single().and_then(Eval::parse) {
                Some((e, f)) => Command::Eval(e, f),
                None => other,
            },
            b"cal" => {
                let mut v = Vec::new();
                if for_each_mark(operands, 5, |op| {
                    v.push(Arrow::parse(op)?);
                    Some(())
                }) {
                    Command::Cal(v)
                } else {
                    other
                }
            }
            b"csl" => {
                let mut v = Vec::new();
                if for_each_mark(operands, 3, |op| {
                    v.push(SquareMark::parse(op)?);
                    Some(())
                }) {
                    Command::Csl(v)
                } else {
                    other
                }
            }
            _ => other,
        }
    }
}

/// Calls `f` on each comma-separated unquoted operand of `len` bytes; false
/// if there is none, one has another length, or `f` fails.
fn for_each_mark(operands: &[u8], len: usize, mut f: impl FnMut(&[u8]) -> Option<()>) -> bool {
    !operands.is_empty()
        && operands
            .split(|&b| b == b',')
            .all(|op| op.len() == len && f(op).is_some())
}

/// One operand of a command (section 3.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand<'a> {
    /// The operand's bytes; for a quoted operand, without the quotes.
    pub text: &'a [u8],
    /// Whether it was a double-quoted string.
    pub quoted: bool,
}

/// Splits a raw operand list (see [`Command::Other`]) into operands.
///
/// A list that is not well formed (only possible for a list not produced by
/// [`parse_comment`]) ends the iteration at the first bad operand.
pub fn operands(raw: &[u8]) -> Operands<'_> {
    Operands {
        raw,
        pos: 0,
        done: raw.is_empty(),
    }
}

/// The iterator of [`operands`].
#[derive(Debug, Clone)]
pub struct Operands<'a> {
    raw: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Iterator for Operands<'a> {
    type Item = Operand<'a>;

    fn next(&mut self) -> Option<Operand<'a>> {
        if self.done {
            return None;
        }
        let raw = self.raw;
        let s = self.pos;
        let (op, end) = if raw.get(s) == Some(&b'"') {
            let close = memchr::memchr(b'"', raw.get(s + 1..).unwrap_or_default())? + s + 1;
            (
                Operand {
                    text: &raw[s + 1..close],
                    quoted: true,
                },
                close + 1,
            )
        } else {
            let end =
                memchr::memchr(b',', raw.get(s..).unwrap_or_default()).map_or(raw.len(), |e| e + s);
            (
                Operand {
                    text: &raw[s.min(end)..end],
                    quoted: false,
                },
                end,
            )
        };
        match raw.get(end) {
            Some(b',') => self.pos = end + 1,
            None => self.done = true,
            Some(_) => {
                self.done = true;
                return None;
            }
        }
        Some(op)
    }
}

/// A command found by [`scan_command`]: name, raw operands, total length.
struct RawCommand<'a> {
    name: &'a [u8],
    sep: Separator,
    operands: &'a [u8],
    len: usize,
}

/// The next `[%` at or after `from`.
fn find_open(text: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::find(text.get(from..)?, b"[%").map(|i| i + from)
}

/// Reads the command starting at `text[at..]` (which starts with `[%`).
fn scan_command(text: &[u8], at: usize) -> Option<RawCommand<'_>> {
    let name_start = at + 2;
    let mut j = name_start;
    while text.get(j).is_some_and(u8::is_ascii_alphanumeric) {
        j += 1;
    }
    if j == name_start {
        return None;
    }
    let name = &text[name_start..j];
    match text.get(j)? {
        b']' => {
            return Some(RawCommand {
                name,
                sep: Separator::Space,
                operands: &text[j..j],
                len: j + 1 - at,
            });
        }
        b' ' | b'\n' => j += 1,
        b'\r' if text.get(j + 1) == Some(&b'\n') => j += 2,
        b'\r' => j += 1,
        _ => return None,
    }
    let sep = match &text[name_start + name.len()..j] {
        b" " => Separator::Space,
        b"\n" => Separator::Newline,
        b"\r" => Separator::Cr,
        _ => Separator::CrLf,
    };
    let ops_start = j;
    loop {
        if text.get(j) == Some(&b'"') {
            j = memchr::memchr(b'"', text.get(j + 1..)?)? + j + 2;
        } else {
            while let Some(&b) = text.get(j) {
                if b == b',' || b == b']' {
                    break;
                }
                if b == b'[' && text.get(j + 1) == Some(&b'%') {
                    // The next command starts: this one lacks its `]`.
                    return None;
                }
                j += 1;
            }
        }
        match text.get(j)? {
            b',' => j += 1,
            b']' => break,
            _ => return None,
        }
    }
    Some(RawCommand {
        name,
        sep,
        operands: &text[ops_start..j],
        len: j + 1 - at,
    })
}

// ---------------------------------------------------------------------------
// Typed comments to and from text
// ---------------------------------------------------------------------------

/// Appends the exact text of `c` (the bytes between the braces).
pub fn render(c: &TypedComment, out: &mut Vec<u8>) {
    for part in c.parts() {
        match part {
            TypedPart::Space(s) => out.extend_from_slice(s),
            TypedPart::Command(sep, c) => render_command(sep, c, out),
        }
    }
}

fn render_command(sep: Separator, c: TypedCommand<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(b"[%");
    out.extend_from_slice(match c {
        TypedCommand::Time(k, ..) => k.name(),
        TypedCommand::Eval(..) => b"eval",
        TypedCommand::Arrows(_) => b"cal",
        TypedCommand::Squares(_) => b"csl",
    });
    out.extend_from_slice(sep.bytes());
    match c {
        TypedCommand::Time(_, clock, f) => clock.render(f, out),
        TypedCommand::Eval(e, f) => e.render(f, out),
        TypedCommand::Arrows(a) => {
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                x.render(out);
            }
        }
        TypedCommand::Squares(a) => {
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                x.render(out);
            }
        }
    }
    out.push(b']');
}

/// The typed form of a comment, if it is only typed commands (`clk`, `emt`,
/// `egt`, `mct`, `eval`, `cal`, `csl`) and ASCII whitespace, has at least
/// one command, and [`render`] gives back exactly `text`. Otherwise `None`:
/// the comment stays a text comment.
pub fn encode_comment(text: &[u8]) -> Option<TypedComment> {
    let mut c = TypedComment::new();
    encode_comment_into(text, &mut c).then_some(c)
}

/// [`encode_comment`] into a reused [`TypedComment`]; returns whether `text`
/// is typed (if not, `out` holds garbage).
pub fn encode_comment_into(text: &[u8], out: &mut TypedComment) -> bool {
    out.clear();
    let mut pos = 0;
    let mut commands = 0;
    while let Some(i) = find_open(text, pos) {
        let Some(raw) = scan_command(text, i) else {
            return false;
        };
        if !push_space(out, &text[pos..i]) || !push_typed(out, raw.name, raw.sep, raw.operands) {
            return false;
        }
        commands += 1;
        pos = i + raw.len;
    }
    if commands == 0 || !push_space(out, &text[pos..]) {
        return false;
    }
    // The typed parsers accept only spellings they render back, but the
    // render check is what guarantees it.
    let mut check = Vec::with_capacity(text.len());
    render(out, &mut check);
    check == text
}

fn push_space(out: &mut TypedComment, s: &[u8]) -> bool {
    if !s.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        return false;
    }
    out.push_space(s);
    true
}

fn push_typed(out: &mut TypedComment, name: &[u8], sep: Separator, ops: &[u8]) -> bool {
    let kind = match name {
        b"clk" => Some(TimeKind::Clk),
        b"emt" => Some(TimeKind::Emt),
        b"egt" => Some(TimeKind::Egt),
        b"mct" => Some(TimeKind::Mct),
        _ => None,
    };
    if let Some(k) = kind {
        return match Clock::parse(ops) {
            Some((c, f)) => {
                out.push_time(sep, k, c, f);
                true
            }
            None => false,
        };
    }
    match name {
        b"eval" => match Eval::parse(ops) {
            Some((e, f)) => {
                out.push_eval(sep, e, f);
                true
            }
            None => false,
        },
        b"cal" => !ops.is_empty() && out.push_arrows(sep, marks(ops, 5, Arrow::parse)),
        b"csl" => !ops.is_empty() && out.push_squares(sep, marks(ops, 3, SquareMark::parse)),
        _ => false,
    }
}

/// The comma-separated marks of `ops`, each `len` bytes, parsed by `parse`
/// (`None` for a bad one).
fn marks<'a, T: 'a>(
    ops: &'a [u8],
    len: usize,
    parse: fn(&[u8]) -> Option<T>,
) -> impl Iterator<Item = Option<T>> + 'a {
    ops.split(|&b| b == b',')
        .map(move |op| if op.len() == len { parse(op) } else { None })
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    /// Renders the typed comment of `anchor` onto `out`, as pgn-bridge's
    /// `RenderAt` does.
    trait RenderAt {
        fn render_at(&mut self, anchor: u64, out: &mut Vec<u8>) -> bool;
    }

    impl RenderAt for GameCommandsReader {
        fn render_at(&mut self, anchor: u64, out: &mut Vec<u8>) -> bool {
            self.with_typed_at(anchor, |c| render(c, out)).is_some()
        }
    }
    use shakmaty::Square;

    fn parts(text: &[u8]) -> Vec<Part<'_>> {
        let v: Vec<_> = parse_comment(text).collect();
        let joined: Vec<u8> = v.iter().flat_map(|p| p.raw().iter().copied()).collect();
        assert_eq!(joined, text, "parts must concatenate to the comment");
        v
    }

    fn cmd<'a>(p: &Part<'a>) -> Command<'a> {
        match p {
            Part::Command { command, .. } => command.clone(),
            Part::Text(t) => panic!("text {:?}", String::from_utf8_lossy(t)),
        }
    }

    fn roundtrip(text: &[u8]) -> Option<TypedComment> {
        let c = encode_comment(text)?;
        let mut out = Vec::new();
        render(&c, &mut out);
        assert_eq!(out, text);
        Some(c)
    }

    const HMS: ClockFormat = ClockFormat::HMS;

    #[test]
    fn several_commands_and_text_around() {
        let p = parts(b"{[%clk 0:00:07][%eval -6.05] White is toast}");
        assert_eq!(p[0], Part::Text(b"{"));
        assert_eq!(cmd(&p[1]), Command::Clk(Clock { millis: 7000 }, HMS));
        assert_eq!(
            cmd(&p[2]),
            Command::Eval(Eval::Centipawns(-605), EvalFormat::LICHESS)
        );
        assert_eq!(p[3], Part::Text(b" White is toast}"));
        assert_eq!(p.len(), 4);

        let p = parts(b"Optional leading comments [%clk 1:05:23] optional trailing comments");
        assert_eq!(p.len(), 3);
        assert_eq!(cmd(&p[1]), Command::Clk(Clock { millis: 3_923_000 }, HMS));
        assert!(encode_comment(b"Optional [%clk 1:05:23]").is_none());
    }

    #[test]
    fn quoted_operands_with_commas_and_brackets() {
        let p = parts(b"[%command 1:45:12,Nf6,\"very interesting, but wrong]\"] after");
        let Command::Other {
            name,
            operands: ops,
        } = cmd(&p[0])
        else {
            panic!()
        };
        assert_eq!(name, b"command");
        let v: Vec<_> = operands(ops).collect();
        assert_eq!(v.len(), 3);
        assert_eq!(
            v[0],
            Operand {
                text: b"1:45:12",
                quoted: false
            }
        );
        assert_eq!(v[1].text, b"Nf6");
        assert_eq!(
            v[2],
            Operand {
                text: b"very interesting, but wrong]",
                quoted: true
            }
        );
        assert_eq!(p[1], Part::Text(b" after"));
        // A FEN with spaces is one unquoted operand.
        let p = parts(b"[%command \"tense\",4r1k1/pp1b2r1/8/8/8/8/8/R4RK1 w - - 0 1,e4,d4]");
        let Command::Other { operands: ops, .. } = cmd(&p[0]) else {
            panic!()
        };
        let v: Vec<_> = operands(ops).map(|o| o.text).collect();
        assert_eq!(
            v,
            [
                &b"tense"[..],
                b"4r1k1/pp1b2r1/8/8/8/8/8/R4RK1 w - - 0 1",
                b"e4",
                b"d4"
            ]
        );
        // Unknown commands keep the comment as text.
        assert!(encode_comment(b"[%command 1,2]").is_none());
        assert!(encode_comment(b" [%evp 0.1,0.2] ").is_none());
    }

    #[test]
    fn clocks_with_fractions_and_widths() {
        let (c, f) = Clock::parse(b"0:00:07.3").unwrap();
        assert_eq!((c.millis, f.frac_digits, f.hour_width), (7300, 1, 1));
        let (c, f) = Clock::parse(b"00:59:01").unwrap();
        assert_eq!((c.millis, f.hour_width), (3_541_000, 2));
        let (c, f) = Clock::parse(b"10:00:00.125").unwrap();
        assert_eq!((c.millis, f.hour_width, f.frac_digits), (36_000_125, 1, 3));
        for bad in [
            &b"0:15.16"[..],
            b"0:60:00",
            b"0:5:00",
            b"1:00:00.1234",
            b"a:00:00",
            b":00:00",
            b"0:00:00.",
        ] {
            assert_eq!(Clock::parse(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        for ok in [
            &b" [%clk 0:00:07.3] "[..],
            b"[%clk 00:15:00]",
            b"[%emt 0:05:42]",
            b"[%egt 1:25:42]",
            b"[%mct 17:10:42]",
            b"[%clk 123:00:00.05]",
        ] {
            assert!(roundtrip(ok).is_some(), "{}", String::from_utf8_lossy(ok));
        }
        assert!(encode_comment(b"[%clk 0:15.16]").is_none());
    }

    #[test]
    fn evaluations() {
        let t = |s: &[u8]| Eval::parse(s).map(|(e, f)| (e, f.decimals, f.plus));
        assert_eq!(
            t(b"0.17"),
            Some((Eval::Centipawns(17), Decimals::Trim, false))
        );
        assert_eq!(
            t(b"-3.0"),
            Some((Eval::Centipawns(-300), Decimals::Trim, false))
        );
        assert_eq!(
            t(b"0.10"),
            Some((Eval::Centipawns(10), Decimals::Fixed(2), false))
        );
        assert_eq!(
            t(b"+1.5"),
            Some((Eval::Centipawns(150), Decimals::Trim, true))
        );
        assert_eq!(
            t(b"2"),
            Some((Eval::Centipawns(200), Decimals::Fixed(0), false))
        );
        assert_eq!(t(b"#-3"), Some((Eval::Mate(-3), Decimals::Trim, false)));
        assert_eq!(t(b"#3"), Some((Eval::Mate(3), Decimals::Trim, false)));
        assert_eq!(t(b"#+3"), Some((Eval::Mate(3), Decimals::Trim, true)));
        for bad in [
            &b"-0.0"[..],
            b"0.175",
            b"01.5",
            b".5",
            b"#",
            b"#-0",
            b"1.",
            b"x",
            b"-",
            b"#1.5",
        ] {
            assert_eq!(Eval::parse(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        for ok in [
            &b" [%eval -6.05] "[..],
            b" [%eval #-3] [%clk 0:00:30] ",
            b"[%eval 0.0]",
            b"[%eval 16.9]",
            b"[%eval +0.17]",
            b"[%eval 0.10]",
            b"[%eval 12]",
        ] {
            assert!(roundtrip(ok).is_some(), "{}", String::from_utf8_lossy(ok));
        }
        // Eval with a depth operand is another command.
        let p = parts(b"[%eval 0.17,20]");
        assert!(matches!(cmd(&p[0]), Command::Other { name: b"eval", .. }));
    }

    #[test]
    fn spec_example_bytes() {
        // spec/extensions-commands.md, section 7.
        let mut g = GameCommands::new();
        for (m, t) in [
            (0u64, &b" [%clk 0:15:00] "[..]),
            (1, b" [%clk 0:15:00] "),
            (2, b" [%clk 0:15:19] "),
            (3, b" [%clk 0:15:18] "),
        ] {
            assert!(g.push(m, &encode_comment(t).unwrap()));
        }
        let mut p = Vec::new();
        g.to_payload(&mut p);
        assert_eq!(
            p,
            [
                0x01, 0x03, 0x01, 0x02, 0x04, 0x01, 0x01, 0x00, 0x04, 0x01, 0x04, 0x00, 0x26, 0x88,
                0x0e, 0x00, 0x00, 0x01
            ]
        );
    }

    #[test]
    fn line_break_after_the_name() {
        // Export writers that wrap comments leave `[%clk\n1:31:15]`.
        let p = parts(b"[%clk\n1:31:15]");
        assert_eq!(cmd(&p[0]), Command::Clk(Clock { millis: 5_475_000 }, HMS));
        for ok in [
            &b"[%clk\n1:31:15]"[..],
            b"[%clk\r\n1:31:15]",
            b"[%clk\r1:31:15]",
            b" [%eval\n0.5] [%cal\nGe2e4]",
        ] {
            assert!(roundtrip(ok).is_some(), "{}", String::from_utf8_lossy(ok));
        }
        // A CR alone (classic Mac OS text) is a separator of its own.
        let p = parts(b"[%clk\r1:31:15]");
        assert_eq!(cmd(&p[0]), Command::Clk(Clock { millis: 5_475_000 }, HMS));
        assert!(matches!(
            p[0],
            Part::Command {
                raw: b"[%clk\r1:31:15]",
                ..
            }
        ));
        assert!(encode_comment(b"[%clk\t1:31:15]").is_none());
        assert!(encode_comment(b"[%clk\r\r1:31:15]").is_none());
        game(&[
            (0, b"[%clk 1:31:15]"),
            (1, b"[%clk\n1:31:15]"),
            (2, b"[%clk\r\n1:31:15]"),
            (3, b"[%clk\r1:31:15]"),
        ]);
    }

    #[test]
    fn arrows_and_squares() {
        let p = parts(b" [%csl Ga4,Rb5][%cal Ge2e4,Rb5b6] ");
        assert_eq!(
            cmd(&p[1]),
            Command::Csl(vec![
                SquareMark {
                    colour: MarkColour::Green,
                    square: Square::A4
                },
                SquareMark {
                    colour: MarkColour::Red,
                    square: Square::B5
                },
            ])
        );
        assert_eq!(
            cmd(&p[2]),
            Command::Cal(vec![
                Arrow {
                    colour: MarkColour::Green,
                    from: Square::E2,
                    to: Square::E4
                },
                Arrow {
                    colour: MarkColour::Red,
                    from: Square::B5,
                    to: Square::B6
                },
            ])
        );
        assert!(roundtrip(b" [%csl Ga4,Rb5][%cal Ge2e4,Rb5b6] ").is_some());
        for bad in [
            &b"[%cal Xe2e4]"[..],
            b"[%cal Ge2e9]",
            b"[%csl Ga4,]",
            b"[%csl Ga4, Rb5]",
            b"[%cal ]",
        ] {
            assert!(
                encode_comment(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn malformed_commands_are_text() {
        for text in [
            &b"[%clk 0:15:00"[..],
            b"[% clk 0:15:00]",
            b"[%clk\t0:15:00]",
            b"[%cmd \"unterminated]",
            b"[%cmd \"x\"y]",
            b"[%",
            b"[%]",
        ] {
            let p = parts(text);
            assert!(
                p.iter().all(|p| matches!(p, Part::Text(_))),
                "{}",
                String::from_utf8_lossy(text)
            );
            assert!(encode_comment(text).is_none());
        }
        // A malformed command before a good one: both found.
        let p = parts(b"[%clk [%clk 0:01:00]");
        assert_eq!(p[0], Part::Text(b"[%clk "));
        assert_eq!(cmd(&p[1]), Command::Clk(Clock { millis: 60_000 }, HMS));
        // `[%name]` without operands is a command (not typed).
        assert!(matches!(
            cmd(&parts(b"[%done]")[0]),
            Command::Other {
                name: b"done",
                operands: b""
            }
        ));
        // No command at all, or a comment of text.
        assert!(encode_comment(b"").is_none());
        assert!(encode_comment(b"   ").is_none());
        assert!(encode_comment(b"good move").is_none());
        // Spellings that would not come back exactly.
        assert!(encode_comment(b"[%clk  0:15:00]").is_none());
        assert!(encode_comment(b"[%eval 0.50000]").is_none());
    }

    fn game(comments: &[(u64, &[u8])]) -> Vec<u8> {
        let mut g = GameCommands::new();
        for &(m, text) in comments {
            assert!(g.push(m, &encode_comment(text).unwrap()));
        }
        let mut p = Vec::new();
        g.to_payload(&mut p);
        let mut r = GameCommandsReader::from_payload(&p).unwrap();
        assert_eq!(r.len(), comments.len() as u64);
        let last = comments.last().map_or(0, |c| c.0);
        let mut it = comments.iter().peekable();
        for m in 0..last + 3 {
            let mut out = Vec::new();
            let has = r.render_at(m, &mut out);
            match it.peek() {
                Some(&&(cm, text)) if cm == m => {
                    assert!(has, "move {m}");
                    assert_eq!(out, text, "move {m}");
                    it.next();
                }
                _ => assert!(!has, "move {m}"),
            }
        }
        p
    }

    #[test]
    fn game_record_round_trips() {
        // Lichess: every move, one template.
        let mut v: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut clocks = [900i64, 900];
        for m in 0..80u64 {
            let side = (m % 2) as usize;
            clocks[side] += 20 - (m as i64 * 7 % 31);
            let t = clocks[side].max(0);
            v.push((
                m,
                format!(" [%clk 0:{:02}:{:02}] ", t / 60, t % 60).into_bytes(),
            ));
        }
        let refs: Vec<(u64, &[u8])> = v.iter().map(|(m, t)| (*m, &t[..])).collect();
        let p = game(&refs);
        assert!(p.len() < 80 + 20, "{} bytes for 80 clocks", p.len());

        // Mixed templates, gaps, evals, mates, marks, fractions.
        game(&[
            (0, b" [%eval 0.17] [%clk 0:05:00] "),
            (1, b" [%eval 0.0] [%clk 0:05:00] "),
            (3, b" [%eval #-3] [%clk 0:04:58] "),
            (4, b" [%clk 0:04:50] "),
            (9, b"[%clk 0:00:07.3]"),
            (10, b"\n[%csl Ga4,Rb5][%cal Ge2e4,Rb5b6]\t"),
            (11, b"[%cal Gh1h8]"),
            (
                12,
                b"[%emt 0:00:01][%egt 0:10:00][%mct 17:10:42][%eval -12.5]",
            ),
            (40, b"[%csl Yd5]"),
        ]);
    }

    #[test]
    fn reader_skips_unasked_moves_and_refuses_going_back() {
        let mut g = GameCommands::new();
        for (m, t) in [
            (0u64, &b"[%clk 0:01:00]"[..]),
            (1, b"[%clk 0:02:00]"),
            (2, b"[%clk 0:03:00]"),
        ] {
            assert!(g.push(m, &encode_comment(t).unwrap()));
        }
        assert!(!g.push(2, &encode_comment(b"[%clk 0:03:00]").unwrap()));
        let mut p = Vec::new();
        g.to_payload(&mut p);
        let mut r = GameCommandsReader::from_payload(&p).unwrap();
        assert!(r.has_comment_at(1) && !r.has_comment_at(3));
        let mut out = Vec::new();
        assert!(r.render_at(2, &mut out));
        assert_eq!(out, b"[%clk 0:03:00]");
        assert!(!r.render_at(1, &mut out));
    }

    #[test]
    fn corrupt_payloads_are_errors_not_panics() {
        let p = game(&[
            (0, b" [%eval 0.17] [%clk 0:05:00] "),
            (2, b"[%csl Ga4][%cal Ge2e4]"),
            (3, b" [%clk 0:04:50] "),
        ]);
        // Every truncation and every single-byte change: no panic, and any
        // accepted payload renders without panicking.
        for n in 0..p.len() {
            assert!(
                GameCommandsReader::from_payload(&p[..n]).is_err(),
                "truncated at {n}"
            );
        }
        for i in 0..p.len() {
            for b in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut q = p.clone();
                q[i] = b;
                if let Ok(mut r) = GameCommandsReader::from_payload(&q) {
                    let mut out = Vec::new();
                    for m in 0..10 {
                        r.render_at(m, &mut out);
                    }
                }
            }
        }
        // The payload codec's own refusals (huge counts, bad columns) are
        // tested with it, in pgc-core's ext::commands.
    }
}
