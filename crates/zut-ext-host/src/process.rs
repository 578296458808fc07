//! Starting extension processes (through the shared launcher,
//! `zut-process`) and signalling their process groups.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

pub use zut_process::{describe_exit, group_alive, signal_group, Process, SIGKILL, SIGTERM};

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
    /// The sandbox of its declared permissions; `None`: unconfined.
    pub sandbox: Option<Arc<zut_sandbox::Prepared>>,
}

/// Spawns the extension: cwd = its directory, `PWD` set to it, stdin and
/// stdout piped, stderr into the log, its own process group, a
/// parent-death signal so it dies with zut, and its sandbox if it has one.
/// The returned guard is disarmed: the host's shutdown ends the group.
pub fn spawn(spec: LaunchSpec<'_>) -> std::io::Result<Process> {
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
    let mut launch = zut_process::Launch::new(program, spec.dir)
        .args(spec.args)
        .sandbox(spec.sandbox);
    launch.stdin = Stdio::piped();
    launch.stdout = Stdio::piped();
    launch.stderr = Stdio::from(spec.stderr);
    launch.kill_on_drop = true;
    let mut process = zut_process::spawn(launch)?;
    process.guard.disarm();
    Ok(process)
}
