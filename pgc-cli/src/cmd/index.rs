//! `pgc index`: writes the game-offset sidecar `FILE.idx`
//! (`spec/index.md`), which `--games` seeks with (see [`crate::batch`]).

use crate::args::IndexArgs;
use crate::batch::index_path;
use crate::error::{Error, Result, Status};
use crate::io::{Input, Output};
use crate::progress::{Progress, say};
use pgc_core::GameIndex;
use std::fs::File;
use std::io::{Read, Write};

/// Whether a file starts with the magic bytes of zstd, gzip or bzip2.
fn compressed(head: &[u8]) -> bool {
    matches!(
        head,
        [0x28, 0xb5, 0x2f, 0xfd, ..] | [0x1f, 0x8b, ..] | [b'B', b'Z', b'h', ..]
    )
}

/// Runs `pgc index`.
///
/// # Errors
/// Usage (stdin, a compressed or PGN input), I/O, a record that does not frame.
pub fn run(a: &IndexArgs) -> Result<Status> {
    let limits = a.limits.pgc_limits();
    let progress = Progress::new("index", a.report.quiet);
    for p in &a.inputs {
        let input = Input::new(p);
        let Some(path) = input.path() else {
            return Err(Error::Usage(
                "pgc index needs a file (an index of stdin would be of no use)".into(),
            ));
        };
        let mut file = File::open(path)
            .map_err(|e| Error::Io(format!("{}: cannot open: {e}; check the path", input.name)))?;
        let mut head = [0u8; 4];
        let n = file
            .read(&mut head)
            .map_err(|e| Error::io(&input.name, &e))?;
        if compressed(&head[..n]) {
            return Err(Error::Usage(format!(
                "{}: is compressed; an index needs an uncompressed PGC file to seek in (decompress it first)",
                input.name
            )));
        }
        input.open_pgc()?;
        let idx = GameIndex::build(&mut file, limits).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                Error::Data(format!(
                    "{}: {e}; run `pgc verify {}` for every problem",
                    input.name, input.name
                ))
            } else {
                Error::io(&input.name, &e)
            }
        })?;
        let idx_path = index_path(path);
        let out = Output::create(Some(&idx_path), true, std::slice::from_ref(&input))?;
        let mut sink = out.sink()?;
        sink.write_all(&idx.to_bytes())
            .map_err(|e| Error::io(out.name(), &e))?;
        sink.finish()?;
        out.commit()?;
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
