//! Running one child process against a deadline: its stdout and stderr are
//! captured together (in order) in an anonymous temporary file, and when
//! the deadline passes or the user interrupts, the child's whole process
//! group is killed with SIGKILL (git starts helpers such as `ssh` and
//! `git-remote-https`; they must not outlive the timeout).

use std::io::{Read, Seek, SeekFrom};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::interrupt::Interrupt;

/// Longest pause between two checks of the child, the deadline and the
/// interrupt flag. Checks start at [`FIRST_POLL`] and double, so a quick
/// `git rev-parse` costs milliseconds, not a whole interval.
const MAX_POLL: Duration = Duration::from_millis(50);
/// First pause between checks.
const FIRST_POLL: Duration = Duration::from_millis(2);

/// A child that exited on its own.
#[derive(Debug)]
pub struct Finished {
    /// How it exited.
    pub status: ExitStatus,
    /// Its stdout and stderr, interleaved as written (lossy UTF-8).
    pub output: String,
}

/// Why no exit status came back.
#[derive(Debug)]
pub enum RunFailure {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// Waiting for it or reading its output failed.
    Io(std::io::Error),
    /// The deadline passed; the process group was killed.
    TimedOut,
    /// Ctrl+C / SIGTERM; the process group was killed.
    Interrupted,
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Spawn(e) => write!(f, "cannot run: {e}"),
            Self::Io(e) => write!(f, "{e}"),
            Self::TimedOut => f.write_str("timed out"),
            Self::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// Runs `cmd` with stdin closed, in its own process group, until it exits
/// or `deadline` passes (or `interrupt`, when given, fires).
pub fn run_until(
    cmd: &mut Command,
    deadline: Instant,
    interrupt: Option<&Interrupt>,
) -> Result<Finished, RunFailure> {
    let mut capture = tempfile::tempfile().map_err(RunFailure::Io)?;
    let stdout = capture.try_clone().map_err(RunFailure::Io)?;
    let stderr = capture.try_clone().map_err(RunFailure::Io)?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(RunFailure::Spawn)?;
    let status = wait_until(&mut child, deadline, interrupt)?;
    let mut bytes = Vec::new();
    capture
        .seek(SeekFrom::Start(0))
        .and_then(|_| capture.read_to_end(&mut bytes))
        .map_err(RunFailure::Io)?;
    Ok(Finished {
        status,
        output: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

fn wait_until(
    child: &mut Child,
    deadline: Instant,
    interrupt: Option<&Interrupt>,
) -> Result<ExitStatus, RunFailure> {
    let mut pause = FIRST_POLL;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => {
                kill_group(child);
                return Err(RunFailure::Io(e));
            }
        }
        if interrupt.is_some_and(Interrupt::fired) {
            kill_group(child);
            return Err(RunFailure::Interrupted);
        }
        let now = Instant::now();
        if now >= deadline {
            kill_group(child);
            return Err(RunFailure::TimedOut);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(MAX_POLL);
    }
}

/// SIGKILL to the child's process group (it leads one, see
/// [`run_until`]), then reaps the child.
fn kill_group(child: &mut Child) {
    zut_process::signal_group(child.id(), zut_process::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_of_both_streams_is_captured_in_order() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo one; echo two >&2; echo three; exit 3"]);
        let done = run_until(&mut cmd, Instant::now() + Duration::from_secs(30), None);
        let Ok(done) = done else {
            panic!("sh failed to run: {done:?}");
        };
        assert_eq!(done.status.code(), Some(3));
        assert_eq!(done.output, "one\ntwo\nthree\n");
    }

    #[test]
    fn deadline_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().map_err(|e| e.to_string());
        let Ok(dir) = dir else {
            panic!("tempdir: {dir:?}");
        };
        let marker = dir.path().join("grandchild-survived");
        // The grandchild would write the marker after 1.5 s unless killed
        // together with its parent.
        let script = format!("(sleep 1.5; touch '{}') & sleep 30", marker.display());
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script]);
        let started = Instant::now();
        let res = run_until(&mut cmd, started + Duration::from_millis(300), None);
        assert!(matches!(res, Err(RunFailure::TimedOut)), "{res:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_secs(2));
        assert!(
            !marker.exists(),
            "a process of the group outlived the timeout"
        );
    }

    #[test]
    fn missing_program_is_a_spawn_failure() {
        let mut cmd = Command::new("/nonexistent/zut-no-such-program");
        let res = run_until(&mut cmd, Instant::now() + Duration::from_secs(5), None);
        assert!(matches!(res, Err(RunFailure::Spawn(_))), "{res:?}");
    }
}
