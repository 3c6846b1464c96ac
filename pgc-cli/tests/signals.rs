//! SIGINT and SIGKILL in the middle of a large run: no partial output, no
//! temporary file left behind (SIGINT), exit code 2 and a message (SIGINT),
//! and the input untouched.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;
use common::pgc;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgc-signals-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// A PGN input large enough that encoding it takes a while: the opera game
/// sample repeated.
fn big_input(dir: &Path) -> PathBuf {
    let sample = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/opera.pgn"))
        .expect("samples/opera.pgn");
    let mut data = Vec::with_capacity(sample.len() * 60_000);
    for _ in 0..60_000 {
        data.extend_from_slice(&sample);
    }
    let p = dir.join("big.pgn");
    std::fs::write(&p, &data).expect("write input");
    p
}

fn wait_started(out_dir: &Path, pid: u32) {
    // Wait until the temporary output exists (the run is under way): a
    // named one in the directory, or an unnamed one (O_TMPFILE) among the
    // open files of the process, shown as `DIR/#INODE (deleted)`.
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        let named = std::fs::read_dir(out_dir)
            .map(|rd| {
                rd.flatten()
                    .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            })
            .unwrap_or(false);
        let unnamed = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|rd| {
                rd.flatten().any(|e| {
                    std::fs::read_link(e.path()).is_ok_and(|l| {
                        l.starts_with(out_dir) && l.to_string_lossy().ends_with(" (deleted)")
                    })
                })
            })
            .unwrap_or(false);
        let started = named || unnamed;
        if started {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "big.pgn")
                .collect()
        })
        .unwrap_or_default()
}

fn interrupt(signal: &str) -> (Option<i32>, String, PathBuf, Vec<u8>) {
    let dir = scratch(signal);
    let input = big_input(&dir);
    let before = std::fs::read(&input).expect("input");
    let target = dir.join("out.pgc");
    let child = pgc()
        .args(["encode", "-q", "-j", "1"])
        .arg(&input)
        .arg("-o")
        .arg(&target)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pgc");
    wait_started(&dir, child.id());
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("wait");
    let after = std::fs::read(&input).expect("input after");
    assert_eq!(before, after, "the input must be untouched");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
        after,
    )
}

#[test]
fn sigint_leaves_nothing_and_exits_2() {
    let (code, err, dir, _) = interrupt("INT");
    assert_eq!(code, Some(2), "stderr: {err}");
    assert!(err.contains("pgc: interrupted"), "{err}");
    assert_eq!(
        leftovers(&dir),
        Vec::<String>::new(),
        "no output, no temporary file"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigkill_leaves_no_target() {
    let (code, _err, dir, _) = interrupt("KILL");
    assert_eq!(code, None, "killed by the signal");
    assert!(!dir.join("out.pgc").exists(), "no partial target");
    let _ = std::fs::remove_dir_all(&dir);
}
