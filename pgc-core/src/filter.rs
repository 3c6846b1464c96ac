//! Choosing games: one filter language over a game's tags and, where an
//! expression asks, its length in plies.
//!
//! An expression is parsed once ([`Filter::parse`]) and evaluated on each
//! game ([`Filter::eval`]) with no allocation: regular expressions are
//! compiled at parse time, numbers and dates are read from the tag values
//! in place. [`Filter::eval`] takes the plies as an `Option`: with `None`
//! (the moves not read yet) it answers `None` only when the answer depends
//! on them, so a reader decides most games from the tag section alone and
//! skips the moves of the games it drops.
//!
//! ```
//! use pgc_core::filter::Filter;
//!
//! let f = Filter::parse("Elo>=2400 and (Speed=blitz or Speed=rapid) and not Bot")?;
//! let tags: &[(&[u8], &[u8])] = &[
//!     (b"WhiteElo", b"2450"),
//!     (b"BlackElo", b"2501"),
//!     (b"TimeControl", b"180+2"),
//! ];
//! assert_eq!(f.eval(tags, None), Some(true));
//! assert!(!f.needs_plies());
//!
//! let long = Filter::parse("Plies>=40")?;
//! assert_eq!(long.eval(tags, None), None); // depends on the moves
//! assert_eq!(long.eval(tags, Some(52)), Some(true));
//!
//! let e = Filter::parse("WhiteElo>=2400 and (").unwrap_err();
//! assert_eq!(e.column, 21);
//! # Ok::<(), pgc_core::filter::FilterError>(())
//! ```
//!
//! # Grammar
//!
//! ```text
//! expr       := and ( "or" and )*
//! and        := unary ( "and" unary )*
//! unary      := "not" unary | primary
//! primary    := "(" expr ")" | "Bot" | comparison
//! comparison := NAME OP VALUE
//! OP         := "=" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "~" | "!~"
//! NAME       := [A-Za-z0-9_]+
//! VALUE      := a word (no space, no `( ) " = ! < > ~`) | "quoted" (with \" and \\)
//! ```
//!
//! `not` binds tighter than `and`, which binds tighter than `or`; the
//! keywords are read in any case. Parentheses and `not` nest at most
//! [`MAX_DEPTH`] deep.
//!
//! # Comparisons
//!
//! A comparison reads the value of the first tag of its name (a missing tag
//! is the empty string):
//!
//! - a number value (`2400`, `-1.5`) compares numerically; a tag value that
//!   is not such a number (`?`, `2690:2222`, `""`) makes the comparison
//!   false, whatever the operator;
//! - a date value (`2020.01.01`, a four-digit year, month and day, which
//!   may be `??`) compares as a date with a tag value of the same shape; a
//!   `??` part counts as 0, before every known month or day: `2020.??.??`
//!   is before `2020.01.01` and equal only to `2020.??.??`. A tag value of
//!   another shape (`????.??.??`, `2020`) makes the comparison false;
//! - any other value compares as bytes: `=` and `!=` for equality, `<`,
//!   `<=`, `>`, `>=` in byte order;
//! - `~` holds when the regular expression (the `regex` crate's syntax)
//!   matches somewhere in the tag value, `!~` when it does not.
//!
//! A `NAME OP VALUE` string that is not an expression of the language but
//! whose value is one or more plain words (`Event=Rated Blitz game`) is
//! read as one comparison with that whole value, as older `--where`
//! filters were written.
//!
//! # Derived fields
//!
//! These names are fields computed from the tags (or the moves), not tags:
//!
//! - `Elo`: both players' ratings: `Elo>=2400` holds when `WhiteElo>=2400`
//!   and `BlackElo>=2400` hold;
//! - `EloDiff`: the absolute difference of `WhiteElo` and `BlackElo`
//!   (false unless both are numbers);
//! - `Player`: either colour: `Player=X` holds when `White=X` or
//!   `Black=X`; the negative operators `!=` and `!~` hold when they hold
//!   for both colours (neither player is X);
//! - `Speed`: `ultrabullet`, `bullet`, `blitz`, `rapid`, `classical` or
//!   `correspondence` (any case), from `TimeControl` by Lichess's formula:
//!   the estimated seconds `base + 40 × increment` (`180+2` is 260 s) are
//!   ultrabullet under 30, bullet under 180, blitz under 480, rapid under
//!   1500, else classical; `-` is correspondence. `<`, `>`… compare in that
//!   order (`Speed<=blitz`). A missing or other `TimeControl` makes every
//!   comparison false;
//! - `Plies`: the number of main-line moves (null moves included), a
//!   number;
//! - `Bot`: standing alone, true when `WhiteTitle` or `BlackTitle` is `BOT`;
//! - `Variant`: the `Variant` tag, `Standard` when there is none.

use crate::bulk::{BulkGame, TagList};
use std::cmp::Ordering;
use std::fmt;

/// How deep parentheses and `not` may nest.
pub const MAX_DEPTH: usize = 64;

/// Where and why an expression could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {kind}")]
pub struct FilterError {
    /// 1-based column (in characters) where the expression went wrong.
    pub column: usize,
    /// What went wrong.
    pub kind: FilterErrorKind,
}

/// What went wrong in an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterErrorKind {
    /// Something else was expected here.
    Expected {
        /// What the grammar expects.
        expected: &'static str,
        /// What the expression holds instead.
        found: String,
    },
    /// Parentheses and `not` nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// The regular expression after `~` or `!~` does not compile.
    Regex(String),
}

impl fmt::Display for FilterErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterErrorKind::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            FilterErrorKind::TooDeep => write!(
                f,
                "parentheses and `not` nest more than {MAX_DEPTH} deep; write the expression \
                 with fewer levels"
            ),
            FilterErrorKind::Regex(e) => write!(f, "bad regular expression: {e}"),
        }
    }
}

/// Tag values looked up by name: the first tag of a name counts.
pub trait Tags {
    /// The value of the first tag called `name`.
    fn tag(&self, name: &[u8]) -> Option<&[u8]>;
}

impl Tags for TagList {
    fn tag(&self, name: &[u8]) -> Option<&[u8]> {
        self.get(name)
    }
}

impl Tags for BulkGame {
    fn tag(&self, name: &[u8]) -> Option<&[u8]> {
        BulkGame::tag(self, name)
    }
}

impl<A: AsRef<[u8]>, B: AsRef<[u8]>> Tags for [(A, B)] {
    fn tag(&self, name: &[u8]) -> Option<&[u8]> {
        self.iter()
            .find(|(n, _)| n.as_ref() == name)
            .map(|(_, v)| v.as_ref())
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Match,
    NoMatch,
}

impl Op {
    fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
            Op::Match | Op::NoMatch => false,
        }
    }

    fn negative(self) -> bool {
        matches!(self, Op::Ne | Op::NoMatch)
    }
}

/// A game's speed, in Lichess's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Speed {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

const SPEEDS: [(&str, Speed); 6] = [
    ("ultrabullet", Speed::UltraBullet),
    ("bullet", Speed::Bullet),
    ("blitz", Speed::Blitz),
    ("rapid", Speed::Rapid),
    ("classical", Speed::Classical),
    ("correspondence", Speed::Correspondence),
];

impl Speed {
    fn name(self) -> &'static str {
        SPEEDS[self as usize].0
    }

    fn from_name(s: &[u8]) -> Option<Speed> {
        SPEEDS
            .iter()
            .find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(s))
            .map(|&(_, sp)| sp)
    }

    /// The speed of a `TimeControl` value: `base+increment` or `base` in
    /// seconds, or `-` (correspondence).
    fn of_time_control(tc: &[u8]) -> Option<Speed> {
        if tc == b"-" {
            return Some(Speed::Correspondence);
        }
        let (base, inc) = match tc.iter().position(|&b| b == b'+') {
            Some(i) => (&tc[..i], &tc[i + 1..]),
            None => (tc, &b"0"[..]),
        };
        let secs = |b: &[u8]| -> Option<u64> {
            if b.is_empty() || b.len() > 12 || !b.iter().all(u8::is_ascii_digit) {
                return None;
            }
            Some(b.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')))
        };
        let estimate = secs(base)?.saturating_add(secs(inc)?.saturating_mul(40));
        Some(match estimate {
            0..30 => Speed::UltraBullet,
            30..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        })
    }
}

/// What a comparison reads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    Tag(Box<[u8]>),
    Elo,
    EloDiff,
    Player,
    Speed,
    Plies,
    Variant,
}

/// The value a comparison compares with.
#[derive(Debug, Clone)]
enum Value {
    Number(f64),
    Date(u32),
    Speed(Speed),
    Text(Box<[u8]>),
    Regex(regex::bytes::Regex),
}

#[derive(Debug, Clone)]
struct Cmp {
    field: Field,
    op: Op,
    value: Value,
}

#[derive(Debug, Clone)]
enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    Cmp(Box<Cmp>),
    Bot,
}

/// A parsed filter expression (see the [module documentation](self)).
#[derive(Debug, Clone)]
pub struct Filter {
    root: Node,
    plies: bool,
}

/// Reads a decimal number (`12`, `-3.5`, `+7`: digits with an optional
/// sign and fraction, nothing else), without allocating.
fn parse_number(b: &[u8]) -> Option<f64> {
    let body = match b.first() {
        Some(b'-' | b'+') => &b[1..],
        _ => b,
    };
    let (int, frac) = match body.iter().position(|&c| c == b'.') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    if !digits(int) || frac.is_some_and(|f| !digits(f)) {
        return None;
    }
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// Reads a date `YYYY.MM.DD` whose month and day may be `??` (counted as
/// 0), as `YYYYMMDD`.
fn parse_date(b: &[u8]) -> Option<u32> {
    if b.len() != 10 || b[4] != b'.' || b[7] != b'.' {
        return None;
    }
    let part = |p: &[u8], unknown_ok: bool| -> Option<u32> {
        if unknown_ok && p.iter().all(|&c| c == b'?') {
            return Some(0);
        }
        p.iter().try_fold(0u32, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let year = part(&b[..4], false)?;
    let month = part(&b[5..7], true)?;
    let day = part(&b[8..10], true)?;
    Some(year * 10_000 + month * 100 + day)
}

impl Cmp {
    /// Compares one tag value (`""` for a missing tag).
    fn value_holds(&self, v: &[u8]) -> bool {
        match &self.value {
            Value::Number(n) => match parse_number(v) {
                Some(x) => x.partial_cmp(n).is_some_and(|o| self.op.holds(o)),
                None => false,
            },
            Value::Date(d) => parse_date(v).is_some_and(|x| self.op.holds(x.cmp(d))),
            Value::Text(t) => self.op.holds(v.cmp(t)),
            Value::Regex(r) => r.is_match(v) == (self.op == Op::Match),
            Value::Speed(_) => false,
        }
    }

    fn eval<T: Tags + ?Sized>(&self, tags: &T, plies: Option<u64>) -> Option<bool> {
        let get = |n: &[u8]| tags.tag(n).unwrap_or(b"");
        Some(match &self.field {
            Field::Tag(name) => self.value_holds(get(name)),
            Field::Variant => self.value_holds(tags.tag(b"Variant").unwrap_or(b"Standard")),
            Field::Player => {
                let (w, b) = (
                    self.value_holds(get(b"White")),
                    self.value_holds(get(b"Black")),
                );
                if self.op.negative() { w && b } else { w || b }
            }
            Field::Elo => self.value_holds(get(b"WhiteElo")) && self.value_holds(get(b"BlackElo")),
            Field::EloDiff => {
                let (Some(w), Some(b)) = (
                    parse_number(get(b"WhiteElo")),
                    parse_number(get(b"BlackElo")),
                ) else {
                    return Some(false);
                };
                match self.value {
                    Value::Number(n) => (w - b)
                        .abs()
                        .partial_cmp(&n)
                        .is_some_and(|o| self.op.holds(o)),
                    _ => false,
                }
            }
            Field::Plies => {
                let p = plies?;
                match self.value {
                    Value::Number(n) => {
                        (p as f64).partial_cmp(&n).is_some_and(|o| self.op.holds(o))
                    }
                    _ => false,
                }
            }
            Field::Speed => match Speed::of_time_control(get(b"TimeControl")) {
                None => false,
                Some(s) => match &self.value {
                    Value::Speed(want) => self.op.holds(s.cmp(want)),
                    Value::Regex(_) => self.value_holds(s.name().as_bytes()),
                    _ => false,
                },
            },
        })
    }
}

impl Node {
    fn eval<T: Tags + ?Sized>(&self, tags: &T, plies: Option<u64>) -> Option<bool> {
        match self {
            Node::And(xs) => {
                let mut all = Some(true);
                for x in xs {
                    match x.eval(tags, plies) {
                        Some(false) => return Some(false),
                        Some(true) => {}
                        None => all = None,
                    }
                }
                all
            }
            Node::Or(xs) => {
                let mut any = Some(false);
                for x in xs {
                    match x.eval(tags, plies) {
                        Some(true) => return Some(true),
                        Some(false) => {}
                        None => any = None,
                    }
                }
                any
            }
            Node::Not(x) => x.eval(tags, plies).map(|b| !b),
            Node::Cmp(c) => c.eval(tags, plies),
            Node::Bot => Some(
                tags.tag(b"WhiteTitle") == Some(b"BOT") || tags.tag(b"BlackTitle") == Some(b"BOT"),
            ),
        }
    }
}

impl Filter {
    /// Parses an expression (see the [module documentation](self)).
    ///
    /// # Errors
    /// A [`FilterError`] with the column where the expression went wrong
    /// and what was expected there.
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let mut p = Parser {
            text,
            at: 0,
            depth: 0,
            plies: false,
        };
        let parsed = p.expr().and_then(|root| {
            p.skip_space();
            if p.at < text.len() {
                Err(p.error("`and`, `or` or the end of the expression"))
            } else {
                Ok(root)
            }
        });
        match parsed {
            Ok(root) => Ok(Filter {
                root,
                plies: p.plies,
            }),
            Err(e) => old_form(text).ok_or(e),
        }
    }

    /// A filter that holds when every one of `filters` holds (several
    /// `--where` options); `None` when `filters` is empty.
    pub fn all(filters: impl IntoIterator<Item = Filter>) -> Option<Filter> {
        let mut nodes = Vec::new();
        let mut plies = false;
        for f in filters {
            plies |= f.plies;
            nodes.push(f.root);
        }
        match nodes.len() {
            0 => None,
            1 => nodes.pop().map(|root| Filter { root, plies }),
            _ => Some(Filter {
                root: Node::And(nodes),
                plies,
            }),
        }
    }

    /// Whether the expression reads `Plies`: then [`Self::eval`] may need
    /// the moves.
    pub fn needs_plies(&self) -> bool {
        self.plies
    }

    /// Whether a game is selected, from its tags and, when known, its
    /// number of main-line plies (null moves included). `None` when the
    /// answer depends on the plies and they are not given: with `Some`
    /// plies the answer is always `Some`.
    pub fn eval<T: Tags + ?Sized>(&self, tags: &T, plies: Option<u64>) -> Option<bool> {
        self.root.eval(tags, plies)
    }

    /// Whether a game is selected, its plies known.
    pub fn matches<T: Tags + ?Sized>(&self, tags: &T, plies: u64) -> bool {
        self.eval(tags, Some(plies)).unwrap_or(false)
    }
}

/// `NAME OP VALUE` with a value of plain words, as older filters were
/// written (`Event=Rated Blitz game`).
fn old_form(text: &str) -> Option<Filter> {
    let at = text.find(['=', '!', '<', '>'])?;
    let name = text[..at].trim();
    if name.is_empty() || !name.bytes().all(is_name_byte) {
        return None;
    }
    let rest = &text[at..];
    let (op, len) = [
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=", Op::Eq),
        ("<", Op::Lt),
        (">", Op::Gt),
    ]
    .into_iter()
    .find(|(t, _)| rest.starts_with(t))
    .map(|(t, op)| (op, t.len()))?;
    let value = rest[len..].trim();
    let plain = !value.is_empty()
        && !value.contains(['(', ')', '"', '=', '!', '<', '>', '~'])
        && !value.split_whitespace().any(|w| {
            ["and", "or", "not"]
                .iter()
                .any(|k| w.eq_ignore_ascii_case(k))
        });
    if !plain {
        return None;
    }
    let field = field_of(name);
    if !matches!(field, Field::Tag(_) | Field::Player | Field::Variant) {
        return None;
    }
    let value = match (parse_number(value.as_bytes()), parse_date(value.as_bytes())) {
        (Some(n), _) => Value::Number(n),
        (None, Some(d)) => Value::Date(d),
        _ => Value::Text(value.as_bytes().into()),
    };
    Some(Filter {
        root: Node::Cmp(Box::new(Cmp { field, op, value })),
        plies: false,
    })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_word_byte(b: u8) -> bool {
    !b.is_ascii_whitespace() && !matches!(b, b'(' | b')' | b'"' | b'=' | b'!' | b'<' | b'>' | b'~')
}

fn field_of(name: &str) -> Field {
    match name {
        "Elo" => Field::Elo,
        "EloDiff" => Field::EloDiff,
        "Player" => Field::Player,
        "Speed" => Field::Speed,
        "Plies" => Field::Plies,
        "Variant" => Field::Variant,
        _ => Field::Tag(name.as_bytes().into()),
    }
}

struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    at: usize,
    depth: usize,
    plies: bool,
}

impl Parser<'_> {
    fn column(&self, at: usize) -> usize {
        self.text[..at].chars().count() + 1
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    /// What is at `at`, for an error message.
    fn found(&self, at: usize) -> String {
        let rest = &self.text[at..];
        match rest.chars().next() {
            None => "the end of the expression".into(),
            Some(c) if !c.is_ascii() || !is_word_byte(c as u8) => format!("`{c}`"),
            Some(_) => {
                let end = rest
                    .bytes()
                    .position(|b| !is_word_byte(b))
                    .unwrap_or(rest.len());
                format!("`{}`", &rest[..end])
            }
        }
    }

    fn error_at(&self, at: usize, expected: &'static str) -> FilterError {
        FilterError {
            column: self.column(at),
            kind: FilterErrorKind::Expected {
                expected,
                found: self.found(at),
            },
        }
    }

    fn error(&self, expected: &'static str) -> FilterError {
        self.error_at(self.at, expected)
    }

    /// The next word (name or keyword), without consuming it.
    fn peek_word(&mut self) -> &str {
        self.skip_space();
        let rest = &self.text[self.at..];
        let end = rest
            .bytes()
            .position(|b| !is_word_byte(b))
            .unwrap_or(rest.len());
        &rest[..end]
    }

    fn keyword(&mut self, k: &str) -> bool {
        let w = self.peek_word();
        if w.eq_ignore_ascii_case(k) {
            self.at += k.len();
            true
        } else {
            false
        }
    }

    fn deeper(&mut self) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(FilterError {
                column: self.column(self.at),
                kind: FilterErrorKind::TooDeep,
            });
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Node, FilterError> {
        let mut xs = vec![self.and()?];
        while self.keyword("or") {
            xs.push(self.and()?);
        }
        Ok(if xs.len() == 1 {
            xs.swap_remove(0)
        } else {
            Node::Or(xs)
        })
    }

    fn and(&mut self) -> Result<Node, FilterError> {
        let mut xs = vec![self.unary()?];
        while self.keyword("and") {
            xs.push(self.unary()?);
        }
        Ok(if xs.len() == 1 {
            xs.swap_remove(0)
        } else {
            Node::And(xs)
        })
    }

    fn unary(&mut self) -> Result<Node, FilterError> {
        // Iterative over `not not …`: the depth limit bounds the nesting.
        let mut nots = 0;
        while self.keyword("not") {
            self.deeper()?;
            nots += 1;
        }
        let mut node = self.primary()?;
        self.depth -= nots;
        for _ in 0..nots {
            node = Node::Not(Box::new(node));
        }
        Ok(node)
    }

    fn primary(&mut self) -> Result<Node, FilterError> {
        self.skip_space();
        if self.text[self.at..].starts_with('(') {
            self.deeper()?;
            self.at += 1;
            let node = self.expr()?;
            self.skip_space();
            if !self.text[self.at..].starts_with(')') {
                return Err(self.error("`)`, `and` or `or`"));
            }
            self.at += 1;
            self.depth -= 1;
            return Ok(node);
        }
        let name_at = self.at;
        let name = self.peek_word();
        if name.is_empty() || !name.bytes().all(is_name_byte) {
            return Err(self.error(
                "a field name (a tag such as `WhiteElo`, or `Elo`, `Speed`, `Bot` …) or `(`",
            ));
        }
        let name = name.to_owned();
        self.at += name.len();
        if name == "Bot" {
            return Ok(Node::Bot);
        }
        if ["and", "or", "not"]
            .iter()
            .any(|k| name.eq_ignore_ascii_case(k))
        {
            return Err(self.error_at(name_at, "a field name or `(`"));
        }
        let op_at = {
            self.skip_space();
            self.at
        };
        let op = self.op()?;
        let field = field_of(&name);
        self.skip_space();
        let value_at = self.at;
        let raw = self.value()?;
        let value = self.value_of(&field, op, &raw, op_at, value_at)?;
        if field == Field::Plies {
            self.plies = true;
        }
        Ok(Node::Cmp(Box::new(Cmp { field, op, value })))
    }

    fn op(&mut self) -> Result<Op, FilterError> {
        let rest = &self.text[self.at..];
        let (token, op) = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("!~", Op::NoMatch),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("=", Op::Eq),
            ("<", Op::Lt),
            (">", Op::Gt),
            ("~", Op::Match),
        ]
        .into_iter()
        .find(|(t, _)| rest.starts_with(t))
        .ok_or_else(|| self.error("an operator (= != < <= > >= ~ !~)"))?;
        self.at += token.len();
        Ok(op)
    }

    /// A word or a quoted string.
    fn value(&mut self) -> Result<Vec<u8>, FilterError> {
        let rest = &self.text[self.at..];
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut out = Vec::new();
            let mut chars = quoted.char_indices();
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        self.at += 1 + i + 1;
                        return Ok(out);
                    }
                    '\\' => match chars.next() {
                        Some((_, e @ ('"' | '\\'))) => out.push(e as u8),
                        _ => {
                            return Err(self
                                .error_at(self.at + 1 + i, "`\\\"` or `\\\\` in a quoted value"));
                        }
                    },
                    c => {
                        let mut buf = [0; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
            return Err(self.error_at(self.text.len(), "the closing `\"` of the quoted value"));
        }
        let end = rest
            .bytes()
            .position(|b| !is_word_byte(b))
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(self.error("a value (a word or a \"quoted value\")"));
        }
        self.at += end;
        Ok(rest.as_bytes()[..end].to_vec())
    }

    fn value_of(
        &self,
        field: &Field,
        op: Op,
        raw: &[u8],
        op_at: usize,
        value_at: usize,
    ) -> Result<Value, FilterError> {
        let numeric = matches!(field, Field::Elo | Field::EloDiff | Field::Plies);
        if matches!(op, Op::Match | Op::NoMatch) {
            if numeric {
                return Err(
                    self.error_at(op_at, "a comparison (= != < <= > >=) for a number field")
                );
            }
            let text = std::str::from_utf8(raw).map_err(|_| FilterError {
                column: self.column(value_at),
                kind: FilterErrorKind::Regex("not UTF-8".into()),
            })?;
            return regex::bytes::Regex::new(text)
                .map(Value::Regex)
                .map_err(|e| FilterError {
                    column: self.column(value_at),
                    kind: FilterErrorKind::Regex(e.to_string()),
                });
        }
        if numeric {
            return parse_number(raw)
                .map(Value::Number)
                .ok_or_else(|| self.error_at(value_at, "a number"));
        }
        if *field == Field::Speed {
            return Speed::from_name(raw).map(Value::Speed).ok_or_else(|| {
                self.error_at(
                    value_at,
                    "a speed: ultrabullet, bullet, blitz, rapid, classical or correspondence",
                )
            });
        }
        Ok(match (parse_number(raw), parse_date(raw)) {
            (Some(n), _) => Value::Number(n),
            (None, Some(d)) => Value::Date(d),
            _ => Value::Text(raw.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Pairs<'a> = Vec<(&'a str, &'a str)>;

    fn eval(expr: &str, tags: &Pairs<'_>, plies: Option<u64>) -> Option<bool> {
        let f = Filter::parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        f.eval(&tags[..], plies)
    }

    fn holds(expr: &str, tags: &Pairs<'_>) -> bool {
        eval(expr, tags, Some(0)).expect("decided")
    }

    fn err(expr: &str) -> FilterError {
        match Filter::parse(expr) {
            Ok(f) => panic!("{expr} parsed: {f:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn precedence_not_and_or() {
        let t: Pairs<'_> = vec![("A", "1"), ("B", "2"), ("C", "3")];
        // or is weaker than and: (A=9 and B=2) or C=3.
        assert!(holds("A=9 and B=2 or C=3", &t));
        // and is weaker than not: (not A=9) and B=2.
        assert!(holds("not A=9 and B=2", &t));
        assert!(!holds("not (A=1 and B=2)", &t));
        assert!(!holds("A=9 and (B=2 or C=3)", &t));
        assert!(holds("A=1 or B=9 and C=9", &t));
        assert!(!holds("(A=1 or B=9) and C=9", &t));
        assert!(holds("not not A=1", &t));
        assert!(holds("A=1 AND B=2 Or C=0", &t));
    }

    #[test]
    fn numbers_dates_strings() {
        let t: Pairs<'_> = vec![
            ("WhiteElo", "2450"),
            ("BlackElo", "?"),
            ("Date", "2020.??.??"),
            ("UTCDate", "2021.03.04"),
            ("White", "Carlsen, Magnus"),
            ("Black", "Nakamura, Hikaru"),
            ("Result", "1-0"),
            ("Site", "2690:2222"),
        ];
        assert!(holds("WhiteElo>=2400", &t));
        assert!(holds("WhiteElo>2449.5", &t));
        assert!(!holds("WhiteElo<2400", &t));
        // Not a number: false, whatever the operator.
        assert!(!holds("BlackElo>=0", &t));
        assert!(!holds("BlackElo<0", &t));
        assert!(!holds("BlackElo!=5", &t));
        assert!(!holds("Site>=2000", &t));
        assert!(!holds("Missing>=0", &t));
        // Dates: `??` is 0.
        assert!(holds("UTCDate>=2021.01.01", &t));
        assert!(holds("UTCDate<2021.03.05 and UTCDate>2021.03.03", &t));
        assert!(!holds("Date>=2020.01.01", &t));
        assert!(holds("Date<2020.01.01", &t));
        assert!(holds("Date>=2020.??.??", &t));
        assert!(holds("Date=2020.??.??", &t));
        assert!(holds("Date>2019.12.31", &t));
        // Strings, quoted with spaces and escapes.
        assert!(holds("White=\"Carlsen, Magnus\"", &t));
        assert!(!holds("White=Carlsen", &t));
        assert!(holds("White!=Carlsen", &t));
        assert!(holds("Result=1-0", &t));
        assert!(holds("Result==1-0", &t));
        assert!(holds("White~^Carl", &t));
        assert!(holds("White!~Naka", &t));
        assert!(holds("White~\"(?i)magnus$\"", &t));
        assert!(holds("Missing=\"\"", &t));
        assert!(holds("X=\"a \\\"b\\\" \\\\\"", &vec![("X", "a \"b\" \\")]));
    }

    #[test]
    fn derived_fields() {
        let t: Pairs<'_> = vec![
            ("White", "alpha"),
            ("Black", "beta"),
            ("WhiteElo", "2500"),
            ("BlackElo", "2390"),
            ("TimeControl", "180+2"),
            ("BlackTitle", "BOT"),
        ];
        assert!(!holds("Elo>=2400", &t));
        assert!(holds("Elo>=2390", &t));
        assert!(holds("EloDiff=110", &t));
        assert!(holds("EloDiff>100 and EloDiff<=110", &t));
        assert!(holds("Player=beta", &t));
        assert!(!holds("Player!=beta", &t));
        assert!(holds("Player!=gamma", &t));
        assert!(holds("Player~^al", &t));
        assert!(holds("Speed=blitz", &t));
        assert!(holds("Speed=BLITZ and Speed>bullet and Speed<=blitz", &t));
        assert!(holds("Speed~itz", &t));
        assert!(holds("Bot", &t));
        assert!(!holds("not Bot", &t));
        assert!(holds("Variant=Standard", &t));
        assert!(holds("Variant=Chess960", &vec![("Variant", "Chess960")]));
        let speed = |tc: &str| {
            let t: Pairs<'_> = vec![("TimeControl", tc)];
            SPEEDS
                .iter()
                .find(|(n, _)| holds(&format!("Speed={n}"), &t))
                .map(|(n, _)| *n)
        };
        assert_eq!(speed("15+0"), Some("ultrabullet"));
        assert_eq!(speed("0+1"), Some("bullet")); // 40 s
        assert_eq!(speed("60+0"), Some("bullet"));
        assert_eq!(speed("120+1"), Some("bullet")); // 160 s
        assert_eq!(speed("180+0"), Some("blitz"));
        assert_eq!(speed("300+0"), Some("blitz"));
        assert_eq!(speed("600+0"), Some("rapid"));
        assert_eq!(speed("900+10"), Some("rapid")); // 1300 s
        assert_eq!(speed("1800+0"), Some("classical"));
        assert_eq!(speed("-"), Some("correspondence"));
        assert_eq!(speed("?"), None);
        assert_eq!(speed("40/7200:3600"), None);
    }

    #[test]
    fn plies_are_asked_for_only_when_needed() {
        let t: Pairs<'_> = vec![("Result", "1-0")];
        assert_eq!(eval("Plies>=40", &t, None), None);
        assert_eq!(eval("Plies>=40", &t, Some(40)), Some(true));
        assert_eq!(eval("Result=0-1 and Plies>=40", &t, None), Some(false));
        assert_eq!(eval("Result=1-0 or Plies>=40", &t, None), Some(true));
        assert_eq!(eval("Result=1-0 and Plies>=40", &t, None), None);
        assert_eq!(eval("not Plies>=40", &t, Some(3)), Some(true));
        assert!(Filter::parse("not Plies<3").unwrap().needs_plies());
        assert!(!Filter::parse("Result=1-0").unwrap().needs_plies());
    }

    #[test]
    fn errors_name_the_column_and_what_was_expected() {
        let e = err("WhiteElo>=");
        assert_eq!(e.column, 11);
        assert!(e.to_string().contains("expected a value"), "{e}");
        assert!(e.to_string().contains("end of the expression"), "{e}");
        let e = err("WhiteElo");
        assert_eq!(e.column, 9);
        assert!(e.to_string().contains("an operator"), "{e}");
        let e = err("(Result=1-0 or Result=0-1");
        assert_eq!(e.column, 26);
        assert!(e.to_string().contains("`)`"), "{e}");
        let e = err("Result=1-0 Result=0-1");
        assert_eq!(e.column, 12);
        assert!(e.to_string().contains("found `Result`"), "{e}");
        let e = err("Elo>=high");
        assert_eq!(e.column, 6);
        assert!(e.to_string().contains("a number"), "{e}");
        let e = err("Speed=fast");
        assert_eq!(e.column, 7);
        assert!(e.to_string().contains("blitz"), "{e}");
        let e = err("White~\"(\"");
        assert_eq!(e.column, 7);
        assert!(matches!(e.kind, FilterErrorKind::Regex(_)), "{e}");
        let e = err("Elo~2");
        assert_eq!(e.column, 4);
        let e = err("White=\"open");
        assert_eq!(e.column, 12);
        let e = err("and Result=1-0");
        assert_eq!(e.column, 1);
        let e = err("");
        assert_eq!(e.column, 1);
        // Columns count characters, not bytes.
        let e = err("White=\"é\" )");
        assert_eq!(e.column, 11);
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!("{}A=1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(holds(&ok, &vec![("A", "1")]));
        let deep = format!(
            "{}A=1{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        let e = err(&deep);
        assert_eq!(e.kind, FilterErrorKind::TooDeep);
        assert_eq!(e.column, MAX_DEPTH + 1);
        let nots = format!("{}A=1", "not ".repeat(MAX_DEPTH + 1));
        assert_eq!(err(&nots).kind, FilterErrorKind::TooDeep);
        // Long flat chains are not nesting.
        let long = vec!["A=1"; 10_000].join(" and ");
        assert!(holds(&long, &vec![("A", "1")]));
        let huge = "(".repeat(1_000_000);
        assert_eq!(err(&huge).kind, FilterErrorKind::TooDeep);
    }

    #[test]
    fn older_filters_still_read() {
        let t: Pairs<'_> = vec![("Event", "Rated Blitz game"), ("Round", "12")];
        assert!(holds("Event=Rated Blitz game", &t));
        assert!(holds("Round >= 10", &t));
        assert!(holds("Event != Casual game", &t));
        // An expression with an error is not taken for the older form.
        assert!(Filter::parse("Event=Rated Blitz and game").is_err());
        assert!(Filter::parse("Round>=10 an Event=x").is_err());
    }

    #[test]
    fn several_filters_all_hold() {
        let t: Pairs<'_> = vec![("A", "1"), ("B", "2")];
        let f = Filter::all([
            Filter::parse("A=1").unwrap(),
            Filter::parse("B=2 or Plies>3").unwrap(),
        ])
        .unwrap();
        assert!(f.needs_plies());
        assert_eq!(f.eval(&t[..], None), Some(true));
        let g =
            Filter::all([Filter::parse("A=1").unwrap(), Filter::parse("B=3").unwrap()]).unwrap();
        assert_eq!(g.eval(&t[..], None), Some(false));
        assert!(Filter::all([]).is_none());
    }
}
