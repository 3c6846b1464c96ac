//! Outputs: written atomically ([`Output`]), and the sink that compresses
//! them ([`Sink`]).

use super::input::{FileId, Input, identity, is_stdio};
use super::seekable;
use crate::error::{Error, Result};
use crate::syncer::Syncer;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

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

/// Whether `p` names stdout.
pub fn is_stdout(p: Option<&Path>) -> bool {
    p.is_none_or(is_stdio)
}

/// Whether an output named `p` (`None`: none given) is written to this
/// process's stdout: `-`, no name, or a name of the descriptor stdout is
/// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, through links).
fn writes_to_stdout(p: Option<&Path>) -> bool {
    use std::os::fd::AsFd;
    let Some(p) = p.filter(|p| !is_stdio(p)) else {
        return true;
    };
    if !names_a_descriptor(p) {
        return false;
    }
    let stdout = io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata());
    match (std::fs::metadata(p), stdout) {
        (Ok(a), Ok(b)) => identity(&a) == identity(&b),
        _ => false,
    }
}

/// Refuses a second output of the run (`flag`, naming `path`) that would
/// go to stdout when the output (`-o`, naming `output`) goes there too: the
/// two would be mixed. `--rejects -` is stdout when `-o` names a file.
///
/// # Errors
/// A usage error naming both flags.
pub fn refuse_two_on_stdout(flag: &str, path: &Path, output: Option<&Path>) -> Result<()> {
    if !writes_to_stdout(Some(path)) || !writes_to_stdout(output) {
        return Ok(());
    }
    let out = match output {
        None => "no -o".to_string(),
        Some(o) => format!("-o {}", o.display()),
    };
    Err(Error::Usage(format!(
        "{flag} {} and the output ({out}) would both go to stdout; give {flag} a file \
         name, or -o an output file",
        path.display()
    )))
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
}
