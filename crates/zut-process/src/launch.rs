//! [`spawn`]: the one way zut starts a child process.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{Child, Command};

use crate::group::GroupGuard;

/// What to start and how.
pub struct Launch {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Working directory (`PWD` is set to it too).
    pub cwd: PathBuf,
    /// Variables set on top of the inherited (or allow-listed) environment.
    pub env: Vec<(OsString, OsString)>,
    /// Standard input.
    pub stdin: Stdio,
    /// Standard output.
    pub stdout: Stdio,
    /// Standard error (ignored when `merge_stderr`).
    pub stderr: Stdio,
    /// Send stderr into the stdout pipe (one stream, arrival order kept).
    pub merge_stderr: bool,
    /// Grace between SIGTERM and SIGKILL when the guard kills the group.
    pub kill_grace: Duration,
    /// The sandbox to run in; `None`: unconfined.
    pub sandbox: Option<Arc<zut_sandbox::Prepared>>,
    /// SIGKILL the leader when its tokio `Child` is dropped (on top of the
    /// group guard).
    pub kill_on_drop: bool,
}

impl Launch {
    /// `program` in `cwd`, stdin from `/dev/null`, stdout piped, stderr
    /// discarded, 2 s kill grace, unconfined.
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            stdin: Stdio::null(),
            stdout: Stdio::piped(),
            stderr: Stdio::null(),
            merge_stderr: false,
            kill_grace: Duration::from_secs(2),
            sandbox: None,
            kill_on_drop: false,
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Runs inside `sandbox` (or unconfined for `None`).
    pub fn sandbox(mut self, sandbox: Option<Arc<zut_sandbox::Prepared>>) -> Self {
        self.sandbox = sandbox;
        self
    }
}

/// A started child: the tokio [`Child`] (pipes, `wait`) and the guard of
/// its process group. Dropping the `Process` (or the guard) kills the group
/// unless [`GroupGuard::disarm`] was called.
pub struct Process {
    /// The child.
    pub child: Child,
    /// Kills the group when dropped armed.
    pub guard: GroupGuard,
}

impl Process {
    /// The process group id (= the child's pid), if the child was running
    /// when spawned.
    pub fn pgid(&self) -> Option<u32> {
        self.guard.pgid()
    }
}

/// Starts `launch`: its own process group, parent-death SIGKILL (Linux),
/// stdio as asked, the environment filtered by the sandbox's `env`
/// allow-list and extended with its proxy variables, then the sandbox
/// applied in the child before exec.
pub fn spawn(launch: Launch) -> std::io::Result<Process> {
    let mut cmd = Command::new(&launch.program);
    cmd.args(&launch.args)
        .kill_on_drop(launch.kill_on_drop)
        .current_dir(&launch.cwd)
        .stdin(launch.stdin)
        .stdout(launch.stdout)
        .stderr(if launch.merge_stderr {
            Stdio::null()
        } else {
            launch.stderr
        });
    if let Some(sb) = &launch.sandbox {
        sandbox_env(cmd.as_std_mut(), sb);
    }
    cmd.env("PWD", &launch.cwd);
    for (k, v) in &launch.env {
        cmd.env(k, v);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let scope = launch
        .sandbox
        .as_ref()
        .map(|sb| sb.spawn_scope())
        .unwrap_or_default();
    #[cfg(unix)]
    {
        let scope_ptr = ScopeRef(&scope as *const zut_sandbox::SpawnScope);
        let sandbox = launch.sandbox.clone();
        let merge = launch.merge_stderr;
        // SAFETY: the closure runs in the forked child before exec and only
        // makes system calls (dup2, prctl, and the sandbox's own
        // async-signal-safe setup); it allocates nothing. `scope` outlives
        // the spawn call, which is when the closure runs.
        unsafe {
            cmd.pre_exec(move || child_setup(merge, sandbox.as_deref(), scope_ptr));
        }
    }
    let child = cmd.spawn()?;
    drop(cmd);
    let pgid = child.id();
    Ok(Process {
        child,
        guard: GroupGuard::new(pgid, launch.kill_grace, scope),
    })
}

/// The environment a child gets inside `sb`: only the policy's allow-listed
/// variables (when it has a list), never the withheld ones, plus the
/// sandbox's own (the proxy's). Variables the caller sets afterwards win.
pub fn sandbox_env(cmd: &mut std::process::Command, sb: &zut_sandbox::Prepared) {
    if let Some(allowed) = &sb.policy().env {
        cmd.env_clear();
        for key in allowed {
            if let Some(v) = std::env::var_os(key) {
                cmd.env(key, v);
            }
        }
    }
    for (k, _) in std::env::vars_os() {
        if sb.policy().env_denied(&k.to_string_lossy()) {
            cmd.env_remove(&k);
        }
    }
    for (k, v) in sb.extra_env() {
        cmd.env(k, v);
    }
}

/// A pointer to the spawn's scope, valid while `spawn` runs (the only time
/// the child setup runs); `Send`/`Sync` so the `pre_exec` closure may hold
/// it.
#[derive(Clone, Copy)]
struct ScopeRef(*const zut_sandbox::SpawnScope);
// SAFETY: only dereferenced in the forked child during `spawn`, while the
// pointee is alive and unaliased by writers.
unsafe impl Send for ScopeRef {}
// SAFETY: as above.
unsafe impl Sync for ScopeRef {}

#[cfg(unix)]
fn child_setup(
    merge_stderr: bool,
    sandbox: Option<&zut_sandbox::Prepared>,
    scope: ScopeRef,
) -> std::io::Result<()> {
    if merge_stderr {
        // SAFETY: dup2 on the child's own standard descriptors.
        if unsafe { libc::dup2(1, 2) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    die_with_parent()?;
    if let Some(sb) = sandbox {
        // SAFETY: see ScopeRef.
        let scope = unsafe { &*scope.0 };
        sb.apply_in_child(scope)?;
    }
    Ok(())
}

/// In the forked child: SIGKILL when the thread that forked it exits
/// (Linux; a no-op elsewhere).
#[cfg(unix)]
pub(crate) fn die_with_parent() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_PDEATHSIG only sets a flag of this
        // process.
        let rc = unsafe {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
