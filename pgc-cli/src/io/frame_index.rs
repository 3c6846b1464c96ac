//! The game index of a seekable `.pgc.zst` (`FILE.pgc.zst.idx`, version 1,
//! `spec/index.md`): for every zstd frame of the seek table, the number of
//! games that begin before it and whether it starts at a game boundary, so
//! that `--games` decompresses from the frame that holds the first wanted
//! game on and `pgc split` cuts between frames.
//!
//! Game boundaries are the grammar's ([`Bounds`]), on the records
//! [`pgc_core::Reader`] frames in the decompressed data: the same rule as
//! the game index of an uncompressed file ([`pgc_core::GameIndex`]).

use super::seekable::{FrameReader, SeekTable};
use pgc_core::internals::{Bounds, fingerprint};
use pgc_core::item::{put_varint, read_varint64};
use pgc_core::{IndexError, Limits, ReadError, Reader};
use std::fs::File;
use std::io::{self, Read, Seek};

/// The first bytes of a frame index.
pub const FRAME_INDEX_MAGIC: &[u8; 8] = b"PGCZIX1\n";

/// Where a frame starts among the games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameStart {
    /// Games that begin before the frame's first byte.
    pub games_before: u64,
    /// Whether the frame starts with a record outside any game (a game's
    /// first record, or a record between games): reading can start there.
    pub at_boundary: bool,
}

/// The frame index of a seekable `.pgc.zst`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameIndex {
    /// Size of the compressed file.
    pub file_size: u64,
    /// Its fingerprint, as [`pgc_core::GameIndex`] takes it.
    pub fingerprint: u64,
    /// Games in the whole file.
    pub games: u64,
    /// One entry per frame of the seek table.
    pub frames: Vec<FrameStart>,
}

impl FrameIndex {
    /// Decompresses every frame of `table` (on `jobs` threads) and frames
    /// its records to find where games begin.
    ///
    /// # Errors
    /// I/O, a frame that does not decompress, a record that does not frame
    /// (an `InvalidData` error naming its offset in the decompressed data).
    pub fn build(
        file: &mut File,
        table: &SeekTable,
        limits: Limits,
        jobs: usize,
    ) -> io::Result<FrameIndex> {
        let (file_size, fingerprint) = fingerprint(file)?;
        let data = FrameReader::new(file.try_clone()?, table, 0, jobs);
        let mut r = Reader::with_limits(data, limits);
        let mut bounds = Bounds::default();
        let mut frames = Vec::with_capacity(table.frames.len());
        let mut next = table.frames.iter().map(|f| f.start).peekable();
        loop {
            let rec = r.next_record().map_err(|e| match e {
                ReadError::Io { source, .. } => source,
                other => io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{other} (of the decompressed data)"),
                ),
            })?;
            let Some((at, rec)) = rec else { break };
            // Frames that start at or before this record: at a boundary if
            // this record starts exactly there, outside a game.
            while let Some(start) = next.next_if(|&s| s <= at) {
                frames.push(FrameStart {
                    games_before: bounds.games(),
                    at_boundary: start == at && !bounds.in_game(),
                });
            }
            bounds.record(rec.marker());
        }
        // Frames at the very end (empty ones): after the last record.
        for _ in next {
            frames.push(FrameStart {
                games_before: bounds.games(),
                at_boundary: !bounds.in_game(),
            });
        }
        Ok(FrameIndex {
            file_size,
            fingerprint,
            games: bounds.games(),
            frames,
        })
    }

    /// The index file's bytes: the magic, file size and fingerprint (u64
    /// little-endian), then as LEB128 the game count, the frame count and
    /// per frame `(games begun in the frame before it) << 1 | (1 if it does
    /// not start at a game boundary)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(40 + self.frames.len() * 2);
        out.extend_from_slice(FRAME_INDEX_MAGIC);
        out.extend_from_slice(&self.file_size.to_le_bytes());
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        put_varint(&mut out, self.games);
        put_varint(&mut out, self.frames.len() as u64);
        let mut prev = 0;
        for f in &self.frames {
            put_varint(
                &mut out,
                ((f.games_before - prev) << 1) | u64::from(!f.at_boundary),
            );
            prev = f.games_before;
        }
        out
    }

    /// Parses an index file.
    ///
    /// # Errors
    /// [`IndexError::Invalid`]: a wrong magic, a truncated file, a frame
    /// count over the bytes left, game counts past the total or a first
    /// frame that is not at the start of a game, trailing bytes.
    pub fn from_bytes(data: &[u8]) -> Result<FrameIndex, IndexError> {
        if data.len() < 24 || &data[..8] != FRAME_INDEX_MAGIC {
            return Err(IndexError::Invalid("wrong magic (expected \"PGCZIX1\\n\")"));
        }
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let file_size = word(&data[8..16]);
        let fingerprint = word(&data[16..24]);
        let mut rest = &data[24..];
        let mut leb = || -> Result<u64, IndexError> {
            let (v, n) = read_varint64(rest)
                .map_err(|_| IndexError::Invalid("truncated or overlong LEB128"))?;
            rest = &rest[n..];
            Ok(v)
        };
        let games = leb()?;
        let count = leb()?;
        // One byte at least per frame: bound the count before reserving.
        if count > data.len() as u64 {
            return Err(IndexError::Invalid("frame count larger than the index"));
        }
        let mut frames = Vec::with_capacity(count as usize);
        let mut before = 0u64;
        for _ in 0..count {
            let v = leb()?;
            before =
                before
                    .checked_add(v >> 1)
                    .filter(|&b| b <= games)
                    .ok_or(IndexError::Invalid(
                        "more games before a frame than in the file",
                    ))?;
            frames.push(FrameStart {
                games_before: before,
                at_boundary: v & 1 == 0,
            });
        }
        if frames
            .first()
            .is_some_and(|f| f.games_before != 0 || !f.at_boundary)
        {
            return Err(IndexError::Invalid(
                "the first frame does not start the data",
            ));
        }
        if !rest.is_empty() {
            return Err(IndexError::Invalid("trailing bytes"));
        }
        Ok(FrameIndex {
            file_size,
            fingerprint,
            games,
            frames,
        })
    }

    /// Checks that the index belongs to `file` as it is now, whose seek
    /// table is `table`.
    ///
    /// # Errors
    /// [`IndexError::Stale`] when the size, the fingerprint or the number of
    /// frames differ; I/O.
    pub fn check<F: Read + Seek>(&self, f: &mut F, table: &SeekTable) -> Result<(), IndexError> {
        let (size, fp) = fingerprint(f)?;
        if size != self.file_size
            || fp != self.fingerprint
            || table.frames.len() != self.frames.len()
        {
            return Err(IndexError::Stale);
        }
        Ok(())
    }

    /// The frame to start reading at for game `first` (0-based): the last
    /// frame at a game boundary with no more than `first` games before it,
    /// and those games.
    pub fn start_for(&self, first: u64) -> (usize, u64) {
        let n = self.frames.partition_point(|f| f.games_before <= first);
        (0..n)
            .rev()
            .find(|&i| self.frames[i].at_boundary)
            .map_or((0, 0), |i| (i, self.frames[i].games_before))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(frames: &[(u64, bool)], games: u64) -> FrameIndex {
        FrameIndex {
            file_size: 1000,
            fingerprint: 7,
            games,
            frames: frames
                .iter()
                .map(|&(games_before, at_boundary)| FrameStart {
                    games_before,
                    at_boundary,
                })
                .collect(),
        }
    }

    #[test]
    fn round_trips_and_picks_the_frame_of_a_game() {
        let i = index(&[(0, true), (10, true), (10, false), (25, true)], 30);
        let back = FrameIndex::from_bytes(&i.to_bytes()).unwrap();
        assert_eq!(back, i);
        assert_eq!(i.start_for(0), (0, 0));
        assert_eq!(i.start_for(9), (0, 0));
        // Game 10 begins in frame 1 (frame 2 starts inside a game).
        assert_eq!(i.start_for(10), (1, 10));
        assert_eq!(i.start_for(24), (1, 10));
        assert_eq!(i.start_for(25), (3, 25));
        assert_eq!(i.start_for(1000), (3, 25));
    }

    /// The example of `spec/index.md`.
    #[test]
    fn the_spec_example() {
        let i = FrameIndex {
            file_size: 0x0102,
            fingerprint: 0x0807_0605_0403_0201,
            games: 30,
            frames: index(&[(0, true), (10, true), (25, false)], 30).frames,
        };
        let mut want = b"PGCZIX1\n".to_vec();
        want.extend([2, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        want.extend([0x1e, 0x03, 0x00, 0x14, 0x1f]);
        assert_eq!(i.to_bytes(), want);
        assert_eq!(FrameIndex::from_bytes(&want).unwrap(), i);
        assert_eq!(i.start_for(26), (1, 10));
    }

    #[test]
    fn damaged_indexes_are_refused_without_reserving_what_they_claim() {
        let good = index(&[(0, true), (10, true)], 30).to_bytes();
        let mut huge = good[..24].to_vec();
        put_varint(&mut huge, 30u64);
        put_varint(&mut huge, u64::MAX >> 1);
        assert!(matches!(
            FrameIndex::from_bytes(&huge),
            Err(IndexError::Invalid("frame count larger than the index"))
        ));
        let mut past = good[..24].to_vec();
        put_varint(&mut past, 5u64);
        put_varint(&mut past, 2u64);
        put_varint(&mut past, 0u64);
        put_varint(&mut past, 6u64 << 1);
        assert!(FrameIndex::from_bytes(&past).is_err());
        assert!(FrameIndex::from_bytes(&good[..good.len() - 1]).is_err());
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(FrameIndex::from_bytes(&trailing).is_err());
        let mut magic = good;
        magic[3] = b'I';
        assert!(FrameIndex::from_bytes(&magic).is_err());
    }
}
