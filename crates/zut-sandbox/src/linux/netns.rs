//! A private network namespace for network `none`: only a loopback
//! interface (brought up, so servers and clients inside the sandbox still
//! talk to each other), nothing of the host's network.

use std::ffi::CString;

/// What the child does, prepared in the parent (the child must not
/// allocate).
pub(crate) struct Plan {
    /// Also a user namespace (unprivileged callers).
    user: bool,
    /// `/proc/self/uid_map` contents etc.
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    uid_map_path: CString,
    gid_map_path: CString,
    setgroups_path: CString,
}

impl Plan {
    /// The plan for this process's credentials.
    pub(crate) fn new() -> Option<Self> {
        // SAFETY: getters without side effects.
        let (uid, gid, euid) = unsafe { (libc::getuid(), libc::getgid(), libc::geteuid()) };
        Some(Self {
            user: euid != 0,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            uid_map_path: CString::new("/proc/self/uid_map").ok()?,
            gid_map_path: CString::new("/proc/self/gid_map").ok()?,
            setgroups_path: CString::new("/proc/self/setgroups").ok()?,
        })
    }

    /// In the forked child: enter the namespaces and bring `lo` up.
    /// Async-signal-safe (system calls only).
    pub(crate) fn enter(&self) -> std::io::Result<()> {
        let flags = if self.user {
            libc::CLONE_NEWUSER | libc::CLONE_NEWNET
        } else {
            libc::CLONE_NEWNET
        };
        // SAFETY: unshare affects only this (single-threaded) child.
        if unsafe { libc::unshare(flags) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if self.user {
            write_file(&self.setgroups_path, b"deny")?;
            write_file(&self.uid_map_path, &self.uid_map)?;
            write_file(&self.gid_map_path, &self.gid_map)?;
        }
        loopback_up()
    }
}

fn write_file(path: &CString, data: &[u8]) -> std::io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        if n < 0 {
            return Err(err);
        }
    }
    Ok(())
}

fn loopback_up() -> std::io::Result<()> {
    // SAFETY: a datagram socket and SIOCSIFFLAGS on a zeroed ifreq naming
    // "lo"; all memory is on this stack frame.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        req.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        let rc = libc::ioctl(s, libc::SIOCSIFFLAGS as _, &req);
        let err = std::io::Error::last_os_error();
        libc::close(s);
        if rc != 0 {
            return Err(err);
        }
    }
    Ok(())
}

/// Whether a child can get its own network namespace here (tried once in
/// a short-lived child process).
pub(crate) fn probe() -> bool {
    use std::os::unix::process::CommandExt;
    let Some(plan) = Plan::new() else {
        return false;
    };
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("exit 0")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: Plan::enter makes system calls only.
    unsafe {
        cmd.pre_exec(move || plan.enter());
    }
    cmd.status().map(|s| s.success()).unwrap_or(false)
}
