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

/// The corpus directory, or `None` (after printing why) when it is absent;
/// a failure instead when `PGC_REQUIRE_CORPUS` is set.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PGC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"));
    if dir.join("MANIFEST.md").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("PGC_REQUIRE_CORPUS").is_none(),
        "corpus not found at {} (set PGC_CORPUS)",
        dir.display()
    );
    eprintln!(
        "skipping: corpus not found at {} (set PGC_CORPUS)",
        dir.display()
    );
    None
}

/// A fresh directory, removed at the end.
pub struct Tmp(pub PathBuf);

impl Tmp {
    pub fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!("pgc-cli-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        Tmp(p)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
