//! Signalling process groups, and the guard that kills one when dropped.

use std::time::Duration;

/// SIGTERM.
#[cfg(unix)]
pub const SIGTERM: i32 = libc::SIGTERM;
/// SIGKILL.
#[cfg(unix)]
pub const SIGKILL: i32 = libc::SIGKILL;
/// SIGTERM (no signals off Unix).
#[cfg(not(unix))]
pub const SIGTERM: i32 = 15;
/// SIGKILL (no signals off Unix).
#[cfg(not(unix))]
pub const SIGKILL: i32 = 9;

/// How often a dying group is polled.
const POLL: Duration = Duration::from_millis(20);

/// Sends `signal` to the whole process group `pgid`. Returns whether any
/// process received it.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pgid) = libc::pid_t::try_from(pgid) else {
            return false;
        };
        if pgid <= 1 {
            return false;
        }
        // SAFETY: killpg only sends a signal; a stale pgid yields ESRCH.
        unsafe { libc::killpg(pgid, signal) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = (pgid, signal);
        false
    }
}

/// Whether any process is left in group `pgid` (an unreaped leader counts).
pub fn group_alive(pgid: u32) -> bool {
    signal_group(pgid, 0)
}

/// Kills a process group when dropped while armed: SIGTERM at once, then
/// SIGKILL after the grace period on a helper thread (a destructor cannot
/// wait). Also keeps the child's sandbox resources (its pids cgroup) until
/// the group is gone.
pub struct GroupGuard {
    pgid: Option<u32>,
    grace: Duration,
    scope: Option<zut_sandbox::SpawnScope>,
}

impl std::fmt::Debug for GroupGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupGuard")
            .field("pgid", &self.pgid)
            .field("grace", &self.grace)
            .finish()
    }
}

impl GroupGuard {
    pub(crate) fn new(pgid: Option<u32>, grace: Duration, scope: zut_sandbox::SpawnScope) -> Self {
        Self {
            pgid,
            grace,
            scope: Some(scope),
        }
    }

    /// The group's id.
    pub fn pgid(&self) -> Option<u32> {
        self.pgid
    }

    /// Whether the group is armed (will be killed on drop).
    pub fn armed(&self) -> bool {
        self.pgid.is_some()
    }

    /// Leaves the group alone when dropped (it was terminated already or
    /// is left to run).
    pub fn disarm(&mut self) {
        self.pgid = None;
    }

    /// SIGTERM to the group, up to `grace` for it to go, then SIGKILL;
    /// returns once it is gone (or after another second). Disarms.
    pub async fn terminate(&mut self, grace: Duration) {
        let Some(pgid) = self.pgid.take() else {
            return;
        };
        if !signal_group(pgid, SIGTERM) {
            return;
        }
        let end = tokio::time::Instant::now() + grace;
        while group_alive(pgid) && tokio::time::Instant::now() < end {
            tokio::time::sleep(POLL).await;
        }
        if group_alive(pgid) {
            signal_group(pgid, SIGKILL);
        }
        if let Some(s) = &self.scope {
            s.kill_remaining();
        }
    }

    /// SIGKILLs processes of the child's tree that left its group (only
    /// for sandboxed children with a cgroup).
    pub fn kill_stragglers(&self) {
        if let Some(s) = &self.scope {
            s.kill_remaining();
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let scope = self.scope.take();
        let Some(pgid) = self.pgid.take() else {
            drop_scope_when_empty(scope);
            return;
        };
        if !signal_group(pgid, SIGTERM) {
            drop_scope_when_empty(scope);
            return;
        }
        let grace = self.grace;
        let killer = std::thread::Builder::new()
            .name("zut-group-kill".into())
            .spawn(move || {
                let end = std::time::Instant::now() + grace;
                while std::time::Instant::now() < end && group_alive(pgid) {
                    std::thread::sleep(POLL);
                }
                if group_alive(pgid) {
                    signal_group(pgid, SIGKILL);
                }
                if let Some(s) = &scope {
                    s.kill_remaining();
                }
                drop(scope);
            });
        if killer.is_err() {
            signal_group(pgid, SIGKILL);
        }
    }
}

/// The cgroup of a sandboxed child goes once its last process has (its
/// `Drop` retries on a thread while processes linger).
fn drop_scope_when_empty(scope: Option<zut_sandbox::SpawnScope>) {
    drop(scope);
}
