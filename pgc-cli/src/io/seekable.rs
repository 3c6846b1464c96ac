//! zstd's seekable format: independent zstd frames, then a seek table in a
//! skippable frame at the end that lists each frame's compressed and
//! decompressed size ("Zstandard Seekable Format", version 0.1.0, in
//! `contrib/seekable_format` of the zstd repository).
//!
//! ```text
//! frame 0 … frame n-1 | 5e 2a 4d 18 | Frame_Size (u32) | n × entry | footer
//! entry:  Compressed_Size (u32) Decompressed_Size (u32) [Checksum (u32)]
//! footer: Number_Of_Frames (u32) Seek_Table_Descriptor (u8) b1 ea 92 8f
//! ```
//!
//! Every number is little-endian. Bit 7 of the descriptor says the entries
//! carry a checksum; bits 2–6 are reserved and must be 0; bits 0–1 are
//! unused. A decoder that does not know the format skips the table (it is a
//! skippable frame), so `zstd -d` reads a seekable file as any other.
//!
//! [`SeekableWriter`] writes the format: it ends a frame only where it is
//! told a game boundary is ([`SeekableWriter::boundary`]) and the frame
//! holds at least [`FRAME_BYTES`], so every frame of a PGC output starts
//! with a game (or the records between games). Each frame carries zstd's
//! own content checksum, which the decompressor checks, so the table
//! carries none. [`SeekTable::read`] reads a table (or the tables of
//! seekable files written one after the other, as `cat a.zst b.zst` makes)
//! without reserving anything a size field claims before the file has the
//! bytes; [`FrameReader`] decompresses frames, in parallel with several
//! jobs, in order.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;

/// The last four bytes of a seekable file.
pub const SEEKABLE_MAGIC: u32 = 0x8f92_eab1;
/// The skippable frame magic of the seek table.
pub const SKIPPABLE_MAGIC: u32 = 0x184d_2a5e;
/// Bytes of the footer: frame count, descriptor, magic.
const FOOTER: u64 = 9;
/// Bytes of the skippable frame's header: magic and size.
const HEADER: u64 = 8;
/// The most frames a seek table may list (the reference implementation's
/// limit).
pub const MAX_FRAMES: u32 = 0x0800_0000;
/// The most decompressed bytes [`SeekableWriter`] puts in one frame (the
/// reference implementation's limit); a frame is cut there even inside a
/// game.
pub const MAX_FRAME_BYTES: usize = 0x4000_0000;
/// A frame ends at the first game boundary at or after this many
/// decompressed bytes.
pub const FRAME_BYTES: usize = 2 << 20;

/// Whether `head` (a file's first bytes) starts a zstd frame or a
/// skippable frame.
pub fn is_zstd(head: &[u8]) -> bool {
    pgn_bridge::sniff::compression(head) == Some(pgn_bridge::sniff::Compression::Zstd)
}

/// One frame listed in a seek table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Offset of the frame in the file.
    pub offset: u64,
    /// Its compressed size.
    pub compressed: u32,
    /// Its decompressed size.
    pub decompressed: u32,
    /// Offset of its first decompressed byte in the decompressed data.
    pub start: u64,
}

/// A bad seek table: where and what.
#[derive(Debug, thiserror::Error)]
pub enum SeekTableError {
    /// Reserved descriptor bits are set.
    #[error(
        "the seek table descriptor at byte {offset} is {found:#04x}: reserved bits 2-6 are \
         set (a newer seekable format, or damage)"
    )]
    Reserved {
        /// Offset of the descriptor.
        offset: u64,
        /// Its value.
        found: u8,
    },
    /// More frames than the format allows.
    #[error(
        "the seek table footer at byte {offset} claims {frames} frames, more than the {max} \
         the seekable format allows"
    )]
    TooManyFrames {
        /// Offset of the frame count.
        offset: u64,
        /// The count.
        frames: u32,
        /// The limit.
        max: u32,
    },
    /// The table claims more bytes than precede its end.
    #[error(
        "the seek table footer at byte {offset} claims {frames} frames, a table of {need} \
         bytes, but the file has {have} bytes up to the footer's end (truncated or damaged)"
    )]
    Truncated {
        /// Offset of the frame count.
        offset: u64,
        /// The count.
        frames: u32,
        /// Bytes the table would take.
        need: u64,
        /// Bytes there are.
        have: u64,
    },
    /// The table's skippable frame does not start with its magic.
    #[error(
        "the seek table at byte {offset}: expected the skippable frame magic {:#010x}, found \
         {found:#010x}",
        SKIPPABLE_MAGIC
    )]
    Magic {
        /// Offset of the table.
        offset: u64,
        /// The four bytes found there.
        found: u32,
    },
    /// The skippable frame's size field differs from the footer's count.
    #[error(
        "the seek table at byte {offset}: expected a frame size of {expected} bytes for \
         {frames} entries, found {found}"
    )]
    FrameSize {
        /// Offset of the size field.
        offset: u64,
        /// The frame count.
        frames: u32,
        /// The size the count gives.
        expected: u64,
        /// The size field.
        found: u32,
    },
    /// The compressed sizes add up to more than the bytes before the table.
    #[error(
        "the seek table at byte {offset} lists {} of {covered} compressed bytes in all, but \
         only {have} bytes precede it",
        if *.frames == 1 { "1 frame".to_string() } else { format!("{} frames", .frames) }
    )]
    Sizes {
        /// Offset of the table.
        offset: u64,
        /// Its frame count.
        frames: u32,
        /// The sum of its compressed sizes.
        covered: u64,
        /// Bytes before the table.
        have: u64,
    },
    /// Data before the first seek table's frames has no seek table.
    #[error(
        "bytes 0 to {end} are not listed by a seek table (the seek table before byte {end} \
         is missing)"
    )]
    Uncovered {
        /// Where the listed frames begin.
        end: u64,
    },
    /// Reading failed.
    #[error("cannot read the seek table: {0}")]
    Io(#[from] io::Error),
}

/// The frames of a seekable file, from its seek table(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekTable {
    /// The frames, in file order.
    pub frames: Vec<Frame>,
    /// Size of the file.
    pub file_size: u64,
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

impl SeekTable {
    /// Reads the seek table at the end of `f`: `None` when the file does
    /// not end with the seekable magic. A file made of several seekable
    /// files one after the other has a table at the end of each; they are
    /// read back to the start of the file.
    ///
    /// Nothing is reserved before the bytes a count claims are known to be
    /// in the file.
    ///
    /// # Errors
    /// [`SeekTableError`], positioned.
    pub fn read<F: Read + Seek>(f: &mut F) -> Result<Option<SeekTable>, SeekTableError> {
        let file_size = f.seek(SeekFrom::End(0))?;
        // Segments from the end: each a table and the frames it lists.
        let mut segments: Vec<Vec<Frame>> = Vec::new();
        let mut end = file_size;
        while end > 0 {
            let mut footer = [0u8; FOOTER as usize];
            let magic_found = end >= FOOTER && {
                f.seek(SeekFrom::Start(end - FOOTER))?;
                f.read_exact(&mut footer)?;
                le32(&footer[5..]) == SEEKABLE_MAGIC
            };
            if !magic_found {
                if segments.is_empty() {
                    return Ok(None);
                }
                return Err(SeekTableError::Uncovered { end });
            }
            let count_at = end - FOOTER;
            let frames = le32(&footer[..4]);
            let descriptor = footer[4];
            if descriptor & 0x7c != 0 {
                return Err(SeekTableError::Reserved {
                    offset: count_at + 4,
                    found: descriptor,
                });
            }
            if frames > MAX_FRAMES {
                return Err(SeekTableError::TooManyFrames {
                    offset: count_at,
                    frames,
                    max: MAX_FRAMES,
                });
            }
            let entry: u64 = if descriptor & 0x80 != 0 { 12 } else { 8 };
            let body = u64::from(frames) * entry + FOOTER;
            let need = HEADER + body;
            if need > end {
                return Err(SeekTableError::Truncated {
                    offset: count_at,
                    frames,
                    need,
                    have: end,
                });
            }
            let table_at = end - need;
            let mut header = [0u8; HEADER as usize];
            f.seek(SeekFrom::Start(table_at))?;
            f.read_exact(&mut header)?;
            let magic = le32(&header[..4]);
            if magic != SKIPPABLE_MAGIC {
                return Err(SeekTableError::Magic {
                    offset: table_at,
                    found: magic,
                });
            }
            let size = le32(&header[4..]);
            if u64::from(size) != body {
                return Err(SeekTableError::FrameSize {
                    offset: table_at + 4,
                    frames,
                    expected: body,
                    found: size,
                });
            }
            // The entries are in the file (need <= end): read them in
            // pieces, keeping one `Frame` per entry.
            let mut r = io::BufReader::with_capacity(64 << 10, &mut *f);
            let mut list = Vec::with_capacity(frames as usize);
            let mut covered = 0u64;
            let mut e = [0u8; 12];
            for _ in 0..frames {
                r.read_exact(&mut e[..entry as usize])?;
                let (compressed, decompressed) = (le32(&e[..4]), le32(&e[4..8]));
                covered += u64::from(compressed);
                list.push(Frame {
                    offset: covered - u64::from(compressed),
                    compressed,
                    decompressed,
                    start: 0,
                });
            }
            if covered > table_at {
                return Err(SeekTableError::Sizes {
                    offset: table_at,
                    frames,
                    covered,
                    have: table_at,
                });
            }
            let base = table_at - covered;
            for fr in &mut list {
                fr.offset += base;
            }
            segments.push(list);
            end = base;
        }
        if segments.is_empty() {
            return Ok(None);
        }
        let mut frames: Vec<Frame> = segments.into_iter().rev().flatten().collect();
        let mut start = 0u64;
        for fr in &mut frames {
            fr.start = start;
            start += u64::from(fr.decompressed);
        }
        Ok(Some(SeekTable { frames, file_size }))
    }

    /// Bytes of the decompressed data.
    pub fn decompressed_size(&self) -> u64 {
        self.frames
            .last()
            .map_or(0, |f| f.start + u64::from(f.decompressed))
    }
}

/// The seek table's skippable frame for frames of these (compressed,
/// decompressed) sizes, without checksums.
pub fn table_bytes(entries: &[(u32, u32)]) -> Vec<u8> {
    let body = entries.len() * 8 + FOOTER as usize;
    let mut out = Vec::with_capacity(HEADER as usize + body);
    out.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    out.extend_from_slice(&u32::try_from(body).unwrap_or(u32::MAX).to_le_bytes());
    for &(c, d) in entries {
        out.extend_from_slice(&c.to_le_bytes());
        out.extend_from_slice(&d.to_le_bytes());
    }
    let n = u32::try_from(entries.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&n.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&SEEKABLE_MAGIC.to_le_bytes());
    out
}

/// Writes the seekable format: data is gathered into a frame, which is
/// compressed and written when [`SeekableWriter::boundary`] is called with
/// at least [`FRAME_BYTES`] gathered (or when it would pass
/// [`MAX_FRAME_BYTES`]); [`SeekableWriter::finish`] writes the last frame
/// and the seek table. The frames depend only on the data and the
/// boundaries, so the same calls give the same bytes.
pub struct SeekableWriter<W: Write> {
    inner: W,
    compressor: zstd::bulk::Compressor<'static>,
    frame: Vec<u8>,
    out: Vec<u8>,
    entries: Vec<(u32, u32)>,
    target: usize,
}

impl<W: Write> SeekableWriter<W> {
    /// A writer at zstd level `level` (0: zstd's default) whose frames end
    /// at the first boundary after `target` bytes ([`FRAME_BYTES`] is the
    /// usual size).
    ///
    /// # Errors
    /// zstd refuses the level.
    pub fn with_frame_bytes(inner: W, level: i32, target: usize) -> io::Result<Self> {
        let mut compressor = zstd::bulk::Compressor::new(level)?;
        compressor.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
        Ok(SeekableWriter {
            inner,
            compressor,
            frame: Vec::new(),
            out: Vec::new(),
            entries: Vec::new(),
            target: target.clamp(1, MAX_FRAME_BYTES),
        })
    }

    /// The data written so far ends at a game boundary: the frame ends
    /// here if it holds enough.
    ///
    /// # Errors
    /// I/O.
    pub fn boundary(&mut self) -> io::Result<()> {
        if self.frame.len() >= self.target {
            self.end_frame()?;
        }
        Ok(())
    }

    fn end_frame(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out
            .reserve(zstd::zstd_safe::compress_bound(self.frame.len()));
        self.compressor
            .compress_to_buffer(&self.frame[..], &mut self.out)?;
        self.inner.write_all(&self.out)?;
        let size =
            |n: usize| u32::try_from(n).map_err(|_| io::Error::other("a zstd frame over 4 GiB"));
        self.entries
            .push((size(self.out.len())?, size(self.frame.len())?));
        self.frame.clear();
        Ok(())
    }

    /// Writes the last frame (an empty one if there was no data, so that
    /// the file starts with a zstd frame) and the seek table.
    ///
    /// # Errors
    /// I/O.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.frame.is_empty() || self.entries.is_empty() {
            self.end_frame()?;
        }
        self.inner.write_all(&table_bytes(&self.entries))?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for SeekableWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.frame.len() >= MAX_FRAME_BYTES {
            self.end_frame()?;
        }
        let n = buf.len().min(MAX_FRAME_BYTES - self.frame.len());
        self.frame.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    /// Flushes what is written of the file; the frame being gathered is
    /// written at the next boundary or at the end.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Decompresses one frame, checking its size against the table.
fn decompress(file: &File, index: usize, frame: Frame) -> io::Result<Vec<u8>> {
    let at = |what: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "zstd frame {} (compressed bytes {} to {}): {what}",
                index + 1,
                frame.offset,
                frame.offset + u64::from(frame.compressed)
            ),
        )
    };
    // The table's sizes add up within the file: these bytes exist.
    let mut src = vec![0u8; frame.compressed as usize];
    file.read_exact_at(&mut src, frame.offset)
        .map_err(|e| at(format!("cannot read: {e}")))?;
    let want = u64::from(frame.decompressed);
    // Reserve no more than a frame's usual size on the table's word: a
    // larger frame grows as its data arrives.
    let mut out = Vec::with_capacity((frame.decompressed as usize).min(2 * FRAME_BYTES));
    // What the frame's bytes hold is the data's fault (exit 1, as for a
    // damaged zstd stream): the good data ends where the frame starts.
    let damaged = |what: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            crate::error::Damage {
                compression: "zstd",
                compressed: frame.offset + u64::from(frame.compressed),
                decompressed: frame.start,
                error: at(what),
            },
        )
    };
    let decoder =
        zstd::stream::read::Decoder::with_buffer(&src[..]).map_err(|e| damaged(e.to_string()))?;
    decoder
        .take(want + 1)
        .read_to_end(&mut out)
        .map_err(|e| damaged(e.to_string()))?;
    if out.len() as u64 != want {
        let got = if out.len() as u64 > want {
            "more".to_string()
        } else {
            out.len().to_string()
        };
        return Err(damaged(format!(
            "decompresses to {got} bytes; the seek table says {want}"
        )));
    }
    Ok(out)
}

/// A frame being decompressed on a worker thread.
struct Task {
    index: usize,
    frame: Frame,
    reply: mpsc::SyncSender<io::Result<Vec<u8>>>,
}

/// The worker threads of a [`FrameReader`].
///
/// The threads are not waited for when the reader is dropped: one still
/// decompressing a frame nobody wants finishes it and stops.
struct Pool {
    tasks: mpsc::Sender<Task>,
    threads: usize,
    /// Set when the reader is dropped: frames queued are not decompressed.
    cancel: Arc<AtomicBool>,
}

impl Pool {
    /// Up to `jobs` threads; `None` if the system refuses every one.
    fn start(file: &Arc<File>, jobs: usize) -> Option<Pool> {
        let (tx, rx) = mpsc::channel::<Task>();
        let rx = Arc::new(Mutex::new(rx));
        let cancel = Arc::new(AtomicBool::new(false));
        let mut threads = 0;
        for _ in 0..jobs {
            let (rx, file, cancel) = (rx.clone(), file.clone(), cancel.clone());
            let started = thread::Builder::new().spawn(move || {
                loop {
                    let next = match rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => break,
                    };
                    let Ok(t) = next else { break };
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    // The reader may be gone: nothing waits for the result.
                    let _ = t.reply.send(decompress(&file, t.index, t.frame));
                }
            });
            if started.is_err() {
                break;
            }
            threads += 1;
        }
        (threads > 0).then_some(Pool {
            tasks: tx,
            threads,
            cancel,
        })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Reads the decompressed data of a seekable file from one of its frames
/// on, decompressing up to `2 × jobs` frames ahead on `jobs` threads (on
/// the calling thread with one job). The first frame is decompressed alone,
/// and the frames ahead grow by one with each frame read: a reader that
/// wants a few games (`--games`) decompresses little more than their frame.
/// The data is the same for every number of jobs.
pub struct FrameReader {
    file: Arc<File>,
    frames: Vec<Frame>,
    /// The next frame to hand out.
    next: usize,
    /// The next frame to start decompressing.
    queued: usize,
    pending: VecDeque<mpsc::Receiver<io::Result<Vec<u8>>>>,
    current: Vec<u8>,
    pos: usize,
    /// Frames decompressed ahead at most, now and in the end.
    window: usize,
    max_window: usize,
    pool: Option<Pool>,
}

impl FrameReader {
    /// A reader of `table`'s frames of `file` from frame `first` on.
    pub fn new(file: File, table: &SeekTable, first: usize, jobs: usize) -> FrameReader {
        let file = Arc::new(file);
        let pool = if jobs > 1 {
            Pool::start(&file, jobs)
        } else {
            None
        };
        let max_window = pool.as_ref().map_or(0, |p| 2 * p.threads);
        FrameReader {
            file,
            frames: table.frames.clone(),
            next: first,
            queued: first,
            pending: VecDeque::new(),
            current: Vec::new(),
            pos: 0,
            window: 1,
            max_window,
            pool,
        }
    }

    /// The next frame's data, or `None` after the last.
    fn next_frame(&mut self) -> io::Result<Option<Vec<u8>>> {
        let n = self.frames.len();
        let Some(pool) = &self.pool else {
            if self.next >= n {
                return Ok(None);
            }
            self.next += 1;
            return decompress(&self.file, self.next - 1, self.frames[self.next - 1]).map(Some);
        };
        while self.queued < n && self.queued - self.next < self.window {
            let (reply, rx) = mpsc::sync_channel(1);
            let task = Task {
                index: self.queued,
                frame: self.frames[self.queued],
                reply,
            };
            if pool.tasks.send(task).is_err() {
                return Err(io::Error::other("the decompression threads stopped"));
            }
            self.pending.push_back(rx);
            self.queued += 1;
        }
        let Some(rx) = self.pending.pop_front() else {
            return Ok(None);
        };
        self.next += 1;
        self.window = (self.window + 1).min(self.max_window);
        match rx.recv() {
            Ok(r) => r.map(Some),
            Err(_) => Err(io::Error::other("a decompression thread stopped")),
        }
    }
}

impl Read for FrameReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            match self.next_frame()? {
                Some(data) => {
                    self.current = data;
                    self.pos = 0;
                }
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn seekable(parts: &[&[u8]], target: usize) -> Vec<u8> {
        let mut w = SeekableWriter::with_frame_bytes(Vec::new(), 3, target).unwrap();
        for p in parts {
            w.write_all(p).unwrap();
            w.boundary().unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn frames_end_at_boundaries_and_the_table_lists_them() {
        let a = vec![b'a'; 1000];
        let b = vec![b'b'; 10];
        let c = vec![b'c'; 2000];
        let file = seekable(&[&a, &b, &c], 1000);
        let t = SeekTable::read(&mut Cursor::new(&file)).unwrap().unwrap();
        let sizes: Vec<u32> = t.frames.iter().map(|f| f.decompressed).collect();
        assert_eq!(sizes, [1000, 2010]);
        assert_eq!(t.frames[1].start, 1000);
        let listed: u64 = t.frames.iter().map(|f| u64::from(f.compressed)).sum();
        assert_eq!(listed + 8 + 2 * 8 + 9, file.len() as u64);
        assert_eq!(zstd::decode_all(&file[..]).unwrap(), [a, b, c].concat());
    }

    #[test]
    fn no_data_is_one_empty_frame() {
        let file = seekable(&[], 10);
        assert!(is_zstd(&file));
        let t = SeekTable::read(&mut Cursor::new(&file)).unwrap().unwrap();
        assert_eq!(t.frames.len(), 1);
        assert_eq!(t.decompressed_size(), 0);
        assert!(zstd::decode_all(&file[..]).unwrap().is_empty());
    }

    #[test]
    fn concatenated_files_are_read_back_to_the_start() {
        let one = seekable(&[b"first", b"second"], 1);
        let two = seekable(&[b"third"], 1);
        let both = [one.clone(), two].concat();
        let t = SeekTable::read(&mut Cursor::new(&both)).unwrap().unwrap();
        assert_eq!(t.frames.len(), 3);
        assert_eq!(t.frames[2].offset, one.len() as u64);
        assert_eq!(t.decompressed_size(), 16);
        // Data before the first table that it does not list.
        let mut junk = zstd::encode_all(&b"plain"[..], 3).unwrap();
        let at = junk.len() as u64;
        junk.extend_from_slice(&one);
        let e = SeekTable::read(&mut Cursor::new(&junk)).unwrap_err();
        assert!(
            matches!(e, SeekTableError::Uncovered { end } if end == at),
            "{e}"
        );
    }

    #[test]
    fn a_plain_zstd_file_has_no_table() {
        let z = zstd::encode_all(&b"data"[..], 3).unwrap();
        assert!(SeekTable::read(&mut Cursor::new(&z)).unwrap().is_none());
        assert!(
            SeekTable::read(&mut Cursor::new(&[][..]))
                .unwrap()
                .is_none()
        );
    }

    /// A footer alone (no frames, no entries) claiming `frames` frames.
    fn footer(frames: u32, descriptor: u8) -> Vec<u8> {
        let mut v = frames.to_le_bytes().to_vec();
        v.push(descriptor);
        v.extend_from_slice(&SEEKABLE_MAGIC.to_le_bytes());
        v
    }

    #[test]
    fn bad_tables_are_positioned_and_reserve_nothing_claimed() {
        // A huge count: refused before anything is read or reserved.
        let e = SeekTable::read(&mut Cursor::new(footer(u32::MAX, 0))).unwrap_err();
        assert!(
            matches!(e, SeekTableError::TooManyFrames { offset: 0, .. }),
            "{e}"
        );
        // A count the file cannot hold (a truncated table).
        let mut f = vec![0u8; 100];
        f.extend(footer(1_000_000, 0));
        let e = SeekTable::read(&mut Cursor::new(&f)).unwrap_err();
        assert!(
            matches!(
                e,
                SeekTableError::Truncated {
                    offset: 100,
                    frames: 1_000_000,
                    have: 109,
                    ..
                }
            ),
            "{e}"
        );
        // Reserved bits.
        let e = SeekTable::read(&mut Cursor::new(footer(0, 0x04))).unwrap_err();
        assert!(
            matches!(
                e,
                SeekTableError::Reserved {
                    offset: 4,
                    found: 4
                }
            ),
            "{e}"
        );
        // Sizes that do not add up: one frame listed as larger than the
        // bytes before the table.
        let good = seekable(&[b"some data"], 1);
        let table_at = good.len() - (8 + 8 + 9);
        let mut bad = good.clone();
        bad[table_at + 8..table_at + 12].copy_from_slice(&10_000u32.to_le_bytes());
        let e = SeekTable::read(&mut Cursor::new(&bad)).unwrap_err();
        assert!(
            matches!(e, SeekTableError::Sizes { offset, covered: 10_000, .. } if offset == table_at as u64),
            "{e}"
        );
        // A wrong size field, a wrong magic.
        let mut bad = good.clone();
        bad[table_at + 4] ^= 1;
        let e = SeekTable::read(&mut Cursor::new(&bad)).unwrap_err();
        assert!(
            matches!(e, SeekTableError::FrameSize { expected: 17, .. }),
            "{e}"
        );
        let mut bad = good;
        bad[table_at] ^= 1;
        let e = SeekTable::read(&mut Cursor::new(&bad)).unwrap_err();
        assert!(matches!(e, SeekTableError::Magic { .. }), "{e}");
        assert!(e.to_string().contains(&format!("byte {table_at}")));
    }

    #[test]
    fn the_frame_reader_gives_the_data_for_every_job_count() {
        let parts: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; 100 + usize::from(i)]).collect();
        let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
        let file = seekable(&refs, 300);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.zst");
        std::fs::write(&path, &file).unwrap();
        let t = SeekTable::read(&mut File::open(&path).unwrap())
            .unwrap()
            .unwrap();
        assert!(t.frames.len() > 10);
        let all = parts.concat();
        for jobs in [1, 2, 5] {
            let mut got = Vec::new();
            FrameReader::new(File::open(&path).unwrap(), &t, 0, jobs)
                .read_to_end(&mut got)
                .unwrap();
            assert_eq!(got, all);
            let mut tail = Vec::new();
            FrameReader::new(File::open(&path).unwrap(), &t, 3, jobs)
                .read_to_end(&mut tail)
                .unwrap();
            assert_eq!(tail, all[t.frames[3].start as usize..]);
        }
        // A frame whose size the table misstates.
        let mut lying = t.clone();
        lying.frames[1].decompressed += 1;
        let mut got = Vec::new();
        let e = FrameReader::new(File::open(&path).unwrap(), &lying, 0, 2)
            .read_to_end(&mut got)
            .unwrap_err();
        assert!(e.to_string().contains("zstd frame 2"), "{e}");
    }
}
