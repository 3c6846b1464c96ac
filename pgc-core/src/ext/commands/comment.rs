//! A typed comment: its commands and the whitespace between them, in
//! order, as [`super::GameCommands`] stores them.

use super::columns::{T_CAL, T_CLK, T_CSL, T_EVAL, T_SPACE, T_WHITESPACE};
use super::values::{Arrow, Clock, ClockFormat, Eval, EvalFormat, SquareMark};
use crate::item::put_varint;

/// What separates a command's name from its operands: a space (section
/// 3.2.2), or a line break left by an export writer that wrapped the comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Separator {
    /// `' '`.
    #[default]
    Space = 0,
    /// `'\n'`.
    Newline = 1,
    /// `"\r\n"`.
    CrLf = 2,
    /// `'\r'` alone (classic Mac OS text).
    Cr = 3,
}

impl Separator {
    /// Its bytes.
    pub const fn bytes(self) -> &'static [u8] {
        match self {
            Separator::Space => b" ",
            Separator::Newline => b"\n",
            Separator::CrLf => b"\r\n",
            Separator::Cr => b"\r",
        }
    }

    pub(super) const fn from_code(c: u8) -> Option<Separator> {
        match c {
            0 => Some(Separator::Space),
            1 => Some(Separator::Newline),
            2 => Some(Separator::CrLf),
            3 => Some(Separator::Cr),
            _ => None,
        }
    }
}

/// The time commands of the supplement's section 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeKind {
    /// `clk`.
    Clk = 0,
    /// `emt`.
    Emt = 1,
    /// `egt`.
    Egt = 2,
    /// `mct`.
    Mct = 3,
}

impl TimeKind {
    /// All four, in column order.
    pub const ALL: [TimeKind; 4] = [TimeKind::Clk, TimeKind::Emt, TimeKind::Egt, TimeKind::Mct];

    /// The command name.
    pub const fn name(self) -> &'static [u8] {
        match self {
            TimeKind::Clk => b"clk",
            TimeKind::Emt => b"emt",
            TimeKind::Egt => b"egt",
            TimeKind::Mct => b"mct",
        }
    }
}

/// One piece of a [`TypedComment`], as returned by [`TypedComment::parts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedPart<'a> {
    /// Whitespace between commands, exact bytes.
    Space(&'a [u8]),
    /// A typed command and the separator after its name.
    Command(Separator, TypedCommand<'a>),
}

/// A typed command of a [`TypedComment`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedCommand<'a> {
    /// A time command.
    Time(TimeKind, Clock, ClockFormat),
    /// `[%eval …]`.
    Eval(Eval, EvalFormat),
    /// `[%cal …]`.
    Arrows(&'a [Arrow]),
    /// `[%csl …]`.
    Squares(&'a [SquareMark]),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece {
    Space(u32, u32),
    Cmd(Separator, Cmd),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
    Time(TimeKind, Clock, ClockFormat),
    Eval(Eval, EvalFormat),
    Arrows(u32, u32),
    Squares(u32, u32),
}

/// A comment made only of typed commands and whitespace, piece by piece, so
/// that its exact bytes can be rendered again (pgn-bridge's
/// `commands::render`).
///
/// Built with the `push_*` methods (pgn-bridge's `encode_comment_into` parses
/// a comment's text into one) or by [`GameCommandsReader::typed_at`](super::GameCommandsReader::typed_at); the
/// buffers are reused after [`TypedComment::clear`], so that reading or
/// writing a game allocates nothing per move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedComment {
    pub(super) pieces: Vec<Piece>,
    space: Vec<u8>,
    arrows: Vec<Arrow>,
    squares: Vec<SquareMark>,
}

impl TypedComment {
    /// An empty comment (renders as nothing).
    pub fn new() -> TypedComment {
        TypedComment::default()
    }

    /// Removes every piece, keeping the buffers.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.space.clear();
        self.arrows.clear();
        self.squares.clear();
    }

    /// The pieces in order.
    pub fn parts(&self) -> impl Iterator<Item = TypedPart<'_>> + '_ {
        self.pieces.iter().map(move |p| match *p {
            Piece::Space(s, e) => {
                TypedPart::Space(self.space.get(s as usize..e as usize).unwrap_or_default())
            }
            Piece::Cmd(sep, c) => TypedPart::Command(
                sep,
                match c {
                    Cmd::Time(k, c, f) => TypedCommand::Time(k, c, f),
                    Cmd::Eval(e, f) => TypedCommand::Eval(e, f),
                    Cmd::Arrows(s, e) => TypedCommand::Arrows(
                        self.arrows.get(s as usize..e as usize).unwrap_or_default(),
                    ),
                    Cmd::Squares(s, e) => TypedCommand::Squares(
                        self.squares.get(s as usize..e as usize).unwrap_or_default(),
                    ),
                },
            ),
        })
    }

    /// The clock of the first `[%clk]`, if any.
    pub fn clk(&self) -> Option<Clock> {
        self.time(TimeKind::Clk)
    }

    /// The time of the first `[%emt]`, if any.
    pub fn emt(&self) -> Option<Clock> {
        self.time(TimeKind::Emt)
    }

    /// The time of the first command of `kind`, if any.
    fn time(&self, kind: TimeKind) -> Option<Clock> {
        self.pieces.iter().find_map(|p| match p {
            Piece::Cmd(_, Cmd::Time(k, c, _)) if *k == kind => Some(*c),
            _ => None,
        })
    }

    /// Whether a command other than `[%clk]`, `[%emt]` and `[%eval]` is
    /// among the pieces (`[%cal]`, `[%csl]`).
    pub fn has_marks(&self) -> bool {
        self.pieces
            .iter()
            .any(|p| matches!(p, Piece::Cmd(_, Cmd::Arrows(..) | Cmd::Squares(..))))
    }

    /// The first `[%eval]`, if any.
    pub fn eval(&self) -> Option<Eval> {
        self.pieces.iter().find_map(|p| match p {
            Piece::Cmd(_, Cmd::Eval(e, _)) => Some(*e),
            _ => None,
        })
    }

    /// Appends whitespace between commands (its exact bytes; empty bytes
    /// add nothing).
    pub fn push_space(&mut self, s: &[u8]) {
        if s.is_empty() {
            return;
        }
        let a = self.space.len() as u32;
        self.space.extend_from_slice(s);
        self.pieces.push(Piece::Space(a, self.space.len() as u32));
    }

    /// Appends a time command.
    pub fn push_time(&mut self, sep: Separator, kind: TimeKind, clock: Clock, format: ClockFormat) {
        self.pieces
            .push(Piece::Cmd(sep, Cmd::Time(kind, clock, format)));
    }

    /// Appends an `[%eval]` command.
    pub fn push_eval(&mut self, sep: Separator, eval: Eval, format: EvalFormat) {
        self.pieces.push(Piece::Cmd(sep, Cmd::Eval(eval, format)));
    }

    /// Appends a `[%cal]` command with the arrows `arrows` yields; false at
    /// the first `None` (the comment is then incomplete: clear it).
    pub fn push_arrows(
        &mut self,
        sep: Separator,
        arrows: impl IntoIterator<Item = Option<Arrow>>,
    ) -> bool {
        let (s, e, ok) = push_until_none(&mut self.arrows, arrows);
        self.pieces.push(Piece::Cmd(sep, Cmd::Arrows(s, e)));
        ok
    }

    /// Appends a `[%csl]` command with the square marks `marks` yields;
    /// false at the first `None` (the comment is then incomplete: clear it).
    pub fn push_squares(
        &mut self,
        sep: Separator,
        marks: impl IntoIterator<Item = Option<SquareMark>>,
    ) -> bool {
        let (s, e, ok) = push_until_none(&mut self.squares, marks);
        self.pieces.push(Piece::Cmd(sep, Cmd::Squares(s, e)));
        ok
    }

    /// Whether the comment holds at least one command.
    pub fn has_command(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Cmd(..)))
    }

    /// Appends the template bytes (`spec/extensions-commands.md`).
    pub(super) fn template(&self, out: &mut Vec<u8>) {
        put_varint(out, self.pieces.len() as u64);
        for p in &self.pieces {
            match *p {
                Piece::Space(s, e) => {
                    let sp = self.space.get(s as usize..e as usize).unwrap_or_default();
                    if sp == b" " {
                        out.push(T_SPACE);
                    } else {
                        out.push(T_WHITESPACE);
                        put_varint(out, sp.len() as u64);
                        out.extend_from_slice(sp);
                    }
                }
                Piece::Cmd(sep, c) => {
                    let sep = (sep as u8) << 4;
                    match c {
                        Cmd::Time(k, _, f) => {
                            out.push(sep | (T_CLK + k as u8));
                            out.push(f.to_byte());
                        }
                        Cmd::Eval(_, f) => {
                            out.push(sep | T_EVAL);
                            out.push(f.to_byte());
                        }
                        Cmd::Arrows(..) => out.push(sep | T_CAL),
                        Cmd::Squares(..) => out.push(sep | T_CSL),
                    }
                }
            }
        }
    }
}

/// Pushes `items` onto `dst` up to the first `None`: the range pushed
/// (start, end) and whether no `None` came.
fn push_until_none<T>(
    dst: &mut Vec<T>,
    items: impl IntoIterator<Item = Option<T>>,
) -> (u32, u32, bool) {
    let start = dst.len() as u32;
    let mut ok = true;
    for item in items {
        match item {
            Some(x) => dst.push(x),
            None => {
                ok = false;
                break;
            }
        }
    }
    (start, dst.len() as u32, ok)
}
