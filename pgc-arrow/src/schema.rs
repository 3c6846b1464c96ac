//! The columns of a games table: names, types, and which ones a table has.

use crate::error::Error;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use std::sync::Arc;

/// A column of a games table. The names are a contract: they do not change
/// from release to release (tag columns are named as in the Lichess Parquet
/// dataset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// `Event` tag (utf8).
    Event,
    /// `Site` tag (utf8).
    Site,
    /// `White` tag (utf8).
    White,
    /// `Black` tag (utf8).
    Black,
    /// `Result` tag (utf8).
    Result,
    /// `WhiteTitle` tag (utf8).
    WhiteTitle,
    /// `BlackTitle` tag (utf8).
    BlackTitle,
    /// `WhiteElo` tag (int16).
    WhiteElo,
    /// `BlackElo` tag (int16).
    BlackElo,
    /// `WhiteRatingDiff` tag (int16).
    WhiteRatingDiff,
    /// `BlackRatingDiff` tag (int16).
    BlackRatingDiff,
    /// `UTCDate` tag (date32).
    UtcDate,
    /// `UTCTime` tag (time64, microseconds).
    UtcTime,
    /// `Date` tag (utf8: `????.??.??` is not a date).
    Date,
    /// `ECO` tag (utf8).
    Eco,
    /// `Opening` tag (utf8).
    Opening,
    /// `Termination` tag (utf8).
    Termination,
    /// `TimeControl` tag (utf8).
    TimeControl,
    /// The base time of a `TimeControl` of the form `B` or `B+I` (int32).
    BaseSeconds,
    /// The increment of a `TimeControl` of the form `B+I` (int32).
    IncrementSeconds,
    /// `Variant` tag (utf8).
    Variant,
    /// `FEN` tag (utf8).
    Fen,
    /// Every other tag, in input order (`map<utf8, utf8>`).
    OtherTags,
    /// Main-line plies, null moves included (int32).
    Plies,
    /// Main-line move ordinals (`list<uint8>`, null for a null move and for
    /// the ordinal of a wide move, 256 or more, in a Crazyhouse position
    /// with more than 256 legal moves).
    Ordinals,
    /// Main-line moves in UCI (`list<utf8>`), only when asked.
    Uci,
    /// Main-line moves in SAN (`list<utf8>`), only when asked.
    San,
    /// The `[%clk]` of each main-line ply in centiseconds (`list<int32>`;
    /// null for a game without any).
    Clocks,
    /// The `[%eval]` of each main-line ply in centipawns (`list<int32>`;
    /// null for a game without any eval).
    Evals,
    /// The mate `[%eval]` (`#3`, `#-2`) of each main-line ply (`list<int32>`;
    /// null for a game without any eval).
    Mates,
    /// The evaluation of each main-line ply's engine note, in centipawns as
    /// the engine wrote it (`list<int32>`; null for a game without notes;
    /// only when asked, as the other `engine_` columns).
    EngineEvals,
    /// The mate score of each main-line ply's engine note (`list<int32>`).
    EngineMates,
    /// The search depth of each main-line ply's engine note (`list<int32>`).
    EngineDepths,
    /// The time of each main-line ply's engine note, in milliseconds
    /// (`list<int64>`).
    EngineTimes,
    /// The nodes of each main-line ply's engine note (`list<int64>`).
    EngineNodes,
    /// The principal variation of each main-line ply's engine note, in UCI
    /// (`list<list<utf8>>`).
    EnginePvs,
    /// The game's PGC records (binary).
    Pgc,
}

impl Column {
    /// Whether the column's values come from the moves (replayed from the
    /// ordinals) or their comments, rather than from the tags, the number
    /// of plies or the records' bytes.
    pub const fn reads_moves(self) -> bool {
        matches!(
            self,
            Column::Ordinals
                | Column::Uci
                | Column::San
                | Column::Clocks
                | Column::Evals
                | Column::Mates
                | Column::EngineEvals
                | Column::EngineMates
                | Column::EngineDepths
                | Column::EngineTimes
                | Column::EngineNodes
                | Column::EnginePvs
        )
    }

    /// The columns of engine notes (`spec/extensions-engine.md`).
    pub const ENGINE: [Column; 6] = [
        Column::EngineEvals,
        Column::EngineMates,
        Column::EngineDepths,
        Column::EngineTimes,
        Column::EngineNodes,
        Column::EnginePvs,
    ];
}

/// Columns holding one tag each, in schema order, with the tag's name.
pub(crate) const TAG_COLUMNS: [Column; 20] = [
    Column::Event,
    Column::Site,
    Column::White,
    Column::Black,
    Column::Result,
    Column::WhiteTitle,
    Column::BlackTitle,
    Column::WhiteElo,
    Column::BlackElo,
    Column::WhiteRatingDiff,
    Column::BlackRatingDiff,
    Column::UtcDate,
    Column::UtcTime,
    Column::Date,
    Column::Eco,
    Column::Opening,
    Column::Termination,
    Column::TimeControl,
    Column::Variant,
    Column::Fen,
];

/// The tag names of [`TAG_COLUMNS`], in the same order.
pub(crate) const TAG_NAMES: [&[u8]; 20] = {
    let mut names: [&[u8]; 20] = [b""; 20];
    let mut i = 0;
    while i < TAG_COLUMNS.len() {
        names[i] = TAG_COLUMNS[i].name().as_bytes();
        i += 1;
    }
    names
};

impl Column {
    /// Every column, in schema order.
    pub const ALL: [Column; 37] = [
        Column::Event,
        Column::Site,
        Column::White,
        Column::Black,
        Column::Result,
        Column::WhiteTitle,
        Column::BlackTitle,
        Column::WhiteElo,
        Column::BlackElo,
        Column::WhiteRatingDiff,
        Column::BlackRatingDiff,
        Column::UtcDate,
        Column::UtcTime,
        Column::Date,
        Column::Eco,
        Column::Opening,
        Column::Termination,
        Column::TimeControl,
        Column::BaseSeconds,
        Column::IncrementSeconds,
        Column::Variant,
        Column::Fen,
        Column::OtherTags,
        Column::Plies,
        Column::Ordinals,
        Column::Uci,
        Column::San,
        Column::Clocks,
        Column::Evals,
        Column::Mates,
        Column::EngineEvals,
        Column::EngineMates,
        Column::EngineDepths,
        Column::EngineTimes,
        Column::EngineNodes,
        Column::EnginePvs,
        Column::Pgc,
    ];

    /// The column's name in a table.
    pub const fn name(self) -> &'static str {
        match self {
            Column::Event => "Event",
            Column::Site => "Site",
            Column::White => "White",
            Column::Black => "Black",
            Column::Result => "Result",
            Column::WhiteTitle => "WhiteTitle",
            Column::BlackTitle => "BlackTitle",
            Column::WhiteElo => "WhiteElo",
            Column::BlackElo => "BlackElo",
            Column::WhiteRatingDiff => "WhiteRatingDiff",
            Column::BlackRatingDiff => "BlackRatingDiff",
            Column::UtcDate => "UTCDate",
            Column::UtcTime => "UTCTime",
            Column::Date => "Date",
            Column::Eco => "ECO",
            Column::Opening => "Opening",
            Column::Termination => "Termination",
            Column::TimeControl => "TimeControl",
            Column::BaseSeconds => "base_seconds",
            Column::IncrementSeconds => "increment_seconds",
            Column::Variant => "Variant",
            Column::Fen => "FEN",
            Column::OtherTags => "other_tags",
            Column::Plies => "plies",
            Column::Ordinals => "ordinals",
            Column::Uci => "uci",
            Column::San => "san",
            Column::Clocks => "clocks",
            Column::Evals => "evals",
            Column::Mates => "mates",
            Column::EngineEvals => "engine_evals",
            Column::EngineMates => "engine_mates",
            Column::EngineDepths => "engine_depths",
            Column::EngineTimes => "engine_times",
            Column::EngineNodes => "engine_nodes",
            Column::EnginePvs => "engine_pvs",
            Column::Pgc => "pgc",
        }
    }

    /// The column called `name`.
    pub fn from_name(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The column's Arrow type.
    pub fn data_type(self) -> DataType {
        let list = |item: DataType| DataType::List(Arc::new(Field::new("item", item, true)));
        match self {
            Column::WhiteElo
            | Column::BlackElo
            | Column::WhiteRatingDiff
            | Column::BlackRatingDiff => DataType::Int16,
            Column::UtcDate => DataType::Date32,
            Column::UtcTime => DataType::Time64(TimeUnit::Microsecond),
            Column::BaseSeconds | Column::IncrementSeconds | Column::Plies => DataType::Int32,
            Column::OtherTags => {
                let entries = Fields::from(vec![
                    Field::new("key", DataType::Utf8, false),
                    Field::new("value", DataType::Utf8, true),
                ]);
                DataType::Map(
                    Arc::new(Field::new("entries", DataType::Struct(entries), false)),
                    false,
                )
            }
            Column::Ordinals => list(DataType::UInt8),
            Column::Uci | Column::San => list(DataType::Utf8),
            Column::Clocks
            | Column::Evals
            | Column::Mates
            | Column::EngineEvals
            | Column::EngineMates
            | Column::EngineDepths => list(DataType::Int32),
            Column::EngineTimes | Column::EngineNodes => list(DataType::Int64),
            Column::EnginePvs => list(list(DataType::Utf8)),
            Column::Pgc => DataType::Binary,
            _ => DataType::Utf8,
        }
    }

    /// Whether the column can hold nulls.
    pub const fn nullable(self) -> bool {
        !matches!(
            self,
            Column::OtherTags
                | Column::Plies
                | Column::Ordinals
                | Column::Uci
                | Column::San
                | Column::Pgc
        )
    }

    /// The column's field in a schema.
    pub fn field(self) -> Field {
        Field::new(self.name(), self.data_type(), self.nullable())
    }
}

/// What a games table holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportOptions {
    /// The columns, in schema order (see [`ExportOptions::with_columns`]).
    columns: Vec<Column>,
    /// Limits for reading the PGC.
    pub limits: pgc_core::Limits,
}

impl Default for ExportOptions {
    /// Every column but `uci`, `san` and the `engine_` columns.
    fn default() -> Self {
        ExportOptions::new(false, false)
    }
}

impl ExportOptions {
    /// The default columns, plus `uci` and/or `san` when asked.
    pub fn new(uci: bool, san: bool) -> ExportOptions {
        ExportOptions {
            columns: Column::ALL
                .into_iter()
                .filter(|c| match c {
                    Column::Uci => uci,
                    Column::San => san,
                    c => !Column::ENGINE.contains(c),
                })
                .collect(),
            limits: pgc_core::Limits::DEFAULT,
        }
    }

    /// These columns plus the `engine_` columns ([`Column::ENGINE`]).
    pub fn with_engine(mut self) -> ExportOptions {
        self.columns = Column::ALL
            .into_iter()
            .filter(|c| self.columns.contains(c) || Column::ENGINE.contains(c))
            .collect();
        self
    }

    /// Only the columns named (any order, each at most once; the table
    /// keeps schema order), plus `uci` and/or `san` when asked.
    ///
    /// # Errors
    /// [`Error::UnknownColumn`] for a name that is no column.
    pub fn with_columns<S: AsRef<str>>(
        names: &[S],
        uci: bool,
        san: bool,
    ) -> Result<ExportOptions, Error> {
        let mut wanted = Vec::new();
        for n in names {
            let n = n.as_ref().trim();
            let c = Column::from_name(n).ok_or_else(|| Error::UnknownColumn {
                name: n.to_string(),
                expected: Column::ALL.map(Column::name).join(", "),
            })?;
            wanted.push(c);
        }
        if uci {
            wanted.push(Column::Uci);
        }
        if san {
            wanted.push(Column::San);
        }
        Ok(ExportOptions {
            columns: Column::ALL
                .into_iter()
                .filter(|c| wanted.contains(c))
                .collect(),
            limits: pgc_core::Limits::DEFAULT,
        })
    }

    /// The columns, in schema order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Whether the table has `column`.
    pub fn has(&self, column: Column) -> bool {
        self.columns.contains(&column)
    }

    /// The table's schema.
    pub fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(
            self.columns.iter().map(|c| c.field()).collect::<Vec<_>>(),
        ))
    }
}
