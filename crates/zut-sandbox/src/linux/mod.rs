//! Enforcement on Linux: Landlock, seccomp, `no_new_privs`, rlimits, a
//! network namespace, a pids cgroup. Everything that can allocate or fail
//! slowly happens in the parent ([`Enforcement::new`]); the forked child
//! only makes system calls ([`Enforcement::apply_in_child`]).

pub(crate) mod cgroup;
pub(crate) mod landlock_rules;
pub(crate) mod netns;
pub(crate) mod seccomp;

use std::os::fd::{AsRawFd, OwnedFd};

use crate::policy::{Network, Policy};

/// The type of `setrlimit`'s resource argument: glibc has its own enum
/// type, musl a plain `int`.
#[cfg(target_env = "gnu")]
type RlimitResource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type RlimitResource = libc::c_int;

/// A policy turned into kernel objects, ready to apply in any number of
/// children.
pub(crate) struct Enforcement {
    landlock: Option<OwnedFd>,
    seccomp: Vec<seccompiler::BpfProgram>,
    netns: Option<netns::Plan>,
    rlimits: Vec<(RlimitResource, u64)>,
    /// What is not enforced, said once by the caller.
    pub notes: Vec<String>,
}

impl Enforcement {
    pub(crate) fn new(policy: &Policy, proxy_port: Option<u16>) -> Result<Self, String> {
        let status = crate::status::status();
        let mut notes = Vec::new();
        let want_netns = matches!(policy.network, Network::None)
            || matches!(&policy.network, Network::Domains(d) if d.is_empty());
        let netns = if want_netns && status.netns {
            netns::Plan::new()
        } else {
            None
        };
        // With a private network namespace, loopback is the sandbox's own
        // and TCP needs no port rules (local test servers keep working).
        let tcp_rules = netns.is_none();
        let (landlock, cov) = landlock_rules::build(policy, proxy_port, tcp_rules)?;
        if landlock.is_none() {
            notes.push(status.line());
        }
        let net_confined = matches!(policy.network, Network::Any) || netns.is_some() || cov.tcp;
        if !net_confined {
            notes.push(format!(
                "network {} is not enforced here (no network namespace, Landlock ABI {} < 4)",
                policy.network.describe(),
                status.landlock_abi
            ));
        }
        let seccomp = if status.seccomp {
            seccomp::build(&seccomp::Options {
                lock_limits: policy.limits.any(),
                no_udp: !matches!(policy.network, Network::Any) && netns.is_none(),
            })?
            .unwrap_or_default()
        } else {
            notes.push("seccomp is not available: ptrace and namespaces are not filtered".into());
            Vec::new()
        };
        let l = &policy.limits;
        let mut rlimits = Vec::new();
        // RLIMIT_NPROC counts every process of the user (and does not bind
        // root): with a pids cgroup the cgroup bounds the tree instead,
        // without one the limit is the user's current count plus the
        // policy's.
        let nproc = if status.pids_cgroup.is_some() {
            None
        } else {
            l.max_processes.map(|m| m + user_process_count())
        };
        for (res, v) in [
            (libc::RLIMIT_NPROC, nproc),
            (libc::RLIMIT_AS, l.max_memory_bytes),
            (libc::RLIMIT_CPU, l.max_cpu_secs),
            (libc::RLIMIT_FSIZE, l.max_file_bytes),
            (libc::RLIMIT_NOFILE, l.max_open_files),
        ] {
            if let Some(v) = v {
                rlimits.push((res, v));
            }
        }
        Ok(Self {
            landlock,
            seccomp,
            netns,
            rlimits,
            notes,
        })
    }

    /// In the forked child, before exec: limits, cgroup, network
    /// namespace, `no_new_privs`, Landlock, seccomp — in that order (the
    /// namespace needs privileges the later steps take away).
    /// Async-signal-safe: system calls only, no allocation.
    pub(crate) fn apply_in_child(&self, cgroup: Option<&cgroup::Cgroup>) -> std::io::Result<()> {
        if let Some(cg) = cgroup {
            cg.join()?;
        }
        for &(res, v) in &self.rlimits {
            // Never raise: keep the lower of the inherited and the policy's.
            let mut cur = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit/setrlimit on a stack struct.
            unsafe {
                if libc::getrlimit(res, &mut cur) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let max = cur.rlim_max.min(v);
                let lim = libc::rlimit {
                    rlim_cur: cur.rlim_cur.min(max),
                    rlim_max: max,
                };
                if libc::setrlimit(res, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        if let Some(plan) = &self.netns {
            plan.enter()?;
        }
        // SAFETY: prctl sets a flag of this process.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if let Some(fd) = &self.landlock {
            // SAFETY: landlock_restrict_self with a ruleset descriptor the
            // parent created; it only restricts this process.
            let rc =
                unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) };
            if rc != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        for prog in &self.seccomp {
            seccompiler::apply_filter(prog)
                .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
        }
        Ok(())
    }
}

/// How many processes the real user runs now.
fn user_process_count() -> u64 {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid has no side effects.
    let uid = unsafe { libc::getuid() };
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                })
                .filter(|e| e.metadata().map(|m| m.uid() == uid).unwrap_or(false))
                .count() as u64
        })
        .unwrap_or(0)
}
