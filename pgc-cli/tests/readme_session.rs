//! The README's "A session" block is what the built `pgc` prints: each `$`
//! line is run with bash, in order, in a fresh directory holding a link to
//! `samples/`, with this build's `pgc` first on the `PATH`; its standard
//! output and error together must be the lines under it. `$?` is the status
//! of the command before, as in an interactive shell. Only the seconds a
//! command took (`…, 0.01 s` at the end of a summary line) may differ.

mod common;

use common::{Tmp, root};
use std::path::Path;
use std::process::Command;

/// A command of the session and the lines it prints.
struct Step {
    command: String,
    expected: String,
}

/// The steps of the first `text` block of the README's "A session".
fn session() -> Vec<Step> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme
        .split("\n## A session\n")
        .nth(1)
        .expect("README.md has a section \"A session\"");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a ```text block in \"A session\"");
    let mut steps: Vec<Step> = Vec::new();
    for line in block.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_owned(),
                expected: String::new(),
            });
        } else {
            let step = steps.last_mut().expect("the block starts with a `$` line");
            step.expected.push_str(line);
            step.expected.push('\n');
        }
    }
    steps
}

/// `text` with the seconds at the end of each line (`0.01 s`) replaced by
/// `… s`: the only part of the output that changes from run to run.
fn without_seconds(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let kept = line
            .strip_suffix(" s")
            .and_then(|head| {
                let (before, number) = head.rsplit_once(' ')?;
                let (whole, frac) = number.split_once('.')?;
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                (digits(whole) && digits(frac)).then(|| format!("{before} … s"))
            })
            .unwrap_or_else(|| line.to_owned());
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

#[test]
fn readme_session_is_what_pgc_prints() {
    let steps = session();
    assert!(
        steps.len() >= 5 && steps.iter().any(|s| s.command.starts_with("pgc encode")),
        "the session block has too few commands to be the session"
    );
    let dir = Tmp::new("readme-session");
    std::os::unix::fs::symlink(root().join("samples"), dir.path("samples")).expect("link samples");
    let bin = Path::new(env!("CARGO_BIN_EXE_pgc"))
        .parent()
        .expect("the binary's directory")
        .to_owned();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let mut status = 0;
    for step in &steps {
        let script = format!("(exit {status}); {{ {}\n}} 2>&1", step.command);
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&dir.0)
            .env("PATH", &path)
            .output()
            .expect("run bash");
        status = out.status.code().unwrap_or(128);
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            without_seconds(&printed),
            without_seconds(&step.expected),
            "README.md, \"A session\": `$ {}` printed other lines",
            step.command
        );
    }
}

#[test]
fn seconds_are_the_only_part_ignored() {
    assert_eq!(
        without_seconds("pgc: 3 games, 803 B out (73.7%), 0.01 s\n"),
        without_seconds("pgc: 3 games, 803 B out (73.7%), 12.50 s\n")
    );
    assert_ne!(
        without_seconds("pgc: 3 games, 0.01 s\n"),
        without_seconds("pgc: 4 games, 0.01 s\n")
    );
    assert_ne!(without_seconds("took 1 s\n"), without_seconds("took 2 s\n"));
}
