//! Starting a stdio server through the shared launcher (`zut_process`):
//! its own process group, parent-death signal on Linux, stderr appended to
//! `$ZUT_HOME/logs/mcp-<name>.log`, the leader killed when its `Child` is
//! dropped; [`stop`] ends the whole group. A server runs inside the
//! sandbox [`crate::sandbox::confinement`] chose for it (or unconfined).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

use tokio::process::Child;

pub use zut_process::{describe_exit, signal_group};

/// Spawns `command args` in `cwd` with `env` added, stdin/stdout piped,
/// inside `sandbox` when given. The guard is disarmed (the caller stops
/// the group with [`stop`]); it keeps a sandboxed child's pids cgroup and
/// kills what is left in it ([`zut_process::GroupGuard::kill_stragglers`]).
pub fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
    stderr: std::fs::File,
    sandbox: Option<std::sync::Arc<zut_sandbox::Prepared>>,
) -> std::io::Result<(Child, zut_process::GroupGuard)> {
    let mut launch = zut_process::Launch::new(command, cwd)
        .args(args)
        .sandbox(sandbox);
    launch.env = env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    launch.stdin = Stdio::piped();
    launch.stderr = Stdio::from(stderr);
    launch.kill_on_drop = true;
    let zut_process::Process { child, mut guard } = zut_process::spawn(launch)?;
    // The connection owns the child; `stop` (or the slot's own kill) ends
    // the group, as before the shared launcher.
    guard.disarm();
    Ok((child, guard))
}

/// Stops a server process: waits `grace` for it to exit on its own (its
/// stdin is already closed), then SIGTERM, then SIGKILL to the whole group.
pub async fn stop(child: &mut Child, grace: std::time::Duration) {
    let pgid = child.id();
    if tokio::time::timeout(grace, child.wait()).await.is_err() {
        #[cfg(unix)]
        if let Some(pgid) = pgid {
            signal_group(pgid, zut_process::SIGTERM);
        }
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            let _ = child.start_kill();
            let _ = child.wait().await;
        }
    }
    // Grandchildren that outlived the leader.
    #[cfg(unix)]
    if let Some(pgid) = pgid {
        signal_group(pgid, zut_process::SIGKILL);
    }
}
