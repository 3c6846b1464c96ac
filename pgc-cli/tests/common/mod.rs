//! What the end-to-end tests of the `pgc` binary share: starting it, feeding
//! it stdin, reading its output. Each test crate uses a part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The built `pgc` binary, not started yet.
pub fn pgc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgc"))
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `pgc args…` with `stdin` and returns its output. The command may
/// stop reading stdin early (an error, or a command that reads files): a
/// broken pipe while feeding it is not a failure.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = pgc()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pgc");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = feeder.join();
    out
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
