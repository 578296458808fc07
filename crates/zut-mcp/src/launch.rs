//! Starting a stdio server through the shared launcher (`zut_process`):
//! its own process group, parent-death signal on Linux, stderr appended to
//! `$ZUT_HOME/logs/mcp-<name>.log`, the leader killed when its `Child` is
//! dropped; [`stop`] ends the whole group. A server runs inside the
//! sandbox [`crate::sandbox::confinement`] chose for it (or unconfined).
//!
//! [`start_stdio`] does all of a start's synchronous work (log file,
//! sandbox policy, fork/exec and the wait for the child's exec) on
//! `zut_process`'s long-lived spawner thread, never on the runtime's
//! thread: `zut -p` sends its first model request from a current-thread
//! runtime, and five servers forked there delayed it by ≈ 5 ms each. The
//! spawner thread lives as long as zut, so the parent-death signal (which
//! follows the forking thread) stays right; a blocking-pool thread would
//! retire after 10 s idle and take its children with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Child;

pub use zut_process::{describe_exit, signal_group};

/// What [`start_stdio`] needs, owned (it runs on another thread).
pub(crate) struct StdioStart {
    pub config: crate::config::ServerConfig,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub home: PathBuf,
    pub project: PathBuf,
    pub jail: zut_tools::JailSwitch,
}

/// A started stdio server.
pub(crate) struct Started {
    pub child: Child,
    /// Disarmed (the caller stops the group with [`stop`]); keeps a
    /// sandboxed child's pids cgroup.
    pub guard: zut_process::GroupGuard,
    /// [`crate::sandbox::Confinement::word`].
    pub confined: &'static str,
    /// Whether the session was jailed when it started.
    pub jailed_at_start: bool,
}

/// Opens the server's log, chooses its sandbox and starts it, on the
/// spawner thread (see the module doc); the caller's thread is free
/// meanwhile. Must be called inside a tokio runtime (the child's pipes
/// and reaper belong to it). If this future is dropped before the start
/// finishes, the new process group is killed.
pub(crate) async fn start_stdio(s: StdioStart) -> Result<Started, String> {
    let handle = tokio::runtime::Handle::current();
    let mut started = zut_process::on_spawner_thread(move || {
        let _entered = handle.enter();
        start_here(&s)
    })
    .await
    .map_err(|e| format!("cannot start it: {e}"))??;
    started.guard.disarm();
    Ok(started)
}

/// [`start_stdio`]'s work on the current thread. The guard is returned
/// armed: dropped unclaimed (the caller gave up), it kills the group.
fn start_here(s: &StdioStart) -> Result<Started, String> {
    let name = &s.config.name;
    let log =
        crate::fsutil::open_log(&s.home, name).map_err(|e| format!("cannot open its log: {e}"))?;
    crate::fsutil::log_marker(
        &s.home,
        name,
        &format!("starting {} {}", s.command, s.args.join(" ")),
    );
    let jailed_at_start = s.jail.is_jailed();
    let confined = crate::sandbox::confinement(&s.config, &s.jail, &s.home, &s.project)
        .map_err(|e| format!("sandbox: {e}"))?;
    if let Some(note) = &confined.note {
        crate::fsutil::log_marker(&s.home, name, note);
    }
    if let Some(sb) = &confined.prepared {
        crate::fsutil::log_marker(
            &s.home,
            name,
            &format!("confined: {}", sb.policy().summary()),
        );
        for note in sb.notes() {
            crate::fsutil::log_marker(&s.home, name, &format!("sandbox not enforced here: {note}"));
        }
    }
    let (child, guard) = spawn(
        &s.command,
        &s.args,
        &s.env,
        &s.project,
        log,
        confined.prepared,
    )
    .map_err(|e| format!("cannot start `{}`: {e}", s.command))?;
    Ok(Started {
        child,
        guard,
        confined: confined.word,
        jailed_at_start,
    })
}

/// Spawns `command args` in `cwd` with `env` added, stdin/stdout piped,
/// inside `sandbox` when given. The guard is armed: the caller disarms it
/// once it owns the child (and stops the group with [`stop`]); it keeps a
/// sandboxed child's pids cgroup and kills what is left in it
/// ([`zut_process::GroupGuard::kill_stragglers`]).
fn spawn(
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
    let zut_process::Process { child, guard } = zut_process::spawn(launch)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{parse_server, Scope};
    use std::time::Duration;

    /// Processes (not zombies) whose command line contains `token`.
    fn running_with(token: &str) -> Vec<String> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.flatten()
            .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
            .filter(|e| {
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let zombie = stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z'));
                let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                !zombie && String::from_utf8_lossy(&cmd).contains(token)
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    }

    /// The supervisor gave up (stop, start-up timeout) while the start was
    /// queued on the spawner thread: the server it then forked is killed,
    /// not left running with nobody to stop it.
    #[tokio::test(flavor = "current_thread")]
    async fn a_start_given_up_before_the_fork_kills_the_new_server() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let token = dir.path().display().to_string();
        // Hold the spawner thread so the start waits behind it.
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let holder = tokio::spawn(zut_process::on_spawner_thread(move || {
            let _ = hold_rx.recv_timeout(Duration::from_secs(20));
        }));
        tokio::task::yield_now().await;
        let config = parse_server(
            "s",
            &serde_json::json!({"command": "/bin/sh"}),
            Scope::User,
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let start = start_stdio(StdioStart {
            config,
            command: "/bin/sh".into(),
            // The token is in the grandchild's command line too: the
            // whole group must go, not only the leader.
            args: vec!["-c".into(), format!("sh -c 'sleep 30; : {token}' & wait")],
            env: BTreeMap::new(),
            home: dir.path().to_path_buf(),
            project: dir.path().to_path_buf(),
            jail: zut_tools::JailSwitch::default(),
        });
        // Queued, then given up.
        assert!(tokio::time::timeout(Duration::from_millis(50), start)
            .await
            .is_err());
        hold_tx.send(()).unwrap_or_else(|e| panic!("{e}"));
        holder
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|e| panic!("{e}"));
        // Jobs run in order: once this one ran, the start has run too.
        zut_process::on_spawner_thread(|| ())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let log = std::fs::read_to_string(dir.path().join("logs/mcp-s.log")).unwrap_or_default();
        assert!(
            log.contains("starting /bin/sh"),
            "the start did not run: {log:?}"
        );
        let mut left = running_with(&token);
        for _ in 0..200 {
            if left.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
            left = running_with(&token);
        }
        assert!(
            left.is_empty(),
            "the server outlived its given-up start: pids {left:?}"
        );
    }
}
