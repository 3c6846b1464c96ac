//! Tables in the Lichess dataset's layout (one row per game, one column per
//! tag, the movetext in a `movetext` string column) back to PGN text.

use crate::error::Error;
use crate::file::TableReader;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Int8Type, Int16Type, Int32Type, Int64Type, Time32MillisecondType, Time32SecondType,
    Time64MicrosecondType, Time64NanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use std::fmt::Write as _;
use std::io::Read;

/// The column holding the movetext.
pub const MOVETEXT: &str = "movetext";

/// Appends the PGN text of every row of `batch` to `out`: a tag pair for
/// each column but `movetext` whose value is not null, in column order, then
/// the movetext, followed by the `Result` tag's value when the movetext does
/// not end with a game result.
///
/// Strings are written as they are (quotes and backslashes escaped),
/// integers as numbers (a `…RatingDiff` above zero with a `+`), dates as
/// `YYYY.MM.DD`, times as `HH:MM:SS`.
///
/// # Errors
/// [`Error::NoMovetext`]; [`Error::TagType`] for a column of another type.
pub fn append_pgn(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<(), Error> {
    let schema = batch.schema();
    let Ok(mt) = schema.index_of(MOVETEXT) else {
        return Err(Error::NoMovetext);
    };
    let result_col = schema.index_of("Result").ok();
    for f in schema.fields() {
        if f.name() != MOVETEXT && !tag_type(f.data_type()) {
            return Err(Error::TagType {
                column: f.name().clone(),
                found: f.data_type().to_string(),
            });
        }
    }
    if !matches!(
        schema.field(mt).data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Err(Error::TagType {
            column: MOVETEXT.into(),
            found: schema.field(mt).data_type().to_string(),
        });
    }
    let mut value = String::new();
    for row in 0..batch.num_rows() {
        for (i, f) in schema.fields().iter().enumerate() {
            if i == mt {
                continue;
            }
            value.clear();
            if !cell(
                batch.column(i),
                row,
                f.name().ends_with("RatingDiff"),
                &mut value,
            ) {
                continue;
            }
            out.push(b'[');
            out.extend_from_slice(f.name().as_bytes());
            out.extend_from_slice(b" \"");
            for b in value.bytes() {
                if b == b'"' || b == b'\\' {
                    out.push(b'\\');
                }
                out.push(b);
            }
            out.extend_from_slice(b"\"]\n");
        }
        out.push(b'\n');
        value.clear();
        cell(batch.column(mt), row, false, &mut value);
        let movetext = value.trim_end();
        out.extend_from_slice(movetext.as_bytes());
        if !ends_with_result(movetext) {
            let mut result = String::new();
            let known = result_col.is_some_and(|c| cell(batch.column(c), row, false, &mut result));
            if !movetext.is_empty() {
                out.push(b' ');
            }
            out.extend_from_slice(if known { result.as_bytes() } else { b"*" });
        }
        out.extend_from_slice(b"\n\n");
    }
    Ok(())
}

fn ends_with_result(movetext: &str) -> bool {
    ["1-0", "0-1", "1/2-1/2", "*"].iter().any(|r| {
        movetext
            .strip_suffix(r)
            .is_some_and(|before| before.is_empty() || before.ends_with(char::is_whitespace))
    })
}

/// Whether a column of this type can be a tag.
fn tag_type(t: &DataType) -> bool {
    use DataType as D;
    matches!(
        t,
        D::Utf8
            | D::LargeUtf8
            | D::Utf8View
            | D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Date32
            | D::Time32(TimeUnit::Second | TimeUnit::Millisecond)
            | D::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond)
            | D::Null
    )
}

/// Writes the value of `row` of `col` as tag text to `out`; `false` for a
/// null.
fn cell(col: &dyn Array, row: usize, plus: bool, out: &mut String) -> bool {
    use DataType as D;
    if col.is_null(row) {
        return false;
    }
    let int = |out: &mut String, n: i128| {
        let sign = if plus && n > 0 { "+" } else { "" };
        let _ = write!(out, "{sign}{n}");
    };
    let time = |out: &mut String, secs: i64| {
        let s = secs.rem_euclid(86_400);
        let _ = write!(out, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    };
    match col.data_type() {
        D::Utf8 => out.push_str(col.as_string::<i32>().value(row)),
        D::LargeUtf8 => out.push_str(col.as_string::<i64>().value(row)),
        D::Utf8View => out.push_str(col.as_string_view().value(row)),
        D::Int8 => int(out, col.as_primitive::<Int8Type>().value(row).into()),
        D::Int16 => int(out, col.as_primitive::<Int16Type>().value(row).into()),
        D::Int32 => int(out, col.as_primitive::<Int32Type>().value(row).into()),
        D::Int64 => int(out, col.as_primitive::<Int64Type>().value(row).into()),
        D::UInt8 => int(out, col.as_primitive::<UInt8Type>().value(row).into()),
        D::UInt16 => int(out, col.as_primitive::<UInt16Type>().value(row).into()),
        D::UInt32 => int(out, col.as_primitive::<UInt32Type>().value(row).into()),
        D::UInt64 => int(out, col.as_primitive::<UInt64Type>().value(row).into()),
        D::Date32 => {
            let (y, m, d) = civil_from_days(col.as_primitive::<Date32Type>().value(row).into());
            let _ = write!(out, "{y:04}.{m:02}.{d:02}");
        }
        D::Time32(TimeUnit::Second) => time(
            out,
            col.as_primitive::<Time32SecondType>().value(row).into(),
        ),
        D::Time32(_) => time(
            out,
            (col.as_primitive::<Time32MillisecondType>().value(row) / 1000).into(),
        ),
        D::Time64(TimeUnit::Microsecond) => time(
            out,
            col.as_primitive::<Time64MicrosecondType>().value(row) / 1_000_000,
        ),
        D::Time64(_) => time(
            out,
            col.as_primitive::<Time64NanosecondType>().value(row) / 1_000_000_000,
        ),
        _ => return false,
    }
    true
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H.
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A Lichess-layout table as PGN text, over [`Read`]: the games are made
/// one record batch at a time.
pub struct PgnText {
    reader: TableReader,
    text: Vec<u8>,
    at: usize,
}

impl PgnText {
    /// PGN text of the rows `reader` reads.
    pub fn new(reader: TableReader) -> PgnText {
        PgnText {
            reader,
            text: Vec::new(),
            at: 0,
        }
    }
}

impl Read for PgnText {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.text.len() {
            self.text.clear();
            self.at = 0;
            let batch = self
                .reader
                .next_batch()
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
            let Some(batch) = batch else {
                return Ok(0);
            };
            append_pgn(&batch, &mut self.text)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        }
        let n = buf.len().min(self.text.len() - self.at);
        buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Date32Array, Int16Array, StringArray, Time64MicrosecondArray};
    use std::sync::Arc;

    #[test]
    fn rows_become_pgn_games() {
        let cols: Vec<(&str, ArrayRef)> = vec![
            (
                "Event",
                Arc::new(StringArray::from(vec![Some("Rated \"Blitz\""), None])),
            ),
            ("Result", Arc::new(StringArray::from(vec!["1-0", "*"]))),
            (
                "UTCDate",
                Arc::new(Date32Array::from(vec![Some(17315), None])),
            ),
            (
                "WhiteRatingDiff",
                Arc::new(Int16Array::from(vec![Some(7), Some(-3)])),
            ),
            (
                "UTCTime",
                Arc::new(Time64MicrosecondArray::from(vec![
                    Some(47_045_000_000),
                    None,
                ])),
            ),
            (
                "movetext",
                Arc::new(StringArray::from(vec!["1. e4 1-0", "1. d4"])),
            ),
        ];
        let batch = RecordBatch::try_from_iter(cols).unwrap();
        let mut out = Vec::new();
        append_pgn(&batch, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[Event \"Rated \\\"Blitz\\\"\"]\n[Result \"1-0\"]\n[UTCDate \"2017.05.29\"]\n\
             [WhiteRatingDiff \"+7\"]\n[UTCTime \"13:04:05\"]\n\n1. e4 1-0\n\n\
             [Result \"*\"]\n[WhiteRatingDiff \"-3\"]\n\n1. d4 *\n\n"
        );
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11016), (2000, 2, 29));
    }
}
