//! A pids cgroup per confined process tree, where the cgroup file system
//! lets us make one: `RLIMIT_NPROC` counts per user and does not bind
//! root, a cgroup's `pids.max` binds everyone.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// The directory under which per-spawn cgroups are made (the pids
/// controller of this process's cgroup), if it is writable.
pub(crate) fn base() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut candidates = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            candidates.push(PathBuf::from("/sys/fs/cgroup/pids").join(rel));
        } else if controllers.is_empty() {
            candidates.push(PathBuf::from("/sys/fs/cgroup").join(rel));
        }
    }
    candidates.into_iter().find(|dir| try_make(dir).is_some())
}

fn try_make(dir: &std::path::Path) -> Option<()> {
    let probe = dir.join(format!("zut-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).ok()?;
    let ok = probe.join("pids.max").exists();
    let _ = std::fs::remove_dir(&probe);
    ok.then_some(())
}

/// One process tree's cgroup: made before the spawn, joined by the child,
/// removed when dropped (once its processes are gone).
pub struct Cgroup {
    dir: PathBuf,
    procs: OwnedFd,
}

impl Cgroup {
    /// Makes a cgroup under `base` allowing `max` processes.
    pub(crate) fn new(base: &std::path::Path, max: u64) -> std::io::Result<Self> {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = base.join(format!(
            "zut-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir)?;
        let made = (|| {
            std::fs::write(dir.join("pids.max"), max.to_string())?;
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))?;
            Ok::<_, std::io::Error>(OwnedFd::from(f))
        })();
        match made {
            Ok(procs) => Ok(Self { dir, procs }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// In the forked child: move this process into the cgroup.
    /// Async-signal-safe.
    pub(crate) fn join(&self) -> std::io::Result<()> {
        // SAFETY: write of a two-byte static buffer to an open descriptor.
        let n = unsafe { libc::write(self.procs.as_raw_fd(), b"0\n".as_ptr().cast(), 2) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// SIGKILLs every process left in the cgroup (grandchildren that
    /// left the process group, daemons).
    pub(crate) fn kill_remaining(&self) {
        let Ok(text) = std::fs::read_to_string(self.dir.join("cgroup.procs")) else {
            return;
        };
        for pid in text
            .lines()
            .filter_map(|l| l.trim().parse::<libc::pid_t>().ok())
        {
            if pid > 1 {
                // SAFETY: kill only sends a signal.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }

    /// Whether processes are left in it.
    pub fn populated(&self) -> bool {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .map(|s| !s.trim().is_empty())
            .unwrap_or(false)
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // Fails while processes are left; the kernel keeps an empty
        // directory harmlessly and the next cleanup pass retries.
        if std::fs::remove_dir(&self.dir).is_err() {
            let dir = self.dir.clone();
            let _ = std::thread::Builder::new()
                .name("zut-cgroup-rm".into())
                .spawn(move || {
                    for _ in 0..50 {
                        std::thread::sleep(std::time::Duration::from_millis(100));
                        if std::fs::remove_dir(&dir).is_ok() {
                            return;
                        }
                    }
                });
        }
    }
}
