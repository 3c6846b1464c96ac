//! Tables of games on the command line (`pgc export`, `pgc import`, and
//! Parquet into `pgc encode`): the output format, a writer whose bytes go to
//! a [`Sink`], and table files opened as tables or as PGN text.

use crate::args::TableFormat;
use crate::error::{Error, Result};
use crate::io::{Format, Input, Opened, Sink};
use pgc_arrow::lichess::PgnText;
use pgc_arrow::{FileFormat, TableReader};
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The format of `pgc export`'s output: `--format`, else the output's
/// extension, else Parquet on stdout.
///
/// # Errors
/// A usage error for a file name with another extension.
pub fn output_format(path: Option<&Path>, format: Option<TableFormat>) -> Result<FileFormat> {
    if let Some(f) = format {
        return Ok(match f {
            TableFormat::Parquet => FileFormat::Parquet,
            TableFormat::Arrow => FileFormat::ArrowFile,
            TableFormat::Arrows => FileFormat::ArrowStream,
        });
    }
    match path.filter(|p| !crate::io::is_stdout(Some(p))) {
        None => Ok(FileFormat::Parquet),
        Some(p) => FileFormat::from_path(p).ok_or_else(|| {
            Error::Usage(format!(
                "{}: name the output .parquet, .arrow or .arrows, or give --format",
                p.display()
            ))
        }),
    }
}

/// Bytes a table writer has written and the sink has not taken yet. The
/// table writers need an output they can move between threads; this one
/// is, and [`Spool::drain`] hands the bytes on after each write.
#[derive(Clone, Default)]
pub struct Spool(Arc<Mutex<Vec<u8>>>);

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut v = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("table output buffer poisoned"))?;
        v.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Spool {
    /// Moves the bytes written so far to `sink`.
    ///
    /// # Errors
    /// Writing to the sink failed.
    pub fn drain(&self, sink: &mut Sink) -> Result<()> {
        let mut v = self
            .0
            .lock()
            .map_err(|_| Error::Io("table output buffer poisoned".into()))?;
        sink.put(&v)?;
        v.clear();
        Ok(())
    }
}

/// A table error about `name`: data (a damaged file) or I/O.
pub fn table_error(name: &str, e: &pgc_arrow::Error) -> Error {
    match e {
        pgc_arrow::Error::Io(io) => Error::io(name, io),
        pgc_arrow::Error::NotATable => Error::Usage(format!("{name}: {e}")),
        _ => Error::Data(format!("{name}: {e}")),
    }
}

/// Opens `input` as a table when it is a Parquet or Arrow IPC file
/// (judged by its first bytes); `None` for other files, for pipes and
/// for stdin.
///
/// # Errors
/// The file cannot be opened, or is a damaged table.
pub fn open_table(input: &Input, columns: Option<&[&str]>) -> Result<Option<TableReader>> {
    // Only a regular file can be a table (its footer is read by seeking);
    // reading the head of a pipe would take it from the stream. A
    // directory or a missing file is reported by `open_file`.
    let pipe = |p: &Path| std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if input.path().is_some_and(pipe) {
        return Ok(None);
    }
    let Some(mut file) = input.open_file()? else {
        return Ok(None);
    };
    let mut head = Vec::with_capacity(8);
    (&mut file)
        .take(8)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(&input.name, &e))?;
    if FileFormat::sniff(&head).is_none() {
        return Ok(None);
    }
    file.rewind().map_err(|e| Error::io(&input.name, &e))?;
    TableReader::open(file, columns)
        .map(Some)
        .map_err(|e| table_error(&input.name, &e))
}

/// Opens `input`, which is no regular file (stdin, a pipe), as a table:
/// an Arrow IPC stream, recognised by its first bytes as a file's are, is
/// read as it comes. `read` counts the bytes read.
///
/// # Errors
/// A usage error for a Parquet or Arrow IPC file (read by seeking, which a
/// pipe cannot do) and for data that is no table; a damaged stream; I/O.
pub fn open_table_stream(
    input: &Input,
    read: Arc<std::sync::atomic::AtomicU64>,
) -> Result<TableReader> {
    let (raw, what): (Box<dyn Read + Send>, String) = match input.path() {
        None => (Box::new(std::io::stdin()), "stdin".into()),
        Some(p) => (
            Box::new(std::fs::File::open(p).map_err(|e| {
                Error::Io(format!("{}: cannot open: {e}; check the path", input.name))
            })?),
            format!("{} (a pipe)", input.name),
        ),
    };
    let mut raw = Counted { inner: raw, read };
    let mut head = Vec::with_capacity(8);
    (&mut raw)
        .take(8)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(&input.name, &e))?;
    let seeking = match FileFormat::sniff(&head) {
        Some(FileFormat::ArrowStream) => {
            let data = std::io::Cursor::new(head).chain(raw);
            return TableReader::stream(data).map_err(|e| table_error(&input.name, &e));
        }
        Some(FileFormat::Parquet) => "a Parquet file",
        Some(FileFormat::ArrowFile) => "an Arrow IPC file",
        None => {
            return Err(Error::Usage(format!(
                "{what}: not a Parquet or Arrow IPC table; `pgc import` reads tables made by \
                 `pgc export`"
            )));
        }
    };
    Err(Error::Usage(format!(
        "{what} holds {seeking}, which is read by seeking, not as a stream; give the \
         file's name, or send an Arrow IPC stream (`pgc export --format arrows`)"
    )))
}

/// A reader that counts the bytes read through it.
struct Counted {
    inner: Box<dyn Read + Send>,
    read: Arc<std::sync::atomic::AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens `input` as PGN text when it is a table in the Lichess dataset's
/// layout (tag columns and `movetext`); `None` when it is no table.
///
/// # Errors
/// As [`open_table`].
pub fn open_as_pgn(input: &Input) -> Result<Option<Opened>> {
    Ok(open_table(input, None)?.map(|t| Opened {
        reader: Box::new(PgnText::new(t)),
        format: Format::Pgn,
        damage: None,
    }))
}
