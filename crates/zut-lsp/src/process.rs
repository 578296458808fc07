//! Server processes: started by `zut_process::spawn_server_in` (one
//! long-lived spawner thread, so the parent-death signal follows zut); each
//! leads its own process group, which is killed when the handle is dropped;
//! and where a server's command is found.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

/// Starts `program args` in `cwd` with piped stdio, its own process group
/// and (Linux) death with zut, through `zut_process::spawn_server_in`:
/// inside `jail` when the session is jailed.
pub fn spawn(
    program: &Path,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
    jail: Option<Arc<zut_sandbox::Prepared>>,
) -> std::io::Result<Child> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(j) = &jail {
        zut_process::sandbox_env(&mut cmd, j);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    zut_process::spawn_server_in(cmd, jail)
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
