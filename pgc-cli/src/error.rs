//! The command's errors, split by who is to blame, each mapped to an exit
//! code by `main`.

use std::fmt;
use std::io;

/// How a command ended when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything went through: exit 0.
    Ok,
    /// The command ran but rejected games or found problems: exit 1.
    Problems,
}

/// A failed command. The message is one line, without the `pgc:` prefix.
#[derive(Debug)]
pub enum Error {
    /// Bad flags, a wrong input format, an output that exists: exit 2.
    Usage(String),
    /// Reading or writing failed: exit 2.
    Io(String),
    /// The input data is at fault (invalid PGC, a game over a limit): exit 1.
    Data(String),
    /// The reader of our stdout went away (`pgc decode x.pgc | head`): exit 0,
    /// no message.
    BrokenPipe,
}

impl Error {
    /// An I/O error about `what` (a file name), or [`Error::BrokenPipe`];
    /// damaged compressed input ([`Damage`]) is [`Error::Data`].
    pub fn io(what: &str, e: &io::Error) -> Error {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Error::BrokenPipe;
        }
        if Error::is_damage(e) {
            return Error::Data(format!("{what}: {e}"));
        }
        Error::Io(format!("{what}: {e}"))
    }

    /// Whether `e` reports damaged compressed data (a [`Damage`]): a fault
    /// of the data, not of reading it.
    pub fn is_damage(e: &io::Error) -> bool {
        e.get_ref().is_some_and(|inner| inner.is::<Damage>())
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) | Error::Io(_) => 2,
            Error::Data(_) => 1,
            Error::BrokenPipe => 0,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Io(m) | Error::Data(m) => f.write_str(m),
            Error::BrokenPipe => f.write_str("broken pipe"),
        }
    }
}

/// The result of a command.
pub type Result<T> = std::result::Result<T, Error>;

/// Where a compressed input turned out to be damaged (truncated or
/// corrupted) and what the decompressor said.
#[derive(Debug)]
pub struct Damage {
    /// `zstd`, `gzip` or `bzip2`.
    pub compression: &'static str,
    /// Compressed bytes handed to the decompressor when it failed: the
    /// damage lies before this offset of the file.
    pub compressed: u64,
    /// Decompressed bytes read correctly before the failure.
    pub decompressed: u64,
    /// The decompressor's error.
    pub error: io::Error,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} data is damaged before compressed byte {}, after {} good decompressed \
             bytes ({})",
            self.compression, self.compressed, self.decompressed, self.error
        )
    }
}

impl std::error::Error for Damage {}
