//! The game index: the sidecar file of `pgc index` (`spec/index.md`)
//! that holds the offset of every game of a PGC file, and a fingerprint
//! of the file it was made from, for random access by game number.

use crate::item::{Varint64Error, put_varint, read_varint64};
use crate::limits::Limits;
use crate::split::Bounds;
use crate::stream::{ReadError, Reader};
use std::io::{self, Read, Seek, SeekFrom};

/// The magic bytes of a game index (`spec/index.md`).
pub const INDEX_MAGIC: &[u8; 8] = b"PGCIDX1\n";

/// How many bytes at each end of the PGC file the fingerprint covers.
pub const FINGERPRINT_SPAN: u64 = 4096;

/// Why an index file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Reading failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// Not an index, or a damaged one.
    #[error("not a valid game index: {0}")]
    Invalid(&'static str),
    /// The index was made for another version of the PGC file.
    #[error("the index is stale: the PGC file changed since it was made; run `pgc index` again")]
    Stale,
}

/// The game offsets of a PGC file, as stored in its `.idx` sidecar
/// (`spec/index.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameIndex {
    /// Size of the PGC file in bytes.
    pub file_size: u64,
    /// FNV-1a 64 of its first and last `FINGERPRINT_SPAN` bytes.
    pub fingerprint: u64,
    /// Byte offset of each game's first record, ascending.
    pub offsets: Vec<u64>,
}

/// FNV-1a, 64 bits.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Size and fingerprint of a file (see [`GameIndex::fingerprint`]).
///
/// # Errors
/// I/O.
pub fn fingerprint<F: Read + Seek>(f: &mut F) -> io::Result<(u64, u64)> {
    let size = f.seek(SeekFrom::End(0))?;
    let mut h = 0xcbf2_9ce4_8422_2325;
    let mut buf = vec![0; FINGERPRINT_SPAN as usize];
    f.seek(SeekFrom::Start(0))?;
    let head = FINGERPRINT_SPAN.min(size) as usize;
    f.read_exact(&mut buf[..head])?;
    h = fnv1a(h, &buf[..head]);
    let tail_start = size.saturating_sub(FINGERPRINT_SPAN);
    f.seek(SeekFrom::Start(tail_start))?;
    let tail = (size - tail_start) as usize;
    f.read_exact(&mut buf[..tail])?;
    h = fnv1a(h, &buf[..tail]);
    f.seek(SeekFrom::Start(0))?;
    Ok((size, h))
}

fn get_leb(data: &mut &[u8]) -> Result<u64, IndexError> {
    let (v, n) = read_varint64(data).map_err(|e| match e {
        Varint64Error::Truncated => IndexError::Invalid("truncated"),
        Varint64Error::Overflow => IndexError::Invalid("LEB128 value above 64 bits"),
    })?;
    *data = &data[n..];
    Ok(v)
}

impl GameIndex {
    /// Scans a PGC file (framing records only, no move decoding) for the
    /// offsets of its games, and fingerprints it.
    ///
    /// # Errors
    /// I/O, or a record that does not frame ([`ReadError`] in an I/O error).
    pub fn build<F: Read + Seek>(f: &mut F, limits: Limits) -> io::Result<GameIndex> {
        let (file_size, fingerprint) = fingerprint(f)?;
        let mut offsets = Vec::new();
        let mut r = Reader::with_limits(io::BufReader::with_capacity(256 << 10, &mut *f), limits);
        let mut bounds = Bounds::default();
        loop {
            let next = r.next_record().map_err(|e| match e {
                ReadError::Io { source, .. } => source,
                other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
            })?;
            let Some((at, rec)) = next else { break };
            if bounds.record(rec.marker()).0 {
                offsets.push(at);
            }
        }
        Ok(GameIndex {
            file_size,
            fingerprint,
            offsets,
        })
    }

    /// The index file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.offsets.len() * 2);
        out.extend_from_slice(INDEX_MAGIC);
        out.extend_from_slice(&self.file_size.to_le_bytes());
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        put_varint(&mut out, self.offsets.len() as u64);
        let mut prev = 0;
        for &o in &self.offsets {
            put_varint(&mut out, o - prev);
            prev = o;
        }
        out
    }

    /// Parses an index file.
    ///
    /// # Errors
    /// [`IndexError::Invalid`] for a wrong magic, a truncated file, offsets
    /// that do not ascend or lie past the file's end, or trailing bytes.
    pub fn from_bytes(mut data: &[u8]) -> Result<GameIndex, IndexError> {
        if data.len() < 24 || &data[..8] != INDEX_MAGIC {
            return Err(IndexError::Invalid("wrong magic (expected \"PGCIDX1\\n\")"));
        }
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let file_size = word(&data[8..16]);
        let fingerprint = word(&data[16..24]);
        data = &data[24..];
        let count = get_leb(&mut data)?;
        // Every offset takes at least one byte: bound the count before
        // reserving, and by the file size (a game is at least one byte).
        if count > data.len() as u64 || count > file_size {
            return Err(IndexError::Invalid("game count larger than the data"));
        }
        let mut offsets = Vec::with_capacity(count as usize);
        let mut prev = 0u64;
        for i in 0..count {
            let d = get_leb(&mut data)?;
            if i > 0 && d == 0 {
                return Err(IndexError::Invalid("offsets do not ascend"));
            }
            prev = prev
                .checked_add(d)
                .filter(|&o| o < file_size)
                .ok_or(IndexError::Invalid("offset past the end of the file"))?;
            offsets.push(prev);
        }
        if !data.is_empty() {
            return Err(IndexError::Invalid("trailing bytes"));
        }
        Ok(GameIndex {
            file_size,
            fingerprint,
            offsets,
        })
    }

    /// Whether the byte at `offset` of `f` starts a game (0x01 or 0x05),
    /// as the byte an index entry points at must: an index can match the
    /// file's size and fingerprint and still be damaged, so a reader that
    /// jumps to an entry checks it first. Leaves `f` just after that byte.
    ///
    /// # Errors
    /// I/O (the end of the file is no game start, not an error).
    pub fn starts_game<F: Read + Seek>(f: &mut F, offset: u64) -> io::Result<bool> {
        f.seek(SeekFrom::Start(offset))?;
        let mut marker = [0u8; 1];
        match f.read_exact(&mut marker) {
            Ok(()) => Ok(matches!(marker[0], 0x01 | 0x05)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Checks that the index belongs to this file as it is now.
    ///
    /// # Errors
    /// [`IndexError::Stale`] when size or fingerprint differ; I/O.
    pub fn check<F: Read + Seek>(&self, f: &mut F) -> Result<(), IndexError> {
        let (size, fp) = fingerprint(f)?;
        if size != self.file_size || fp != self.fingerprint {
            return Err(IndexError::Stale);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::tests::two_games;
    use crate::item::put_varint;

    #[test]
    fn index_round_trip_and_staleness() {
        let data = two_games().repeat(3);
        let mut f = io::Cursor::new(data.clone());
        let idx = GameIndex::build(&mut f, Limits::DEFAULT).unwrap();
        assert_eq!(idx.offsets, [0, 29, 43, 72, 86, 115]);
        let back = GameIndex::from_bytes(&idx.to_bytes()).unwrap();
        assert_eq!(back, idx);
        back.check(&mut f).unwrap();
        let mut changed = data.clone();
        changed[1] = 0x00;
        assert!(matches!(
            back.check(&mut io::Cursor::new(changed)),
            Err(IndexError::Stale)
        ));
        assert!(GameIndex::from_bytes(b"PGCIDX1\n").is_err());
        let mut huge = idx.to_bytes()[..24].to_vec();
        put_varint(&mut huge, u64::MAX);
        assert!(GameIndex::from_bytes(&huge).is_err());
    }
}
