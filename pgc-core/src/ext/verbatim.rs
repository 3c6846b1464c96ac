//! Verbatim text (kind 0x0a): text kept exactly as it was read, between
//! games: a game that could not be converted, or bytes that are no game.

use crate::item::put_varint;
use std::convert::Infallible;

/// The most text one verbatim record holds; a longer text is written as
/// consecutive records, which a reader joins (so that no record is over
/// the string limit a reader applies by default).
pub const CHUNK: usize = 1 << 20;

/// The most text one verbatim record holds for a writer whose longest
/// payload is `max_string` bytes ([`crate::Limits::max_string`]): [`CHUNK`],
/// or less under a lower limit, so that a reader with the writer's limit
/// reads every record back.
pub fn chunk_for(max_string: u32) -> usize {
    CHUNK.min(max_string as usize).max(1)
}

/// Appends `text` to `out` as verbatim records of at most
/// [`chunk_for`]`(max_string)` bytes each (none for an empty text).
///
/// ```
/// use pgc_core::ext::verbatim;
/// let mut out = Vec::new();
/// verbatim::write(&mut out, b"1. e4 Ke7 *\n", pgc_core::Limits::DEFAULT.max_string);
/// assert_eq!(out[..3], [0x80, 0x0a, 12]);
/// assert_eq!(&out[3..], b"1. e4 Ke7 *\n");
/// ```
pub fn write(out: &mut Vec<u8>, text: &[u8], max_string: u32) {
    let _: Result<(), Infallible> = write_with(text, max_string, |bytes| {
        out.extend_from_slice(bytes);
        Ok(())
    });
}

/// Hands the bytes of the verbatim records of `text` (at most
/// [`chunk_for`]`(max_string)` bytes each) to `emit`, in order: each
/// record's header, then its part of `text` itself (not copied), for
/// writers that should not hold a long text twice.
///
/// # Errors
/// The first error of `emit`.
pub fn write_with<E>(
    text: &[u8],
    max_string: u32,
    mut emit: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let mut header = Vec::with_capacity(8);
    for chunk in text.chunks(chunk_for(max_string)) {
        header.clear();
        header.extend_from_slice(&[crate::record::Marker::Extension as u8, super::VERBATIM]);
        put_varint(&mut header, chunk.len() as u64);
        emit(&header)?;
        emit(chunk)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RecordRef;
    use crate::{Reader, Record};

    #[test]
    fn long_text_is_cut_into_records_that_join_to_it() {
        let text: Vec<u8> = (0..CHUNK * 2 + 5).map(|i| (i % 251) as u8).collect();
        let mut out = Vec::new();
        write(&mut out, &text, crate::Limits::DEFAULT.max_string);
        let mut r = Reader::new(&out[..]);
        let mut joined = Vec::new();
        let mut records = 0;
        while let Some((_, rec)) = r.next_record().unwrap() {
            let RecordRef::Extension { kind, payload } = rec else {
                panic!("only verbatim records");
            };
            assert_eq!(kind, super::super::VERBATIM);
            assert!(payload.len() <= CHUNK);
            joined.extend_from_slice(payload);
            records += 1;
        }
        assert_eq!((records, &joined), (3, &text));
        // The headers are the record's own (binrw declaration).
        let rec = Record::Extension {
            kind: super::super::VERBATIM,
            payload: text[..CHUNK].to_vec(),
        };
        let mut declared = std::io::Cursor::new(Vec::new());
        rec.write(&mut declared).unwrap();
        assert_eq!(declared.into_inner(), out[..CHUNK + 5]);
    }

    #[test]
    fn records_fit_a_lower_string_limit() {
        let text = b"1. e4 e5 2. Ke3 {a comment long enough to exceed} 1-0\n";
        let mut out = Vec::new();
        write(&mut out, text, 40);
        let limits = crate::Limits {
            max_string: 40,
            ..crate::Limits::DEFAULT
        };
        let mut r = Reader::with_limits(&out[..], limits);
        let mut joined = Vec::new();
        while let Some((_, RecordRef::Extension { payload, .. })) = r.next_record().unwrap() {
            assert!(payload.len() <= 40);
            joined.extend_from_slice(payload);
        }
        assert_eq!(joined, text);
    }
}
