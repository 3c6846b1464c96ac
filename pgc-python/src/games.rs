//! Games of PGC bytes as Python values, a chunk of games at a time, each
//! chunk read on several threads with the GIL released.

use crate::error::walk_error;
use crate::threads::thread_count;
use pgc_core::ext::commands::{Eval, TimeKind};
use pgc_core::filter::Filter;
use pgc_core::{
    BulkEvent as Event, BulkGame, BulkOptions, BulkReader, GameIndex, Limits, WalkError,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::fmt::Write as _;

/// The bytes of PGC a piece of work holds, about.
const PART_BYTES: usize = 1 << 20;

/// One game, read without the GIL.
struct GameData {
    index: u64,
    offset: u64,
    tags: Vec<(String, String)>,
    /// The main line in UCI, separated by spaces.
    uci: String,
    /// Per main-line ply: `[%clk]` in milliseconds.
    clocks: Vec<Option<u64>>,
    /// Per main-line ply: `[%eval]` in centipawns.
    evals: Vec<Option<i32>>,
    /// Per main-line ply: a mate `[%eval]` (`#3` is 3, `#-2` is -2).
    mates: Vec<Option<i32>>,
    /// Main-line plies (null moves included).
    plies: usize,
    result: String,
    /// The game's records (with those before it since the previous game).
    span: (usize, usize),
}

/// What is read of each game.
#[derive(Clone, Copy)]
struct Wanted {
    moves: bool,
    typed: bool,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn game_data(g: &BulkGame, start: usize, end: usize, want: Wanted) -> GameData {
    let mode = g.castling_mode();
    let mut d = GameData {
        index: g.info().index,
        offset: g.info().offset,
        tags: g.tags().map(|(n, v)| (text(n), text(v))).collect(),
        uci: String::new(),
        clocks: Vec::new(),
        evals: Vec::new(),
        mates: Vec::new(),
        // Counted without decoding when neither moves nor comments are
        // read; else counted below.
        plies: usize::try_from(g.unplayed_plies()).unwrap_or(usize::MAX),
        result: text(g.result()),
        span: (start, end),
    };
    if !want.moves && !want.typed {
        return d;
    }
    let mut depth = 0u32;
    let mut plies = 0usize;
    for event in g.events() {
        match event {
            Event::BeginVariation => depth += 1,
            Event::EndVariation => depth = depth.saturating_sub(1),
            Event::Move(_) | Event::NullMove if depth > 0 => {}
            Event::Move(m) => {
                plies += 1;
                if want.moves {
                    if !d.uci.is_empty() {
                        d.uci.push(' ');
                    }
                    // Writing to a String cannot fail.
                    let _ = write!(d.uci, "{}", m.to_uci(mode));
                }
            }
            Event::NullMove => {
                plies += 1;
                if want.moves {
                    if !d.uci.is_empty() {
                        d.uci.push(' ');
                    }
                    d.uci.push_str("0000");
                }
            }
            Event::Time(TimeKind::Clk, c) if depth == 0 && plies > 0 && want.typed => {
                d.clocks.resize(plies, None);
                d.clocks[plies - 1].get_or_insert(c.millis);
            }
            Event::Eval(e) if depth == 0 && plies > 0 && want.typed => {
                d.evals.resize(plies, None);
                d.mates.resize(plies, None);
                if d.evals[plies - 1].is_none() && d.mates[plies - 1].is_none() {
                    match e {
                        Eval::Centipawns(cp) => d.evals[plies - 1] = Some(cp),
                        Eval::Mate(n) => d.mates[plies - 1] = Some(n),
                    }
                }
            }
            _ => {}
        }
    }
    if want.typed {
        d.clocks.resize(plies, None);
        d.evals.resize(plies, None);
        d.mates.resize(plies, None);
    }
    d.plies = plies;
    d
}

/// Reads the games of `data[start..end]` (whole records, `games` games
/// before them) with `limits`.
fn read_part(
    data: &[u8],
    (start, end): (usize, usize),
    games: u64,
    want: Wanted,
    filter: Option<&Filter>,
    limits: Limits,
) -> Result<Vec<GameData>, WalkError> {
    let opts = BulkOptions {
        comments: want.typed,
        // Tags alone: the plies are counted, no move is decoded.
        moves: want.moves || want.typed,
        limits,
        ..BulkOptions::default()
    };
    let mut r = BulkReader::new(&data[start..end], opts).starting_at(start as u64, games);
    let mut out = Vec::new();
    let mut at = start;
    while let Some(g) = r.next_game()? {
        let e = usize::try_from(g.end_offset())
            .unwrap_or(end)
            .clamp(at, end);
        // A game left out takes the records before it along.
        if filter.is_none_or(|f| f.matches(g, g.plies())) {
            out.push(game_data(g, at, e, want));
        }
        at = e;
    }
    // Records after the last game of the part go with the last game.
    if let Some(last) = out.last_mut().filter(|_| filter.is_none()) {
        last.span.1 = end;
    }
    Ok(out)
}

/// One game as read: its Python values are made when asked for.
#[pyclass(frozen, module = "pgc._pgc")]
pub(crate) struct GameRecord {
    g: GameData,
    data: Py<PyBytes>,
}

#[pymethods]
impl GameRecord {
    /// 0-based game number.
    #[getter]
    fn index(&self) -> u64 {
        self.g.index
    }

    /// Byte offset of the game's first record.
    #[getter]
    fn offset(&self) -> u64 {
        self.g.offset
    }

    /// The tags, in input order, as a dict.
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let tags = PyDict::new(py);
        for (n, v) in &self.g.tags {
            tags.set_item(n, v)?;
        }
        Ok(tags)
    }

    /// The main line in UCI, moves separated by spaces.
    #[getter]
    fn uci(&self) -> &str {
        &self.g.uci
    }

    /// Main-line plies.
    #[getter]
    fn plies(&self) -> usize {
        self.g.plies
    }

    /// Each main-line ply's `[%clk]` in milliseconds (None: none).
    #[getter]
    fn clocks(&self) -> Vec<Option<u64>> {
        self.g.clocks.clone()
    }

    /// Each main-line ply's `[%eval]` in centipawns (None: none or a mate).
    #[getter]
    fn evals(&self) -> Vec<Option<i32>> {
        self.g.evals.clone()
    }

    /// Each main-line ply's mate `[%eval]` (None: none or centipawns).
    #[getter]
    fn mates(&self) -> Vec<Option<i32>> {
        self.g.mates.clone()
    }

    /// The game's result.
    #[getter]
    fn result(&self) -> &str {
        &self.g.result
    }

    /// The game's PGC records (with the records before it since the
    /// previous game).
    #[getter]
    fn pgc<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let data = self.data.bind(py).as_bytes();
        PyBytes::new(py, data.get(self.g.span.0..self.g.span.1).unwrap_or(&[]))
    }

    /// The game's own records, from its first (without the text kept as
    /// read before it).
    #[getter]
    fn own_pgc<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let data = self.data.bind(py).as_bytes();
        PyBytes::new(py, data.get(self.own_start()..self.g.span.1).unwrap_or(&[]))
    }

    /// The game's PGN text (`own`: from its first record, else with the
    /// text kept before it; `export`: the export format), read with the
    /// limits `max_string` and `max_rav_depth`. An error is placed in the
    /// data the game was read from: its byte offset there and the game's
    /// number.
    #[pyo3(signature = (own, export, *, max_string = None, max_rav_depth = None))]
    fn text<'py>(
        &self,
        py: Python<'py>,
        own: bool,
        export: bool,
        max_string: Option<Bound<'py, PyAny>>,
        max_rav_depth: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let limits = crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
        let start = if own { self.own_start() } else { self.g.span.0 };
        let data = self.data.bind(py).as_bytes();
        let records = data.get(start..self.g.span.1).unwrap_or(&[]);
        match py.detach(|| pgn_of(records, export, limits)) {
            Ok(out) => Ok(PyBytes::new(py, &out)),
            Err(pgn_bridge::Error::Walk(mut w)) => {
                w.offset += start as u64;
                w.game += self.g.index;
                Err(walk_error(py, &w))
            }
            Err(e) => Err(crate::error::bridge_error(py, &e)),
        }
    }
}

/// The PGN text of PGC records (`export`: the export format), read with
/// `limits`.
pub(crate) fn pgn_of(
    records: &[u8],
    export: bool,
    limits: pgc_core::Limits,
) -> Result<Vec<u8>, pgn_bridge::Error> {
    let opts = pgn_bridge::DecodeOptions {
        export,
        limits,
        ..pgn_bridge::DecodeOptions::default()
    };
    let mut out = Vec::with_capacity(records.len() * 3);
    pgn_bridge::pgc_to_pgn(records, &mut out, &opts).map(|_| out)
}

impl GameRecord {
    /// Where the game's own records start in the data.
    fn own_start(&self) -> usize {
        usize::try_from(self.g.offset)
            .unwrap_or(self.g.span.1)
            .clamp(self.g.span.0, self.g.span.1)
    }
}

/// Where the games of `data` are cut into parts: `(offset, games before)`
/// of each, at game starts about [`PART_BYTES`] apart. Data that does not
/// frame with `limits` is one part (the walk reports where it fails).
fn cut_points(data: &[u8], limits: Limits) -> Vec<(usize, u64)> {
    let mut cuts = vec![(0usize, 0u64)];
    if data.len() <= PART_BYTES {
        return cuts;
    }
    let Ok(index) = GameIndex::build(&mut std::io::Cursor::new(data), limits) else {
        return cuts;
    };
    let mut last = 0usize;
    for (n, &o) in index.offsets.iter().enumerate() {
        let o = usize::try_from(o).unwrap_or(data.len()).min(data.len());
        if o - last >= PART_BYTES {
            cuts.push((o, n as u64));
            last = o;
        }
    }
    cuts
}

/// A `where` argument as a filter (pgc's filter language,
/// `pgc_core::filter`); a malformed expression is a `ValueError` saying
/// where it breaks.
pub(crate) fn parse_where(where_: Option<&str>) -> PyResult<Option<Filter>> {
    where_
        .map(Filter::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("where={:?}: {e}", where_.unwrap_or(""))))
}

/// Checks a reader's options without reading anything: the `where`
/// expression and the limits `max_string` and `max_rav_depth`, as every
/// reader checks them (a `ValueError` or `TypeError`), so that a lazy
/// reader can refuse them when it is called rather than when it is first
/// iterated.
#[pyfunction]
#[pyo3(signature = (where_ = None, *, max_string = None, max_rav_depth = None))]
pub(crate) fn check_options(
    where_: Option<&str>,
    max_string: Option<Bound<'_, PyAny>>,
    max_rav_depth: Option<Bound<'_, PyAny>>,
) -> PyResult<()> {
    crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    parse_where(where_)?;
    Ok(())
}

/// Reads the games of PGC bytes, a chunk at a time.
#[pyclass(module = "pgc._pgc")]
pub(crate) struct GameReader {
    data: Py<PyBytes>,
    points: Vec<(usize, u64)>,
    next: usize,
    threads: usize,
    want: Wanted,
    filter: Option<Filter>,
    limits: Limits,
}

#[pymethods]
impl GameReader {
    /// A reader of the games of `data` (PGC): `moves` (UCI), `typed`
    /// (clocks and evaluations) on `threads` threads (0: one per core);
    /// with `where_`, only the games that expression of pgc's filter
    /// language (`pgc_core::filter`) chooses; read with the limits
    /// `max_string` and `max_rav_depth`.
    #[new]
    #[pyo3(signature = (
        data, moves = true, typed = true, threads = 0, where_ = None, *,
        max_string = None, max_rav_depth = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new<'py>(
        py: Python<'py>,
        data: Bound<'py, PyBytes>,
        moves: bool,
        typed: bool,
        #[pyo3(from_py_with = crate::threads::threads_arg)] threads: usize,
        where_: Option<&str>,
        max_string: Option<Bound<'py, PyAny>>,
        max_rav_depth: Option<Bound<'py, PyAny>>,
    ) -> PyResult<GameReader> {
        let limits = crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
        let filter = parse_where(where_)?;
        let bytes = data.as_bytes();
        let points = py.detach(|| cut_points(bytes, limits));
        Ok(GameReader {
            data: data.unbind(),
            points,
            next: 0,
            threads: thread_count(threads),
            want: Wanted { moves, typed },
            filter,
            limits,
        })
    }

    /// The next games, as `GameRecord`s, or None at the end.
    fn next_chunk<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        if self.next >= self.points.len() {
            return Ok(None);
        }
        let data = self.data.bind(py).clone();
        let bytes = data.as_bytes();
        let first = self.next;
        let last = (first + self.threads).min(self.points.len());
        self.next = last;
        let points = &self.points;
        let want = self.want;
        let filter = self.filter.as_ref();
        let limits = self.limits;
        let bound = |i: usize| points.get(i + 1).map_or(bytes.len(), |p| p.0);
        let results: Vec<Result<Vec<GameData>, WalkError>> = py.detach(|| {
            if last - first == 1 {
                let (s, g) = points[first];
                return vec![read_part(bytes, (s, bound(first)), g, want, filter, limits)];
            }
            std::thread::scope(|s| {
                let handles: Vec<_> = (first..last)
                    .map(|i| {
                        let (start, games) = points[i];
                        let span = (start, bound(i));
                        s.spawn(move || read_part(bytes, span, games, want, filter, limits))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        });
        let list = PyList::empty(py);
        for r in results {
            let games = r.map_err(|e| {
                self.next = self.points.len();
                walk_error(py, &e)
            })?;
            for g in games {
                let record = GameRecord {
                    g,
                    data: self.data.clone_ref(py),
                };
                list.append(Bound::new(py, record)?)?;
            }
        }
        // Records before the first game of a part belong to it: the part
        // before ends at the part's start, so nothing is lost.
        Ok(Some(list))
    }
}
