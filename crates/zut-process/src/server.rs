//! [`spawn_server`]: long-lived servers (language servers) started with
//! `std::process`, forked from one long-lived thread; [`on_spawner_thread`]:
//! any other start-up work run on that thread (MCP stdio servers).
//!
//! On Linux `PR_SET_PDEATHSIG` fires when the *thread* that forked the
//! child exits, not the process: a server forked from a pool thread that
//! later retires (tokio's blocking pool retires idle threads after 10 s)
//! would be killed with it. So every server is forked from one thread that
//! lives as long as zut. Forking there also keeps the fork/exec (and the
//! wait for the child's exec) off the caller's thread: `zut -p` sends its
//! first model request from a current-thread runtime.

use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

fn spawner() -> &'static Mutex<mpsc::Sender<Job>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("zut-spawner".into())
            .spawn(move || {
                for job in rx {
                    // A job that panics fails its own caller (its reply
                    // channel is dropped), not every later spawn.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "cannot start the server spawner thread");
        }
        Mutex::new(tx)
    })
}

fn submit(job: Job) -> std::io::Result<()> {
    let sender = spawner()
        .lock()
        .map_err(|_| std::io::Error::other("spawner lock poisoned"))?;
    sender
        .send(job)
        .map_err(|_| std::io::Error::other("spawner thread is gone"))
}

/// Runs `f` on the long-lived spawner thread (jobs run one at a time, in
/// order) and resolves with its result; the caller's thread is free
/// meanwhile. A child forked in `f` keeps its parent-death signal for as
/// long as zut runs. `f` runs without a tokio context: enter a runtime
/// handle in it to spawn `tokio::process` children. If the future is
/// dropped before `f` finishes, `f`'s result is dropped on that thread.
pub async fn on_spawner_thread<T, F>(f: F) -> std::io::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = tokio::sync::oneshot::channel();
    submit(Box::new(move || {
        let _ = tx.send(f());
    }))?;
    rx.await.map_err(|_| {
        std::io::Error::other("the spawner thread did not finish the job (it panicked or is gone)")
    })
}

/// Starts `cmd` (stdio as the caller set it) in its own process group with
/// a parent-death SIGKILL (Linux), forked from the long-lived spawner
/// thread. The caller owns the group (see [`crate::signal_group`]).
pub fn spawn_server(cmd: Command) -> std::io::Result<Child> {
    spawn_server_in(cmd, None)
}

/// [`spawn_server`] inside `sandbox` (unconfined for `None`): the policy is
/// applied in the forked child before exec, as [`crate::spawn`] does. The
/// caller sets the environment (see [`crate::sandbox_env`]). A server
/// outlives any one command, so it gets no pids cgroup; the policy's
/// rlimits still bound it.
pub fn spawn_server_in(
    mut cmd: Command,
    sandbox: Option<Arc<zut_sandbox::Prepared>>,
) -> std::io::Result<Child> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        // SAFETY: the closure runs in the forked child before exec and only
        // makes system calls: prctl, and the sandbox's own setup, which
        // allocates nothing (the empty scope is a `None`).
        unsafe {
            cmd.pre_exec(move || {
                crate::launch::die_with_parent()?;
                if let Some(sb) = &sandbox {
                    sb.apply_in_child(&zut_sandbox::SpawnScope::default())?;
                }
                Ok(())
            });
        }
    }
    #[cfg(not(unix))]
    let _ = sandbox;
    let (tx, rx) = mpsc::channel();
    submit(Box::new(move || {
        let _ = tx.send(cmd.spawn());
    }))?;
    rx.recv()
        .map_err(|_| std::io::Error::other("spawner thread is gone"))?
}
