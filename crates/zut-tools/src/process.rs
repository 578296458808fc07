//! Process-group plumbing shared by `bash` and `python`: the child's
//! pre-exec setup (stderr into the stdout pipe, death with zut), signals to
//! a whole group, a guard that kills the group when a tool's future is
//! dropped, and lossy streaming UTF-8 decoding of the output.

#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(unix)]
mod unix {
    use std::time::Duration;

    use crate::limits::BASH_KILL_GRACE;

    /// How often a group is polled while waiting for it to die.
    pub(crate) const POLL: Duration = Duration::from_millis(50);

    /// Makes `cmd` lead a new process group whose stderr goes into its
    /// stdout pipe and which dies with zut (Linux); see [`child_setup`].
    pub(crate) fn in_own_group(cmd: &mut tokio::process::Command) {
        cmd.process_group(0);
        // SAFETY: the closure only calls dup2 and prctl, which are
        // async-signal-safe, and touches no memory of the parent. It runs in
        // the forked child after its stdio has been set up.
        unsafe {
            cmd.pre_exec(child_setup);
        }
    }

    /// The process group id of a child started with [`in_own_group`].
    pub(crate) fn group_of(child: &tokio::process::Child) -> libc::pid_t {
        child
            .id()
            .and_then(|id| libc::pid_t::try_from(id).ok())
            .unwrap_or(0)
    }

    /// Runs in the forked child before exec: merge stderr into the stdout
    /// pipe and, on Linux, die with the parent.
    fn child_setup() -> std::io::Result<()> {
        // SAFETY: dup2 on the child's own standard descriptors.
        if unsafe { libc::dup2(1, 2) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
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

    /// Sends `signal` to process group `pgid`; whether any process got it.
    pub(crate) fn signal_group(pgid: libc::pid_t, signal: libc::c_int) -> bool {
        if pgid <= 1 {
            return false;
        }
        // SAFETY: killpg only sends a signal; a stale group yields ESRCH.
        unsafe { libc::killpg(pgid, signal) == 0 }
    }

    pub(crate) fn group_alive(pgid: libc::pid_t) -> bool {
        signal_group(pgid, 0)
    }

    /// Kills the process group when dropped while armed: the tool's future
    /// was dropped mid-run. SIGTERM now, SIGKILL after the grace period on a
    /// helper thread (a destructor cannot wait).
    pub(crate) struct GroupGuard(pub(crate) Option<libc::pid_t>);

    impl GroupGuard {
        pub(crate) fn disarm(&mut self) {
            self.0 = None;
        }
    }

    impl Drop for GroupGuard {
        fn drop(&mut self) {
            let Some(pgid) = self.0.take() else {
                return;
            };
            if !signal_group(pgid, libc::SIGTERM) {
                return;
            }
            let killer = std::thread::Builder::new()
                .name("zut-group-kill".into())
                .spawn(move || {
                    let end = std::time::Instant::now() + BASH_KILL_GRACE;
                    while std::time::Instant::now() < end && group_alive(pgid) {
                        std::thread::sleep(POLL);
                    }
                    if group_alive(pgid) {
                        signal_group(pgid, libc::SIGKILL);
                    }
                });
            if killer.is_err() {
                signal_group(pgid, libc::SIGKILL);
            }
        }
    }
}

/// Incremental lossy UTF-8 decoding for progress chunks: a character split
/// across reads is held back until it is complete.
#[derive(Default)]
pub(crate) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub(crate) fn decode(&mut self, input: &[u8]) -> String {
        self.pending.extend_from_slice(input);
        let mut out = String::new();
        let mut pos = 0;
        while pos < self.pending.len() {
            match std::str::from_utf8(&self.pending[pos..]) {
                Ok(s) => {
                    out.push_str(s);
                    pos = self.pending.len();
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.pending[pos..pos + valid]));
                    match e.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            pos += valid + bad;
                        }
                        None => {
                            pos += valid;
                            break;
                        }
                    }
                }
            }
        }
        self.pending.drain(..pos);
        out
    }

    pub(crate) fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_stream_holds_split_characters() {
        let mut s = Utf8Stream::default();
        let bytes = "aé€😀".as_bytes();
        let mut out = String::new();
        for b in bytes {
            out.push_str(&s.decode(std::slice::from_ref(b)));
        }
        out.push_str(&s.finish());
        assert_eq!(out, "aé€😀");
        assert_eq!(s.decode(b"a\xffb"), "a\u{FFFD}b");
    }
}
