//! Starting a stdio server: its own process group, killed on drop, stderr
//! appended to `$ZUT_HOME/logs/mcp-<name>.log`, parent-death signal on Linux.
//!
//! TODO(zut-process): switch to the shared launcher crate `zut-process`
//! (and its sandbox policy) once it lands; this is the only place that
//! spawns server processes.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

use tokio::process::{Child, Command};

/// Spawns `command args` in `cwd` with `env` added, stdin/stdout piped.
pub fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
    stderr: std::fs::File,
) -> std::io::Result<Child> {
    let mut cmd = Command::new(command);
    cmd.args(args)
        .envs(env)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
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
    cmd.spawn()
}

/// Sends `signal` to the process group `pgid` (false when it is gone).
#[cfg(unix)]
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    match libc::pid_t::try_from(pgid) {
        // SAFETY: killpg has no memory-safety preconditions.
        Ok(p) if p > 1 => unsafe { libc::killpg(p, signal) == 0 },
        _ => false,
    }
}

/// Stops a server process: waits `grace` for it to exit on its own (its
/// stdin is already closed), then SIGTERM, then SIGKILL to the whole group.
pub async fn stop(child: &mut Child, grace: std::time::Duration) {
    let pgid = child.id();
    if tokio::time::timeout(grace, child.wait()).await.is_err() {
        #[cfg(unix)]
        if let Some(pgid) = pgid {
            signal_group(pgid, libc::SIGTERM);
        }
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            let _ = child.start_kill();
            let _ = child.wait().await;
        }
    }
    // Grandchildren that outlived the leader.
    #[cfg(unix)]
    if let Some(pgid) = pgid {
        signal_group(pgid, libc::SIGKILL);
    }
}

/// `exit status N` / `signal N` of a finished process.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "exited".into(),
    }
}
