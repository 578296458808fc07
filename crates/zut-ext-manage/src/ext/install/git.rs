//! `git clone --depth 1 <url> <dir>` for git sources, with
//! `GIT_TERMINAL_PROMPT=0` and git's output on stderr.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::interrupt::describe_status;
use crate::interrupt::{Interrupt, RunError};

/// Why the clone failed.
#[derive(Debug)]
pub enum CloneError {
    /// `git clone: …` message.
    Failed(String),
    /// Ctrl+C / SIGTERM.
    Interrupted,
}

/// Clones `url` into `dest` (which must not exist). Relative URLs resolve
/// against the process working directory.
pub fn clone(url: &str, dest: &Path, interrupt: &Interrupt) -> Result<(), CloneError> {
    let mut cmd = Command::new("git");
    cmd.args(["clone", "--depth", "1", url])
        .arg(dest)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::inherit());
    match interrupt.run(&mut cmd) {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(CloneError::Failed(format!(
            "git clone: {}",
            describe_status(status)
        ))),
        Err(RunError::Interrupted) => Err(CloneError::Interrupted),
        Err(e) => Err(CloneError::Failed(format!("git clone: {e}"))),
    }
}
