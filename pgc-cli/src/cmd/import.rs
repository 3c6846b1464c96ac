//! `pgc import`: tables made by `pgc export` → PGC, their `pgc` column.

use crate::args::ImportArgs;
use crate::error::{Error, Result, Status};
use crate::io::{Input, Output, refuse_binary_terminal};
use crate::progress::{Progress, human_bytes};
use crate::table::{open_table, table_error};

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
        if input.path().is_none() {
            return Err(Error::Usage(
                "`pgc import` reads table files (Parquet needs a file it can seek in), not stdin; \
                 give the file's name"
                    .into(),
            ));
        }
        let Some(mut table) = open_table(input, Some(&["pgc"]))? else {
            return Err(Error::Usage(format!(
                "{}: not a Parquet or Arrow IPC file; `pgc import` reads tables made by `pgc export`",
                input.name
            )));
        };
        if let Some(p) = input.path() {
            bytes_in += std::fs::metadata(p).map_or(0, |m| m.len());
        }
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
