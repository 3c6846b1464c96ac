//! `scripts/check-module-cycles`: it names the import cycles of small fake
//! crates written here, ignores what is not an import (comments, strings,
//! `#[cfg(test)]` modules), and finds none in the workspace.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the script on `dir`: its exit code and standard output.
fn check(dir: &Path) -> (i32, String) {
    let out = Command::new("python3")
        .arg(repo().join("scripts/check-module-cycles"))
        .arg(dir)
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "stderr: {stderr}");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8 output"),
    )
}

/// A crate named `fake` in a fresh directory, with `files` under `src/`.
struct Fake(PathBuf);

impl Fake {
    fn new(files: &[(&str, &str)]) -> Fake {
        static N: AtomicU32 = AtomicU32::new(0);
        let top = std::env::temp_dir().join(format!(
            "pgc-module-cycles-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let root = top.join("fake");
        for (path, text) in files {
            let file = root.join("src").join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"fake\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        Fake(top)
    }

    fn check(&self) -> (i32, String) {
        check(&self.0.join("fake"))
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_cycle_between_top_level_modules_is_named_with_its_references() {
    let fake = Fake::new(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::{b::B};\n\npub struct A(B);\n"),
        (
            "b.rs",
            "pub struct B;\n\npub fn make() -> B {\n    crate::a::A(B).0\n}\n",
        ),
    ]);
    let (code, out) = fake.check();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("fake: import cycle a -> b -> a\n"), "{out}");
    assert!(out.contains("a -> b: "), "{out}");
    assert!(out.contains("src/a.rs:1 names crate::b::B"), "{out}");
    assert!(out.contains("src/b.rs:4 names crate::a::A"), "{out}");
}

#[test]
fn cycles_through_super_and_re_exports_are_found() {
    // a::x reaches b through `super::super`, b reaches a through `crate::g`,
    // which the crate root re-exports from a.
    let fake = Fake::new(&[
        ("lib.rs", "mod a;\nmod b;\npub use a::g;\n"),
        ("a/mod.rs", "mod x;\n\npub fn g() {}\n"),
        ("a/x.rs", "use super::super::b::f;\n"),
        ("b.rs", "pub fn f() {\n    crate::g();\n}\n"),
    ]);
    let (code, out) = fake.check();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("fake: import cycle a -> b -> a\n"), "{out}");
    assert!(out.contains("src/b.rs:2 names crate::g"), "{out}");
}

#[test]
fn a_child_using_its_parents_own_items_is_a_cycle() {
    let fake = Fake::new(&[
        ("lib.rs", "mod p;\n"),
        (
            "p/mod.rs",
            "mod child;\n\npub struct Item;\n\npub fn f() {\n    child::g();\n}\n",
        ),
        ("p/child.rs", "use super::Item;\n\npub fn g() {}\n"),
    ]);
    let (code, out) = fake.check();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("fake: import cycle p -> p::child -> p\n"),
        "{out}"
    );
}

#[test]
fn modules_written_inline_are_nodes_too() {
    let lib = "mod outer {
    pub mod x {
        pub fn f() {
            super::y::g();
        }
    }
    pub mod y {
        pub fn g() {}
        pub fn h() {
            super::x::f();
        }
    }
}
";
    let fake = Fake::new(&[("lib.rs", lib)]);
    let (code, out) = fake.check();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("fake: import cycle outer::x -> outer::y -> outer::x\n"),
        "{out}"
    );
    assert!(out.contains("src/lib.rs:4 names super::y::g"), "{out}");
}

#[test]
fn comments_strings_and_test_modules_are_not_imports() {
    let fake = Fake::new(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\n\npub struct A(pub B);\n"),
        (
            "b.rs",
            "//! See [`crate::a::A`].\n\
             pub struct B;\n\
             // crate::a::A\n\
             pub const NAME: &str = \"crate::a::A\";\n\
             /* crate::a::A */\n\
             #[cfg(test)]\n\
             mod tests {\n    use crate::a::A;\n}\n",
        ),
    ]);
    let (code, out) = fake.check();
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("no import cycle in 1 crate(s), 3 module(s)"),
        "{out}"
    );
}

#[test]
fn the_workspace_has_no_import_cycle() {
    let (code, out) = check(&repo());
    assert_eq!(code, 0, "{out}");
}
