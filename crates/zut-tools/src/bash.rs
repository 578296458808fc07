//! `bash`: run a command in its own process group with a required timeout.
//!
//! The command runs as `bash -c <command>` (`/bin/sh -c` when no bash is
//! found) in [`ToolContext::cwd`], with stdin on `/dev/null` and stdout and
//! stderr sharing one pipe, so the output keeps its arrival order. The shell
//! leads a new process group; on timeout, cancellation or when the future is
//! dropped the whole group gets SIGTERM and, after [`BASH_KILL_GRACE`],
//! SIGKILL. Output is streamed into a bounded head/tail buffer, so memory
//! stays small however much the command prints.

use serde::Deserialize;
use serde_json::Value;

use crate::limits::*;
use crate::{parse_args, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct BashArgs {
    command: String,
    /// Seconds; kept as a JSON value so `5.0` (an integer to JSON Schema)
    /// is accepted like `5`.
    timeout: Value,
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: BashArgs = match parse_args("bash", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let Some(timeout) = timeout_secs(&a.timeout) else {
        return ToolOutput::error(format!(
            "Invalid arguments for `bash`: `timeout` must be a whole number of seconds from 1 to \
             {BASH_MAX_TIMEOUT_SECS}, got {}.",
            a.timeout
        ));
    };
    imp::run(&a.command, timeout, ctx).await
}

/// The validated timeout in whole seconds.
fn timeout_secs(v: &Value) -> Option<u64> {
    crate::whole_number(v).filter(|s| (1..=BASH_MAX_TIMEOUT_SECS).contains(s))
}

/// Bounded capture of a byte stream: the first [`BASH_HEAD_BYTES`], the last
/// [`BASH_TAIL_BYTES`] and the total count.
#[derive(Default)]
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: u64,
}

impl Capture {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = BASH_HEAD_BYTES.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        let rest = &bytes[take..];
        if rest.is_empty() {
            return;
        }
        if rest.len() >= BASH_TAIL_BYTES {
            self.tail.clear();
            self.tail
                .extend(rest[rest.len() - BASH_TAIL_BYTES..].iter().copied());
        } else {
            self.tail.extend(rest.iter().copied());
            let excess = self.tail.len().saturating_sub(BASH_TAIL_BYTES);
            self.tail.drain(..excess);
        }
    }

    /// The captured output as text (lossily decoded) with a
    /// `[... N bytes omitted ...]` marker where the middle was dropped, and
    /// whether anything was dropped.
    fn render(&self) -> (String, bool) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let omitted = self.total.saturating_sub(kept);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if omitted == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return (String::from_utf8_lossy(&all).into_owned(), false);
        }
        // Do not show halves of a character cut by the omission.
        let head_end = complete_utf8_prefix(&self.head);
        let tail_start = tail
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xC0) == 0x80)
            .count();
        let omitted = omitted + (self.head.len() - head_end) as u64 + tail_start as u64;
        let text = format!(
            "{}\n\n[... {omitted} bytes omitted ...]\n\n{}",
            String::from_utf8_lossy(&self.head[..head_end]),
            String::from_utf8_lossy(&tail[tail_start..])
        );
        (text, true)
    }
}

/// Length of `b` without a trailing, incomplete UTF-8 sequence.
fn complete_utf8_prefix(b: &[u8]) -> usize {
    let len = b.len();
    for back in 1..=len.min(4) {
        let byte = b[len - back];
        if byte & 0xC0 == 0x80 {
            continue; // continuation byte: look further back
        }
        let need = match byte {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if need > back { len - back } else { len };
    }
    len
}

/// How the run ended.
enum End {
    /// The shell exited and the output pipe closed.
    Exited,
    /// The shell exited but background processes kept the pipe open past
    /// [`BASH_DRAIN_AFTER_EXIT`].
    DrainExpired,
    TimedOut,
    Cancelled,
    /// Waiting for the shell failed.
    WaitFailed(std::io::Error),
}

#[cfg(unix)]
mod imp {
    use std::path::{Path, PathBuf};
    use std::process::ExitStatus;
    use std::time::Duration;

    use tokio::io::AsyncReadExt;
    use tokio::process::{Child, ChildStdout};
    use tokio::time::{sleep, sleep_until, Instant};

    use super::{Capture, End};
    use crate::limits::*;
    use crate::process::Utf8Stream;
    use crate::{ToolContext, ToolOutput};

    /// Size of one read from the output pipe.
    const READ_CHUNK: usize = 64 * 1024;
    /// How often the group is polled while waiting for it to die.
    const POLL: Duration = Duration::from_millis(50);
    /// How long to wait for the killed shell to be reaped.
    const REAP_WAIT: Duration = Duration::from_secs(2);

    pub(super) async fn run(command: &str, timeout: u64, ctx: &ToolContext) -> ToolOutput {
        if ctx.cancel.is_cancelled() {
            return ToolOutput::error("Command was cancelled before it started.");
        }
        if !ctx.cwd.is_dir() {
            return ToolOutput::error(format!(
                "Cannot run the command: the working directory {} does not exist.",
                ctx.cwd.display()
            ));
        }
        let shell = find_shell();
        let mut launch = zut_process::Launch::new(&shell, &ctx.cwd)
            .args(["-c", command])
            .sandbox(ctx.jail.clone());
        launch.merge_stderr = true;
        launch.kill_grace = BASH_KILL_GRACE;
        let zut_process::Process { mut child, guard } = match zut_process::spawn(launch) {
            Ok(p) => p,
            Err(e) => {
                return ToolOutput::error(format!("Failed to start {}: {e}.", shell.display()))
            }
        };
        let mut guard = guard;
        let pgid = guard
            .pgid()
            .and_then(|id| libc::pid_t::try_from(id).ok())
            .unwrap_or(0);
        let Some(stdout) = child.stdout.take() else {
            return ToolOutput::error("Internal error in tool `bash`: no output pipe.");
        };
        let mut run = Running {
            ctx,
            child,
            stdout,
            buf: vec![0u8; READ_CHUNK],
            capture: Capture::default(),
            utf8: Utf8Stream::default(),
            status: None,
            reaped: false,
            eof: false,
        };
        let end = run.wait_for_end(timeout).await;
        match end {
            End::Exited | End::DrainExpired => {}
            End::TimedOut | End::Cancelled | End::WaitFailed(_) => {
                run.terminate_group(pgid).await;
            }
        }
        if !matches!(end, End::Exited | End::DrainExpired) {
            // Jailed: also what left the process group (its pids cgroup).
            guard.kill_stragglers();
        }
        guard.disarm();
        let tail = run.utf8.finish();
        ctx.report_progress(&tail);
        let mut out = render(&run.capture, &end, run.status, timeout);
        crate::jail::annotate(ctx, &mut out);
        out
    }

    /// `bash` from `PATH` (or a standard location), else `/bin/sh`.
    fn find_shell() -> PathBuf {
        let from_path = std::env::var_os("PATH")
            .map(|p| {
                std::env::split_paths(&p)
                    .map(|dir| dir.join("bash"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        from_path
            .into_iter()
            .chain(["/bin/bash", "/usr/bin/bash"].map(PathBuf::from))
            .find(|p| is_executable(p))
            .unwrap_or_else(|| PathBuf::from("/bin/sh"))
    }

    fn is_executable(p: &Path) -> bool {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }

    /// Sends `signal` to process group `pgid`; whether any process got it.
    fn signal_group(pgid: libc::pid_t, signal: libc::c_int) -> bool {
        u32::try_from(pgid).is_ok_and(|g| zut_process::signal_group(g, signal))
    }

    fn group_alive(pgid: libc::pid_t) -> bool {
        signal_group(pgid, 0)
    }

    struct Running<'a> {
        ctx: &'a ToolContext,
        child: Child,
        stdout: ChildStdout,
        buf: Vec<u8>,
        capture: Capture,
        utf8: Utf8Stream,
        status: Option<ExitStatus>,
        /// The shell has been waited for (successfully or not).
        reaped: bool,
        eof: bool,
    }

    impl Running<'_> {
        fn take_output(&mut self, n: usize) {
            let chunk = &self.buf[..n];
            self.capture.push(chunk);
            if self.ctx.progress.is_some() {
                let text = self.utf8.decode(chunk);
                self.ctx.report_progress(&text);
            }
        }

        fn on_read(&mut self, r: std::io::Result<usize>) {
            match r {
                Ok(0) | Err(_) => self.eof = true,
                Ok(n) => self.take_output(n),
            }
        }

        fn on_wait(&mut self, r: std::io::Result<ExitStatus>) -> Option<std::io::Error> {
            self.reaped = true;
            match r {
                Ok(s) => {
                    self.status = Some(s);
                    None
                }
                Err(e) => Some(e),
            }
        }

        async fn wait_for_end(&mut self, timeout: u64) -> End {
            let deadline = Instant::now() + Duration::from_secs(timeout);
            let mut drain_deadline = deadline;
            loop {
                if self.reaped && self.eof {
                    return End::Exited;
                }
                tokio::select! {
                    biased;
                    _ = self.ctx.cancel.cancelled() => return End::Cancelled,
                    _ = sleep_until(deadline), if !self.reaped => return End::TimedOut,
                    r = self.child.wait(), if !self.reaped => {
                        if let Some(e) = self.on_wait(r) {
                            return End::WaitFailed(e);
                        }
                        drain_deadline = Instant::now() + BASH_DRAIN_AFTER_EXIT;
                    }
                    r = self.stdout.read(&mut self.buf), if !self.eof => self.on_read(r),
                    _ = sleep_until(drain_deadline), if self.reaped && !self.eof => {
                        return End::DrainExpired;
                    }
                }
            }
        }

        /// SIGTERM to the group, up to [`BASH_KILL_GRACE`] for it to exit
        /// (still collecting output), then SIGKILL to whatever is left.
        async fn terminate_group(&mut self, pgid: libc::pid_t) {
            signal_group(pgid, libc::SIGTERM);
            let grace_end = Instant::now() + BASH_KILL_GRACE;
            loop {
                // While the shell is unreaped its zombie keeps the group
                // "alive", so only trust the probe after reaping it.
                if self.reaped && !group_alive(pgid) {
                    break;
                }
                tokio::select! {
                    _ = sleep_until(grace_end) => break,
                    r = self.child.wait(), if !self.reaped => { self.on_wait(r); }
                    r = self.stdout.read(&mut self.buf), if !self.eof => self.on_read(r),
                    _ = sleep(POLL) => {}
                }
            }
            if group_alive(pgid) {
                signal_group(pgid, libc::SIGKILL);
            }
            if !self.reaped {
                if let Ok(r) = tokio::time::timeout(REAP_WAIT, self.child.wait()).await {
                    self.on_wait(r);
                }
            }
            // Collect what the dying processes wrote, briefly.
            let drain_end = Instant::now() + BASH_DRAIN_AFTER_EXIT;
            while !self.eof {
                tokio::select! {
                    _ = sleep_until(drain_end) => break,
                    r = self.stdout.read(&mut self.buf) => self.on_read(r),
                }
            }
        }
    }

    fn render(
        capture: &Capture,
        end: &End,
        status: Option<ExitStatus>,
        timeout: u64,
    ) -> ToolOutput {
        let (body, truncated) = capture.render();
        let mut notes: Vec<String> = Vec::new();
        let mut is_error = false;
        match end {
            End::TimedOut => {
                is_error = true;
                notes.push(format!(
                    "Command timed out after {timeout} s; its process group was killed."
                ));
            }
            End::Cancelled => {
                is_error = true;
                notes.push("Command was cancelled; its process group was killed.".into());
            }
            End::WaitFailed(e) => {
                is_error = true;
                notes.push(format!(
                    "Lost track of the command ({e}); its process group was killed."
                ));
            }
            End::Exited | End::DrainExpired => {
                if let Some(note) = status.and_then(exit_note) {
                    is_error = true;
                    notes.push(note);
                }
                if matches!(end, End::DrainExpired) {
                    notes.push(format!(
                        "[The shell exited but background processes kept its output open; output after \
                         {} s was not captured. Redirect background output to a file, e.g. \
                         `nohup cmd > log 2>&1 &`.]",
                        BASH_DRAIN_AFTER_EXIT.as_secs()
                    ));
                }
            }
        }
        if truncated {
            notes.push(format!(
                "[Output truncated: {} bytes in total; the first {} KiB and last {} KiB are shown. \
                 Redirect the output to a file and inspect it with `read` or `grep` to see more.]",
                capture.total,
                BASH_HEAD_BYTES / 1024,
                BASH_TAIL_BYTES / 1024
            ));
        }
        let body = body.trim_end_matches('\n');
        let mut text = if body.is_empty() {
            "(no output)".to_string()
        } else {
            body.to_string()
        };
        if !notes.is_empty() {
            text.push_str("\n\n");
            text.push_str(&notes.join("\n"));
        }
        ToolOutput {
            content: vec![crate::ToolContent::Text(text)],
            is_error,
        }
    }

    /// A note for an unsuccessful exit status, `None` for success.
    fn exit_note(status: ExitStatus) -> Option<String> {
        use std::os::unix::process::ExitStatusExt;
        if status.success() {
            return None;
        }
        if let Some(code) = status.code() {
            return Some(format!("Command exited with code {code}."));
        }
        if let Some(sig) = status.signal() {
            return Some(format!(
                "Command was killed by signal {} ({sig}).",
                signal_name(sig)
            ));
        }
        Some(format!("Command failed: {status}."))
    }

    fn signal_name(sig: libc::c_int) -> &'static str {
        match sig {
            libc::SIGHUP => "SIGHUP",
            libc::SIGINT => "SIGINT",
            libc::SIGQUIT => "SIGQUIT",
            libc::SIGILL => "SIGILL",
            libc::SIGABRT => "SIGABRT",
            libc::SIGBUS => "SIGBUS",
            libc::SIGFPE => "SIGFPE",
            libc::SIGKILL => "SIGKILL",
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGPIPE => "SIGPIPE",
            libc::SIGALRM => "SIGALRM",
            libc::SIGTERM => "SIGTERM",
            libc::SIGUSR1 => "SIGUSR1",
            libc::SIGUSR2 => "SIGUSR2",
            _ => "signal",
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use crate::{ToolContext, ToolOutput};

    pub(super) async fn run(_command: &str, _timeout: u64, _ctx: &ToolContext) -> ToolOutput {
        ToolOutput::error("The `bash` tool is only available on Unix systems.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_head_and_tail() {
        let mut c = Capture::default();
        let total = BASH_HEAD_BYTES + BASH_TAIL_BYTES + 1000;
        let data: Vec<u8> = (0..total).map(|i| b'a' + (i % 26) as u8).collect();
        for chunk in data.chunks(777) {
            c.push(chunk);
        }
        let (text, truncated) = c.render();
        assert!(truncated);
        assert!(text.contains("[... 1000 bytes omitted ...]"));
        assert!(text.starts_with(std::str::from_utf8(&data[..100]).unwrap()));
        assert!(text.ends_with(std::str::from_utf8(&data[total - 100..]).unwrap()));
        assert_eq!(c.head.len(), BASH_HEAD_BYTES);
        assert_eq!(c.tail.len(), BASH_TAIL_BYTES);
    }

    #[test]
    fn capture_without_overflow_is_verbatim() {
        let mut c = Capture::default();
        let data = "é".repeat(BASH_HEAD_BYTES); // 2 bytes each; spills into the tail
        for chunk in data.as_bytes().chunks(1001) {
            c.push(chunk);
        }
        assert_eq!(c.render(), (data, false));
    }

    #[test]
    fn capture_cut_characters_are_not_shown_as_garbage() {
        let mut c = Capture::default();
        let data = "€".repeat(BASH_HEAD_BYTES); // 3 bytes each: 48 KiB
        c.push(data.as_bytes());
        c.push(b"x".repeat(10).as_slice());
        let (text, truncated) = c.render();
        assert!(truncated);
        assert!(!text.contains('\u{FFFD}'));
    }

    #[test]
    fn timeout_values() {
        assert_eq!(timeout_secs(&serde_json::json!(5)), Some(5));
        assert_eq!(timeout_secs(&serde_json::json!(5.0)), Some(5));
        assert_eq!(timeout_secs(&serde_json::json!(1.5)), None);
        assert_eq!(timeout_secs(&serde_json::json!(0)), None);
        assert_eq!(timeout_secs(&serde_json::json!(-3)), None);
        assert_eq!(timeout_secs(&serde_json::json!("5")), None);
        assert_eq!(
            timeout_secs(&serde_json::json!(BASH_MAX_TIMEOUT_SECS + 1)),
            None
        );
    }
}
