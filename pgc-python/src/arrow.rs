//! Games tables (pgc-arrow's schema) handed to pyarrow through the Arrow C
//! data interface, without a copy: a stream of record batches
//! (`__arrow_c_stream__`) and one record batch (`__arrow_c_array__`), as
//! the Arrow PyCapsule protocol defines them.

use crate::error::arrow_error;
use crate::threads::thread_count;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, to_ffi};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchIterator, StructArray};
use arrow_schema::SchemaRef;
use pgc_arrow::{Column, ExportOptions, GamesBuilder, Joiner, convert, convert_par};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

fn options(columns: Option<Vec<String>>, uci: bool, san: bool) -> PyResult<ExportOptions> {
    match columns {
        None => Ok(ExportOptions::new(uci, san)),
        Some(names) => ExportOptions::with_columns(&names, uci, san)
            .map_err(|e| PyValueError::new_err(e.to_string())),
    }
}

/// A stream of record batches, read once by a consumer of the Arrow
/// PyCapsule protocol (`pyarrow.RecordBatchReader.from_stream`).
#[pyclass(module = "pgc._pgc")]
pub(crate) struct ArrowStream {
    schema: SchemaRef,
    batches: Option<Vec<RecordBatch>>,
}

#[pymethods]
impl ArrowStream {
    /// The stream as an `arrow_array_stream` capsule (once).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is the table's: a requested one is not cast to.
        let _ = requested_schema;
        let batches = self
            .batches
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the stream was already read"))?;
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), self.schema.clone());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// Batches in the stream (0 once read).
    fn __len__(&self) -> usize {
        self.batches.as_ref().map_or(0, Vec::len)
    }
}

/// One record batch, for `pyarrow.record_batch`.
#[pyclass(module = "pgc._pgc")]
pub(crate) struct ArrowBatch {
    batch: RecordBatch,
}

#[pymethods]
impl ArrowBatch {
    /// The batch as `(arrow_schema, arrow_array)` capsules.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).to_data();
        let (array, schema): (FFI_ArrowArray, FFI_ArrowSchema) =
            to_ffi(&data).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        PyTuple::new(py, [schema, array])
    }

    /// Rows.
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}

/// The games table of PGC bytes as a stream of record batches, made on
/// `threads` threads (0: one per core); the batches are those of `pgc
/// export` for every number of threads.
#[pyfunction]
#[pyo3(signature = (data, columns = None, uci = false, san = false, threads = 0))]
pub(crate) fn read_arrow(
    py: Python<'_>,
    data: &[u8],
    columns: Option<Vec<String>>,
    uci: bool,
    san: bool,
    threads: usize,
) -> PyResult<ArrowStream> {
    let opts = options(columns, uci, san)?;
    let threads = thread_count(threads);
    let batches = py
        .detach(|| convert_par(data, threads, &opts))
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowStream {
        schema: opts.schema(),
        batches: Some(batches),
    })
}

/// The games of PGC records (the `pgc` column of a games table,
/// concatenated) as one record batch: a row per game.
#[pyfunction]
#[pyo3(signature = (data, columns = None, uci = false, san = false))]
pub(crate) fn batch_to_arrow(
    py: Python<'_>,
    data: &[u8],
    columns: Option<Vec<String>>,
    uci: bool,
    san: bool,
) -> PyResult<ArrowBatch> {
    let opts = options(columns, uci, san)?;
    let schema = opts.schema();
    let batch = py
        .detach(|| {
            let mut builder = GamesBuilder::new(&opts);
            let converted = convert(data, 0, 0, &mut builder)?;
            // One push: the batch is held, and `finish` gives it back with
            // the records after its last game.
            let mut joiner = Joiner::default();
            joiner.push(converted)?;
            joiner.finish()
        })
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowBatch {
        batch: batch.unwrap_or_else(|| RecordBatch::new_empty(schema)),
    })
}

/// Every column name of a games table, in schema order.
#[pyfunction]
pub(crate) fn column_names() -> Vec<&'static str> {
    Column::ALL.iter().map(|c| c.name()).collect()
}
