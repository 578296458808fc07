//! [`spawn_server`]: long-lived servers (language servers) started with
//! `std::process`, forked from one long-lived thread.
//!
//! On Linux `PR_SET_PDEATHSIG` fires when the *thread* that forked the
//! child exits, not the process: a server forked from a pool thread that
//! later retires (tokio's blocking pool retires idle threads after 10 s)
//! would be killed with it. So every server is forked from one thread that
//! lives as long as zut.

use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

fn spawner() -> &'static Mutex<mpsc::Sender<SpawnRequest>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        let started = std::thread::Builder::new()
            .name("zut-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "cannot start the server spawner thread");
        }
        Mutex::new(tx)
    })
}

/// Starts `cmd` (stdio as the caller set it) in its own process group with
/// a parent-death SIGKILL (Linux), forked from the long-lived spawner
/// thread. The caller owns the group (see [`crate::signal_group`]).
pub fn spawn_server(mut cmd: Command) -> std::io::Result<Child> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        // SAFETY: the closure only calls prctl (async-signal-safe) in the
        // forked child.
        unsafe {
            cmd.pre_exec(crate::launch::die_with_parent);
        }
    }
    let (tx, rx) = mpsc::channel();
    {
        let sender = spawner()
            .lock()
            .map_err(|_| std::io::Error::other("spawner lock poisoned"))?;
        sender
            .send((cmd, tx))
            .map_err(|_| std::io::Error::other("spawner thread is gone"))?;
    }
    rx.recv()
        .map_err(|_| std::io::Error::other("spawner thread is gone"))?
}
