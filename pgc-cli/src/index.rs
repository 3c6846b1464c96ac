//! `pgc index` and `--games`: the game-offset sidecar `FILE.idx`
//! (`spec/index.md`) and the selection of a range of games, by seeking with
//! the index when it is present and up to date, else by scanning.

use crate::args::IndexArgs;
use crate::decode::PgcSplitter;
use crate::error::{Error, Result, Status};
use crate::io::{Input, Output};
use crate::progress::{Progress, say};
use pgc_core::Limits;
use pgc_core::bulk::{GameIndex, IndexError};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A range of games: 0-based, both ends included (`last: None` is the end
/// of the input). Written 1-based on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameRange {
    /// First game kept, 0-based.
    pub first: u64,
    /// Last game kept, 0-based, if bounded.
    pub last: Option<u64>,
}

/// Parses `--games`: `17`, `1000..2000` (1-based, both ends included),
/// `1000..`, `..2000`. `..=` is accepted for `..`.
///
/// # Errors
/// A message saying what is expected.
pub fn parse_games(s: &str) -> std::result::Result<GameRange, String> {
    let num = |t: &str| -> std::result::Result<u64, String> {
        let n: u64 = t
            .trim()
            .parse()
            .map_err(|_| format!("{t:?} is not a game number (expected 1, 2, …)"))?;
        if n == 0 {
            return Err("game numbers start at 1".into());
        }
        Ok(n - 1)
    };
    let Some((a, b)) = s.split_once("..") else {
        let n = num(s)?;
        return Ok(GameRange {
            first: n,
            last: Some(n),
        });
    };
    let b = b.strip_prefix('=').unwrap_or(b);
    let first = if a.trim().is_empty() { 0 } else { num(a)? };
    let last = if b.trim().is_empty() {
        None
    } else {
        Some(num(b)?)
    };
    if last.is_some_and(|l| l < first) {
        return Err(format!(
            "{s}: the range ends before it starts (expected FIRST..LAST with FIRST <= LAST)"
        ));
    }
    Ok(GameRange { first, last })
}

/// The sidecar path of a PGC file: its name with `.idx` appended.
pub fn index_path(pgc: &Path) -> PathBuf {
    let mut name = pgc.as_os_str().to_owned();
    name.push(".idx");
    PathBuf::from(name)
}

/// Whether a file starts with the magic bytes of zstd, gzip or bzip2.
fn compressed(head: &[u8]) -> bool {
    matches!(
        head,
        [0x28, 0xb5, 0x2f, 0xfd, ..] | [0x1f, 0x8b, ..] | [b'B', b'Z', b'h', ..]
    )
}

/// Loads and checks the index of `path`: `Ok(None)` when there is none;
/// a stale or damaged index is reported (unless `quiet`) and ignored.
fn load_index(path: &Path, file: &mut File, quiet: bool) -> Option<GameIndex> {
    let idx_path = index_path(path);
    let bytes = std::fs::read(&idx_path).ok()?;
    let checked = GameIndex::from_bytes(&bytes).and_then(|idx| idx.check(file).map(|()| idx));
    match checked {
        Ok(idx) => Some(idx),
        Err(e) => {
            if !quiet {
                let why = match e {
                    IndexError::Stale => {
                        "is stale (the PGC file changed); scanning instead; run `pgc index` again"
                            .to_string()
                    }
                    other => format!("is not usable ({other}); scanning instead"),
                };
                say(&format!("{} {why}", idx_path.display()));
            }
            None
        }
    }
}

/// Opens a PGC input as batches of whole games, keeping only `range`: with
/// an up-to-date FILE.idx the file is read from the first wanted game on;
/// otherwise the records before it are framed and dropped.
///
/// # Errors
/// I/O, or the input is PGN text.
pub fn open_batches(
    input: &Input,
    limits: Limits,
    range: Option<GameRange>,
    quiet: bool,
) -> Result<PgcSplitter<Box<dyn Read>>> {
    if let (Some(r), Some(path)) = (range, input.path()) {
        let mut file = File::open(path)
            .map_err(|e| Error::Io(format!("{}: cannot open: {e}; check the path", input.name)))?;
        if let Some(idx) = load_index(path, &mut file, quiet) {
            let Some(&offset) = idx.offsets.get(r.first as usize) else {
                // Past the last game: nothing to read.
                return Ok(PgcSplitter::resume(
                    Box::new(std::io::empty()),
                    limits,
                    0,
                    idx.offsets.len() as u64,
                ));
            };
            file.seek(SeekFrom::Start(offset))
                .map_err(|e| Error::io(&input.name, &e))?;
            let reader: Box<dyn Read> = Box::new(BufReader::with_capacity(256 << 10, file));
            return Ok(PgcSplitter::resume(reader, limits, offset, r.first).select(r.first, r.last));
        }
    }
    let splitter = PgcSplitter::new(input.open_pgc()?, limits);
    Ok(match range {
        Some(r) => splitter.select(r.first, r.last),
        None => splitter,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ranges() {
        let r = |first, last| GameRange { first, last };
        assert_eq!(parse_games("17"), Ok(r(16, Some(16))));
        assert_eq!(parse_games("1000..2000"), Ok(r(999, Some(1999))));
        assert_eq!(parse_games("1..=3"), Ok(r(0, Some(2))));
        assert_eq!(parse_games("5.."), Ok(r(4, None)));
        assert_eq!(parse_games("..5"), Ok(r(0, Some(4))));
        assert!(parse_games("0").is_err());
        assert!(parse_games("3..2").is_err());
        assert!(parse_games("x").is_err());
    }
}
