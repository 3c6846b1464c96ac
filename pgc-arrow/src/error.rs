//! The errors of making and reading games tables.

/// What went wrong making or reading a games table.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The PGC input is invalid (positioned: offset, game, ply, marker).
    #[error("{0}")]
    Walk(#[from] pgc_core::WalkError),
    /// The PGC input does not frame (while cutting it into batches).
    #[error("{0}")]
    Index(std::io::Error),
    /// Arrow refused an array or batch, or an IPC file is damaged.
    #[error("Arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// Parquet refused the data, or the file is damaged.
    #[error("Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// Reading or writing failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// A column name that is no column.
    #[error("no column is called {name:?}; the columns are: {expected}")]
    UnknownColumn {
        /// The name given.
        name: String,
        /// Every column name.
        expected: String,
    },
    /// The PGC input has records but no game to carry them in a row.
    #[error("the input has {bytes} bytes of records but no game: a table holds games only")]
    NoGame {
        /// Bytes of records.
        bytes: usize,
    },
    /// A table without the `pgc` column cannot give PGC back.
    #[error("the table has no `pgc` column (export it with the pgc column to import it)")]
    NoPgcColumn,
    /// A row of the table has no PGC.
    #[error("row {row} of the table has a null `pgc` (expected the game's PGC records)")]
    NullPgc {
        /// 0-based row in its batch.
        row: usize,
    },
    /// A row's `pgc` is not PGC records.
    #[error("row {row} of the table: its `pgc` is not PGC records ({message})")]
    BadPgc {
        /// 0-based row in its batch.
        row: usize,
        /// Where its records stop framing, and why.
        message: String,
    },
    /// The `pgc` column is not binary.
    #[error("the `pgc` column is {found}, expected binary")]
    PgcType {
        /// Its type.
        found: String,
    },
    /// A file that is neither Parquet nor Arrow IPC.
    #[error("not a Parquet or Arrow IPC file (expected PAR1 or ARROW1 at its start)")]
    NotATable,
    /// A Lichess-layout table without its `movetext` column.
    #[error(
        "the table has no `movetext` column (expected the Lichess dataset's layout: tag columns and movetext; \
         a table made by `pgc export` is turned back into PGC by `pgc import`)"
    )]
    NoMovetext,
    /// A column that cannot be a tag.
    #[error(
        "column {column:?} is {found}: expected text, an integer, a date or a time to write as a tag"
    )]
    TagType {
        /// The column.
        column: String,
        /// Its type.
        found: String,
    },
    /// A worker thread ended without a result (it panicked).
    #[error("a conversion thread ended without a result")]
    Lost,
}
