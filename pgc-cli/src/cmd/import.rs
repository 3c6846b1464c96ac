//! `pgc import`: tables made by `pgc export` → PGC, their `pgc` column.

use crate::args::ImportArgs;
use crate::error::{Error, Result, Status};
use crate::io::{Input, Output, refuse_binary_terminal};
use crate::progress::{Progress, human_bytes};
use crate::table::{open_table, open_table_stream, table_error};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Runs `pgc import`.
///
/// # Errors
/// Usage (an input that is no table, or has no `pgc` column), I/O, a
/// damaged table.
pub fn run(a: &ImportArgs) -> Result<Status> {
    let inputs = Input::list(&a.inputs);
    let output = Output::create(a.output.output.as_deref(), a.output.force, &inputs)?;
    refuse_binary_terminal(&output)?;
    let mut sink = output.sink()?;
    let mut progress = Progress::new("import", a.report.quiet);
    let (mut games, mut bytes_in) = (0u64, 0u64);
    let mut pgc = Vec::new();
    for input in &inputs {
        // Stdin and pipes are read as they come (an Arrow IPC stream);
        // files by seeking, any of the three formats.
        let pipe = input
            .path()
            .is_none_or(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir()));
        let streamed = Arc::new(AtomicU64::new(0));
        let mut table = if pipe {
            open_table_stream(input, streamed.clone())?
        } else {
            let Some(table) = open_table(input, Some(&["pgc"]))? else {
                return Err(Error::Usage(format!(
                    "{}: not a Parquet or Arrow IPC file; `pgc import` reads tables made by \
                     `pgc export`",
                    input.name
                )));
            };
            if let Some(p) = input.path() {
                bytes_in += std::fs::metadata(p).map_or(0, |m| m.len());
            }
            table
        };
        while let Some(batch) = table
            .next_batch()
            .map_err(|e| table_error(&input.name, &e))?
        {
            pgc.clear();
            // Rows are counted from 1 over the whole table.
            let row = |r: usize| games + r as u64 + 1;
            pgc_arrow::append_pgc(&batch, &mut pgc).map_err(|e| match e {
                pgc_arrow::Error::NoPgcColumn => Error::Usage(format!("{}: {e}", input.name)),
                pgc_arrow::Error::BadPgc { row: r, message } => Error::Data(format!(
                    "{}: row {} of the table: its `pgc` is not PGC records ({message})",
                    input.name,
                    row(r)
                )),
                pgc_arrow::Error::NullPgc { row: r } => Error::Data(format!(
                    "{}: row {} of the table has a null `pgc` (expected the game's PGC records)",
                    input.name,
                    row(r)
                )),
                e => Error::Data(format!("{}: {e}", input.name)),
            })?;
            sink.put(&pgc)?;
            games += batch.num_rows() as u64;
            progress.tick(sink.written(), games);
        }
        bytes_in += streamed.load(Ordering::Relaxed);
    }
    let bytes_out = sink.written();
    sink.finish()?;
    output.commit()?;
    progress.summary(&format!(
        "{games} games, {} in, {} out, {:.2} s",
        human_bytes(bytes_in),
        human_bytes(bytes_out),
        progress.elapsed().as_secs_f64()
    ));
    Ok(Status::Ok)
}
