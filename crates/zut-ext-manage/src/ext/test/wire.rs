//! The extension process seen from the host side: spawn it like zut does
//! (extension directory as cwd, own process group, stderr to a log file),
//! write host frames, read extension frames with a deadline.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use zut_ext_host::line_reader::{LineRead, LineReader};
use zut_ext_host::ExecSpec;
use zut_protocol::limits::MAX_INBOUND_LINE;
use zut_protocol::{decode_ext_frame, encode_line, DecodeError, ExtFrame, HostFrame};

/// What one read produced.
pub enum Read {
    /// A decoded frame.
    Frame(ExtFrame),
    /// A line that is not a frame (not JSON, not an object, unknown type...).
    Bad(String, DecodeError),
    /// The line exceeded 4 MiB.
    TooLong,
    /// Stdout closed.
    Eof,
    /// Nothing arrived before the deadline.
    Timeout,
    /// Reading failed.
    Error(String),
}

/// A running extension.
pub struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    reader: LineReader<BufReader<ChildStdout>>,
    /// The process group id (= pid).
    pub pgid: u32,
}

impl Wire {
    /// Starts `spec` in `dir` with stderr appended to `stderr_log`.
    pub fn spawn(
        spec: &ExecSpec,
        args: &[String],
        dir: &Path,
        stderr_log: &Path,
    ) -> Result<Self, String> {
        let program: PathBuf = match spec {
            ExecSpec::Local(p) => p.clone(),
            ExecSpec::Path(name) => PathBuf::from(name),
            ExecSpec::None => return Err("manifest has no exec".into()),
        };
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(stderr_log)
            .map_err(|e| format!("open {}: {e}", stderr_log.display()))?;
        let mut cmd = Command::new(&program);
        cmd.args(args)
            .current_dir(dir)
            .env("PWD", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        let pgid = child.id().unwrap_or(0);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        Ok(Self {
            child,
            stdin,
            reader: LineReader::new(BufReader::new(stdout), MAX_INBOUND_LINE),
            pgid,
        })
    }

    /// Reads the next line as a frame, waiting at most `timeout`.
    pub async fn read(&mut self, timeout: Duration) -> Read {
        match tokio::time::timeout(timeout, self.reader.next_line()).await {
            Err(_) => Read::Timeout,
            Ok(Err(e)) => Read::Error(e.to_string()),
            Ok(Ok(LineRead::Eof)) => Read::Eof,
            Ok(Ok(LineRead::TooLong)) => Read::TooLong,
            Ok(Ok(LineRead::Line(line))) => match decode_ext_frame(&line) {
                Ok(ExtFrame::Unknown) => {
                    let text = String::from_utf8_lossy(&line).into_owned();
                    Read::Bad(text, DecodeError::UnknownType("?".into()))
                }
                Ok(frame) => Read::Frame(frame),
                Err(e) => Read::Bad(String::from_utf8_lossy(&line).into_owned(), e),
            },
        }
    }

    /// Writes one host frame; false when the pipe is gone.
    pub async fn send(&mut self, frame: &HostFrame) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let line = encode_line(frame);
        stdin.write_all(&line).await.is_ok() && stdin.flush().await.is_ok()
    }

    /// Closes the extension's stdin.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to exit; `None` on timeout.
    pub async fn wait(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(timeout, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Whether the process has exited (without waiting).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Kills the process and its whole group.
    pub async fn kill(&mut self) {
        kill_group(self.pgid);
        let _ = self.child.kill().await;
    }
}

/// True when some process of group `pgid` is still alive.
pub fn group_alive(pgid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pgid) = libc::pid_t::try_from(pgid) else {
            return false;
        };
        if pgid <= 1 {
            return false;
        }
        // SAFETY: kill with signal 0 only checks for existence.
        unsafe { libc::kill(-pgid, 0) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = pgid;
        false
    }
}

/// SIGKILLs every process of group `pgid`.
pub fn kill_group(pgid: u32) {
    #[cfg(unix)]
    {
        let Ok(pgid) = libc::pid_t::try_from(pgid) else {
            return;
        };
        if pgid > 1 {
            // SAFETY: sends a signal to the extension's own process group.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = pgid;
}
