//! Tables in files: Parquet, Arrow IPC files and Arrow IPC streams.

use crate::error::Error;
use crate::schema::Column;
use arrow_array::RecordBatch;
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_ipc::writer::{FileWriter, StreamWriter};
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

/// The size of a data page of the `pgc` column in Parquet.
const PGC_PAGE_BYTES: usize = 8 << 20;
use parquet::schema::types::ColumnPath;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// A file format for tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// Apache Parquet (`.parquet`, `.pq`).
    Parquet,
    /// An Arrow IPC file (`.arrow`, `.feather`).
    ArrowFile,
    /// An Arrow IPC stream (`.arrows`).
    ArrowStream,
}

impl FileFormat {
    /// The format a file name's extension names, if any.
    pub fn from_path(path: &Path) -> Option<FileFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" | "pq" => Some(FileFormat::Parquet),
            "arrow" | "feather" => Some(FileFormat::ArrowFile),
            "arrows" => Some(FileFormat::ArrowStream),
            _ => None,
        }
    }

    /// The format of a file's first bytes (`PAR1`, `ARROW1`, or an IPC
    /// stream's first message: the continuation marker `ff ff ff ff` and a
    /// metadata length above zero, a multiple of 8), if it is one.
    pub fn sniff(head: &[u8]) -> Option<FileFormat> {
        if head.starts_with(b"PAR1") {
            Some(FileFormat::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(FileFormat::ArrowFile)
        } else if let [0xff, 0xff, 0xff, 0xff, a, b, c, d, ..] = *head
            && let len = i32::from_le_bytes([a, b, c, d])
            && len > 0
            && len % 8 == 0
        {
            Some(FileFormat::ArrowStream)
        } else {
            None
        }
    }
}

/// How a table is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Rows per Parquet row group.
    pub row_group_size: usize,
    /// Parquet compression: the zstd level, or `None` for none.
    pub zstd_level: Option<i32>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            row_group_size: 64 * 1024,
            zstd_level: Some(3),
        }
    }
}

/// Writes record batches to a Parquet file, an Arrow IPC file or an Arrow
/// IPC stream. The rows are the same however the batches are cut: Parquet
/// row groups hold [`WriteOptions::row_group_size`] rows each.
pub enum TableWriter<W: Write + Send> {
    /// Parquet.
    Parquet(ArrowWriter<W>),
    /// Arrow IPC file.
    ArrowFile(FileWriter<W>),
    /// Arrow IPC stream.
    ArrowStream(StreamWriter<W>),
}

impl<W: Write + Send> TableWriter<W> {
    /// A writer of tables with `schema` in `format` to `out`.
    ///
    /// # Errors
    /// [`Error::Parquet`] / [`Error::Arrow`] (an invalid zstd level, I/O).
    pub fn new(
        out: W,
        format: FileFormat,
        schema: SchemaRef,
        opts: WriteOptions,
    ) -> Result<TableWriter<W>, Error> {
        Ok(match format {
            FileFormat::Parquet => {
                let compression = match opts.zstd_level {
                    Some(l) => Compression::ZSTD(ZstdLevel::try_new(l)?),
                    None => Compression::UNCOMPRESSED,
                };
                let pgc = || ColumnPath::from(Column::Pgc.name());
                let list = |c: Column| {
                    ColumnPath::new(vec![c.name().into(), "list".into(), "item".into()])
                };
                let props = WriterProperties::builder()
                    .set_compression(compression)
                    .set_max_row_group_row_count(Some(opts.row_group_size.max(1)))
                    // Statistics per column chunk (a row group's minimum
                    // and maximum, for readers that skip row groups), not
                    // per page: page indexes took 0.5 KB a row group.
                    .set_statistics_enabled(EnabledStatistics::Chunk)
                    // Clocks repeat little: under zstd their plain values
                    // take 15 % less than a dictionary's indexes.
                    .set_column_dictionary_enabled(list(Column::Clocks), false)
                    // Every game's records differ: a dictionary of them is
                    // time spent hashing and a page thrown away, and their
                    // statistics say nothing.
                    .set_column_dictionary_enabled(pgc(), false)
                    .set_column_statistics_enabled(pgc(), EnabledStatistics::None)
                    // The records' lengths apart and their bytes one run, in
                    // pages of 8 MiB: zstd then sees the records much as it
                    // sees a PGC file (at level 19 the column is 1.04 × the
                    // .pgc.zst, against 1.09 × in 1 MiB pages of
                    // length-prefixed records).
                    .set_column_encoding(pgc(), Encoding::DELTA_LENGTH_BYTE_ARRAY)
                    .set_column_data_page_size_limit(pgc(), PGC_PAGE_BYTES)
                    .set_column_data_page_row_count_limit(pgc(), usize::MAX)
                    .build();
                // The Parquet schema says every type of the table (no
                // Arrow-only type is used): the Arrow schema, 2.3 KB in the
                // footer, would repeat it.
                let options = ArrowWriterOptions::new()
                    .with_properties(props)
                    .with_skip_arrow_metadata(true);
                TableWriter::Parquet(ArrowWriter::try_new_with_options(out, schema, options)?)
            }
            FileFormat::ArrowFile => TableWriter::ArrowFile(FileWriter::try_new(out, &schema)?),
            FileFormat::ArrowStream => {
                TableWriter::ArrowStream(StreamWriter::try_new(out, &schema)?)
            }
        })
    }

    /// Writes a batch.
    ///
    /// # Errors
    /// [`Error::Parquet`] / [`Error::Arrow`] (I/O, a batch of another schema).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        match self {
            TableWriter::Parquet(w) => w.write(batch)?,
            TableWriter::ArrowFile(w) => w.write(batch)?,
            TableWriter::ArrowStream(w) => w.write(batch)?,
        }
        Ok(())
    }

    /// Writes the footer and returns the output.
    ///
    /// # Errors
    /// [`Error::Parquet`] / [`Error::Arrow`] (I/O).
    pub fn finish(self) -> Result<W, Error> {
        Ok(match self {
            TableWriter::Parquet(w) => w.into_inner()?,
            TableWriter::ArrowFile(mut w) => {
                w.finish()?;
                w.into_inner()?
            }
            TableWriter::ArrowStream(mut w) => {
                w.finish()?;
                w.into_inner()?
            }
        })
    }
}

/// Reads the record batches of a Parquet file, an Arrow IPC file or an
/// Arrow IPC stream (told apart by their first bytes).
pub enum TableReader {
    /// Parquet.
    Parquet(ParquetRecordBatchReader),
    /// Arrow IPC file.
    ArrowFile(FileReader<BufReader<File>>),
    /// Arrow IPC stream: from a file, or from any reader
    /// ([`TableReader::stream`]).
    ArrowStream(StreamReader<BufReader<Box<dyn Read + Send>>>),
}

impl TableReader {
    /// Opens `file`. From Parquet only the columns named in `columns` are
    /// read (all of them with `None`; a name the table does not have is
    /// left out); Arrow IPC is read whole.
    ///
    /// # Errors
    /// [`Error::NotATable`] when the file is none of the three formats;
    /// [`Error::Parquet`] / [`Error::Arrow`] for a damaged one; I/O.
    pub fn open(mut file: File, columns: Option<&[&str]>) -> Result<TableReader, Error> {
        let mut head = [0u8; 8];
        let n = read_head(&mut file, &mut head)?;
        file.seek(SeekFrom::Start(0)).map_err(Error::Io)?;
        let format = FileFormat::sniff(&head[..n]).ok_or(Error::NotATable)?;
        let projection = |names: &[String]| -> Option<Vec<usize>> {
            columns.map(|want| {
                names
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| want.contains(&n.as_str()))
                    .map(|(i, _)| i)
                    .collect()
            })
        };
        Ok(match format {
            FileFormat::Parquet => {
                let b = ParquetRecordBatchReaderBuilder::try_new(file)?;
                let names: Vec<String> = b
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
                let b = match projection(&names) {
                    Some(p) => {
                        let mask = ProjectionMask::roots(b.parquet_schema(), p);
                        b.with_projection(mask)
                    }
                    None => b,
                };
                TableReader::Parquet(b.with_batch_size(8192).build()?)
            }
            // The IPC formats are read whole (their batches are not
            // compressed, a column not used costs little).
            FileFormat::ArrowFile => {
                TableReader::ArrowFile(FileReader::try_new(BufReader::new(file), None)?)
            }
            FileFormat::ArrowStream => TableReader::stream(file)?,
        })
    }

    /// Reads an Arrow IPC stream from `reader` (stdin, a pipe): the one
    /// table format read without seeking. The stream is read whole.
    ///
    /// # Errors
    /// [`Error::Arrow`] for data that is no Arrow IPC stream, or a damaged
    /// one; I/O.
    pub fn stream(reader: impl Read + Send + 'static) -> Result<TableReader, Error> {
        let boxed: Box<dyn Read + Send> = Box::new(reader);
        Ok(TableReader::ArrowStream(StreamReader::try_new(
            BufReader::new(boxed),
            None,
        )?))
    }

    /// The schema of the batches read.
    pub fn schema(&self) -> SchemaRef {
        use arrow_array::RecordBatchReader;
        match self {
            TableReader::Parquet(r) => r.schema(),
            TableReader::ArrowFile(r) => r.schema(),
            TableReader::ArrowStream(r) => r.schema(),
        }
    }

    /// The next batch, or `None` at the end.
    ///
    /// # Errors
    /// [`Error::Arrow`] for damaged data or I/O.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let next = match self {
            TableReader::Parquet(r) => r.next(),
            TableReader::ArrowFile(r) => r.next(),
            TableReader::ArrowStream(r) => r.next(),
        };
        Ok(next.transpose()?)
    }
}

/// Reads up to `head.len()` bytes (fewer at the end of the file).
fn read_head(file: &mut File, head: &mut [u8]) -> Result<usize, Error> {
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Io(e)),
        }
    }
    Ok(n)
}
