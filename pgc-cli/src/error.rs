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
    /// data that cannot be read as what it claims to be (`InvalidData`,
    /// such as damaged compressed input) is [`Error::Data`].
    pub fn io(what: &str, e: &io::Error) -> Error {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Error::BrokenPipe;
        }
        if e.kind() == io::ErrorKind::InvalidData {
            return Error::Data(format!("{what}: {e}"));
        }
        Error::Io(format!("{what}: {e}"))
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
