//! The command line's file handling under hostile conditions: outputs that
//! are devices, pipes or aliases of a descriptor, an output that is an input
//! under another name, absurd `-j`, file modes, `kill -9` at any moment,
//! very long names, two outputs naming one file, inputs that look like
//! another format (UTF-16, random bytes), a game range past the end.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{pgc, root, run, stderr};

fn sample() -> &'static Path {
    static SAMPLE: std::sync::LazyLock<PathBuf> =
        std::sync::LazyLock::new(|| root().join("samples/opera.pgn"));
    &SAMPLE
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// What `pgc encode` writes to stdout for `input`.
fn encoded(input: &Path) -> Vec<u8> {
    let o = run(&["encode", "-q", p(input)], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!o.stdout.is_empty());
    o.stdout
}

fn code(o: &std::process::Output) -> Option<i32> {
    o.status.code()
}

// Outputs that are not regular files are written in place.

/// `-o LINK` where LINK is a link of the test's own to `/proc/self/fd/1` or
/// to `/dev/stdout`: both name pgc's own stdout, here a regular file. The
/// data goes there (after what the file already holds), with or without
/// `--force`, and the link stays a link.
#[test]
fn an_alias_of_stdout_is_written_in_place() {
    let d = tmp();
    let want = encoded(sample());
    for (link_name, to) in [("fd1.pgc", "/proc/self/fd/1"), ("dev.pgc", "/dev/stdout")] {
        let link = d.path().join(link_name);
        std::os::unix::fs::symlink(to, &link).expect("symlink");
        for force in [false, true] {
            let out_path = d.path().join("stdout.bin");
            let mut f = fs::File::create(&out_path).expect("create");
            f.write_all(b"header\n").expect("write");
            let mut args = vec!["encode", "-q", p(sample()), "-o", p(&link)];
            if force {
                args.push("--force");
            }
            let o = pgc()
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::from(f))
                .stderr(Stdio::piped())
                .output()
                .expect("run pgc");
            assert_eq!(code(&o), Some(0), "{to} force={force}: {}", stderr(&o));
            let mut expected = b"header\n".to_vec();
            expected.extend_from_slice(&want);
            assert_eq!(
                fs::read(&out_path).expect("read"),
                expected,
                "{to} force={force}"
            );
            let meta = fs::symlink_metadata(&link).expect("link");
            assert!(meta.file_type().is_symlink(), "{to}: the link was replaced");
            assert_eq!(fs::read_link(&link).expect("read link"), Path::new(to));
            fs::remove_file(&out_path).expect("remove");
        }
        fs::remove_file(&link).expect("remove link");
    }
    assert_eq!(listing(d.path()), Vec::<String>::new());
}

/// Runs `pgc` with `args`, in which `FIFO` stands for a named pipe that a
/// thread fills with `data`.
fn run_on_fifo(args: &[&str], data: Vec<u8>) -> std::process::Output {
    let d = tmp();
    let fifo = d.path().join("in");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (f2, done2) = (fifo.clone(), done.clone());
    let writer = std::thread::spawn(move || {
        let _ = fs::write(&f2, &data);
        // A reader that opens the pipe again waits for a writer: give it
        // an end of file rather than a hang (O_NONBLOCK: fails harmlessly
        // while no reader waits).
        while !done2.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = fs::OpenOptions::new()
                .write(true)
                .custom_flags(0o4000)
                .open(&f2);
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let args: Vec<&str> = args
        .iter()
        .map(|&a| if a == "FIFO" { p(&fifo) } else { a })
        .collect();
    let o = run(&args, b"");
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
    o
}

/// A named pipe as an input (as `<(zstdcat x.zst)` gives one) is read
/// once, from its first byte: `pgc encode` does not take bytes from it to
/// look for a table's magic (a table is looked for in regular files
/// only), and `pgc export` of PGC does not open it a second time to seek
/// in it. The PGC is the file's and decodes back to every byte of it; the
/// table holds it.
#[test]
fn a_named_pipe_is_read_whole() {
    let d = tmp();
    let text = fs::read(sample()).expect("sample");
    let want = encoded(sample());
    let out = d.path().join("out.pgc");
    let o = run_on_fifo(&["encode", "-q", "FIFO", "-o", p(&out)], text.clone());
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let got = fs::read(&out).expect("output");
    assert!(
        got == want,
        "the PGC of the pipe ({} bytes) is not the file's ({} bytes)",
        got.len(),
        want.len()
    );
    let back = run(&["decode", "-q", p(&out)], b"");
    assert_eq!(code(&back), Some(0), "{}", stderr(&back));
    assert!(
        back.stdout == text,
        "the decoded pipe differs from the file"
    );
    // PGC through a pipe into a table, and back.
    let table = d.path().join("t.parquet");
    let o = run_on_fifo(&["export", "-q", "FIFO", "-o", p(&table)], want.clone());
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let o = run(&["import", "-q", p(&table)], b"");
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(o.stdout == want, "the table of the pipe holds other PGC");
}

/// `-o LINK` where LINK is a link to a FIFO: the reader gets the data, the
/// link and the FIFO stay.
#[test]
fn a_link_to_a_fifo_is_written_in_place() {
    let d = tmp();
    let fifo = d.path().join("fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let link = d.path().join("out.pgc");
    std::os::unix::fs::symlink(&fifo, &link).expect("symlink");
    let want = encoded(sample());
    for force in [false, true] {
        let f2 = fifo.clone();
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            fs::File::open(&f2)
                .expect("open fifo")
                .read_to_end(&mut got)
                .expect("read fifo");
            got
        });
        let mut args = vec!["encode", "-q", p(sample()), "-o", p(&link)];
        if force {
            args.push("--force");
        }
        let o = run(&args, b"");
        // If pgc never opened the FIFO, unblock the reader (O_NONBLOCK:
        // fails harmlessly when the reader is already gone).
        let _ = fs::OpenOptions::new()
            .write(true)
            .custom_flags(0o4000)
            .open(&fifo);
        let got = reader.join().expect("reader");
        assert_eq!(code(&o), Some(0), "force={force}: {}", stderr(&o));
        assert_eq!(got, want, "force={force}");
        assert!(
            fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(listing(d.path()), ["fifo", "out.pgc"]);
}

/// `-o LINK` where LINK is a link to `/dev/null`: accepted without
/// `--force`, nothing is renamed, the link stays.
#[test]
fn a_link_to_dev_null_is_written_in_place() {
    let d = tmp();
    let link = d.path().join("null.pgc");
    std::os::unix::fs::symlink("/dev/null", &link).expect("symlink");
    for force in [false, true] {
        let mut args = vec!["encode", "-q", p(sample()), "-o", p(&link)];
        if force {
            args.push("--force");
        }
        let o = run(&args, b"");
        assert_eq!(code(&o), Some(0), "force={force}: {}", stderr(&o));
        assert_eq!(fs::read_link(&link).expect("link"), Path::new("/dev/null"));
    }
    assert_eq!(listing(d.path()), ["null.pgc"]);
}

// The same file under another name.

#[test]
fn a_hard_link_of_an_input_is_not_an_output() {
    let d = tmp();
    let input = d.path().join("in.pgn");
    fs::copy(sample(), &input).expect("copy");
    let alias = d.path().join("alias.pgn");
    fs::hard_link(&input, &alias).expect("hard link");
    let before = fs::read(&input).expect("read");
    let o = run(
        &["encode", "-q", p(&input), "-o", p(&alias), "--force"],
        b"",
    );
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is also an input"), "{}", stderr(&o));
    assert_eq!(fs::read(&alias).expect("read"), before);
    let (a, b) = (
        fs::metadata(&input).expect("meta"),
        fs::metadata(&alias).expect("meta"),
    );
    assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()), "still one file");
    // A symbolic link to the input, too.
    let sym = d.path().join("sym.pgn");
    std::os::unix::fs::symlink(&input, &sym).expect("symlink");
    let o = run(&["encode", "-q", p(&input), "-o", p(&sym), "--force"], b"");
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(
        fs::symlink_metadata(&sym)
            .expect("sym")
            .file_type()
            .is_symlink()
    );
    assert_eq!(listing(d.path()), ["alias.pgn", "in.pgn", "sym.pgn"]);
}

// `-j` is clamped.

#[test]
fn a_huge_jobs_count_is_clamped_and_leaves_nothing_behind() {
    let d = tmp();
    let input = d.path().join("in.pgn");
    let one = fs::read(sample()).expect("sample");
    fs::write(&input, one.repeat(50)).expect("write");
    let out = d.path().join("out.pgc");
    let o = run(
        &["encode", "-q", "-j", "20000", p(&input), "-o", p(&out)],
        b"",
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(fs::read(&out).expect("out"), encoded(&input));
    let back = d.path().join("back.pgn");
    let o = run(
        &["decode", "-q", "-j", "20000", p(&out), "-o", p(&back)],
        b"",
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(listing(d.path()), ["back.pgn", "in.pgn", "out.pgc"]);
    let help = run(&["encode", "--help"], b"");
    assert!(
        common::stdout(&help).contains("256"),
        "the clamp is in the help"
    );
}

/// With no thread allowed (RLIMIT_NPROC of 1 for an unprivileged user, set
/// by `setpriv` and `prlimit`; skipped where they or root are missing), the
/// run goes on on the main thread: same bytes, exit 0, nothing left behind.
#[test]
fn a_refused_thread_is_no_abort() {
    let as_root = fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let tools = ["setpriv", "prlimit"].iter().all(|t| {
        Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !as_root || !tools {
        eprintln!("skipped: needs root, setpriv and prlimit");
        return;
    }
    let d = tmp();
    fs::set_permissions(d.path(), fs::Permissions::from_mode(0o777)).expect("chmod");
    let input = d.path().join("in.pgn");
    let one = fs::read(sample()).expect("sample");
    fs::write(&input, one.repeat(50)).expect("write");
    let out = d.path().join("out.pgc");
    let back = d.path().join("back.pgn");
    for args in [
        ["encode", "-q", "-j", "8", p(&input), "-o", p(&out)],
        ["decode", "-q", "-j", "8", p(&out), "-o", p(&back)],
    ] {
        let o = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .args(["prlimit", "--nproc=1"])
            .arg(env!("CARGO_BIN_EXE_pgc"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run setpriv");
        assert_eq!(code(&o), Some(0), "{}: {}", args[0], stderr(&o));
    }
    assert_eq!(fs::read(&out).expect("out"), encoded(&input));
    let o = run(&["decode", "-q", p(&out)], b"");
    assert_eq!(fs::read(&back).expect("back"), o.stdout);
    assert_eq!(listing(d.path()), ["back.pgn", "in.pgn", "out.pgc"]);
}

// File modes.

/// Runs pgc under `umask` (through the shell, since setting the umask of
/// this process needs unsafe code).
fn run_umask(umask: &str, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_pgc"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run sh")
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).expect("meta").permissions().mode() & 0o7777
}

#[test]
fn outputs_get_0666_minus_the_umask_and_keep_an_overwritten_mode() {
    let d = tmp();
    let input = d.path().join("in.pgn");
    let mut pgn = fs::read(sample()).expect("sample");
    // A rejected game (an illegal first move), for the rejects file.
    pgn.extend_from_slice(b"\n[Event \"bad\"]\n\n1. e5 *\n");
    fs::write(&input, &pgn).expect("write");
    for (umask, want) in [("022", 0o644), ("027", 0o640), ("002", 0o664)] {
        let out = d.path().join(format!("out{umask}.pgc"));
        let rej = d.path().join(format!("rej{umask}.pgn"));
        let rep = d.path().join(format!("rep{umask}.txt"));
        let o = run_umask(
            umask,
            &[
                "encode",
                "-q",
                "--strict",
                p(&input),
                "-o",
                p(&out),
                "--rejects",
                p(&rej),
                "--strict-report",
                p(&rep),
            ],
        );
        assert_eq!(code(&o), Some(1), "{}", stderr(&o));
        for f in [&out, &rej, &rep] {
            assert_eq!(mode(f), want, "{} under umask {umask}", f.display());
        }
        let o = run_umask(umask, &["index", "-q", p(&out)]);
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        let idx = d.path().join(format!("out{umask}.pgc.idx"));
        assert_eq!(mode(&idx), want, "{}", idx.display());
        // --force keeps the mode of the file it replaces.
        fs::set_permissions(&out, fs::Permissions::from_mode(0o604)).expect("chmod");
        let o = run_umask(
            umask,
            &["encode", "-q", p(sample()), "-o", p(&out), "--force"],
        );
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        assert_eq!(mode(&out), 0o604);
        assert_eq!(fs::read(&out).expect("out"), encoded(sample()));
    }
}

// `kill -9` at any moment.

/// A PGN input of 20,000 games (8 MB) that takes a while to encode.
fn big_pgn(dir: &Path) -> PathBuf {
    let mut data = Vec::new();
    let moves = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 \
                 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 \
                 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 {a comment} \
                 19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 *";
    for i in 0..20_000 {
        writeln!(
            data,
            "[Event \"Game {i}\"]\n[Site \"Here\"]\n[Date \"2024.01.01\"]\n[Round \"{i}\"]\n\
             [White \"A{i}\"]\n[Black \"B{i}\"]\n[Result \"*\"]\n\n{moves}\n"
        )
        .expect("write");
    }
    let p = dir.join("big.pgn");
    fs::write(&p, &data).expect("write input");
    p
}

#[test]
fn sigkill_at_any_moment_leaves_no_file_and_no_harm() {
    let d = tmp();
    let input = big_pgn(d.path());
    let target = d.path().join("out.pgc");
    // The complete output, from a run that is not killed.
    let full = encoded(&input);
    let mut killed_while_running = 0;
    for delay_ms in [0u64, 5, 20, 60, 150, 400] {
        for old in [None, Some(b"old target".as_slice())] {
            match old {
                Some(o) => fs::write(&target, o).expect("old target"),
                None => {
                    let _ = fs::remove_file(&target);
                }
            }
            let mut child = pgc()
                .args([
                    "encode",
                    "-q",
                    "-j",
                    "2",
                    "--force",
                    p(&input),
                    "-o",
                    p(&target),
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            std::thread::sleep(Duration::from_millis(delay_ms));
            if child.try_wait().expect("try_wait").is_none() {
                killed_while_running += 1;
            }
            child.kill().expect("kill");
            let status = child.wait().expect("wait");
            let mut names = listing(d.path());
            names.retain(|n| n != "big.pgn");
            let t = Instant::now();
            match fs::read(&target) {
                Ok(got) => {
                    assert_eq!(names, ["out.pgc"], "delay {delay_ms} ms, {status}");
                    assert!(
                        Some(got.as_slice()) == old || got == full,
                        "delay {delay_ms} ms: the target is neither the old one nor complete \
                         ({} bytes)",
                        got.len()
                    );
                }
                Err(_) => {
                    assert!(old.is_none(), "delay {delay_ms} ms: the old target is gone");
                    assert_eq!(names, Vec::<String>::new(), "delay {delay_ms} ms");
                }
            }
            assert!(t.elapsed() < Duration::from_secs(5));
        }
    }
    assert!(
        killed_while_running >= 6,
        "most kills must land while pgc runs ({killed_while_running})"
    );
}

// Long names, two outputs naming one file.

#[test]
fn an_output_name_of_250_bytes_works() {
    let d = tmp();
    let want = encoded(sample());
    for len in [246, 251] {
        let name = format!("{}.pgc", "a".repeat(len));
        let out = d.path().join(&name);
        let o = run(&["encode", "-q", p(sample()), "-o", p(&out)], b"");
        assert_eq!(code(&o), Some(0), "{}: {}", name.len(), stderr(&o));
        assert_eq!(fs::read(&out).expect("out"), want);
        let o = run(
            &["encode", "-q", p(sample()), "-o", p(&out), "--force"],
            b"",
        );
        assert_eq!(code(&o), Some(0), "{}: {}", name.len(), stderr(&o));
        assert_eq!(fs::read(&out).expect("out"), want);
        fs::remove_file(&out).expect("remove");
    }
    assert_eq!(listing(d.path()), Vec::<String>::new());
}

#[test]
fn rejects_and_strict_report_cannot_name_one_file() {
    let d = tmp();
    let out = d.path().join("out.pgc");
    let same = d.path().join("same.txt");
    let same2 = d.path().join(".").join("same.txt");
    let o = run(
        &[
            "encode",
            "-q",
            "--strict",
            p(sample()),
            "-o",
            p(&out),
            "--rejects",
            p(&same),
            "--strict-report",
            p(&same2),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("same.txt") && err.contains("--rejects") && err.contains("--strict-report"),
        "{err}"
    );
    assert_eq!(listing(d.path()), Vec::<String>::new());
}

/// `--rejects -` is stdout, which is fine when `-o` names a file (it was
/// refused there with "stdout is the output", which it was not); with the
/// output on stdout too (`-o -`, no `-o`, `-o /dev/stdout`) the two would
/// be mixed, and it is refused naming both flags. The same for
/// `--strict-report` and `--duplicates`.
#[test]
fn rejects_on_stdout_with_an_output_file_and_refused_beside_stdout() {
    let d = tmp();
    let pgn = d.path().join("in.pgn");
    fs::write(
        &pgn,
        "[Event \"good\"]\n\n1. e4 e5 *\n\n[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n",
    )
    .expect("write");
    let out = d.path().join("out.pgc");
    let o = run(
        &["encode", "-q", "--rejects", "-", "-o", p(&out), p(&pgn)],
        b"",
    );
    assert_eq!(code(&o), Some(1), "a rejected game: {}", stderr(&o));
    let rejects = common::stdout(&o);
    assert!(
        rejects.starts_with("% pgc: rejected ")
            && rejects.contains("Ke3")
            && rejects.ends_with("[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n"),
        "{rejects}"
    );
    assert!(!rejects.contains("good"), "{rejects}");
    let pgc_out = fs::read(&out).expect("output");
    assert_eq!(pgc_out.first(), Some(&0x05), "the good game");
    // Beside an output on stdout: refused, nothing written.
    for output in [&["-o", "-"][..], &[], &["-o", "/dev/stdout"]] {
        for (flag, extra) in [
            ("--rejects", &[][..]),
            ("--strict-report", &["--strict"][..]),
            ("--duplicates", &["--dedup"][..]),
        ] {
            for side in ["-", "/dev/stdout"] {
                let args = [&["encode", "-q", flag, side][..], extra, output, &[p(&pgn)]].concat();
                let o = run(&args, b"");
                assert_eq!(code(&o), Some(2), "{args:?}: {}", stderr(&o));
                assert!(o.stdout.is_empty(), "{args:?}");
                let err = stderr(&o);
                let o_flag = if output.is_empty() { "no -o" } else { "-o " };
                assert!(
                    err.contains(&format!("{flag} {side} and the output ({o_flag}"))
                        && err.contains("would both go to stdout")
                        && err.contains(&format!("give {flag} a file name, or -o an output file")),
                    "{args:?}: {err}"
                );
            }
        }
    }
    // `--duplicates -` of decode beside an output file.
    let good = d.path().join("good.pgn");
    fs::write(&good, "[Event \"good\"]\n\n1. e4 e5 *\n").expect("write");
    let o = run(
        &[
            "encode",
            "-q",
            p(&good),
            p(&good),
            "-o",
            p(&d.path().join("twice.pgc")),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let pgn_out = d.path().join("once.pgn");
    let o = run(
        &[
            "decode",
            "-q",
            "--dedup",
            "--duplicates",
            "-",
            "-o",
            p(&pgn_out),
            p(&d.path().join("twice.pgc")),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let dups = common::stdout(&o);
    assert_eq!(
        dups,
        "[DuplicateOf \"1\"]\n[Event \"good\"]\n\n1. e4 e5 *\n"
    );
    assert_eq!(
        fs::read_to_string(&pgn_out).expect("output"),
        "[Event \"good\"]\n\n1. e4 e5 *\n"
    );
}

/// `--duplicates` puts the `DuplicateOf` tag in the duplicate's own tag
/// section, right before its first tag pair, after the text kept before
/// the game: a rejected game kept verbatim, or junk between games (some of
/// it, `[x]`, in the game's own tag section). The tag went before the
/// first `[` of the dropped text, inside the rejected game's tags. The
/// rest of the text is as read: the output and the duplicates without
/// their tags are the input, byte for byte.
#[test]
fn duplicate_of_goes_into_the_duplicates_own_tag_section() {
    let d = tmp();
    let first = "[Event \"a\"]\n\n1. e4 e5 *\n\n";
    let rejected = "[Event \"bad\"]\n\n1. e5 *\n\n";
    let dup = "[Event \"dup\"]\n\n1. e4 e5 *\n\n";
    let junk = "junk [x]\n\n";
    let dup2 = "[Event \"dup2\"]\n\n1. e4 e5 *\n";
    let text = [first, rejected, dup, junk, dup2].concat();
    let pgn = d.path().join("in.pgn");
    fs::write(&pgn, &text).expect("write");
    let tag = "[DuplicateOf \"1\"]\n";

    // decode: the text kept before a duplicate goes with it, before its tag.
    let pgc_path = d.path().join("in.pgc");
    let o = run(&["encode", "-q", p(&pgn), "-o", p(&pgc_path)], b"");
    assert_eq!(code(&o), Some(1), "two games rejected: {}", stderr(&o));
    let o = run(&["decode", "-q", p(&pgc_path)], b"");
    assert_eq!(common::stdout(&o), text, "{}", stderr(&o));
    let dups = d.path().join("dups.pgn");
    let o = run(
        &[
            "decode",
            "-q",
            "--dedup",
            "--duplicates",
            p(&dups),
            p(&pgc_path),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let (kept, dropped) = (common::stdout(&o), fs::read_to_string(&dups).expect("dups"));
    assert_eq!(kept, first);
    assert_eq!(
        dropped,
        [rejected, tag, dup, "junk [x]\n\n", tag, dup2].concat()
    );
    assert_eq!(kept + &dropped.replace(tag, ""), text);

    // encode: the rejected games stay in the output; the tag goes past the
    // junk in the game's own tag section.
    let o = run(
        &[
            "encode",
            "-q",
            "--force",
            "--dedup",
            "--duplicates",
            p(&dups),
            p(&pgn),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    let dropped = fs::read_to_string(&dups).expect("dups");
    assert_eq!(dropped, [tag, dup, "[x]\n\n", tag, dup2].concat());
    let o = run(&["decode", "-q"], &o.stdout);
    assert_eq!(
        common::stdout(&o),
        [first, rejected, "junk "].concat(),
        "{}",
        stderr(&o)
    );
}

// Recognising the format.

#[test]
fn a_leading_newline_and_a_control_byte_in_a_comment_are_pgn() {
    let o = run(&["encode", "-q"], b"\n[Event \"a\"]\n\n1. e4 {x\x01y} *\n");
    assert_ne!(code(&o), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("PGC file"), "{}", stderr(&o));
    assert_eq!(o.stdout.first(), Some(&0x05), "a game was written");
}

#[test]
fn utf16_pgn_is_refused_naming_the_encoding() {
    let text = fs::read_to_string(sample()).expect("sample");
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (data, encoding) in [
        ([&[0xff, 0xfe][..], &le].concat(), "UTF-16LE"),
        (le.clone(), "UTF-16LE"),
        ([&[0xfe, 0xff][..], &be].concat(), "UTF-16BE"),
        (be.clone(), "UTF-16BE"),
    ] {
        for command in ["encode", "decode"] {
            let o = run(&[command, "-q"], &data);
            assert_eq!(code(&o), Some(2), "{command} {encoding}: {}", stderr(&o));
            assert!(stderr(&o).contains(encoding), "{}", stderr(&o));
            assert!(o.stdout.is_empty());
        }
    }
}

#[test]
fn random_bytes_are_not_pgn() {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut data: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    data[0] = b'[';
    let o = run(&["encode", "-q"], &data);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not PGN"), "{}", stderr(&o));
    let o = run(&["decode", "-q"], &data);
    assert_ne!(code(&o), Some(0));
    assert!(!stderr(&o).contains("is PGN text"), "{}", stderr(&o));
}

#[test]
fn pgc_starting_with_a_long_escape_record_is_pgc() {
    // 0x0a, then the length 0x2020 (two spaces), then 8224 bytes of text:
    // the first 4 KiB look like text.
    let mut data = vec![0x0a, 0x20, 0x20];
    data.extend(std::iter::repeat_n(b'a', 0x2020));
    data.extend_from_slice(&encoded(sample()));
    let o = run(&["verify"], &data);
    assert_eq!(code(&o), Some(0), "{}{}", common::stdout(&o), stderr(&o));
    let o = run(&["dump"], &data);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
}

// A game range past the end.

/// `samples/mixed.pgn` encoded into `d` (its fourth game is rejected and
/// kept as read after the third).
fn mixed_pgc(d: &tempfile::TempDir) -> std::path::PathBuf {
    let pgc_file = d.path().join("x.pgc");
    let o = run(
        &[
            "encode",
            "-q",
            p(&root().join("samples/mixed.pgn")),
            "-o",
            p(&pgc_file),
        ],
        b"",
    );
    assert_eq!(code(&o), Some(1), "one game of mixed.pgn is rejected");
    pgc_file
}

#[test]
fn a_game_range_past_the_end_says_so() {
    let d = tmp();
    let pgc_file = mixed_pgc(&d);
    let events = |o: &std::process::Output| common::stdout(o).matches("[Event ").count();
    for indexed in [false, true] {
        if indexed {
            let o = run(&["index", "-q", p(&pgc_file)], b"");
            assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        }
        for command in ["decode", "moves"] {
            let o = run(&[command, "-q", "--games", "99999", p(&pgc_file)], b"");
            assert_eq!(code(&o), Some(0), "{}", stderr(&o));
            assert!(o.stdout.is_empty());
            let err = stderr(&o);
            assert!(
                err.contains("warning") && err.contains("has 3 games") && err.contains("99999"),
                "{command} indexed={indexed}: {err}"
            );
        }
        let o = run(&["decode", "-q", "--games", "2..9", p(&pgc_file)], b"");
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        // Games 2 and 3, and the rejected game kept as read after them.
        assert_eq!(events(&o), 3);
        let err = stderr(&o);
        assert!(
            err.contains("has 3 games") && err.contains("game 9"),
            "{err}"
        );
        for range in ["3", "1..3", "2.."] {
            let o = run(&["decode", "-q", "--games", range, p(&pgc_file)], b"");
            assert_eq!(code(&o), Some(0), "{}", stderr(&o));
            assert_eq!(stderr(&o), "", "{range} indexed={indexed}");
        }
    }
}

/// `--games N` with N one past the last game: the text kept as read after
/// the last game (here the rejected fourth game of mixed.pgn) belongs to
/// no game, so nothing is selected, with the game index or without, and
/// the warning's "nothing was read" holds. A range that takes the last
/// game still takes that text.
#[test]
fn a_game_range_past_the_end_writes_no_text_kept_after_the_last_game() {
    let d = tmp();
    let pgc_file = mixed_pgc(&d);
    for indexed in [false, true] {
        if indexed {
            let o = run(&["index", "-q", p(&pgc_file)], b"");
            assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        }
        for range in ["4", "4..", "4..9"] {
            for format in ["pgn", "jsonl"] {
                let o = run(
                    &["decode", "--format", format, "--games", range, p(&pgc_file)],
                    b"",
                );
                assert_eq!(code(&o), Some(0), "{}", stderr(&o));
                assert_eq!(
                    common::stdout(&o),
                    "",
                    "decode --format {format} --games {range} indexed={indexed}"
                );
                let err = stderr(&o);
                assert!(
                    err.contains("has 3 games; --games starts at game 4, past the end")
                        && err.contains("0 games, 0 plies, 0 B in")
                        && !err.contains("kept as text"),
                    "{range} indexed={indexed}: {err}"
                );
            }
            // A table of no game, not an error about records without one.
            let table = d.path().join(format!("t{indexed}{}.arrows", range.len()));
            let o = run(
                &[
                    "export",
                    "-q",
                    "--games",
                    range,
                    p(&pgc_file),
                    "-o",
                    p(&table),
                ],
                b"",
            );
            assert_eq!(code(&o), Some(0), "export {range}: {}", stderr(&o));
        }
        let o = run(&["decode", "-q", "--games", "3..", p(&pgc_file)], b"");
        assert_eq!(code(&o), Some(0), "{}", stderr(&o));
        let out = common::stdout(&o);
        assert!(
            out.starts_with("[Event ") && out.contains("[Event \"Broken game\"]"),
            "game 3 and the text after it: {out}"
        );
    }
}
