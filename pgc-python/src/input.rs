//! Inputs as the command line reads them: compressed with zstd, gzip or
//! bzip2 or not (recognised by their magic bytes), then PGC or PGN
//! (`pgn_bridge::sniff`).

use crate::error::{bridge_error, plain_error};
use pgn_bridge::sniff::{Format, SNIFF};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::Read;

/// Data passed as bytes: `bytes` as it is, any other object with the
/// buffer protocol (`bytearray`, `memoryview`, `array.array("B")`, a
/// NumPy `uint8` array) copied into `bytes`.
pub(crate) struct Data<'py>(Bound<'py, PyBytes>);

impl Data<'_> {
    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Data<'py> {
    type Error = PyErr;

    fn extract(ob: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = ob.cast::<PyBytes>() {
            return Ok(Data(b.to_owned()));
        }
        let py = ob.py();
        // `memoryview` takes exactly the objects with the buffer protocol
        // (`bytes(5)` would make five zero bytes of an int).
        let view = py
            .import("builtins")?
            .getattr("memoryview")?
            .call1((ob,))
            .map_err(|_| {
                let kind = ob
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string());
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "expected bytes, bytearray or memoryview, not {kind}{}",
                    if kind == "str" {
                        " (pass bytes: text.encode())"
                    } else {
                        ""
                    }
                ))
            })?;
        Ok(Data(view.call_method0("tobytes")?.cast_into::<PyBytes>()?))
    }
}

/// `data` decompressed (every frame or member), or None when it is not
/// compressed (xz and zip are errors: pgc does not read them).
fn inflate(data: &[u8]) -> Result<Option<Vec<u8>>, String> {
    use pgn_bridge::sniff::Compression;
    let Some(kind) = pgn_bridge::sniff::compression(data) else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(data.len().saturating_mul(4));
    let r = match kind {
        Compression::Zstd => {
            zstd::stream::read::Decoder::new(data).and_then(|mut d| d.read_to_end(&mut out))
        }
        Compression::Gzip => flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out),
        Compression::Bzip2 => bzip2::read::MultiBzDecoder::new(data).read_to_end(&mut out),
        Compression::Xz | Compression::Zip => {
            return Err(format!("the data is {}", kind.refusal()));
        }
    };
    r.map_err(|e| {
        format!(
            "{} data damaged after decompressed byte {}: {e}",
            kind.name(),
            out.len()
        )
    })?;
    Ok(Some(out))
}

/// The PGN text of `data` for `pgc.encode`: decompressed when it is
/// compressed (as the command line's `pgc encode` reads it). PGC data is
/// an error, as for `pgc encode`.
pub(crate) fn pgn_text(data: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, String> {
    let text = match inflate(data)? {
        Some(v) => std::borrow::Cow::Owned(v),
        None => std::borrow::Cow::Borrowed(data),
    };
    // A run of NUL bytes longer than the sniffer looks at is PGN padding
    // here, as for `pgc encode`.
    if let Some(encoding) = pgn_bridge::sniff::utf16(head(&text)) {
        return Err(format!(
            "the data is {encoding} text; pgc reads PGN in UTF-8 (or Latin-1): convert it \
             first, e.g. data.decode(\"utf-16\").encode(\"utf-8\")"
        ));
    }
    if format_of(&text) == Format::Pgc && !pgn_bridge::sniff::is_nul_run(head(&text)) {
        return Err("the data is PGC, not PGN: pgc.decode turns it into PGN".into());
    }
    Ok(text)
}

/// The bytes the sniffer looks at.
fn head(data: &[u8]) -> &[u8] {
    &data[..data.len().min(SNIFF as usize)]
}

/// What (uncompressed) data holds, judged as the command line judges its
/// inputs: PGN after a run of NUL bytes longer than the sniffer's window
/// is PGN ([`pgn_bridge::sniff::sniff_data`]).
pub(crate) fn format_of(data: &[u8]) -> Format {
    pgn_bridge::sniff::sniff_data(data)
}

/// The data decompressed when it is compressed with zstd, gzip or bzip2
/// (recognised by its magic bytes), else the data itself.
#[pyfunction]
pub(crate) fn decompress<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = data.as_bytes();
    match py.detach(|| inflate(bytes)) {
        Ok(Some(v)) => Ok(PyBytes::new(py, &v)),
        Ok(None) => Ok(data),
        Err(m) => Err(plain_error(py, m)),
    }
}

/// What (uncompressed) data holds: "pgc", "pgn" or "empty".
#[pyfunction]
pub(crate) fn sniff(data: &[u8]) -> &'static str {
    match format_of(data) {
        Format::Empty => "empty",
        Format::Pgn => "pgn",
        Format::Pgc => "pgc",
    }
}

/// PGC of any input: decompressed if compressed, encoded if PGN (with
/// `strict` on `threads` threads and the limits `max_string` and
/// `max_rav_depth`, as `pgc.encode`); PGC is returned as it is (the
/// limits' values are checked all the same). The rejected games' warning is raised
/// `stacklevel` frames up (the Python wrappers pass the first frame
/// outside the package).
#[pyfunction]
#[pyo3(signature = (
    data, strict = false, threads = 0, stacklevel = 1, *, max_string = None, max_rav_depth = None
))]
pub(crate) fn to_pgc<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
    strict: bool,
    #[pyo3(from_py_with = crate::threads::threads_arg)] threads: usize,
    stacklevel: i32,
    max_string: Option<Bound<'py, PyAny>>,
    max_rav_depth: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let limits = crate::limits::limits(max_string.as_ref(), max_rav_depth.as_ref())?;
    let bytes = data.as_bytes();
    let inflated = py
        .detach(|| inflate(bytes))
        .map_err(|m| plain_error(py, m))?;
    let plain: &[u8] = inflated.as_deref().unwrap_or(bytes);
    if format_of(plain) != Format::Pgn {
        return Ok(match inflated {
            Some(v) => PyBytes::new(py, &v),
            None => data.clone(),
        });
    }
    let (out, rejected) = py
        .detach(|| crate::par_encode::encode_pgn(plain, strict, threads, limits))
        .map_err(|e| bridge_error(py, &e))?;
    crate::error::warn_rejected(py, &rejected, strict, stacklevel)?;
    Ok(PyBytes::new(py, &out))
}
