//! Hostile inputs and failing environments for the `pgc` binary (issue 6):
//! random bytes to `decode` and `encode`, a full disk (`-o /dev/full`), an
//! input that cannot be read, an output directory that does not exist. Each
//! ends with a one-line `pgc:` message and the documented exit code (1 for
//! bad data, 2 for I/O), never a panic (exit 101) or a signal, and leaves no
//! partial output file.
//!
//! The tests run as root here, so `chmod 000` does not make a file
//! unreadable: a directory and a nonexistent path stand in for it.

use std::path::Path;
use std::process::Output;

mod common;
use common::run as pgc;

use common::stderr as err;

/// Exit code, or a panic naming the signal that killed the process.
fn code(o: &Output) -> i32 {
    o.status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {:?} {}", o.status, err(o)))
}

/// A small deterministic generator (xorshift), so failures reproduce.
fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn random_bytes_to_decode_and_encode() {
    for seed in 0..40u64 {
        let mut bytes = random_bytes(seed, 1 + (seed as usize * 997) % 20_000);
        // Half of them start like PGC, so decode gets past the sniffing.
        if seed % 2 == 0 {
            bytes[0] = 0x05;
        }
        for cmd in ["decode", "encode", "verify"] {
            let o = pgc(&[cmd, "-"], &bytes);
            let c = code(&o);
            assert!(c <= 2, "{cmd} seed {seed}: exit {c}: {}", err(&o));
            if c != 0 {
                let e = err(&o);
                assert!(
                    e.starts_with("pgc: ") || cmd == "verify",
                    "{cmd} seed {seed}: {e}"
                );
                assert!(!e.contains("panicked"), "{cmd} seed {seed}: {e}");
            }
        }
    }
}

#[test]
fn a_full_disk_is_a_clear_error_with_exit_2() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipping: no /dev/full");
        return;
    }
    let pgn = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n".repeat(20_000);
    let o = pgc(&["encode", "-q", "-", "-o", "/dev/full"], pgn.as_bytes());
    assert_eq!(code(&o), 2, "{}", err(&o));
    let e = err(&o);
    assert!(e.starts_with("pgc: /dev/full: "), "{e}");
    assert!(e.contains("No space left"), "{e}");
    // The device is still a device (not replaced by a renamed file).
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // /dev/null takes the output, without --force.
    let o = pgc(&["encode", "-q", "-", "-o", "/dev/null"], pgn.as_bytes());
    assert_eq!(code(&o), 0, "{}", err(&o));
}

#[test]
fn unreadable_inputs_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.pgn");
    let out = d.path().join("out.pgc");
    let o = pgc(
        &[
            "encode",
            missing.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert!(err(&o).contains("missing.pgn: cannot open"), "{}", err(&o));
    // A directory as input, to a command of each way of opening inputs.
    for cmd in ["decode", "encode", "import"] {
        let o = pgc(
            &[cmd, d.path().to_str().unwrap(), "-o", out.to_str().unwrap()],
            b"",
        );
        assert_eq!(code(&o), 2, "{cmd}: {}", err(&o));
        assert!(err(&o).contains("is a directory"), "{cmd}: {}", err(&o));
    }
    let o = pgc(&["index", d.path().to_str().unwrap()], b"");
    assert_eq!(code(&o), 2, "index: {}", err(&o));
    assert!(err(&o).contains("is a directory"), "index: {}", err(&o));
    // No output file, no temporary file left behind.
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn an_output_directory_that_does_not_exist_exits_2() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("no/such/dir/out.pgc");
    let o = pgc(
        &["encode", "-q", "-", "-o", out.to_str().unwrap()],
        b"1. e4 *\n",
    );
    assert_eq!(code(&o), 2, "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("cannot create a temporary file"), "{e}");
    assert!(!d.path().join("no").exists());
}
