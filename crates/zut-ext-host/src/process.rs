//! Starting extension processes and signalling their process groups.

use std::path::Path;
use std::process::Stdio;

use tokio::process::{Child, Command};

use crate::manifest::ExecSpec;

/// How to launch one extension.
pub struct LaunchSpec<'a> {
    /// Resolved `exec`.
    pub exec: &'a ExecSpec,
    /// Extra argv.
    pub args: &'a [String],
    /// Extension directory (the child's cwd).
    pub dir: &'a Path,
    /// Where the child's stderr goes.
    pub stderr: std::fs::File,
}

/// Spawns the extension: cwd = its directory, `PWD` set to it, stdin and
/// stdout piped, stderr into the log, its own process group, and on Linux
/// a parent-death signal so it dies with zut.
pub fn spawn(spec: LaunchSpec<'_>) -> std::io::Result<Child> {
    let program = match spec.exec {
        ExecSpec::Local(p) => p.as_os_str().to_owned(),
        ExecSpec::Path(cmd) => cmd.into(),
        ExecSpec::None => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "exec is required",
            ))
        }
    };
    let mut cmd = Command::new(program);
    cmd.args(spec.args)
        .current_dir(spec.dir)
        .env("PWD", spec.dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(spec.stderr))
        .kill_on_drop(true);
    #[cfg(unix)]
    {
        cmd.process_group(0);
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl is async-signal-safe and touches no memory of the
        // parent; it runs in the forked child before exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd.spawn()
}

/// Sends `signal` to the whole process group `pgid`. Returns whether any
/// process received it.
#[cfg(unix)]
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    if pgid <= 1 {
        return false;
    }
    // SAFETY: killpg only sends a signal; a stale pgid yields ESRCH.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// Whether any process is left in group `pgid`.
#[cfg(unix)]
pub fn group_alive(pgid: u32) -> bool {
    signal_group(pgid, 0)
}

/// SIGTERM.
#[cfg(unix)]
pub const SIGTERM: i32 = libc::SIGTERM;
/// SIGKILL.
#[cfg(unix)]
pub const SIGKILL: i32 = libc::SIGKILL;

/// Describes how a process ended, as Go prints it: `exit status N` or
/// `signal: <name>`.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("signal: {}", signal_name(sig));
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "exited".to_string(),
    }
}

#[cfg(unix)]
fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGHUP => "hangup".into(),
        libc::SIGINT => "interrupt".into(),
        libc::SIGQUIT => "quit".into(),
        libc::SIGILL => "illegal instruction".into(),
        libc::SIGABRT => "aborted".into(),
        libc::SIGBUS => "bus error".into(),
        libc::SIGFPE => "floating point exception".into(),
        libc::SIGKILL => "killed".into(),
        libc::SIGSEGV => "segmentation fault".into(),
        libc::SIGPIPE => "broken pipe".into(),
        libc::SIGTERM => "terminated".into(),
        other => format!("signal {other}"),
    }
}
