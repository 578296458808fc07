//! Server processes: started from one long-lived thread so that, on
//! Linux, `PR_SET_PDEATHSIG` (which fires when the *thread* that forked
//! the child exits) kills them only when zut itself goes; each leads its
//! own process group, which is killed when the handle is dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

fn spawner() -> &'static Mutex<mpsc::Sender<SpawnRequest>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        let started = std::thread::Builder::new()
            .name("zut-lsp-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "cannot start the language-server spawner thread");
        }
        Mutex::new(tx)
    })
}

/// Starts `program args` in `cwd` with piped stdio, its own process group
/// and (Linux) death with zut.
pub fn spawn(
    program: &Path,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // SAFETY: prctl only sets a flag of the forked child; async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            #[cfg(target_os = "linux")]
            {
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
            }
            Ok(())
        });
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

/// Kills a process group on drop (SIGKILL: the server had its chance to
/// exit through `shutdown`/`exit`).
#[derive(Debug)]
pub struct GroupGuard {
    pgid: libc::pid_t,
}

impl GroupGuard {
    /// Guards the group led by `pid`.
    pub fn new(pid: u32) -> Self {
        Self {
            pgid: libc::pid_t::try_from(pid).unwrap_or(0),
        }
    }

    /// Sends `sig` to the whole group.
    pub fn signal(&self, sig: libc::c_int) {
        if self.pgid > 1 {
            // SAFETY: kill(2) on our own child's process group.
            unsafe {
                libc::kill(-self.pgid, sig);
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
    }
}

/// Looks a command up: an absolute or relative path as given, else, from
/// `start` up through every ancestor, `node_modules/.bin`, `.venv/bin`,
/// `.venv/Scripts`, `bin`, `Scripts`, then `PATH`.
pub fn resolve_command(command: &str, start: &Path) -> Result<PathBuf, String> {
    let not_found =
        || format!("command {command:?} not found in node_modules/.bin, .venv/bin, bin, or PATH");
    if command.contains('/') {
        let p = start.join(command);
        return if is_executable(&p) {
            Ok(p)
        } else {
            Err(not_found())
        };
    }
    let mut dir = Some(start);
    while let Some(d) = dir {
        for sub in [
            "node_modules/.bin",
            ".venv/bin",
            ".venv/Scripts",
            "bin",
            "Scripts",
        ] {
            let p = d.join(sub).join(command);
            if is_executable(&p) {
                return Ok(p);
            }
        }
        dir = d.parent();
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let p = d.join(command);
            if is_executable(&p) {
                return Ok(p);
            }
        }
    }
    Err(not_found())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
