//! `python`: run inline Python 3 code in a fresh interpreter.
//!
//! The code goes to `<python> -u -B -` on stdin, which is then closed (a
//! script that reads stdin sees end-of-file); stdout and stderr share one
//! pipe. The interpreter is the configured one
//! ([`ToolContext::python_interpreter`]), else `$VIRTUAL_ENV`'s, else
//! `./.venv`'s, else `python3`/`python` on PATH; each candidate must prove
//! it is Python 3. zut never installs Python or packages. The required
//! `timeout` covers discovery and execution. The interpreter leads its own
//! process group: on timeout or cancellation the group is killed, and
//! processes it leaves behind when it exits are killed too. The model sees
//! at most [`PYTHON_MAX_BYTES`] and [`PYTHON_MAX_LINES`]; when either cuts,
//! the whole output (up to [`PYTHON_MAX_LOG_BYTES`]) is kept in a
//! `zut-python-*.log` temp file whose path the result gives.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::limits::*;
use crate::{parse_args, whole_number, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct PythonArgs {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    timeout: Option<Value>,
}

const NEVER_INSTALLS: &str = "(zut never installs Python or packages)";

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: PythonArgs = match parse_args("python", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let code = a.code.unwrap_or_default();
    if code.trim().is_empty() {
        return ToolOutput::error("code is required");
    }
    let Some(timeout) = a.timeout else {
        return ToolOutput::error("timeout is required");
    };
    let Some(timeout) =
        whole_number(&timeout).filter(|s| (1..=PYTHON_MAX_TIMEOUT_SECS).contains(s))
    else {
        return ToolOutput::error(format!(
            "timeout must be between 1 and {PYTHON_MAX_TIMEOUT_SECS} seconds"
        ));
    };
    imp::run(&code, timeout, ctx).await
}

/// A Python 3 interpreter that answered the version probe.
#[derive(Debug, Clone)]
struct Interpreter {
    path: PathBuf,
    version: String,
}

/// Where a candidate came from; fail-closed sources never fall through.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    Config,
    VirtualEnv,
    LocalVenv,
    Path,
}

impl Source {
    fn label(self) -> &'static str {
        match self {
            Source::Config => "python_interpreter",
            Source::VirtualEnv => "VIRTUAL_ENV",
            Source::LocalVenv => "local .venv",
            Source::Path => "PATH",
        }
    }
}

/// The candidates in discovery order: `(source, executable)`. PATH
/// candidates only exist when found.
fn candidates(ctx: &ToolContext) -> Vec<(Source, PathBuf)> {
    if let Some(exe) = &ctx.python_interpreter {
        let exe = if exe.is_absolute() {
            exe.clone()
        } else {
            ctx.cwd.join(exe)
        };
        return vec![(Source::Config, exe)];
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        return vec![(Source::VirtualEnv, venv_python(Path::new(&venv)))];
    }
    let local = ctx.cwd.join(".venv");
    if local.is_dir() {
        return vec![(Source::LocalVenv, venv_python(&local))];
    }
    let mut out = Vec::new();
    for name in ["python3", "python"] {
        if let Some(p) = find_on_path(name) {
            out.push((Source::Path, p));
        }
    }
    out
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Keeps the first [`PYTHON_MAX_BYTES`] for the model and (lazily, once
/// they overflow) the whole output up to [`PYTHON_MAX_LOG_BYTES`] in a
/// temp file.
#[derive(Default)]
struct Capture {
    kept: Vec<u8>,
    total: u64,
    log: Option<std::fs::File>,
    log_path: Option<PathBuf>,
    log_bytes: u64,
    log_failed: bool,
}

impl Capture {
    fn push(&mut self, chunk: &[u8]) {
        // While nothing was cut, `kept` holds every byte so far.
        let before = self.kept.len();
        self.total += chunk.len() as u64;
        let room = PYTHON_MAX_BYTES.saturating_sub(before);
        self.kept.extend_from_slice(&chunk[..room.min(chunk.len())]);
        if self.total <= PYTHON_MAX_BYTES as u64 {
            return;
        }
        if self.log.is_none() && self.log_path.is_none() && !self.log_failed {
            let head = self.kept[..before].to_vec();
            self.open_log();
            self.write_log(&head);
        }
        self.write_log(chunk);
    }

    fn open_log(&mut self) {
        match tempfile::Builder::new()
            .prefix("zut-python-")
            .suffix(".log")
            .tempfile()
            .and_then(|f| f.keep().map_err(|e| e.error))
        {
            Ok((file, path)) => {
                self.log = Some(file);
                self.log_path = Some(path);
            }
            Err(e) => {
                tracing::warn!(error = %e, "python: cannot create the full-output file");
                self.log_failed = true;
            }
        }
    }

    fn write_log(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let Some(f) = &mut self.log else {
            return;
        };
        let room = PYTHON_MAX_LOG_BYTES.saturating_sub(self.log_bytes) as usize;
        let take = room.min(bytes.len());
        if take == 0 {
            return;
        }
        if f.write_all(&bytes[..take]).is_err() {
            self.log = None;
            self.log_failed = true;
            return;
        }
        self.log_bytes += take as u64;
    }

    /// Saves the kept bytes to a log when only the line cap cut (the byte
    /// cap never opened one).
    fn ensure_log(&mut self) {
        if self.log.is_none() && self.log_path.is_none() && !self.log_failed {
            let kept = self.kept.clone();
            self.open_log();
            self.write_log(&kept);
        }
    }
}

/// The first [`PYTHON_MAX_LINES`] lines of `text` (a trailing newline does
/// not start a line) and whether lines were cut.
fn cap_lines(text: &str) -> (&str, bool) {
    let mut count = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            count += 1;
            if count == PYTHON_MAX_LINES {
                let rest = &text[i + 1..];
                return if rest.is_empty() {
                    (text, false)
                } else {
                    (&text[..i + 1], true)
                };
            }
        }
    }
    (text, false)
}

/// How the run ended.
enum End {
    Exited(Option<i32>),
    TimedOut,
    Cancelled,
}

fn render(
    interp: &Interpreter,
    capture: &mut Capture,
    end: &End,
    timeout: u64,
    cleanup: Option<String>,
) -> ToolOutput {
    let decoded = String::from_utf8_lossy(&capture.kept).into_owned();
    let bytes_cut = capture.total > PYTHON_MAX_BYTES as u64;
    // Do not show half a character cut by the byte cap.
    let decoded = if bytes_cut {
        decoded.trim_end_matches('\u{FFFD}').to_string()
    } else {
        decoded
    };
    let (shown, lines_cut) = cap_lines(&decoded);
    let mut text = format!("python {} ({})\n", interp.version, interp.path.display());
    if !shown.is_empty() {
        text.push('\n');
        text.push_str(shown);
        if !shown.ends_with('\n') {
            text.push('\n');
        }
    }
    if lines_cut {
        text.push_str(&format!("... [truncated at {PYTHON_MAX_LINES} lines]\n"));
    }
    if bytes_cut {
        text.push_str(&format!("... [truncated at {PYTHON_MAX_BYTES} bytes]\n"));
    }
    text.push('\n');
    let is_error = match end {
        End::TimedOut => {
            text.push_str(&format!(
                "[timed out after {timeout} second{}]",
                if timeout == 1 { "" } else { "s" }
            ));
            true
        }
        End::Cancelled => {
            text.push_str("[cancelled]");
            true
        }
        End::Exited(Some(0)) => {
            text.push_str("[exit 0]");
            false
        }
        End::Exited(Some(code)) => {
            text.push_str(&format!("[exit {code}]"));
            true
        }
        End::Exited(None) => {
            text.push_str("[exit -1]");
            true
        }
    };
    if let Some(c) = cleanup {
        text.push_str(&format!(" [cleanup: {c}]"));
    }
    if bytes_cut || lines_cut {
        capture.ensure_log();
        if let Some(p) = &capture.log_path {
            text.push_str(&format!(" (full output: {})", p.display()));
            if capture.total > PYTHON_MAX_LOG_BYTES {
                text.push_str(&format!(
                    " (the file keeps the first {} MiB of {} bytes)",
                    PYTHON_MAX_LOG_BYTES / (1024 * 1024),
                    capture.total
                ));
            }
        }
    }
    ToolOutput {
        content: vec![crate::ToolContent::Text(text)],
        is_error,
    }
}

#[cfg(unix)]
mod imp {
    use std::path::Path;
    use std::process::Stdio;
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::{sleep, sleep_until, Instant};

    use super::{candidates, render, Capture, End, Interpreter, Source, NEVER_INSTALLS};
    use crate::limits::*;
    use crate::process::{Utf8Stream, POLL};
    use crate::{ToolContext, ToolOutput};
    use zut_process::{group_alive, signal_group};

    const READ_CHUNK: usize = 64 * 1024;
    const PROBE: &str = "import sys, json; print(json.dumps(list(sys.version_info[:3])))";
    const PROBE_MAX_BYTES: usize = 64 * 1024;

    pub(super) async fn run(code: &str, timeout: u64, ctx: &ToolContext) -> ToolOutput {
        if ctx.cancel.is_cancelled() {
            return ToolOutput::error("[cancelled]");
        }
        if !ctx.cwd.is_dir() {
            return ToolOutput::error(format!(
                "Cannot run python: the working directory {} does not exist.",
                ctx.cwd.display()
            ));
        }
        // One deadline for discovery and execution; absurd timeouts mean
        // no deadline rather than an overflow.
        let deadline = Instant::now().checked_add(Duration::from_secs(timeout));
        let interp = tokio::select! {
            r = discover(ctx, deadline) => r,
            _ = ctx.cancel.cancelled() => return ToolOutput::error("[cancelled]"),
            _ = until(deadline) => return ToolOutput::error(format!(
                "[timed out after {timeout} second{} while looking for a Python interpreter]",
                if timeout == 1 { "" } else { "s" }
            )),
        };
        let interp = match interp {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(e),
        };
        execute(&interp, code, timeout, deadline, ctx).await
    }

    async fn until(deadline: Option<Instant>) {
        match deadline {
            Some(d) => sleep_until(d).await,
            None => std::future::pending().await,
        }
    }

    /// The first usable candidate, or the error of a fail-closed source.
    async fn discover(ctx: &ToolContext, deadline: Option<Instant>) -> Result<Interpreter, String> {
        let found = candidates(ctx);
        for (source, exe) in &found {
            match probe(exe, &ctx.cwd, &ctx.jail, deadline).await {
                Ok(version) => {
                    return Ok(Interpreter {
                        path: exe.clone(),
                        version,
                    })
                }
                Err(why) => match source {
                    Source::Path => continue,
                    Source::LocalVenv => {
                        return Err(format!(
                            "local .venv at \"{}\" has no usable Python 3 interpreter at \"{}\": {why}; \
                             recreate it or configure python_interpreter {NEVER_INSTALLS}",
                            ctx.cwd.join(".venv").display(),
                            exe.display()
                        ))
                    }
                    Source::Config | Source::VirtualEnv => {
                        return Err(if why == "executable not found" {
                            format!(
                                "{} \"{}\" is not usable: executable not found; point python_interpreter \
                                 at an existing Python 3 interpreter {NEVER_INSTALLS}",
                                source.label(),
                                exe.display()
                            )
                        } else {
                            format!(
                                "{} \"{}\" is not usable: {why}; configure python_interpreter to an \
                                 existing Python 3 interpreter {NEVER_INSTALLS}",
                                source.label(),
                                exe.display()
                            )
                        })
                    }
                },
            }
        }
        Err(format!(
            "no Python 3 interpreter found: an existing Python 3 environment is required; configure \
             python_interpreter in config.json, activate a VIRTUAL_ENV, create ./.venv, or add python3 \
             to PATH {NEVER_INSTALLS}"
        ))
    }

    /// Runs the version probe; the version (`3.x.y`) or why it failed.
    async fn probe(
        exe: &Path,
        cwd: &Path,
        jail: &Option<std::sync::Arc<zut_sandbox::Prepared>>,
        deadline: Option<Instant>,
    ) -> Result<String, String> {
        if !exe.exists() {
            return Err("executable not found".into());
        }
        let mut limit = PYTHON_PROBE_TIMEOUT;
        if let Some(d) = deadline {
            limit = limit.min(d.saturating_duration_since(Instant::now()));
        }
        let mut launch = zut_process::Launch::new(exe, cwd)
            .args(["-I", "-S", "-B", "-c", PROBE])
            .sandbox(jail.clone());
        launch.kill_on_drop = true;
        // The guard kills the probe's group if it does not answer in time.
        let zut_process::Process {
            mut child,
            guard: _guard,
        } = zut_process::spawn(launch).map_err(|e| format!("cannot start it: {e}"))?;
        let Some(mut out) = child.stdout.take() else {
            return Err("no output pipe".into());
        };
        let read = async {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                match out.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if buf.len() < PROBE_MAX_BYTES {
                            buf.extend_from_slice(&chunk[..n]);
                        }
                    }
                }
            }
            let status = child.wait().await;
            (buf, status)
        };
        let (buf, status) = tokio::time::timeout(limit, read).await.map_err(|_| {
            format!(
                "the version probe did not answer within {} s",
                limit.as_secs()
            )
        })?;
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => return Err(format!("the version probe failed ({s})")),
            Err(e) => return Err(format!("the version probe failed: {e}")),
        }
        let text = String::from_utf8_lossy(&buf);
        let parts: Vec<u64> = serde_json::from_str(text.trim())
            .map_err(|_| format!("unexpected version probe output {:?}", text.trim()))?;
        match parts.as_slice() {
            [3, minor, micro] => Ok(format!("3.{minor}.{micro}")),
            [major, ..] => Err(format!("it is Python {major}, not Python 3")),
            [] => Err("unexpected version probe output".into()),
        }
    }

    async fn execute(
        interp: &Interpreter,
        code: &str,
        timeout: u64,
        deadline: Option<Instant>,
        ctx: &ToolContext,
    ) -> ToolOutput {
        let mut launch = zut_process::Launch::new(&interp.path, &ctx.cwd)
            .args(["-u", "-B", "-"])
            .sandbox(ctx.jail.clone());
        launch.stdin = Stdio::piped();
        launch.merge_stderr = true;
        launch.kill_grace = BASH_KILL_GRACE;
        let zut_process::Process { mut child, guard } = match zut_process::spawn(launch) {
            Ok(p) => p,
            Err(e) => return ToolOutput::error(format!("start: {e}")),
        };
        let mut guard = guard;
        let pgid = guard.pgid().unwrap_or(0);
        let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return ToolOutput::error("Internal error in tool `python`: no pipes.");
        };
        // Feed the code, then close stdin so reads see end-of-file. A script
        // that exits before reading everything closes the pipe: not an error.
        let code = code.as_bytes().to_vec();
        let feeder = tokio::spawn(async move {
            let _ = stdin.write_all(&code).await;
            let _ = stdin.shutdown().await;
        });

        let mut capture = Capture::default();
        let mut utf8 = Utf8Stream::default();
        let mut buf = vec![0u8; READ_CHUNK];
        let mut eof = false;
        let mut status = None;
        let mut drain_until: Option<Instant> = None;
        let end = loop {
            if status.is_some() && eof {
                break None;
            }
            tokio::select! {
                biased;
                _ = ctx.cancel.cancelled() => break Some(End::Cancelled),
                _ = until(deadline), if status.is_none() => break Some(End::TimedOut),
                r = child.wait(), if status.is_none() => {
                    status = Some(r.ok().and_then(|s| s.code()));
                    drain_until = Some(Instant::now() + PYTHON_DRAIN_AFTER_EXIT);
                }
                r = stdout.read(&mut buf), if !eof => match r {
                    Ok(0) | Err(_) => eof = true,
                    Ok(n) => {
                        capture.push(&buf[..n]);
                        if ctx.progress.is_some() {
                            let text = utf8.decode(&buf[..n]);
                            ctx.report_progress(&text);
                        }
                    }
                },
                _ = until(drain_until), if status.is_some() && !eof => break None,
            }
        };
        feeder.abort();
        // Whatever is still in the group now is killed: the interpreter
        // timed out or was cancelled, or it left processes behind.
        let mut cleanup = None;
        let leftover = end.is_none() && group_alive(pgid);
        if end.is_some() || leftover {
            signal_group(pgid, zut_process::SIGKILL);
            guard.kill_stragglers();
            if status.is_none() {
                if let Ok(r) = tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
                    status = Some(r.ok().and_then(|s| s.code()));
                }
            }
            // Collect what was already written, briefly.
            let stop = Instant::now() + Duration::from_millis(200);
            while !eof {
                tokio::select! {
                    _ = sleep_until(stop) => break,
                    r = stdout.read(&mut buf) => match r {
                        Ok(0) | Err(_) => eof = true,
                        Ok(n) => capture.push(&buf[..n]),
                    },
                }
            }
            // Orphaned members are reaped by init shortly after the kill.
            let settle = Instant::now() + Duration::from_secs(2);
            while group_alive(pgid) && Instant::now() < settle {
                sleep(POLL).await;
            }
            if group_alive(pgid) {
                cleanup = Some("some processes of the group could not be killed".to_string());
            } else if leftover {
                cleanup = Some(
                    "processes started by the code were still running after it exited and were killed"
                        .to_string(),
                );
            }
        }
        guard.disarm();
        ctx.report_progress(&utf8.finish());
        let end = end.unwrap_or(End::Exited(status.flatten()));
        let mut out = render(interp, &mut capture, &end, timeout, cleanup);
        crate::jail::annotate(ctx, &mut out);
        out
    }
}

#[cfg(not(unix))]
mod imp {
    use crate::{ToolContext, ToolOutput};

    pub(super) async fn run(_code: &str, _timeout: u64, _ctx: &ToolContext) -> ToolOutput {
        ToolOutput::error("The `python` tool is only available on Unix systems.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_capped_without_counting_the_last_newline() {
        let exact = "x\n".repeat(PYTHON_MAX_LINES);
        assert_eq!(cap_lines(&exact), (exact.as_str(), false));
        let more = "x\n".repeat(PYTHON_MAX_LINES + 1);
        let (shown, cut) = cap_lines(&more);
        assert!(cut);
        assert_eq!(shown.lines().count(), PYTHON_MAX_LINES);
    }

    #[test]
    fn capture_keeps_the_head_and_logs_everything() {
        let mut c = Capture::default();
        let data: Vec<u8> = (0..PYTHON_MAX_BYTES * 3)
            .map(|i| b'a' + (i % 26) as u8)
            .collect();
        for chunk in data.chunks(7000) {
            c.push(chunk);
        }
        assert_eq!(c.kept, data[..PYTHON_MAX_BYTES]);
        let path = c.log_path.clone().unwrap_or_default();
        drop(c.log.take());
        let logged = std::fs::read(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        assert_eq!(logged, data);
    }
}
