//! Ctrl+C / SIGTERM handling for long-running `zut ext` commands, and a
//! child-process runner that kills the child's whole process group when
//! the user interrupts.
//!
//! Design: a small background thread drives a single-threaded tokio
//! runtime that waits for SIGINT or SIGTERM and raises a shared flag. The
//! synchronous command code polls that flag (between copied files, while
//! waiting for a child, while following a log). Children run in their own
//! process group, so on interruption the whole group is signalled (`go
//! build` and its compilers, `cargo` and its `rustc`s, `git` and its
//! helpers) and the command returns [`Interrupted`], so the caller rolls
//! back through its normal error path.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often waiting code re-checks the child and the flag.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);
/// Grace period between SIGTERM and SIGKILL for an interrupted child group.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// The error returned when the user interrupted the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// A flag raised by Ctrl+C or SIGTERM once [`Interrupt::install`] ran.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    fired: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the SIGINT/SIGTERM handlers. The handlers are registered
    /// before this returns, so no signal can slip through afterwards.
    pub fn install() -> std::io::Result<Self> {
        let me = Self::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let waiter = {
            let _guard = rt.enter();
            SignalWaiter::new()?
        };
        let fired = Arc::clone(&me.fired);
        std::thread::Builder::new()
            .name("zut-signals".into())
            .spawn(move || {
                rt.block_on(async move {
                    let mut waiter = waiter;
                    loop {
                        waiter.next().await;
                        fired.store(true, Ordering::SeqCst);
                    }
                });
            })?;
        Ok(me)
    }

    /// Whether Ctrl+C or SIGTERM arrived.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }

    /// `Err(Interrupted)` once the flag is raised.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.fired() {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// Spawns `cmd` in its own process group with stdin closed and waits
    /// for it, killing the group if the user interrupts.
    pub fn run(&self, cmd: &mut Command) -> Result<ExitStatus, RunError> {
        let mut child = self.spawn(cmd)?;
        self.wait(&mut child)
    }

    /// Spawns `cmd` in its own process group with stdin closed.
    pub fn spawn(&self, cmd: &mut Command) -> Result<Child, RunError> {
        self.check().map_err(|_| RunError::Interrupted)?;
        cmd.stdin(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        cmd.spawn().map_err(RunError::Spawn)
    }

    /// Waits for `child`; on interruption kills its process group (SIGTERM,
    /// then SIGKILL after [`KILL_GRACE`]) and returns [`RunError::Interrupted`].
    pub fn wait(&self, child: &mut Child) -> Result<ExitStatus, RunError> {
        loop {
            if let Some(status) = child.try_wait().map_err(RunError::Wait)? {
                return Ok(status);
            }
            if self.fired() {
                kill_group(child);
                return Err(RunError::Interrupted);
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }
}

/// Why a child process did not produce an exit status.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// Waiting for it failed.
    Wait(std::io::Error),
    /// The user interrupted; the child group was killed.
    Interrupted,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Spawn(e) => write!(f, "{e}"),
            Self::Wait(e) => write!(f, "wait: {e}"),
            Self::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for RunError {}

/// `exit status N` or `signal: N`, like Go's error text.
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("signal: {sig}");
        }
    }
    status.to_string()
}

/// SIGTERM to the child's process group, SIGKILL after the grace period,
/// then reaps the child.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        let Ok(pid) = i32::try_from(child.id()) else {
            let _ = child.kill();
            let _ = child.wait();
            return;
        };
        signal_group(pid, libc::SIGTERM);
        let deadline = Instant::now() + KILL_GRACE;
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                // The leader is gone; make sure stragglers are too.
                signal_group(pid, libc::SIGKILL);
                return;
            }
            std::thread::sleep(POLL_INTERVAL);
        }
        signal_group(pid, libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(unix)]
fn signal_group(pgid: i32, sig: i32) {
    // SAFETY: kill(2) has no memory-safety preconditions; a negative pid
    // addresses the process group the child leads (spawned with
    // `process_group(0)`), and errors such as ESRCH are harmless here.
    unsafe {
        libc::kill(-pgid, sig);
    }
}

/// Waits for SIGINT or SIGTERM.
struct SignalWaiter {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl SignalWaiter {
    /// Must be called inside a tokio runtime context.
    fn new() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Self {
                int: signal(SignalKind::interrupt())?,
                term: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Self {})
        }
    }

    async fn next(&mut self) {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.int.recv() => {}
                _ = self.term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
