//! Explicit build steps of `zut ext install --build=<b>` for local sources.
//!
//! - `go`: `go build -trimpath -o <staged exec> .` in the **source**
//!   directory; Go writes nothing into the source tree.
//! - `cargo`: `cargo build --release --message-format=json-render-diagnostics
//!   --target-dir <staging>/target --manifest-path <src>/Cargo.toml` in the
//!   source directory; the `executable` of the compiler artifact whose file
//!   name equals the exec file name is copied to the staged exec path. All
//!   build output goes to the staging directory (removed afterwards); cargo
//!   itself may still create or update `Cargo.lock` next to a standalone
//!   crate's `Cargo.toml` (or its workspace root), as any `cargo build` does.
//!   `$CARGO` is honoured when set (as cargo does for its subprocesses),
//!   otherwise `cargo` is looked up on `PATH`.
//!
//! Tool output goes to zut's stderr; stdout stays clean.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use anyhow::anyhow;
use zut_ext_host::manifest::Manifest;

use super::args::Builder;
use super::manifest_check::relative_exec;
use crate::interrupt::{describe_status, Interrupt, RunError};

/// What a failed build reports.
pub type BuildResult = Result<(), BuildError>;

/// Why the build step failed.
#[derive(Debug)]
pub enum BuildError {
    /// A message for `zut: …`.
    Failed(anyhow::Error),
    /// Ctrl+C / SIGTERM.
    Interrupted,
}

impl From<anyhow::Error> for BuildError {
    fn from(e: anyhow::Error) -> Self {
        Self::Failed(e)
    }
}

/// Builds the extension from `src` into `staged` (the staged copy);
/// `scratch` is a private directory for build output (cargo's target dir).
pub fn build(
    builder: Builder,
    manifest: &Manifest,
    src: &Path,
    staged: &Path,
    scratch: &Path,
    interrupt: &Interrupt,
) -> BuildResult {
    let rel = relative_exec(manifest, src).map_err(|e| {
        anyhow!("{e}: --build={builder} requires an extension-relative executable path")
    })?;
    let out = staged.join(&rel);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow!("prepare {builder} build output: {e}"))?;
    }
    crate::errln!("building {} with {builder}", manifest.name);
    match builder {
        Builder::Go => go(src, &out, interrupt),
        Builder::Cargo => cargo(src, &out, scratch, interrupt),
    }
}

fn go(src: &Path, out: &Path, interrupt: &Interrupt) -> BuildResult {
    let mut cmd = Command::new("go");
    cmd.args(["build", "-trimpath", "-o"]).arg(out).arg(".");
    cmd.current_dir(src)
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::inherit());
    let status = interrupt.run(&mut cmd).map_err(|e| run_error("go", e))?;
    check_status("go", status)
}

fn cargo(src: &Path, out: &Path, scratch: &Path, interrupt: &Interrupt) -> BuildResult {
    let manifest_path = src.join("Cargo.toml");
    if !manifest_path.is_file() {
        return Err(anyhow!(
            "build extension with cargo: {} not found",
            manifest_path.display()
        )
        .into());
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args([
        "build",
        "--release",
        "--message-format=json-render-diagnostics",
        "--target-dir",
    ])
    .arg(scratch.join("target"))
    .arg("--manifest-path")
    .arg(&manifest_path)
    .current_dir(src)
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit());
    let mut child = interrupt
        .spawn(&mut cmd)
        .map_err(|e| run_error("cargo", e))?;
    // Drain cargo's JSON messages on a thread so the pipe never fills.
    let reader = child.stdout.take().map(|stdout| {
        std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| executable_of(&l))
                .collect::<Vec<PathBuf>>()
        })
    });
    let status = interrupt
        .wait(&mut child)
        .map_err(|e| run_error("cargo", e))?;
    let executables = reader.and_then(|h| h.join().ok()).unwrap_or_default();
    check_status("cargo", status)?;
    let wanted = out.file_name().unwrap_or_default();
    let Some(bin) = executables
        .iter()
        .rev()
        .find(|p| artifact_matches(p, wanted))
    else {
        let found: Vec<String> = executables
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        return Err(anyhow!(
            "build extension with cargo: no binary named {:?} was built (built: {})",
            wanted.to_string_lossy(),
            if found.is_empty() {
                "none".to_string()
            } else {
                found.join(", ")
            }
        )
        .into());
    };
    std::fs::copy(bin, out)
        .map_err(|e| anyhow!("build extension with cargo: copy {}: {e}", bin.display()))?;
    Ok(())
}

/// The `executable` of a `compiler-artifact` JSON message, if any.
fn executable_of(line: &str) -> Option<PathBuf> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v.get("reason")?.as_str()? != "compiler-artifact" {
        return None;
    }
    v.get("executable")?.as_str().map(PathBuf::from)
}

/// `run` matches `run` (and `run.exe` on Windows).
fn artifact_matches(path: &Path, wanted: &std::ffi::OsStr) -> bool {
    path.file_name() == Some(wanted) || (cfg!(windows) && path.file_stem() == Some(wanted))
}

fn run_error(tool: &str, e: RunError) -> BuildError {
    match e {
        RunError::Interrupted => BuildError::Interrupted,
        other => BuildError::Failed(anyhow!("build extension with {tool}: {other}")),
    }
}

fn check_status(tool: &str, status: ExitStatus) -> BuildResult {
    if status.success() {
        return Ok(());
    }
    Err(BuildError::Failed(anyhow!(
        "build extension with {tool}: {}",
        describe_status(status)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cargo_artifacts() {
        let line = r#"{"reason":"compiler-artifact","target":{"kind":["bin"],"name":"hi"},"executable":"/t/release/hi"}"#;
        assert_eq!(executable_of(line), Some(PathBuf::from("/t/release/hi")));
        assert_eq!(
            executable_of(r#"{"reason":"compiler-artifact","executable":null}"#),
            None
        );
        assert_eq!(
            executable_of(r#"{"reason":"build-finished","success":true}"#),
            None
        );
        assert_eq!(executable_of("not json"), None);
    }
}
