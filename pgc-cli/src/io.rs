//! Inputs and outputs.
//!
//! - `-` or no file is stdin/stdout.
//! - Inputs compressed with zstd, gzip or bzip2 are recognised by their magic
//!   bytes (whatever their name) and decompressed; concatenated frames or
//!   members are all read, so `cat a.pgc.zst b.pgc.zst` works. A regular
//!   file in zstd's seekable format can also be read frame by frame, from
//!   any frame, on several threads ([`Input::open_seekable`]).
//! - The data is then sniffed: PGC or PGN text ([`Format`]). `.pgc` is also
//!   used by other programs, so the name alone decides nothing.
//! - An output file is written to an unnamed temporary file (`O_TMPFILE`)
//!   in the target's directory, made durable and linked into place only at
//!   the end ([`Output::commit`]); on any error, or if the process dies
//!   (even by `kill -9`), the target is untouched and nothing is left
//!   behind. Where the file system has no `O_TMPFILE`, a named temporary
//!   file takes its place (removed on errors and on SIGINT/SIGTERM). An
//!   existing output is kept unless `--force`, and an output is never one
//!   of the inputs.
//! - An output that is not a regular file (a device, a FIFO, `/dev/stdout`,
//!   `/dev/fd/N`, `/proc/self/fd/N`, or a link to one) is written in place.
//! - Outputs ending in `.zst`, `.gz` or `.bz2` are compressed; a `.zst`
//!   output is written in zstd's seekable format ([`seekable`]), its frames
//!   ending where the command says a game ends ([`Sink::put_games`]).

pub mod frame_index;
pub mod seekable;

use crate::error::{Damage, Error, Result};
use crate::syncer::Syncer;
use std::fs::File;
use std::io::{self, BufWriter, Cursor, IsTerminal, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use pgn_bridge::sniff::{self, SNIFF};
pub use pgn_bridge::sniff::{Format, sniff};

/// The UTF-16 encoding `head` is in, if it looks like UTF-16 text: a byte
/// order mark, or (without one) mostly ASCII characters each paired with a
/// zero byte.
fn utf16(head: &[u8]) -> Option<&'static str> {
    match head {
        [0xff, 0xfe, ..] => return Some("UTF-16LE"),
        [0xfe, 0xff, ..] => return Some("UTF-16BE"),
        _ => {}
    }
    let text = |c: u8| matches!(c, b'\t' | b'\n' | b'\r' | 0x20..=0x7e);
    let (mut pairs, mut le, mut be) = (0, 0, 0);
    for p in head.chunks_exact(2).take(256) {
        pairs += 1;
        le += usize::from(p[1] == 0 && text(p[0]));
        be += usize::from(p[0] == 0 && text(p[1]));
    }
    if pairs < 2 {
        None
    } else if le * 4 >= pairs * 3 {
        Some("UTF-16LE")
    } else if be * 4 >= pairs * 3 {
        Some("UTF-16BE")
    } else {
        None
    }
}

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

fn is_stdio(p: &Path) -> bool {
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
    fn identity(&self) -> Option<FileId> {
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

    fn open_with(&self, keep_damage: bool) -> Result<Opened> {
        let raw: Box<dyn Read> = match &self.path {
            None => Box::new(io::stdin().lock()),
            Some(p) => {
                if p.is_dir() {
                    return Err(Error::Usage(format!(
                        "{}: is a directory; give a file",
                        self.name
                    )));
                }
                let f = File::open(p).map_err(|e| {
                    Error::Io(format!("{}: cannot open: {e}; check the path", self.name))
                })?;
                Box::new(io::BufReader::with_capacity(256 << 10, f))
            }
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
        if let Some(encoding) = utf16(&head) {
            return Err(Error::Usage(format!(
                "{}: is {encoding} text; pgc reads PGN in UTF-8 (or Latin-1): convert it \
                 first, e.g. `iconv -f {encoding} -t UTF-8`",
                self.name
            )));
        }
        Ok(Opened {
            reader: data,
            format: sniff(&head),
            damage,
        })
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
            if sniff(&head) == Format::Pgn {
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
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
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

/// Whether `p` is, or leads through symbolic links to, an alias of an open
/// file descriptor: an entry of a `/proc/PID/fd` directory (`/dev/stdout`,
/// `/dev/fd/N` and `/proc/self/fd/N` all lead there). Such a name is
/// written in place: renaming a file over it would replace the link, not
/// write to the descriptor.
fn names_a_descriptor(p: &Path) -> bool {
    let mut cur = p.to_path_buf();
    // The kernel follows at most 40 links.
    for _ in 0..40 {
        let dir = match cur.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if let Ok(dir) = dir.canonicalize() {
            let mut parts = dir.components().skip(1);
            let proc_fd = parts.next().is_some_and(|c| c.as_os_str() == "proc")
                && parts.next().is_some()
                && match parts.next() {
                    Some(c) if c.as_os_str() == "fd" => parts.next().is_none(),
                    // /proc/PID/task/TID/fd
                    Some(c) if c.as_os_str() == "task" => {
                        parts.next().is_some()
                            && parts.next().is_some_and(|c| c.as_os_str() == "fd")
                            && parts.next().is_none()
                    }
                    _ => false,
                };
            if proc_fd {
                return true;
            }
        }
        match std::fs::read_link(&cur) {
            Ok(next) => cur = dir.join(next),
            Err(_) => return false,
        }
    }
    false
}

/// A file's device and inode number.
type FileId = (u64, u64);

/// The [`FileId`] of a file.
fn identity(meta: &std::fs::Metadata) -> FileId {
    (meta.dev(), meta.ino())
}

/// Whether `p` names stdout.
pub fn is_stdout(p: Option<&Path>) -> bool {
    p.is_none_or(is_stdio)
}

/// An output: stdout, or a temporary file renamed over the target by
/// [`Output::commit`]. Dropping an uncommitted output removes the temporary
/// file.
pub struct Output {
    name: String,
    target: Target,
}

enum Target {
    Stdout,
    /// Not a regular file: a device or FIFO (`/dev/null`, `/dev/full`, a
    /// named pipe), or a name of an open descriptor (`/dev/stdout`,
    /// `/dev/fd/N`, `/proc/self/fd/N`), maybe through links: written in
    /// place (appending), since a rename would replace the name itself.
    Device(File),
    File {
        path: PathBuf,
        /// The directory of `path`.
        dir: PathBuf,
        tmp: Temp,
        force: bool,
        /// No other output of this process writes `path` meanwhile.
        _claim: Claim,
    },
}

/// The regular files that outputs of this process are writing: the
/// canonical directory joined with the name, and the device and inode of
/// a file that exists.
static CLAIMS: std::sync::Mutex<Vec<(PathBuf, Option<FileId>)>> = std::sync::Mutex::new(Vec::new());

/// An output's hold on its target file, released when dropped: two
/// outputs of one run (`-o`, `--rejects`, `--strict-report`) cannot name
/// the same file, however spelled.
struct Claim {
    key: PathBuf,
}

impl Claim {
    /// Claims `path`; `None` if another output holds it.
    fn new(path: &Path) -> Option<Claim> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let key = match (dir.canonicalize(), path.file_name()) {
            (Ok(d), Some(f)) => d.join(f),
            _ => path.to_path_buf(),
        };
        let id = std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| identity(&m));
        let mut claims = CLAIMS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if claims
            .iter()
            .any(|(k, i)| *k == key || (id.is_some() && *i == id))
        {
            return None;
        }
        claims.push((key.clone(), id));
        Some(Claim { key })
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut claims = CLAIMS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = claims.iter().position(|(k, _)| *k == self.key) {
            claims.remove(i);
        }
    }
}

/// The temporary file an output is written to.
enum Temp {
    /// An unnamed file (`O_TMPFILE`): a killed process leaves nothing.
    Unnamed(File),
    /// A named file, where the file system refuses `O_TMPFILE`.
    Named(tempfile::NamedTempFile),
}

impl Temp {
    fn file(&self) -> &File {
        match self {
            Temp::Unnamed(f) => f,
            Temp::Named(t) => t.as_file(),
        }
    }
}

/// Opens an unnamed regular file in `dir`, mode 0666 minus the umask.
fn open_unnamed(dir: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        dir,
        OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?;
    Ok(File::from(fd))
}

/// Gives the unnamed `file` the name `dest` (which must not exist).
fn link_unnamed(file: &File, dest: &Path) -> io::Result<()> {
    use rustix::fs::{AtFlags, CWD, linkat};
    use std::os::fd::AsRawFd;
    let by_proc = format!("/proc/self/fd/{}", file.as_raw_fd());
    match linkat(CWD, by_proc.as_str(), CWD, dest, AtFlags::SYMLINK_FOLLOW) {
        // No /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH before Linux 6.10).
        Err(e) if e == rustix::io::Errno::NOENT && !Path::new("/proc/self/fd").exists() => {
            Ok(linkat(file, "", CWD, dest, AtFlags::EMPTY_PATH)?)
        }
        r => Ok(r?),
    }
}

/// A name for a temporary file in `dir`: short (the target's name may
/// already be near the 255-byte limit) and unlikely to exist.
fn temp_name(dir: &Path) -> PathBuf {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    dir.join(format!(".pgc.{:012x}.tmp", h.finish() & 0xffff_ffff_ffff))
}

/// Makes the entries of `dir` durable (after a rename or a link into it).
fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir).and_then(|d| d.sync_all()) {
        // Some file systems cannot sync a directory.
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
        r => r,
    }
}

/// Which compression an output name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    Zstd,
    Gzip,
    Bzip2,
}

fn compression_of(p: &Path) -> Compression {
    match p.extension().and_then(|e| e.to_str()) {
        Some("zst") => Compression::Zstd,
        Some("gz") => Compression::Gzip,
        Some("bz2") => Compression::Bzip2,
        _ => Compression::None,
    }
}

/// The decompressed bytes after which a seekable `.zst` output ends a
/// frame at the next game boundary: [`seekable::FRAME_BYTES`], or the
/// environment variable `PGC_ZSTD_FRAME_BYTES` (at least 1024; for tests and
/// experiments with the frame size).
fn frame_bytes() -> usize {
    std::env::var("PGC_ZSTD_FRAME_BYTES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(seekable::FRAME_BYTES, |n| n.max(1024))
}

impl Output {
    /// Prepares an output: `None` or `-` is stdout; a device, a FIFO or a
    /// descriptor's name is opened to be written in place; a regular file
    /// must not be one of `inputs`, nor exist (unless `force`), nor be the
    /// target of another output, and its temporary file is created now, in
    /// its directory, so that a bad directory fails before any work.
    ///
    /// # Errors
    /// Usage errors (the output is an input, exists, is a directory, is
    /// another output's) and I/O.
    pub fn create(path: Option<&Path>, force: bool, inputs: &[Input]) -> Result<Output> {
        let Some(path) = path.filter(|p| !is_stdio(p)) else {
            return Ok(Output {
                name: "-".into(),
                target: Target::Stdout,
            });
        };
        let name = path.display().to_string();
        // The same device and inode: the same file whatever the names
        // (another spelling, a symbolic or hard link, a bind mount). Devices
        // and pipes are not data that an output could destroy.
        if let Ok(meta) = std::fs::metadata(path)
            && meta.is_file()
            && inputs.iter().any(|i| i.identity() == Some(identity(&meta)))
        {
            return Err(Error::Usage(format!(
                "{name} is also an input; write the output to another file"
            )));
        }
        if path.is_dir() {
            return Err(Error::Usage(format!(
                "{name} is a directory; give an output file name"
            )));
        }
        if names_a_descriptor(path) || std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            // Appending: through `/dev/stdout` to a file the shell opened,
            // what is already there (`{ echo x; pgc … -o /dev/stdout; } > f`)
            // stays; on a device or a pipe it makes no difference.
            let f = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| Error::Io(format!("{name}: cannot open for writing: {e}")))?;
            return Ok(Output {
                name,
                target: Target::Device(f),
            });
        }
        if path.exists() && !force {
            return Err(Error::Usage(format!(
                "{name} exists; use --force to overwrite"
            )));
        }
        let claim = Claim::new(path).ok_or_else(|| {
            Error::Usage(format!(
                "{name} is named by two outputs (-o, --rejects, --strict-report); \
                 give each its own file"
            ))
        })?;
        Output::to_file(path, name, force, claim, true)
    }

    /// An output to the regular file `path`, through an unnamed temporary
    /// file if `unnamed` and the file system allows, else a named one.
    fn to_file(
        path: &Path,
        name: String,
        force: bool,
        claim: Claim,
        unnamed: bool,
    ) -> Result<Output> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // 0666 minus the umask, as other tools create files (the mode is
        // given to open(2), which applies the umask).
        let tmp = match unnamed.then(|| open_unnamed(&dir)) {
            Some(Ok(f)) => Temp::Unnamed(f),
            // O_TMPFILE refused (EOPNOTSUPP, EISDIR, EINVAL on some file
            // systems): a named file; if the directory itself is the
            // trouble, this fails too and says so.
            _ => {
                // A short name: the target's may be near the 255-byte limit.
                let tmp = tempfile::Builder::new()
                    .prefix(".pgc.")
                    .suffix(".tmp")
                    .permissions(std::fs::Permissions::from_mode(0o666))
                    .tempfile_in(&dir)
                    .map_err(|e| {
                        Error::Io(format!(
                            "{name}: cannot create a temporary file in {}: {e}; \
                             check that the directory exists and is writable",
                            dir.display()
                        ))
                    })?;
                register_temp(tmp.path());
                Temp::Named(tmp)
            }
        };
        Ok(Output {
            name,
            target: Target::File {
                path: path.to_path_buf(),
                dir,
                tmp,
                force,
                _claim: claim,
            },
        })
    }

    /// The name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether this is a terminal (for refusing binary output there).
    pub fn is_terminal(&self) -> bool {
        matches!(self.target, Target::Stdout) && io::stdout().is_terminal()
    }

    /// The writer for the data, compressing as the name asks.
    ///
    /// # Errors
    /// I/O.
    pub fn sink(&self) -> Result<Sink> {
        self.sink_with(true)
    }

    /// The writer for data that is already in its final form (compressed
    /// frames copied as they are): never compressed, whatever the name.
    ///
    /// # Errors
    /// I/O.
    pub fn raw_sink(&self) -> Result<Sink> {
        self.sink_with(false)
    }

    fn sink_with(&self, compress: bool) -> Result<Sink> {
        let mut syncer = None;
        let (base, compression): (Box<dyn Write>, Compression) = match &self.target {
            Target::Stdout => (Box::new(io::stdout()), Compression::None),
            Target::Device(f) => (
                Box::new(f.try_clone().map_err(|e| Error::io(&self.name, &e))?),
                Compression::None,
            ),
            Target::File { path, tmp, .. } => {
                let f = tmp
                    .file()
                    .try_clone()
                    .map_err(|e| Error::io(&self.name, &e))?;
                syncer = f.try_clone().ok().and_then(Syncer::start);
                let c = if compress {
                    compression_of(path)
                } else {
                    Compression::None
                };
                (Box::new(f), c)
            }
        };
        // Batches put their output whole, and `BufWriter` hands a write at
        // least its capacity long straight to the file: with 64 KiB, the
        // output of a batch (hundreds of KiB) is not copied once more.
        let buf = BufWriter::with_capacity(64 << 10, base);
        let kind = match compression {
            Compression::None => SinkKind::Plain(buf),
            Compression::Zstd => SinkKind::Zstd(
                seekable::SeekableWriter::with_frame_bytes(buf, 0, frame_bytes())
                    .map_err(|e| Error::io(&self.name, &e))?,
            ),
            Compression::Gzip => SinkKind::Gzip(flate2::write::GzEncoder::new(
                buf,
                flate2::Compression::default(),
            )),
            Compression::Bzip2 => SinkKind::Bzip2(bzip2::write::BzEncoder::new(
                buf,
                bzip2::Compression::default(),
            )),
        };
        Ok(Sink {
            kind,
            name: self.name.clone(),
            written: 0,
            syncer,
        })
    }

    /// Makes the output visible: syncs the temporary file (most of it was
    /// flushed while it was written, see [`crate::syncer`]), puts it in
    /// place of the target (refusing to replace a file that appeared
    /// meanwhile unless `--force`) and syncs the directory, so that the new
    /// name survives a crash. Call after [`Sink::finish`].
    ///
    /// An unnamed file is linked to the target's name; to replace a file
    /// (`--force`), as a link cannot, it is linked to a temporary name and
    /// renamed over the target, so the target is replaced at once.
    ///
    /// # Errors
    /// I/O, or the target appeared while we worked.
    pub fn commit(self) -> Result<()> {
        let name = self.name;
        let Target::File {
            path,
            dir,
            tmp,
            force,
            _claim,
        } = self.target
        else {
            return Ok(());
        };
        let appeared = || {
            Error::Usage(format!(
                "{name} appeared while pgc was writing it; use --force to overwrite"
            ))
        };
        let io_err = |what: &str, e: &io::Error| Error::Io(format!("{name}: {what}: {e}"));
        keep_mode(tmp.file(), &path).map_err(|e| Error::io(&name, &e))?;
        tmp.file().sync_all().map_err(|e| Error::io(&name, &e))?;
        match tmp {
            Temp::Unnamed(file) if !force => {
                link_unnamed(&file, &path).map_err(|e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        appeared()
                    } else {
                        io_err("cannot link the output into place", &e)
                    }
                })?;
            }
            // With --force and no target (the common case), linking is
            // enough.
            Temp::Unnamed(file) if !path.exists() && link_unnamed(&file, &path).is_ok() => {}
            Temp::Unnamed(file) => {
                let mut tries = 0;
                let temp_path = loop {
                    let candidate = temp_name(&dir);
                    match link_unnamed(&file, &candidate) {
                        Ok(()) => break candidate,
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => {
                            tries += 1;
                        }
                        Err(e) => return Err(io_err("cannot link the output into place", &e)),
                    }
                };
                register_temp(&temp_path);
                let renamed = std::fs::rename(&temp_path, &path);
                if renamed.is_err() {
                    // Best effort: the error below is what matters.
                    let _ = std::fs::remove_file(&temp_path);
                }
                unregister_temp(&temp_path);
                renamed.map_err(|e| io_err("cannot rename the temporary file", &e))?;
            }
            Temp::Named(tmp) => {
                let temp_path = tmp.path().to_path_buf();
                let done = if force {
                    tmp.persist(&path)
                } else {
                    tmp.persist_noclobber(&path)
                };
                unregister_temp(&temp_path);
                done.map_err(|e| {
                    if e.error.kind() == io::ErrorKind::AlreadyExists {
                        appeared()
                    } else {
                        io_err("cannot rename the temporary file", &e.error)
                    }
                })?;
            }
        }
        sync_dir(&dir).map_err(|e| io_err("cannot sync its directory", &e))
    }
}

/// Gives `file` the mode of the regular file at `target`, if there is one
/// (the file it is about to replace, with `--force`).
fn keep_mode(file: &File, target: &Path) -> io::Result<()> {
    match std::fs::metadata(target) {
        Ok(old) if old.is_file() => file.set_permissions(old.permissions()),
        _ => Ok(()),
    }
}

enum SinkKind {
    Plain(BufWriter<Box<dyn Write>>),
    Zstd(seekable::SeekableWriter<BufWriter<Box<dyn Write>>>),
    Gzip(flate2::write::GzEncoder<BufWriter<Box<dyn Write>>>),
    Bzip2(bzip2::write::BzEncoder<BufWriter<Box<dyn Write>>>),
}

/// The data writer of an [`Output`]. Call [`Sink::finish`] at the end so
/// that no write error is lost in a `Drop`.
pub struct Sink {
    kind: SinkKind,
    name: String,
    written: u64,
    /// Flushes a file output to disk as it grows.
    syncer: Option<Syncer>,
}

impl Sink {
    /// The output's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes written so far, before compression.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Writes `bytes`.
    ///
    /// # Errors
    /// I/O (a broken pipe becomes [`Error::BrokenPipe`]).
    pub fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.write_all(bytes).map_err(|e| Error::io(&self.name, &e))
    }

    /// Writes `bytes`, which end at a game boundary: a seekable `.zst`
    /// output may end a frame after them.
    ///
    /// # Errors
    /// I/O (a broken pipe becomes [`Error::BrokenPipe`]).
    pub fn put_games(&mut self, bytes: &[u8]) -> Result<()> {
        self.put(bytes)?;
        match &mut self.kind {
            SinkKind::Zstd(w) => w.boundary().map_err(|e| Error::io(&self.name, &e)),
            _ => Ok(()),
        }
    }

    /// Ends compression and flushes everything.
    ///
    /// # Errors
    /// I/O.
    pub fn finish(self) -> Result<()> {
        let name = self.name;
        let err = |e: io::Error| Error::io(&name, &e);
        let buf = match self.kind {
            SinkKind::Plain(b) => b,
            SinkKind::Zstd(z) => z.finish().map_err(err)?,
            SinkKind::Gzip(g) => g.finish().map_err(err)?,
            SinkKind::Bzip2(b) => b.finish().map_err(err)?,
        };
        let mut inner = buf.into_inner().map_err(|e| err(e.into_error()))?;
        inner.flush().map_err(err)?;
        match self.syncer {
            Some(s) => s.finish().map_err(err),
            None => Ok(()),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = match &mut self.kind {
            SinkKind::Plain(w) => w.write(buf)?,
            SinkKind::Zstd(w) => w.write(buf)?,
            SinkKind::Gzip(w) => w.write(buf)?,
            SinkKind::Bzip2(w) => w.write(buf)?,
        };
        self.written += n as u64;
        if let Some(s) = &mut self.syncer {
            s.poke(self.written);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.kind {
            SinkKind::Plain(w) => w.flush(),
            SinkKind::Zstd(w) => w.flush(),
            SinkKind::Gzip(w) => w.flush(),
            SinkKind::Bzip2(w) => w.flush(),
        }
    }
}

/// Checks that an output is not a terminal when it would get binary data.
///
/// # Errors
/// A usage error naming what to do.
pub fn refuse_binary_terminal(out: &Output) -> Result<()> {
    if out.is_terminal() {
        return Err(Error::Usage(
            "refusing to write binary PGC to a terminal; use -o FILE or redirect stdout".into(),
        ));
    }
    Ok(())
}

/// Temporary outputs of this process, removed by [`remove_temps`] when the
/// process is interrupted (a `Drop` does not run on a signal).
static TEMPS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn register_temp(p: &Path) {
    if let Ok(mut t) = TEMPS.lock() {
        t.push(p.to_path_buf());
    }
}

fn unregister_temp(p: &Path) {
    if let Ok(mut t) = TEMPS.lock() {
        t.retain(|x| x != p);
    }
}

/// Removes every temporary output still registered (on SIGINT or SIGTERM),
/// so that an interrupted run leaves no partial file behind.
pub fn remove_temps() {
    if let Ok(t) = TEMPS.lock() {
        for p in t.iter() {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests of outputs share the process's claims (and a file they
    /// remove may hand its inode to a file of the other): one at a time.
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The fallback where a file system has no O_TMPFILE: a named temporary
    /// file with a short name, so that a 254-byte target works, created
    /// with the mode other tools give (0666 minus the umask).
    #[test]
    fn a_named_temporary_file_serves_a_long_name() {
        let _serial = SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let d = tempfile::tempdir().unwrap();
        let name = format!("{}.pgc", "n".repeat(250));
        let path = d.path().join(&name);
        let reference = d.path().join("ref");
        File::create(&reference).unwrap();
        let want_mode = std::fs::metadata(&reference).unwrap().permissions().mode();
        std::fs::remove_file(&reference).unwrap();
        for (force, data) in [(false, b"first"), (true, b"again")] {
            let claim = Claim::new(&path).unwrap();
            let out = Output::to_file(&path, name.clone(), force, claim, false).unwrap();
            assert!(matches!(
                &out.target,
                Target::File {
                    tmp: Temp::Named(_),
                    ..
                }
            ));
            let mut sink = out.sink().unwrap();
            sink.put(data).unwrap();
            sink.finish().unwrap();
            out.commit().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), data);
            assert_eq!(names(d.path()), std::slice::from_ref(&name));
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode, want_mode);
        }
    }

    #[test]
    fn two_outputs_cannot_claim_one_file() {
        let _serial = SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        let first = Claim::new(&a).unwrap();
        assert!(Claim::new(&d.path().join(".").join("a")).is_none());
        std::fs::write(&a, b"x").unwrap();
        let b = d.path().join("b");
        std::fs::hard_link(&a, &b).unwrap();
        // A new claim records the file's identity: a hard link is the same.
        drop(first);
        let first = Claim::new(&a).unwrap();
        assert!(Claim::new(&b).is_none());
        drop(first);
        assert!(Claim::new(&b).is_some());
    }

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

    #[test]
    fn recognises_utf16() {
        let le: Vec<u8> = "[Event \"x\"]\n".bytes().flat_map(|b| [b, 0]).collect();
        let be: Vec<u8> = "[Event \"x\"]\n".bytes().flat_map(|b| [0, b]).collect();
        assert_eq!(utf16(&le), Some("UTF-16LE"));
        assert_eq!(utf16(&be), Some("UTF-16BE"));
        assert_eq!(utf16(&[&[0xff, 0xfe][..], &le].concat()), Some("UTF-16LE"));
        assert_eq!(utf16(&[&[0xfe, 0xff][..], &be].concat()), Some("UTF-16BE"));
        assert_eq!(utf16(b"[Event \"x\"]\n"), None);
        assert_eq!(utf16(&[0x05, 0x02, 0x05, 0x00, 0x00, 0x00]), None);
        assert_eq!(utf16(&[0, 0, 0, 0, 0, 0]), None);
        assert_eq!(utf16(b"\x0a\x05\x00hello\x05\x06"), None);
    }
}
