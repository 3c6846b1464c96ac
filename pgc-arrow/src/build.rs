//! Columnar builders: one game at a time into one Arrow array per column.

use crate::error::Error;
use crate::schema::{Column, ExportOptions, TAG_COLUMNS, TAG_NAMES};
use crate::uci::UciLists;
use arrow_array::builder::{
    BinaryBuilder, Date32Builder, Int16Builder, Int32Builder, Int64Builder, ListBuilder,
    MapBuilder, StringBuilder, Time64MicrosecondBuilder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use pgc_core::ext::commands::{Eval, TimeKind};
use pgc_core::ext::engine::Score;
use pgc_core::{BulkEvent, BulkGame, EngineValues, UciText};
use std::borrow::Cow;
use std::sync::Arc;

/// How the value of a tag column is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TagKind {
    Text,
    Int16,
    Date,
    Time,
}

fn tag_kind(c: Column) -> TagKind {
    match c {
        Column::WhiteElo | Column::BlackElo | Column::WhiteRatingDiff | Column::BlackRatingDiff => {
            TagKind::Int16
        }
        Column::UtcDate => TagKind::Date,
        Column::UtcTime => TagKind::Time,
        _ => TagKind::Text,
    }
}

/// A parsed tag value of a typed column.
#[derive(Clone, Copy)]
enum Typed<'a> {
    Text(&'a [u8]),
    Int16(i16),
    Date(i32),
    Time(i64),
}

/// Builds the record batch of a run of games, one column at a time.
///
/// Every builder grows from game to game and is emptied by
/// [`GamesBuilder::finish`], which keeps nothing per move: a move appends
/// to the list columns' value buffers only.
pub struct GamesBuilder {
    opts: ExportOptions,
    schema: SchemaRef,
    /// One builder per tag column, in [`TAG_COLUMNS`] order (the ones of
    /// other kinds stay empty).
    text: Vec<StringBuilder>,
    int16: Vec<Int16Builder>,
    utc_date: Date32Builder,
    utc_time: Time64MicrosecondBuilder,
    base: Int32Builder,
    increment: Int32Builder,
    other: MapBuilder<StringBuilder, StringBuilder>,
    plies: Int32Builder,
    ordinals: ListBuilder<UInt8Builder>,
    uci: UciLists,
    san: ListBuilder<StringBuilder>,
    clocks: ListBuilder<Int32Builder>,
    evals: ListBuilder<Int32Builder>,
    mates: ListBuilder<Int32Builder>,
    engine: EngineLists,
    pgc: BinaryBuilder,
    rows: usize,
    /// A tag column, `base_seconds`, `increment_seconds` or `other_tags`
    /// is in the table: else a game's tags are not read.
    tags: bool,
}

/// The `engine_` columns, and the current game's notes until its end.
struct EngineLists {
    evals: ListBuilder<Int32Builder>,
    mates: ListBuilder<Int32Builder>,
    depths: ListBuilder<Int32Builder>,
    times: ListBuilder<Int64Builder>,
    nodes: ListBuilder<Int64Builder>,
    pvs: ListBuilder<ListBuilder<StringBuilder>>,
    /// The game's main-line plies: the note's values, and its PV's UCI
    /// moves as a range of `pv_moves` (ranges of `pv_text`).
    plies: Vec<Option<PlyNote>>,
    pv_moves: Vec<(u32, u32)>,
    pv_text: Vec<u8>,
}

#[derive(Clone, Copy)]
struct PlyNote {
    eval: Option<i32>,
    mate: Option<i32>,
    depth: Option<i32>,
    time: Option<i64>,
    nodes: Option<i64>,
    pv: (u32, u32),
}

impl EngineLists {
    fn new() -> EngineLists {
        EngineLists {
            evals: ListBuilder::new(Int32Builder::new()),
            mates: ListBuilder::new(Int32Builder::new()),
            depths: ListBuilder::new(Int32Builder::new()),
            times: ListBuilder::new(Int64Builder::new()),
            nodes: ListBuilder::new(Int64Builder::new()),
            pvs: ListBuilder::new(ListBuilder::new(StringBuilder::new())),
            plies: Vec::new(),
            pv_moves: Vec::new(),
            pv_text: Vec::new(),
        }
    }

    /// The note of the last ply read (the first note of a ply counts).
    fn note(&mut self, v: &EngineValues<'_>, mode: shakmaty::CastlingMode) {
        let Some(slot @ None) = self.plies.last_mut() else {
            return;
        };
        let start = self.pv_moves.len() as u32;
        for m in v.pv {
            let a = self.pv_text.len() as u32;
            self.pv_text
                .extend_from_slice(UciText::of(*m, mode).as_bytes());
            self.pv_moves.push((a, self.pv_text.len() as u32));
        }
        let (eval, mate) = match v.figures.eval {
            Some(Score::Centipawns(cp)) => (i32::try_from(cp).ok(), None),
            Some(Score::Mate(n)) => (None, i32::try_from(n).ok()),
            None => (None, None),
        };
        *slot = Some(PlyNote {
            eval,
            mate,
            depth: v.figures.depth.and_then(|d| i32::try_from(d).ok()),
            time: v.figures.time_ms.and_then(|t| i64::try_from(t).ok()),
            nodes: v.figures.nodes.and_then(|n| i64::try_from(n).ok()),
            pv: (start, self.pv_moves.len() as u32),
        });
    }

    /// Appends the game's lists (null lists for a game without notes).
    fn end_game(&mut self) {
        let any = self.plies.iter().any(Option::is_some);
        if any {
            for p in &self.plies {
                let p = p.as_ref();
                self.evals.values().append_option(p.and_then(|p| p.eval));
                self.mates.values().append_option(p.and_then(|p| p.mate));
                self.depths.values().append_option(p.and_then(|p| p.depth));
                self.times.values().append_option(p.and_then(|p| p.time));
                self.nodes.values().append_option(p.and_then(|p| p.nodes));
                match p {
                    Some(p) if p.pv.1 > p.pv.0 => {
                        for &(a, b) in &self.pv_moves[p.pv.0 as usize..p.pv.1 as usize] {
                            let t = std::str::from_utf8(&self.pv_text[a as usize..b as usize])
                                .unwrap_or_default();
                            self.pvs.values().values().append_value(t);
                        }
                        self.pvs.values().append(true);
                    }
                    Some(_) => self.pvs.values().append(true),
                    None => self.pvs.values().append(false),
                }
            }
        }
        self.evals.append(any);
        self.mates.append(any);
        self.depths.append(any);
        self.times.append(any);
        self.nodes.append(any);
        self.pvs.append(any);
        self.plies.clear();
        self.pv_moves.clear();
        self.pv_text.clear();
    }
}

impl GamesBuilder {
    /// An empty builder of the table `opts` describes.
    pub fn new(opts: &ExportOptions) -> GamesBuilder {
        GamesBuilder {
            opts: opts.clone(),
            schema: opts.schema(),
            text: TAG_COLUMNS.iter().map(|_| StringBuilder::new()).collect(),
            int16: TAG_COLUMNS.iter().map(|_| Int16Builder::new()).collect(),
            utc_date: Date32Builder::new(),
            utc_time: Time64MicrosecondBuilder::new(),
            base: Int32Builder::new(),
            increment: Int32Builder::new(),
            other: MapBuilder::new(None, StringBuilder::new(), StringBuilder::new()),
            plies: Int32Builder::new(),
            ordinals: ListBuilder::new(UInt8Builder::new()),
            uci: UciLists::new(),
            san: ListBuilder::new(StringBuilder::new()),
            clocks: ListBuilder::new(Int32Builder::new()),
            evals: ListBuilder::new(Int32Builder::new()),
            mates: ListBuilder::new(Int32Builder::new()),
            engine: EngineLists::new(),
            pgc: BinaryBuilder::new(),
            rows: 0,
            tags: opts.columns().iter().any(|c| {
                TAG_COLUMNS.contains(c)
                    || matches!(
                        c,
                        Column::BaseSeconds | Column::IncrementSeconds | Column::OtherTags
                    )
            }),
        }
    }

    /// The options the builder was made with.
    pub fn options(&self) -> &ExportOptions {
        &self.opts
    }

    /// Games added since the last [`GamesBuilder::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no game was added since the last [`GamesBuilder::finish`].
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Adds a game read with the [`pgc_core::BulkOptions`] of
    /// [`crate::bulk_options`], whose PGC records are `pgc`.
    ///
    /// # Errors
    /// [`Error::Arrow`] if the map column refuses an entry (it does not for
    /// any input: its keys are never null).
    pub fn push(&mut self, game: &BulkGame, pgc: &[u8]) -> Result<(), Error> {
        // The tag builders of a table without tag columns stay empty (they
        // are not in its batches).
        if self.tags {
            self.push_tags(game)?;
        }
        self.push_moves(game);
        if self.opts.has(Column::Pgc) {
            self.pgc.append_value(pgc);
        }
        self.rows += 1;
        Ok(())
    }

    fn push_tags(&mut self, game: &BulkGame) -> Result<(), Error> {
        let mut slots: [Option<Typed<'_>>; TAG_COLUMNS.len()] = [None; TAG_COLUMNS.len()];
        for (name, value) in game.tags() {
            let slot = TAG_NAMES
                .iter()
                .position(|&n| n == name)
                .filter(|&i| slots[i].is_none());
            if let Some(i) = slot {
                match parse_tag(tag_kind(TAG_COLUMNS[i]), value) {
                    Parsed::Value(t) => {
                        slots[i] = Some(t);
                        continue;
                    }
                    Parsed::Unknown => continue,
                    // Not of the column's type: kept among the other tags.
                    Parsed::Invalid => {}
                }
            }
            self.other.keys().append_value(text(name));
            self.other.values().append_value(text(value));
        }
        self.other.append(true)?;
        let mut time_control = None;
        for (i, (c, slot)) in TAG_COLUMNS.iter().zip(slots).enumerate() {
            match (tag_kind(*c), slot) {
                (TagKind::Text, Some(Typed::Text(v))) => {
                    if *c == Column::TimeControl {
                        time_control = Some(v);
                    }
                    self.text[i].append_value(text(v));
                }
                (TagKind::Text, _) => self.text[i].append_null(),
                (TagKind::Int16, v) => self.int16[i].append_option(match v {
                    Some(Typed::Int16(n)) => Some(n),
                    _ => None,
                }),
                (TagKind::Date, v) => self.utc_date.append_option(match v {
                    Some(Typed::Date(d)) => Some(d),
                    _ => None,
                }),
                (TagKind::Time, v) => self.utc_time.append_option(match v {
                    Some(Typed::Time(t)) => Some(t),
                    _ => None,
                }),
            }
        }
        let (base, increment) = time_control.map_or((None, None), parse_time_control);
        self.base.append_option(base);
        self.increment.append_option(increment);
        Ok(())
    }

    fn push_moves(&mut self, game: &BulkGame) {
        let uci = self.opts.has(Column::Uci);
        let typed = [Column::Clocks, Column::Evals, Column::Mates]
            .iter()
            .any(|&c| self.opts.has(c));
        let engine = Column::ENGINE.iter().any(|&c| self.opts.has(c));
        let mode = game.castling_mode();
        let (mut plies, mut moves, mut sans) = (0i32, 0usize, 0usize);
        let mut depth = 0u32;
        // The typed values of the ply being read: they follow its move.
        let mut clock: Option<i32> = None;
        let mut eval: Option<Eval> = None;
        // Plies without a clock / an eval not appended yet: a run of them
        // is appended at once, and not at all in a game that has none.
        let mut gap = Gaps::default();
        let ordinals = game.ordinals();
        // Without a null move the ordinals are the main line's, in order.
        let nulls = game.has_null_moves();
        let want_ordinals = self.opts.has(Column::Ordinals);
        if !nulls && want_ordinals {
            let values = self.ordinals.values();
            if ordinals.iter().all(|&o| o <= u16::from(u8::MAX)) {
                for &o in ordinals {
                    values.append_value(o as u8);
                }
            } else {
                for &o in ordinals {
                    // A wide move's ordinal (256 or more) has no `uint8`.
                    values.append_option(u8::try_from(o).ok());
                }
            }
        }
        let san = game.san();
        if game.moves_only() {
            // No comment, NAG, variation or null move: the events are the
            // main line's moves, read without the events.
            // Moves counted and not decoded (a table of tags and plies)
            // are in no list.
            let n = ordinals.len() as u64 + game.unplayed_plies();
            plies = i32::try_from(n).unwrap_or(i32::MAX);
            if uci {
                self.uci.reserve(ordinals.len());
                for m in game.moves() {
                    self.uci.push(&m, mode);
                }
            }
            for s in san {
                self.san.values().append_value(s.as_str());
            }
            if engine {
                self.engine.plies.resize(ordinals.len(), None);
            }
        } else {
            for event in game.events() {
                match event {
                    BulkEvent::BeginVariation => depth += 1,
                    BulkEvent::EndVariation => depth = depth.saturating_sub(1),
                    BulkEvent::Move(_) | BulkEvent::NullMove if depth > 0 => sans += 1,
                    BulkEvent::Move(_) | BulkEvent::NullMove => {
                        if plies > 0 && typed {
                            self.end_ply(clock.take(), eval.take(), &mut gap);
                        }
                        plies += 1;
                        if engine {
                            self.engine.plies.push(None);
                        }
                        // A null move has no ordinal and is `0000` in UCI.
                        let m = match event {
                            BulkEvent::Move(m) => Some(m),
                            _ => None,
                        };
                        if nulls && want_ordinals {
                            let o = m.and(ordinals.get(moves));
                            self.ordinals
                                .values()
                                .append_option(o.and_then(|&o| u8::try_from(o).ok()));
                        }
                        match m {
                            Some(m) => {
                                moves += 1;
                                if uci {
                                    self.uci.push(&m, mode);
                                }
                            }
                            None if uci => self.uci.push_null(),
                            None => {}
                        }
                        if let Some(s) = san.get(sans) {
                            self.san.values().append_value(s.as_str());
                        }
                        sans += 1;
                    }
                    BulkEvent::Time(TimeKind::Clk, c)
                        if depth == 0 && plies > 0 && clock.is_none() =>
                    {
                        // Beyond int32 centiseconds (248 days): no clock.
                        clock = i32::try_from(c.millis / 10).ok();
                    }
                    BulkEvent::Eval(e) if depth == 0 && plies > 0 && eval.is_none() => {
                        eval = Some(e);
                    }
                    BulkEvent::Engine(v) if depth == 0 && engine => self.engine.note(&v, mode),
                    _ => {}
                }
            }
        }
        if plies > 0 && typed {
            self.end_ply(clock, eval, &mut gap);
        }
        self.plies.append_value(plies);
        self.ordinals.append(true);
        self.uci.end_list();
        self.san.append(true);
        // A game without any clock has a null list of clocks, and one
        // without any eval null lists of evals and mates.
        if gap.clock_seen {
            self.clocks.values().append_nulls(gap.clocks);
        }
        self.clocks.append(gap.clock_seen);
        if gap.eval_seen {
            self.evals.values().append_nulls(gap.evals);
            self.mates.values().append_nulls(gap.evals);
        }
        self.evals.append(gap.eval_seen);
        self.mates.append(gap.eval_seen);
        if engine {
            self.engine.end_game();
        }
    }

    #[inline]
    fn end_ply(&mut self, clock: Option<i32>, eval: Option<Eval>, gap: &mut Gaps) {
        match clock {
            Some(c) => {
                self.clocks.values().append_nulls(gap.clocks);
                self.clocks.values().append_value(c);
                gap.clocks = 0;
                gap.clock_seen = true;
            }
            None => gap.clocks += 1,
        }
        let (cp, mate) = match eval {
            Some(Eval::Centipawns(cp)) => (Some(cp), None),
            Some(Eval::Mate(n)) => (None, Some(n)),
            None => {
                gap.evals += 1;
                return;
            }
        };
        self.evals.values().append_nulls(gap.evals);
        self.mates.values().append_nulls(gap.evals);
        self.evals.values().append_option(cp);
        self.mates.values().append_option(mate);
        gap.evals = 0;
        gap.eval_seen = true;
    }

    /// The record batch of the games added since the last call; the
    /// builder is empty again.
    ///
    /// # Errors
    /// [`Error::Arrow`] if the arrays do not fit the schema (a bug).
    pub fn finish(&mut self) -> Result<RecordBatch, Error> {
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.opts.columns().len());
        // Every builder is emptied, kept or not, so that the next batch
        // starts with every column at row 0.
        let mut tags: Vec<ArrayRef> = Vec::with_capacity(TAG_COLUMNS.len());
        for (i, c) in TAG_COLUMNS.iter().enumerate() {
            let text: ArrayRef = Arc::new(self.text[i].finish());
            let int16: ArrayRef = Arc::new(self.int16[i].finish());
            tags.push(match tag_kind(*c) {
                TagKind::Text => text,
                TagKind::Int16 => int16,
                TagKind::Date => Arc::new(self.utc_date.finish()),
                TagKind::Time => Arc::new(self.utc_time.finish()),
            });
        }
        let base: ArrayRef = Arc::new(self.base.finish());
        let increment: ArrayRef = Arc::new(self.increment.finish());
        let other: ArrayRef = Arc::new(self.other.finish());
        let plies: ArrayRef = Arc::new(self.plies.finish());
        let ordinals: ArrayRef = Arc::new(self.ordinals.finish());
        let uci: ArrayRef = Arc::new(self.uci.finish()?);
        let san: ArrayRef = Arc::new(self.san.finish());
        let clocks: ArrayRef = Arc::new(self.clocks.finish());
        let evals: ArrayRef = Arc::new(self.evals.finish());
        let mates: ArrayRef = Arc::new(self.mates.finish());
        let pgc: ArrayRef = Arc::new(self.pgc.finish());
        let e = &mut self.engine;
        let engine: [ArrayRef; 6] = [
            Arc::new(e.evals.finish()),
            Arc::new(e.mates.finish()),
            Arc::new(e.depths.finish()),
            Arc::new(e.times.finish()),
            Arc::new(e.nodes.finish()),
            Arc::new(e.pvs.finish()),
        ];
        for &c in self.opts.columns() {
            arrays.push(match c {
                Column::BaseSeconds => base.clone(),
                Column::IncrementSeconds => increment.clone(),
                Column::OtherTags => other.clone(),
                Column::Plies => plies.clone(),
                Column::Ordinals => ordinals.clone(),
                Column::Uci => uci.clone(),
                Column::San => san.clone(),
                Column::Clocks => clocks.clone(),
                Column::Evals => evals.clone(),
                Column::Mates => mates.clone(),
                Column::Pgc => pgc.clone(),
                c if Column::ENGINE.contains(&c) => {
                    let i = Column::ENGINE.iter().position(|e| *e == c).unwrap_or(0);
                    engine[i].clone()
                }
                tag => {
                    let i = TAG_COLUMNS.iter().position(|t| *t == tag).unwrap_or(0);
                    tags[i].clone()
                }
            });
        }
        self.rows = 0;
        Ok(RecordBatch::try_new(self.schema.clone(), arrays)?)
    }
}

/// A tag value as text: invalid UTF-8 is replaced by U+FFFD (the `pgc`
/// column keeps the bytes).
fn text(v: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(v)
}

/// What a tag value is for its typed column.
enum Parsed<'a> {
    Value(Typed<'a>),
    /// `?`, `-`, empty, or only `?` and `.` (`????.??.??`): null.
    Unknown,
    /// Not of the column's type: null, and the tag goes to `other_tags`.
    Invalid,
}

fn parse_tag(kind: TagKind, v: &[u8]) -> Parsed<'_> {
    if kind == TagKind::Text {
        return Parsed::Value(Typed::Text(v));
    }
    if v.is_empty() || v == b"-" || v.iter().all(|&b| b == b'?' || b == b'.') {
        return Parsed::Unknown;
    }
    let typed = match kind {
        TagKind::Text => Some(Typed::Text(v)),
        TagKind::Int16 => parse_int(v)
            .and_then(|n| i16::try_from(n).ok())
            .map(Typed::Int16),
        TagKind::Date => parse_date(v).map(Typed::Date),
        TagKind::Time => parse_time(v).map(Typed::Time),
    };
    typed.map_or(Parsed::Invalid, Parsed::Value)
}

/// A decimal integer with an optional sign (`1500`, `+7`, `-12`).
fn parse_int(v: &[u8]) -> Option<i64> {
    let (neg, digits) = match v.split_first()? {
        (b'+', rest) => (false, rest),
        (b'-', rest) => (true, rest),
        _ => (false, v),
    };
    let n = digits_value(digits)?;
    Some(if neg { -n } else { n })
}

/// 1 to 12 ASCII digits.
fn digits_value(d: &[u8]) -> Option<i64> {
    if d.is_empty() || d.len() > 12 || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(d.iter().fold(0i64, |n, &b| n * 10 + i64::from(b - b'0')))
}

/// `YYYY.MM.DD` as days since 1970-01-01.
fn parse_date(v: &[u8]) -> Option<i32> {
    let [y, m, d] = split3(v, b'.')?;
    let (y, m, d) = (digits_value(y)?, digits_value(m)?, digits_value(d)?);
    if y.to_string().len() > 4 || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `HH:MM:SS` as microseconds since midnight.
fn parse_time(v: &[u8]) -> Option<i64> {
    let [h, m, s] = split3(v, b':')?;
    let (h, m, s) = (digits_value(h)?, digits_value(m)?, digits_value(s)?);
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    Some(((h * 60 + m) * 60 + s) * 1_000_000)
}

fn split3(v: &[u8], sep: u8) -> Option<[&[u8]; 3]> {
    let mut parts = v.split(|&b| b == sep);
    let r = [parts.next()?, parts.next()?, parts.next()?];
    parts.next().is_none().then_some(r)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `B+I` or `B` (seconds): the base, and the increment (null for `B`).
fn parse_time_control(v: &[u8]) -> (Option<i32>, Option<i32>) {
    let int = |d: &[u8]| digits_value(d).and_then(|n| i32::try_from(n).ok());
    match v.iter().position(|&b| b == b'+') {
        Some(p) => match (int(&v[..p]), int(&v[p + 1..])) {
            (Some(b), Some(i)) => (Some(b), Some(i)),
            _ => (None, None),
        },
        None => (int(v), None),
    }
}

/// The plies of the game being added whose clock / eval is not appended
/// yet, and whether it has any.
#[derive(Default)]
struct Gaps {
    clocks: usize,
    evals: usize,
    clock_seen: bool,
    eval_seen: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_times_and_time_controls() {
        assert_eq!(parse_date(b"1970.01.01"), Some(0));
        assert_eq!(parse_date(b"2017.05.29"), Some(17315));
        assert_eq!(parse_date(b"2000.02.29"), Some(11016));
        assert_eq!(parse_date(b"2001.02.29"), None);
        assert_eq!(parse_date(b"2017.13.01"), None);
        assert_eq!(parse_time(b"23:59:58"), Some(86_398_000_000));
        assert_eq!(parse_time(b"24:00:00"), None);
        assert_eq!(parse_time_control(b"180+2"), (Some(180), Some(2)));
        assert_eq!(parse_time_control(b"60"), (Some(60), None));
        assert_eq!(parse_time_control(b"-"), (None, None));
        assert_eq!(parse_time_control(b"40/7200:3600"), (None, None));
        assert_eq!(parse_int(b"+12"), Some(12));
        assert_eq!(parse_int(b"-7"), Some(-7));
        assert_eq!(parse_int(b"12a"), None);
        assert!(matches!(parse_tag(TagKind::Int16, b"?"), Parsed::Unknown));
        assert!(matches!(
            parse_tag(TagKind::Int16, b"40000"),
            Parsed::Invalid
        ));
    }
}
