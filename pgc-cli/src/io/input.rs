//! Inputs: opened, decompressed and sniffed ([`Input`]).

use super::{frame_index, seekable};
use crate::error::{Damage, Error, Result};
use pgn_bridge::sniff::{self, Format, SNIFF, sniff};
use std::fs::File;
use std::io::{self, Cursor, Read};
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One input: a file or stdin.
#[derive(Debug, Clone)]
pub struct Input {
    /// The name used in messages (`-` for stdin).
    pub name: String,
    path: Option<PathBuf>,
}

/// An opened input: the decompressed data and its format.
pub struct Opened {
    /// The data.
    pub reader: Box<dyn Read>,
    /// What the data looks like.
    pub format: Format,
    /// With [`Input::open_keeping_damage`] and a compressed input: where
    /// the decompression failed, if it did.
    pub damage: Option<DamageWatch>,
}

/// Shared view of a [`Damage`] that a [`Guarded`] reader may record.
#[derive(Debug, Clone, Default)]
pub struct DamageWatch(std::sync::Arc<std::sync::Mutex<Option<Damage>>>);

impl DamageWatch {
    /// Where the good decompressed data ends, once the decompression has
    /// failed.
    pub fn end(&self) -> Option<u64> {
        self.0
            .lock()
            .ok()
            .and_then(|d| d.as_ref().map(|d| d.decompressed))
    }

    /// The damage, once (later calls give `None`).
    pub fn take(&self) -> Option<Damage> {
        self.0.lock().ok().and_then(|mut d| d.take())
    }

    fn set(&self, d: Damage) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(d);
        }
    }
}

/// Counts the bytes read through it.
struct Counting<R> {
    inner: R,
    count: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// A decompressor whose first error is recorded in a [`DamageWatch`] and
/// turned into the end of the data, so that everything decompressed before
/// the damage is read (and kept) and the reader of the data learns from the
/// watch that the end is not a real one. Without a watch the error is
/// passed on, saying where the damage lies.
struct Guarded {
    inner: Box<dyn Read>,
    compression: &'static str,
    compressed: std::sync::Arc<std::sync::atomic::AtomicU64>,
    decompressed: u64,
    watch: Option<DamageWatch>,
    failed: bool,
}

impl Read for Guarded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failed {
            return Ok(0);
        }
        loop {
            match self.inner.read(buf) {
                Ok(n) => {
                    self.decompressed += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    let damage = Damage {
                        compression: self.compression,
                        compressed: self.compressed.load(std::sync::atomic::Ordering::Relaxed),
                        decompressed: self.decompressed,
                        error,
                    };
                    let Some(watch) = &self.watch else {
                        return Err(io::Error::new(io::ErrorKind::InvalidData, damage));
                    };
                    self.failed = true;
                    watch.set(damage);
                    return Ok(0);
                }
            }
        }
    }
}

pub(super) fn is_stdio(p: &Path) -> bool {
    p.as_os_str() == "-"
}

impl Input {
    /// The inputs named on the command line; none means stdin.
    pub fn list(paths: &[PathBuf]) -> Vec<Input> {
        if paths.is_empty() {
            return vec![Input::stdin()];
        }
        paths.iter().map(|p| Input::new(p)).collect()
    }

    /// One input (`-` is stdin).
    pub fn new(p: &Path) -> Input {
        if is_stdio(p) {
            return Input::stdin();
        }
        Input {
            name: p.display().to_string(),
            path: Some(p.to_path_buf()),
        }
    }

    fn stdin() -> Input {
        Input {
            name: "-".into(),
            path: None,
        }
    }

    /// The file's path (`None` for stdin).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The device and inode of the input (of stdin when it is a file):
    /// what makes two names, hard links or mounts one file.
    pub(super) fn identity(&self) -> Option<FileId> {
        let meta = match &self.path {
            Some(p) => std::fs::metadata(p).ok()?,
            None => {
                let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
                File::from(fd).metadata().ok()?
            }
        };
        Some(identity(&meta))
    }

    /// Says on stderr when `--games` (`range`) reached past the end of
    /// this input, which held `games` games: nothing, or only the start of
    /// the range, was read from it. Not an error: the exit status stays 0.
    pub fn note_range(&self, range: Option<crate::args::GameRange>, games: u64) {
        let Some(r) = range else { return };
        let name = &self.name;
        if r.first >= games {
            crate::progress::say(&format!(
                "warning: {name} has {games} games; --games starts at game {}, past the \
                 end: nothing was read from it",
                r.first + 1
            ));
        } else if let Some(last) = r.last
            && last >= games
        {
            crate::progress::say(&format!(
                "warning: {name} has {games} games; --games ends at game {}, past the \
                 end: games {} to {games} were read from it",
                last + 1,
                r.first + 1
            ));
        }
    }

    /// What to tell a user who gave PGN text where PGC is read.
    pub fn not_pgc(&self) -> String {
        format!(
            "{} is PGN text, not PGC; use `pgc encode` to turn it into PGC",
            self.name
        )
    }

    /// Opens an input that must be PGC (decompressed if needed).
    ///
    /// # Errors
    /// As [`Input::open`], and a usage error ([`Input::not_pgc`]) for PGN.
    pub fn open_pgc(&self) -> Result<Box<dyn Read>> {
        let opened = self.open()?;
        if opened.format == Format::Pgn {
            return Err(Error::Usage(self.not_pgc()));
        }
        Ok(opened.reader)
    }

    /// Opens the input, decompresses it if needed and sniffs its format.
    ///
    /// # Errors
    /// The file cannot be opened or read, or uses a compression that is
    /// recognised but not supported.
    pub fn open(&self) -> Result<Opened> {
        self.open_with(false)
    }

    /// [`Input::open`], but a compressed input whose decompression fails
    /// (a truncated or corrupted `.zst`, `.gz`, `.bz2`) ends there instead
    /// of failing: the data before the damage is read, and
    /// [`Opened::damage`] tells where the damage is.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub fn open_keeping_damage(&self) -> Result<Opened> {
        self.open_with(true)
    }

    /// Whether the input is a regular file: one that can be opened again
    /// and seeked in. A pipe (a FIFO, `/dev/stdin`, a bash process
    /// substitution) is read once, from its first byte.
    pub fn is_regular_file(&self) -> bool {
        self.path
            .as_deref()
            .is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
    }

    /// The input's file, opened for reading (`None` for stdin): a usage
    /// error for a directory, an I/O error naming the file otherwise.
    ///
    /// # Errors
    /// As said.
    pub fn open_file(&self) -> Result<Option<File>> {
        let Some(p) = &self.path else {
            return Ok(None);
        };
        if p.is_dir() {
            return Err(Error::Usage(format!(
                "{}: is a directory; give a file",
                self.name
            )));
        }
        File::open(p)
            .map(Some)
            .map_err(|e| Error::Io(format!("{}: cannot open: {e}; check the path", self.name)))
    }

    fn open_with(&self, keep_damage: bool) -> Result<Opened> {
        let raw: Box<dyn Read> = match self.open_file()? {
            None => Box::new(io::stdin().lock()),
            Some(f) => Box::new(io::BufReader::with_capacity(256 << 10, f)),
        };
        let (head, raw) = self.peek(raw)?;
        let compressed = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = Counting {
            inner: raw,
            count: compressed.clone(),
        };
        let mut damage = None;
        let mut guard = |inner: Box<dyn Read>, compression| -> Box<dyn Read> {
            let watch = keep_damage.then(DamageWatch::default);
            damage.clone_from(&watch);
            Box::new(Guarded {
                inner,
                compression,
                compressed: compressed.clone(),
                decompressed: 0,
                watch,
                failed: false,
            })
        };
        let data: Box<dyn Read> = match sniff::compression(&head) {
            Some(sniff::Compression::Zstd) => guard(
                Box::new(
                    zstd::stream::read::Decoder::new(counted)
                        .map_err(|e| Error::io(&self.name, &e))?,
                ),
                "zstd",
            ),
            Some(sniff::Compression::Gzip) => {
                guard(Box::new(flate2::read::MultiGzDecoder::new(counted)), "gzip")
            }
            Some(sniff::Compression::Bzip2) => {
                guard(Box::new(bzip2::read::MultiBzDecoder::new(counted)), "bzip2")
            }
            Some(other) => {
                return Err(Error::Usage(format!(
                    "{}: is {}",
                    self.name,
                    other.refusal()
                )));
            }
            None => Box::new(counted.inner),
        };
        let (head, data) = self.peek(data)?;
        if let Some(encoding) = sniff::utf16(&head) {
            return Err(Error::Usage(format!(
                "{}: is {encoding} text; pgc reads PGN in UTF-8 (or Latin-1): convert it \
                 first, e.g. `iconv -f {encoding} -t UTF-8`",
                self.name
            )));
        }
        let (format, data) = self.sniffed(&head, data)?;
        Ok(Opened {
            reader: data,
            format,
            damage,
        })
    }

    /// The format of `data`, whose first bytes are `head` ([`Input::peek`]):
    /// [`sniff()`], and when `head` is a full window of NUL bytes, what
    /// follows the run of them ([`sniff::sniff_after_nul_run`]: PGN padded
    /// with NULs, however many, is PGN). The data is given back whole.
    ///
    /// # Errors
    /// Reading past the NULs failed.
    fn sniffed(&self, head: &[u8], data: Box<dyn Read>) -> Result<(Format, Box<dyn Read>)> {
        if !sniff::is_nul_window(head) {
            return Ok((sniff(head), data));
        }
        let (nuls, after, rest) = self.past_nul_run(data)?;
        let format = sniff::sniff_after_nul_run(&after);
        let whole = io::repeat(0)
            .take(nuls)
            .chain(Cursor::new(after))
            .chain(rest);
        Ok((format, Box::new(whole)))
    }

    /// Reads the run of NUL bytes that `data` starts with: how many there
    /// are, the first bytes after them (up to [`SNIFF`]; none at the end)
    /// and the rest.
    fn past_nul_run(&self, mut data: Box<dyn Read>) -> Result<(u64, Vec<u8>, Box<dyn Read>)> {
        let failed = |e: io::Error| {
            if e.kind() == io::ErrorKind::InvalidData {
                Error::io(&self.name, &e)
            } else {
                Error::Io(format!("{}: cannot read: {e}", self.name))
            }
        };
        let mut buf = vec![0u8; 64 << 10];
        let mut nuls = 0u64;
        loop {
            let n = match data.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(failed(e)),
            };
            if n == 0 {
                return Ok((nuls, Vec::new(), data));
            }
            match buf[..n].iter().position(|&b| b != 0) {
                None => nuls += n as u64,
                Some(i) => {
                    nuls += i as u64;
                    let mut after = buf[i..n].to_vec();
                    let more = SNIFF.saturating_sub(after.len() as u64);
                    (&mut data)
                        .take(more)
                        .read_to_end(&mut after)
                        .map_err(failed)?;
                    return Ok((nuls, after, data));
                }
            }
        }
    }

    /// Opens a file in zstd's seekable format to read PGC, its frames
    /// decompressed on `jobs` threads ([`seekable::FrameReader`]); with
    /// `first` (a 0-based game number) and an up-to-date frame index (at
    /// the path `index_of` gives, see [`frame_index`]), from the frame that
    /// holds that game on. `None` when the input is not a file in the
    /// seekable format (stdin, an uncompressed file, a zstd file without a
    /// seek table): the caller reads it as a stream.
    ///
    /// # Errors
    /// A bad seek table (positioned), the input is PGN text, I/O.
    pub fn open_seekable(
        &self,
        first: Option<u64>,
        jobs: usize,
        quiet: bool,
        index_of: fn(&Path) -> PathBuf,
    ) -> Result<Option<Seeked>> {
        let Some((mut file, table)) = self.seek_table()? else {
            return Ok(None);
        };
        let (frame, games) = match first.filter(|&f| f > 0) {
            None => (0, 0),
            Some(first) => {
                let path = self.path.as_deref().map(index_of);
                match path.and_then(|p| load_frame_index(&p, &mut file, &table, quiet)) {
                    Some(idx) if first >= idx.games => {
                        // Past the last game: nothing to read.
                        return Ok(Some(Seeked {
                            reader: Box::new(io::empty()),
                            offset: table.decompressed_size(),
                            games: idx.games,
                        }));
                    }
                    Some(idx) => idx.start_for(first),
                    None => (0, 0),
                }
            }
        };
        let offset = table.frames.get(frame).map_or(0, |f| f.start);
        let mut reader: Box<dyn Read> =
            Box::new(seekable::FrameReader::new(file, &table, frame, jobs));
        if frame == 0 {
            let (head, r) = self.peek(reader)?;
            let (format, r) = self.sniffed(&head, r)?;
            if format == Format::Pgn {
                return Err(Error::Usage(self.not_pgc()));
            }
            reader = r;
        }
        Ok(Some(Seeked {
            reader,
            offset,
            games,
        }))
    }

    /// The file and its seek table, if the input is a file in zstd's
    /// seekable format.
    ///
    /// # Errors
    /// A bad seek table (positioned), I/O.
    pub fn seek_table(&self) -> Result<Option<(File, seekable::SeekTable)>> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        // Only a regular file can be seeked in (reading the head of a pipe
        // would take it from the stream); an input that cannot be opened
        // is reported by the stream's open.
        if !self.is_regular_file() {
            return Ok(None);
        }
        let Ok(mut file) = File::open(path) else {
            return Ok(None);
        };
        let mut head = [0u8; 4];
        if file.read_exact(&mut head).is_err() || !seekable::is_zstd(&head) {
            return Ok(None);
        }
        match seekable::SeekTable::read(&mut file) {
            Ok(Some(t)) => Ok(Some((file, t))),
            Ok(None) => Ok(None),
            Err(seekable::SeekTableError::Io(e)) => Err(Error::io(&self.name, &e)),
            Err(e) => Err(Error::Data(format!(
                "{}: {e}; `zstd -dc {}` still reads its frames",
                self.name, self.name
            ))),
        }
    }

    /// Reads the first bytes and gives them back in front of the rest.
    fn peek(&self, mut r: Box<dyn Read>) -> Result<(Vec<u8>, Box<dyn Read>)> {
        let mut head = Vec::with_capacity(SNIFF as usize);
        (&mut r).take(SNIFF).read_to_end(&mut head).map_err(|e| {
            if e.kind() == io::ErrorKind::InvalidData {
                Error::io(&self.name, &e)
            } else {
                Error::Io(format!("{}: cannot read: {e}", self.name))
            }
        })?;
        let again = head.clone();
        Ok((head, Box::new(Cursor::new(again).chain(r))))
    }
}

/// A seekable input opened at a frame ([`Input::open_seekable`]).
pub struct Seeked {
    /// The decompressed data from the frame on.
    pub reader: Box<dyn Read>,
    /// Offset of its first byte in the decompressed data.
    pub offset: u64,
    /// Games that begin before it.
    pub games: u64,
}

/// Loads and checks the frame index at `idx_path` of a seekable file:
/// `None` when there is none; a stale or damaged one is reported (unless
/// `quiet`) and ignored.
fn load_frame_index(
    idx_path: &Path,
    file: &mut File,
    table: &seekable::SeekTable,
    quiet: bool,
) -> Option<frame_index::FrameIndex> {
    let bytes = std::fs::read(idx_path).ok()?;
    let checked = frame_index::FrameIndex::from_bytes(&bytes)
        .and_then(|idx| idx.check(file, table).map(|()| idx));
    match checked {
        Ok(idx) => Some(idx),
        Err(e) => {
            if !quiet {
                let why = match e {
                    pgc_core::IndexError::Stale => {
                        "is stale (the file changed); scanning instead; run `pgc index` again"
                            .to_string()
                    }
                    other => format!("is not usable ({other}); scanning instead"),
                };
                crate::progress::say(&format!("{} {why}", idx_path.display()));
            }
            None
        }
    }
}

/// A file's device and inode number.
pub(super) type FileId = (u64, u64);

/// The [`FileId`] of a file.
pub(super) fn identity(meta: &std::fs::Metadata) -> FileId {
    (meta.dev(), meta.ino())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_formats() {
        assert_eq!(sniff(b""), Format::Empty);
        assert_eq!(sniff(b"[Event \"x\"]\n"), Format::Pgn);
        assert_eq!(sniff(b"\n\n[Event \"x\"]\n"), Format::Pgn);
        assert_eq!(sniff(b"\xef\xbb\xbf[Event"), Format::Pgn);
        assert_eq!(sniff(b"1. e4 e5 *"), Format::Pgn);
        assert_eq!(sniff(&[0x05, 0x02, 5]), Format::Pgc);
        assert_eq!(sniff(&[0x01, 0, 0]), Format::Pgc);
        assert_eq!(sniff(&[0x80, 1, 0]), Format::Pgc);
        // An escape string first: 0x0a, a little-endian length, text.
        assert_eq!(sniff(b"\x0a\x05\x00hello\x05\x06"), Format::Pgc);
        assert_eq!(sniff(b"\x0a\x05\x00hello"), Format::Pgc);
        // A long one whose length bytes are spaces (8224 bytes of text).
        let mut long = b"\x0a\x20\x20".to_vec();
        long.extend(std::iter::repeat_n(b'a', 0x2020));
        long.extend_from_slice(&[0x05, 0x06]);
        assert_eq!(sniff(&long), Format::Pgc);
        // Records after it must frame as well.
        long.extend_from_slice(&[0x05, 0x02]);
        assert_eq!(sniff(&long), Format::Pgn, "a truncated record after it");
        long.truncate(3 + 0x2020 - 1);
        assert_eq!(sniff(&long), Format::Pgn, "a truncated escape is not PGC");
        // A leading newline, then a control byte in a comment: PGN.
        assert_eq!(sniff(b"\n[Event \"a\"]\n\n1. e4 {x\x01y} *"), Format::Pgn);
        assert_eq!(sniff(b"\n\n[Event \"x\"]\n"), Format::Pgn);
        assert_eq!(sniff(b"\t1. e4 *\n"), Format::Pgn);
        // Random bytes are not text.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let mut random = random;
        random[0] = b'Q';
        assert_eq!(sniff(&random), Format::Pgc);
    }
}
