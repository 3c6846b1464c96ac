//! `pgc index`: writes the sidecar `FILE.idx` (`spec/index.md`) that
//! `--games` seeks with (see [`crate::batch`]): the game offsets of an
//! uncompressed PGC file, or the first game of every frame of a seekable
//! `.pgc.zst` ([`crate::io::frame_index`]).

use crate::args::IndexArgs;
use crate::batch::index_path;
use crate::error::{Error, Result, Status};
use crate::io::frame_index::FrameIndex;
use crate::io::{Input, Output};
use crate::progress::{Progress, say};
use pgc_core::GameIndex;
use std::io::{Read, Write};

/// Runs `pgc index`.
///
/// # Errors
/// Usage (stdin, a compressed or PGN input), I/O, a record that does not frame.
pub fn run(a: &IndexArgs) -> Result<Status> {
    let limits = a.limits.pgc_limits();
    let progress = Progress::new("index", a.report.quiet);
    for p in &a.inputs {
        let input = Input::new(p);
        let (Some(path), Some(mut file)) = (input.path(), input.open_file()?) else {
            return Err(Error::Usage(
                "pgc index needs a file (an index of stdin would be of no use)".into(),
            ));
        };
        if let Some((mut file, table)) = input.seek_table()? {
            input.open_pgc()?;
            let idx = FrameIndex::build(&mut file, &table, limits, pgc_core::worker_threads(None))
                .map_err(|e| data_error(&input, &e))?;
            write_index(path, &input, &idx.to_bytes())?;
            if progress.verbose() {
                say(&format!(
                    "{}: {} games in {} frames indexed in {}",
                    input.name,
                    idx.games,
                    idx.frames.len(),
                    index_path(path).display()
                ));
            }
            continue;
        }
        let mut head = Vec::with_capacity(16);
        (&mut file)
            .take(16)
            .read_to_end(&mut head)
            .map_err(|e| Error::io(&input.name, &e))?;
        if pgn_bridge::sniff::compression(&head).is_some() {
            return Err(Error::Usage(format!(
                "{}: is compressed as one stream, which cannot be seeked in; an index needs an \
                 uncompressed PGC file or a seekable .pgc.zst (as `pgc encode -o FILE.pgc.zst` \
                 writes): decompress it first",
                input.name
            )));
        }
        input.open_pgc()?;
        let idx = GameIndex::build(&mut file, limits).map_err(|e| data_error(&input, &e))?;
        write_index(path, &input, &idx.to_bytes())?;
        let idx_path = index_path(path);
        if progress.verbose() {
            say(&format!(
                "{}: {} games indexed in {}",
                input.name,
                idx.offsets.len(),
                idx_path.display()
            ));
        }
    }
    Ok(Status::Ok)
}

/// An error building an index: bad data or I/O.
fn data_error(input: &Input, e: &std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        Error::Data(format!(
            "{}: {e}; run `pgc verify {}` for every problem",
            input.name, input.name
        ))
    } else {
        Error::io(&input.name, e)
    }
}

/// Writes `bytes` as the index of the file at `path`, atomically.
fn write_index(path: &std::path::Path, input: &Input, bytes: &[u8]) -> Result<()> {
    let idx_path = index_path(path);
    let out = Output::create(Some(&idx_path), true, std::slice::from_ref(input))?;
    let mut sink = out.sink()?;
    sink.write_all(bytes)
        .map_err(|e| Error::io(out.name(), &e))?;
    sink.finish()?;
    out.commit()
}
