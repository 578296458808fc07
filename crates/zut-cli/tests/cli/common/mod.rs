//! Helpers shared by the `zut ext` integration tests: run the real `zut`
//! binary with `ZUT_HOME` and the working directory passed explicitly.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub use zut_test_support::{script_extension, write_executable, write_manifest, TestEnv};

/// Result of one `zut` run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Self {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// `zut` with `ZUT_HOME` = the env's home and cwd = the env's project.
pub fn zut_cmd(env: &TestEnv, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_zut"));
    cmd.args(args)
        .env("ZUT_HOME", &env.home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .current_dir(&env.project);
    cmd
}

/// `zut` (see [`zut_cmd`]) with provider flags pointing at the local LLM
/// server at `url` (Anthropic wire, key `sk-test`, model `test-model`),
/// stdin closed and output piped, then `args`.
pub fn llm_cmd(env: &TestEnv, url: &str, args: &[&str]) -> Command {
    let mut cmd = zut_cmd(env, &[]);
    cmd.args([
        "--provider",
        "anthropic",
        "--base-url",
        url,
        "--api-key",
        "sk-test",
        "--model",
        "test-model",
    ])
    .args(args)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd
}

/// Runs `cmd` to completion on a blocking thread (the tests' LLM server
/// runs on the async runtime).
pub async fn output_blocking(mut cmd: Command) -> Run {
    tokio::task::spawn_blocking(move || Run::from(cmd.output().unwrap()))
        .await
        .unwrap()
}

/// Runs `zut <args>` with no stdin.
pub fn zut(env: &TestEnv, args: &[&str]) -> Run {
    zut_cmd(env, args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
        .into()
}

/// Runs `zut <args>` feeding `input` on stdin.
pub fn zut_stdin(env: &TestEnv, args: &[&str], input: &str) -> Run {
    let mut child = zut_cmd(env, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap().into()
}

/// Names of staging directories left in `$ZUT_HOME/extensions`.
pub fn staging_leftovers(env: &TestEnv) -> Vec<String> {
    std::fs::read_dir(env.home.join("extensions"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".zut-extension-install-"))
                .collect()
        })
        .unwrap_or_default()
}

/// Entries of `$ZUT_HOME/extensions` (sorted).
pub fn installed(env: &TestEnv) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(env.home.join("extensions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Asserts a failed install: exit 1, `zut: ` + `needle` on stderr, nothing
/// installed and no staging directory left.
pub fn assert_install_failed(env: &TestEnv, r: &Run, needle: &str) {
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("zut: "), "{r:?}");
    assert!(r.stderr.contains(needle), "want {needle:?} in {r:?}");
    assert!(
        installed(env).is_empty(),
        "left behind: {:?}",
        installed(env)
    );
}

/// A source extension directory outside the scopes: `<tmp>/<dir_name>`.
pub fn source_dir(env: &TestEnv, dir_name: &str) -> PathBuf {
    let p = env.home.parent().unwrap().join("sources").join(dir_name);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// Mode bits of a file.
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Snapshot of every path under `dir` (relative, sorted), to prove a
/// source tree was not written to.
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            out.push(p.strip_prefix(base).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Sends a signal with the `kill` command (no unsafe code in tests).
pub fn send_signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

/// Polls `cond` for up to `secs` seconds.
pub fn wait_until(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    cond()
}
pub mod subagents;
pub mod tmux;
